#include "CPipeWire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <spa/utils/result.h>

#include "PipeWireShimInternal.h"

struct ck_pw_audio {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct spa_hook stream_listener;
    struct spa_hook core_listener;
    ck_pw_audio_callback on_audio;
    ck_pw_state_callback on_state;
    void *user;
    uint32_t rate;
    uint32_t frame_bytes;
};

static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * SPA_NSEC_PER_SEC + now.tv_nsec;
}

static void audio_state(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    struct ck_pw_audio *a = data;
    if (a->on_state) a->on_state(a->user, (int)state, error);
}

/* The daemon went away: the stream's own state may not say so before the loop is torn down. */
static void audio_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct ck_pw_audio *a = data;
    if (id == PW_ID_CORE && res == -EPIPE && a->on_state) a->on_state(a->user, PW_STREAM_STATE_ERROR, "the PipeWire daemon went away");
}

static const struct pw_core_events audio_core_events = {
    PW_VERSION_CORE_EVENTS,
    .error = audio_core_error,
};

/* On the data thread (PW_STREAM_FLAG_RT_PROCESS): no hop through the loop's thread, as pw-cat. */
static void audio_process(void *data) {
    struct ck_pw_audio *a = data;
    struct pw_buffer *b;
    while ((b = pw_stream_dequeue_buffer(a->stream)) != NULL) {
        struct spa_buffer *buffer = b->buffer;
        struct spa_data *d = buffer->n_datas > 0 ? &buffer->datas[0] : NULL;
        if (d != NULL && d->data != NULL && d->chunk != NULL) {
            uint32_t offset = SPA_MIN(d->chunk->offset, d->maxsize);
            uint32_t size = SPA_MIN(d->chunk->size, d->maxsize - offset);
            uint32_t frames = size / a->frame_bytes;
            int64_t read = monotonic_ns();
            int64_t captured = -1;
            struct pw_time time;
            if (frames > 0 && pw_stream_get_time_n(a->stream, &time, sizeof(time)) == 0 && time.now > 0 && time.rate.denom > 0) {
                int64_t delay = time.delay * (int64_t)SPA_NSEC_PER_SEC * time.rate.num / time.rate.denom;
                int64_t held = ((int64_t)time.buffered + frames) * (int64_t)SPA_NSEC_PER_SEC / a->rate;
                captured = time.now - delay - held;
            }
            if (frames > 0) a->on_audio(a->user, (const uint8_t *)d->data + offset, frames, captured, read);
        }
        pw_stream_queue_buffer(a->stream, b);
    }
}

static const struct pw_stream_events audio_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = audio_state,
    .process = audio_process,
};

static uint32_t spa_audio_format_of(uint32_t format, uint32_t *bytes) {
    switch (format) {
    case CK_PW_AUDIO_S16: *bytes = 2; return SPA_AUDIO_FORMAT_S16_LE;
    case CK_PW_AUDIO_S32: *bytes = 4; return SPA_AUDIO_FORMAT_S32_LE;
    case CK_PW_AUDIO_F32: *bytes = 4; return SPA_AUDIO_FORMAT_F32_LE;
    default: *bytes = 0; return SPA_AUDIO_FORMAT_UNKNOWN;
    }
}

static void audio_free(struct ck_pw_audio *a) {
    pw_thread_loop_stop(a->loop);
    if (a->context) pw_context_destroy(a->context);
    pw_thread_loop_destroy(a->loop);
    free(a);
}

ck_pw_audio *ck_pw_audio_open(int fd, const char *target, int capture_sink, uint32_t rate, uint32_t channels,
                              uint32_t sample_format, uint32_t latency_frames, ck_pw_audio_callback on_audio,
                              ck_pw_state_callback on_state, void *user, char *error, size_t error_size) {
    ck_pw_init_once();
    uint32_t sample_bytes = 0;
    uint32_t spa_format = spa_audio_format_of(sample_format, &sample_bytes);
    if (spa_format == SPA_AUDIO_FORMAT_UNKNOWN || rate == 0 || (channels != 1 && channels != 2)) {
        snprintf(error, error_size, "unsupported audio format");
        return NULL;
    }
    struct ck_pw_audio *a = calloc(1, sizeof(*a));
    if (a == NULL) { snprintf(error, error_size, "out of memory"); return NULL; }
    a->on_audio = on_audio;
    a->on_state = on_state;
    a->user = user;
    a->rate = rate;
    a->frame_bytes = sample_bytes * channels;
    a->loop = pw_thread_loop_new("ck-pw-audio", NULL);
    if (a->loop == NULL) { snprintf(error, error_size, "pw_thread_loop_new failed"); free(a); return NULL; }
    a->context = pw_context_new(pw_thread_loop_get_loop(a->loop), NULL, 0);
    if (a->context == NULL || pw_thread_loop_start(a->loop) < 0) {
        snprintf(error, error_size, "pw_context_new failed");
        audio_free(a);
        return NULL;
    }
    pw_thread_loop_lock(a->loop);
    a->core = ck_pw_connect_core(a->context, fd);
    if (a->core == NULL) {
        snprintf(error, error_size, "cannot connect to PipeWire: %s", strerror(errno));
        goto fail;
    }
    pw_core_add_listener(a->core, &a->core_listener, &audio_core_events, a);
    char latency[32];
    snprintf(latency, sizeof(latency), "%u/%u", latency_frames ? latency_frames : rate / 100, rate);
    struct pw_properties *props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                    PW_KEY_TARGET_OBJECT, target, PW_KEY_NODE_DONT_RECONNECT, "true",
                                                    PW_KEY_NODE_LATENCY, latency, PW_KEY_NODE_NAME, "CaptureKit",
                                                    PW_KEY_STREAM_CAPTURE_SINK, capture_sink ? "true" : "false", NULL);
    a->stream = pw_stream_new(a->core, "CaptureKit capture", props);
    if (a->stream == NULL) { snprintf(error, error_size, "pw_stream_new failed: %s", strerror(errno)); goto fail; }
    pw_stream_add_listener(a->stream, &a->stream_listener, &audio_events, a);

    uint8_t pod[512];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(pod, sizeof(pod));
    struct spa_audio_info_raw info = { .format = spa_format, .rate = rate, .channels = channels };
    if (channels == 1) {
        info.position[0] = SPA_AUDIO_CHANNEL_MONO;
    } else {
        info.position[0] = SPA_AUDIO_CHANNEL_FL;
        info.position[1] = SPA_AUDIO_CHANNEL_FR;
    }
    const struct spa_pod *params[1] = { spa_format_audio_raw_build(&b, SPA_PARAM_EnumFormat, &info) };
    int res = pw_stream_connect(a->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                                PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    if (res < 0) { snprintf(error, error_size, "pw_stream_connect failed: %s", spa_strerror(res)); goto fail; }
    pw_thread_loop_unlock(a->loop);
    return a;
fail:
    if (a->stream) { spa_hook_remove(&a->stream_listener); pw_stream_destroy(a->stream); }
    if (a->core) { spa_hook_remove(&a->core_listener); pw_core_disconnect(a->core); }
    pw_thread_loop_unlock(a->loop);
    audio_free(a);
    return NULL;
}

void ck_pw_audio_close(ck_pw_audio *a) {
    if (a == NULL) return;
    pw_thread_loop_lock(a->loop);
    spa_hook_remove(&a->stream_listener);
    spa_hook_remove(&a->core_listener);
    /* Joins the data thread's use of the stream: no process callback runs after this. */
    pw_stream_disconnect(a->stream);
    pw_stream_destroy(a->stream);
    pw_core_disconnect(a->core);
    pw_thread_loop_unlock(a->loop);
    audio_free(a);
}
