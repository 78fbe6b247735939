#include "CPipeWire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/video/type-info.h>
#include <spa/pod/builder.h>
#include <spa/utils/result.h>

#include "PipeWireShimInternal.h"

void ck_pw_init_once(void) {
    static int done = 0;
    if (!__atomic_exchange_n(&done, 1, __ATOMIC_SEQ_CST)) pw_init(NULL, NULL);
}

static void copy_string(char *target, size_t size, const char *value) {
    snprintf(target, size, "%s", value ? value : "");
}

static uint32_t pixels_of(uint32_t spa) {
    switch (spa) {
    case SPA_VIDEO_FORMAT_YUY2: return CK_PW_PIXELS_YUYV;
    case SPA_VIDEO_FORMAT_UYVY: return CK_PW_PIXELS_UYVY;
    case SPA_VIDEO_FORMAT_NV12: return CK_PW_PIXELS_NV12;
    case SPA_VIDEO_FORMAT_NV21: return CK_PW_PIXELS_NV21;
    case SPA_VIDEO_FORMAT_I420: return CK_PW_PIXELS_I420;
    case SPA_VIDEO_FORMAT_Y42B: return CK_PW_PIXELS_Y42B;
    case SPA_VIDEO_FORMAT_GRAY8: return CK_PW_PIXELS_GRAY8;
    case SPA_VIDEO_FORMAT_RGB: return CK_PW_PIXELS_RGB;
    case SPA_VIDEO_FORMAT_BGR: return CK_PW_PIXELS_BGR;
    case SPA_VIDEO_FORMAT_BGRA: return CK_PW_PIXELS_BGRA;
    case SPA_VIDEO_FORMAT_RGBA: return CK_PW_PIXELS_RGBA;
    default: return CK_PW_PIXELS_UNKNOWN;
    }
}

static uint32_t spa_of(uint32_t pixels) {
    switch (pixels) {
    case CK_PW_PIXELS_YUYV: return SPA_VIDEO_FORMAT_YUY2;
    case CK_PW_PIXELS_UYVY: return SPA_VIDEO_FORMAT_UYVY;
    case CK_PW_PIXELS_NV12: return SPA_VIDEO_FORMAT_NV12;
    case CK_PW_PIXELS_NV21: return SPA_VIDEO_FORMAT_NV21;
    case CK_PW_PIXELS_I420: return SPA_VIDEO_FORMAT_I420;
    case CK_PW_PIXELS_Y42B: return SPA_VIDEO_FORMAT_Y42B;
    case CK_PW_PIXELS_GRAY8: return SPA_VIDEO_FORMAT_GRAY8;
    case CK_PW_PIXELS_RGB: return SPA_VIDEO_FORMAT_RGB;
    case CK_PW_PIXELS_BGR: return SPA_VIDEO_FORMAT_BGR;
    case CK_PW_PIXELS_BGRA: return SPA_VIDEO_FORMAT_BGRA;
    case CK_PW_PIXELS_RGBA: return SPA_VIDEO_FORMAT_RGBA;
    default: return SPA_VIDEO_FORMAT_UNKNOWN;
    }
}

/* The values of a property: the choice kind and the values pod's array (default first). */
static const void *prop_values(const struct spa_pod *object, uint32_t key, uint32_t *kind, uint32_t *count, uint32_t *value_type) {
    const struct spa_pod_prop *prop = spa_pod_find_prop(object, NULL, key);
    if (prop == NULL) return NULL;
    uint32_t n = 0, choice = SPA_CHOICE_None;
    const struct spa_pod *values = spa_pod_get_values(&prop->value, &n, &choice);
    if (values == NULL || n == 0) return NULL;
    *kind = choice;
    *count = n;
    *value_type = SPA_POD_TYPE(values);
    return SPA_POD_BODY_CONST(values);
}

/* Appends the entries one EnumFormat object stands for: one per pixel layout and size. */
static void add_formats(ck_pw_camera *camera, const struct spa_pod *param) {
    uint32_t media_type = 0, media_subtype = 0;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0 || media_type != SPA_MEDIA_TYPE_video) return;
    uint32_t subtype = media_subtype == SPA_MEDIA_SUBTYPE_raw ? CK_PW_SUBTYPE_RAW
        : media_subtype == SPA_MEDIA_SUBTYPE_mjpg ? CK_PW_SUBTYPE_MJPEG
        : media_subtype == SPA_MEDIA_SUBTYPE_h264 ? CK_PW_SUBTYPE_H264 : CK_PW_SUBTYPE_OTHER;
    if (subtype == CK_PW_SUBTYPE_OTHER) return;

    uint32_t format_kind = SPA_CHOICE_None, format_count = 0, format_type = 0;
    const uint32_t *formats = NULL;
    uint32_t no_format = SPA_VIDEO_FORMAT_UNKNOWN;
    if (subtype == CK_PW_SUBTYPE_RAW) {
        formats = prop_values(param, SPA_FORMAT_VIDEO_format, &format_kind, &format_count, &format_type);
        if (formats == NULL || format_type != SPA_TYPE_Id) return;
    } else {
        formats = &no_format;
        format_count = 1;
    }
    uint32_t size_kind = SPA_CHOICE_None, size_count = 0, size_type = 0;
    const struct spa_rectangle *sizes = prop_values(param, SPA_FORMAT_VIDEO_size, &size_kind, &size_count, &size_type);
    if (sizes == NULL || size_type != SPA_TYPE_Rectangle) return;
    uint32_t rate_kind = SPA_CHOICE_None, rate_count = 0, rate_type = 0;
    const struct spa_fraction *rates = prop_values(param, SPA_FORMAT_VIDEO_framerate, &rate_kind, &rate_count, &rate_type);
    if (rates != NULL && rate_type != SPA_TYPE_Fraction) rates = NULL;

    /* In an Enum choice the first value is the default, repeated among the alternatives. */
    uint32_t first_format = format_kind == SPA_CHOICE_Enum && format_count > 1 ? 1 : 0;
    uint32_t first_size = size_kind == SPA_CHOICE_Enum && size_count > 1 ? 1 : 0;
    int size_range = size_kind == SPA_CHOICE_Range || size_kind == SPA_CHOICE_Step;
    for (uint32_t f = first_format; f < format_count; f++) {
        uint32_t pixels = subtype == CK_PW_SUBTYPE_RAW ? pixels_of(formats[f]) : CK_PW_PIXELS_UNKNOWN;
        if (subtype == CK_PW_SUBTYPE_RAW && pixels == CK_PW_PIXELS_UNKNOWN) continue;
        uint32_t size_end = size_range ? 1 : size_count;
        for (uint32_t s = size_range ? 0 : first_size; s < size_end; s++) {
            if (camera->format_count >= CK_PW_MAX_FORMATS) return;
            ck_pw_format *entry = &camera->formats[camera->format_count];
            memset(entry, 0, sizeof(*entry));
            entry->subtype = subtype;
            entry->pixels = pixels;
            entry->width = entry->min_width = entry->max_width = sizes[s].width;
            entry->height = entry->min_height = entry->max_height = sizes[s].height;
            if (size_range && size_count >= 3) {
                entry->min_width = sizes[1].width; entry->min_height = sizes[1].height;
                entry->max_width = sizes[2].width; entry->max_height = sizes[2].height;
            }
            if (rates != NULL && (rate_kind == SPA_CHOICE_Range || rate_kind == SPA_CHOICE_Step) && rate_count >= 3) {
                entry->rate_min_num = rates[1].num; entry->rate_min_den = rates[1].denom;
                entry->rate_max_num = rates[2].num; entry->rate_max_den = rates[2].denom;
                entry->rate_num[0] = rates[0].num; entry->rate_den[0] = rates[0].denom;
                entry->rate_count = 0;
            } else if (rates != NULL) {
                uint32_t first_rate = rate_kind == SPA_CHOICE_Enum && rate_count > 1 ? 1 : 0;
                for (uint32_t r = first_rate; r < rate_count && entry->rate_count < CK_PW_MAX_RATES; r++) {
                    if (rates[r].num == 0 || rates[r].denom == 0) continue;
                    entry->rate_num[entry->rate_count] = rates[r].num;
                    entry->rate_den[entry->rate_count] = rates[r].denom;
                    entry->rate_count++;
                }
            }
            camera->format_count++;
        }
    }
}

/* MARK: Listing */

struct port_ref {
    uint32_t node_id;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    size_t camera;
};

struct listing {
    struct pw_thread_loop *loop;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook core_listener, registry_listener;
    ck_pw_camera *cameras;
    size_t count, capacity;
    uint32_t port_ids[512], port_nodes[512];
    size_t port_count;
    int pending, done_seq, error;
};

static void listing_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                           const struct spa_dict *props) {
    struct listing *l = data;
    if (props == NULL) return;
    if (strcmp(type, PW_TYPE_INTERFACE_Node) == 0) {
        const char *klass = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
        if (klass == NULL || strcmp(klass, "Video/Source") != 0) return;
        if (l->count == l->capacity) {
            size_t capacity = l->capacity ? l->capacity * 2 : 4;
            ck_pw_camera *grown = realloc(l->cameras, capacity * sizeof(ck_pw_camera));
            if (grown == NULL) { l->error = -ENOMEM; return; }
            l->cameras = grown;
            l->capacity = capacity;
        }
        ck_pw_camera *camera = &l->cameras[l->count++];
        memset(camera, 0, sizeof(*camera));
        camera->id = id;
        const char *serial = spa_dict_lookup(props, PW_KEY_OBJECT_SERIAL);
        camera->serial = serial ? strtoull(serial, NULL, 10) : id;
        copy_string(camera->name, sizeof(camera->name), spa_dict_lookup(props, PW_KEY_NODE_NAME));
        const char *description = spa_dict_lookup(props, PW_KEY_NODE_DESCRIPTION);
        if (description == NULL) description = spa_dict_lookup(props, PW_KEY_NODE_NICK);
        copy_string(camera->description, sizeof(camera->description), description);
        copy_string(camera->media_role, sizeof(camera->media_role), spa_dict_lookup(props, PW_KEY_MEDIA_ROLE));
        copy_string(camera->object_path, sizeof(camera->object_path), spa_dict_lookup(props, PW_KEY_OBJECT_PATH));
        /* The node of a monitored device rarely repeats the device's api: its object path says
         * it ("v4l2:/dev/video0", "libcamera:…"). */
        const char *api = spa_dict_lookup(props, PW_KEY_DEVICE_API);
        const char *colon = strchr(camera->object_path, ':');
        if (api == NULL && colon != NULL && (size_t)(colon - camera->object_path) < sizeof(camera->device_api))
            snprintf(camera->device_api, sizeof(camera->device_api), "%.*s", (int)(colon - camera->object_path), camera->object_path);
        else
            copy_string(camera->device_api, sizeof(camera->device_api), api);
        pw_thread_loop_signal(l->loop, false);
    } else if (strcmp(type, PW_TYPE_INTERFACE_Port) == 0) {
        const char *direction = spa_dict_lookup(props, PW_KEY_PORT_DIRECTION);
        const char *node = spa_dict_lookup(props, PW_KEY_NODE_ID);
        if (direction == NULL || node == NULL || strcmp(direction, "out") != 0 || l->port_count >= 512) return;
        l->port_ids[l->port_count] = id;
        l->port_nodes[l->port_count] = (uint32_t)strtoul(node, NULL, 10);
        l->port_count++;
    }
}

static const struct pw_registry_events listing_registry_events = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = listing_global,
};

static void listing_done(void *data, uint32_t id, int seq) {
    struct listing *l = data;
    if (id == PW_ID_CORE && seq == l->pending) {
        l->done_seq = seq;
        pw_thread_loop_signal(l->loop, false);
    }
}

static void listing_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct listing *l = data;
    if (id == PW_ID_CORE) {
        l->error = res < 0 ? res : -EIO;
        pw_thread_loop_signal(l->loop, false);
    }
}

static const struct pw_core_events listing_core_events = {
    PW_VERSION_CORE_EVENTS,
    .done = listing_done,
    .error = listing_core_error,
};

/* Whose formats a node's or a port's EnumFormat answers are. */
struct param_listening {
    struct listing *listing;
    size_t camera;
};

static void camera_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param) {
    struct param_listening *p = data;
    if (id == SPA_PARAM_EnumFormat && param != NULL) add_formats(&p->listing->cameras[p->camera], param);
}

static const struct pw_port_events port_events = {
    PW_VERSION_PORT_EVENTS,
    .param = camera_param,
};

static const struct pw_node_events node_events = {
    PW_VERSION_NODE_EVENTS,
    .param = camera_param,
};

/* Waits (loop locked) until the core answers the last sync or the deadline passes. */
static int listing_roundtrip(struct listing *l, int timeout_ms) {
    l->pending = pw_core_sync(l->core, PW_ID_CORE, l->pending);
    struct timespec deadline;
    pw_thread_loop_get_time(l->loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
    while (l->done_seq != l->pending && l->error == 0) {
        if (pw_thread_loop_timed_wait_full(l->loop, &deadline) != 0) return -ETIMEDOUT;
    }
    return l->error;
}

struct pw_core *ck_pw_connect_core(struct pw_context *context, int fd) {
    if (fd >= 0) {
        int copy = dup(fd);
        if (copy < 0) return NULL;
        return pw_context_connect_fd(context, copy, NULL, 0);
    }
    return pw_context_connect(context, NULL, 0);
}

int ck_pw_list_cameras(int fd, int timeout_ms, int camera_wait_ms, ck_pw_camera **cameras, size_t *count) {
    ck_pw_init_once();
    *cameras = NULL;
    *count = 0;
    struct listing l;
    memset(&l, 0, sizeof(l));
    l.loop = pw_thread_loop_new("ck-pw-list", NULL);
    if (l.loop == NULL) return -ENOMEM;
    struct pw_context *context = pw_context_new(pw_thread_loop_get_loop(l.loop), NULL, 0);
    if (context == NULL) { pw_thread_loop_destroy(l.loop); return -ENOMEM; }
    if (pw_thread_loop_start(l.loop) < 0) { pw_context_destroy(context); pw_thread_loop_destroy(l.loop); return -EIO; }
    pw_thread_loop_lock(l.loop);
    int result = 0;
    /* Every camera node, then the output ports of those that gave no format: a camera's formats
     * are the node's own EnumFormat (V4L2 and libcamera nodes and pw_stream sources answer it,
     * and it is all a Camera-portal connection may read: such a connection sees no ports), else
     * its ports' (a bare SPA source such as videotestsrc answers only there). */
    size_t slots = l.count + l.port_count + 1;
    struct pw_proxy **proxies = NULL;
    struct param_listening *listening = NULL;
    struct spa_hook *hooks = NULL;
    size_t bound = 0, listed = 0;
    l.core = ck_pw_connect_core(context, fd);
    if (l.core == NULL) {
        result = errno == ENOENT || errno == ECONNREFUSED || errno == 0 ? -EHOSTDOWN : -errno;
        goto out;
    }
    pw_core_add_listener(l.core, &l.core_listener, &listing_core_events, &l);
    l.registry = pw_core_get_registry(l.core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(l.registry, &l.registry_listener, &listing_registry_events, &l);
    if ((result = listing_roundtrip(&l, timeout_ms)) != 0) goto out;
    if (camera_wait_ms > 0 && l.count == 0) {
        struct timespec deadline;
        pw_thread_loop_get_time(l.loop, &deadline, (int64_t)camera_wait_ms * SPA_NSEC_PER_MSEC);
        while (l.count == 0 && l.error == 0) {
            if (pw_thread_loop_timed_wait_full(l.loop, &deadline) != 0) break;
        }
        /* The camera's ports and anything else announced with it. */
        if ((result = listing_roundtrip(&l, timeout_ms)) != 0) goto out;
    }

    /* Cameras announced from here on (permissions granted meanwhile) are left to the next
     * listing: their formats would not be asked for. */
    listed = l.count;
    slots = l.count + l.port_count + 1;
    proxies = calloc(slots, sizeof(*proxies));
    listening = calloc(slots, sizeof(*listening));
    hooks = calloc(slots, sizeof(*hooks));
    if (proxies == NULL || listening == NULL || hooks == NULL) { result = -ENOMEM; goto out; }
    for (size_t c = 0; c < listed; c++) {
        struct pw_node *node = pw_registry_bind(l.registry, l.cameras[c].id, PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, 0);
        if (node == NULL) continue;
        proxies[bound] = (struct pw_proxy *)node;
        listening[bound] = (struct param_listening){ &l, c };
        pw_node_add_listener(node, &hooks[bound], &node_events, &listening[bound]);
        pw_node_enum_params(node, 0, SPA_PARAM_EnumFormat, 0, UINT32_MAX, NULL);
        bound++;
    }
    if ((result = listing_roundtrip(&l, timeout_ms)) != 0) goto out;
    for (size_t p = 0; p < l.port_count; p++) {
        for (size_t c = 0; c < listed; c++) {
            if (l.cameras[c].id != l.port_nodes[p] || l.cameras[c].format_count > 0) continue;
            struct pw_port *port = pw_registry_bind(l.registry, l.port_ids[p], PW_TYPE_INTERFACE_Port, PW_VERSION_PORT, 0);
            if (port == NULL) continue;
            proxies[bound] = (struct pw_proxy *)port;
            listening[bound] = (struct param_listening){ &l, c };
            pw_port_add_listener(port, &hooks[bound], &port_events, &listening[bound]);
            pw_port_enum_params(port, 0, SPA_PARAM_EnumFormat, 0, UINT32_MAX, NULL);
            bound++;
        }
    }
    result = listing_roundtrip(&l, timeout_ms);
out:
    for (size_t i = 0; i < bound; i++) {
        spa_hook_remove(&hooks[i]);
        pw_proxy_destroy(proxies[i]);
    }
    if (l.registry) { spa_hook_remove(&l.registry_listener); pw_proxy_destroy((struct pw_proxy *)l.registry); }
    if (l.core) { spa_hook_remove(&l.core_listener); pw_core_disconnect(l.core); }
    pw_thread_loop_unlock(l.loop);
    pw_thread_loop_stop(l.loop);
    pw_context_destroy(context);
    pw_thread_loop_destroy(l.loop);
    free(proxies);
    free(listening);
    free(hooks);
    if (result != 0) {
        free(l.cameras);
        return result;
    }
    *cameras = l.cameras;
    *count = listed;
    return 0;
}

void ck_pw_free(void *pointer) { free(pointer); }

/* MARK: Streams */

struct ck_pw_stream {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct spa_hook stream_listener;
    ck_pw_frame_callback on_frame;
    ck_pw_state_callback on_state;
    void *user;
    uint64_t sequence;
    ck_pw_format negotiated;
    int has_format;
};

static void stream_state(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    struct ck_pw_stream *s = data;
    if (s->on_state) s->on_state(s->user, (int)state, error);
}

static void stream_param(void *data, uint32_t id, const struct spa_pod *param) {
    struct ck_pw_stream *s = data;
    if (param == NULL || id != SPA_PARAM_Format) return;
    uint32_t media_type = 0, media_subtype = 0;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0 || media_type != SPA_MEDIA_TYPE_video) return;
    ck_pw_camera one;
    one.format_count = 0;
    add_formats(&one, param);
    if (one.format_count > 0) {
        s->negotiated = one.formats[0];
        s->has_format = 1;
    }
    /* Ask for the header meta: it carries the capture time and sequence number. */
    uint8_t buffer[512];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[2];
    uint32_t count = 0;
    params[count++] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
                                                 SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
                                                 SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
    /* A compressed frame's size is the producer's guess; one that guesses from nothing (a
       GStreamer pipewiresink gives 8 KiB) cuts every JPEG short. Propose room for two bytes a
       pixel, more than any camera's JPEG of the frame takes, but accept any size a producer
       fixes (a V4L2 node's sizeimage), so negotiation never fails over it. */
    if (s->has_format && s->negotiated.subtype != CK_PW_SUBTYPE_RAW) {
        int32_t room = (int32_t)SPA_MIN((uint64_t)s->negotiated.width * s->negotiated.height * 2, (uint64_t)INT32_MAX);
        params[count++] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
                                                     SPA_PARAM_BUFFERS_size, SPA_POD_CHOICE_RANGE_Int(room, 1, INT32_MAX));
    }
    pw_stream_update_params(s->stream, params, count);
}

static void stream_process(void *data) {
    struct ck_pw_stream *s = data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (b == NULL) return;
    struct spa_buffer *buffer = b->buffer;
    if (buffer->n_datas > 0) {
        struct spa_data *d = &buffer->datas[0];
        struct spa_meta_header *h = spa_buffer_find_meta_data(buffer, SPA_META_Header, sizeof(*h));
        int64_t pts = h != NULL ? h->pts : -1;
        uint64_t sequence = h != NULL ? h->seq : s->sequence;
        s->sequence++;
        int corrupted = h != NULL && (h->flags & SPA_META_HEADER_FLAG_CORRUPTED) != 0;
        if (d->data != NULL && d->chunk != NULL && !corrupted && (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED) == 0) {
            uint32_t offset = d->chunk->offset % (d->maxsize ? d->maxsize : 1);
            uint32_t size = SPA_MIN(d->chunk->size, d->maxsize - offset);
            s->on_frame(s->user, (const uint8_t *)d->data + offset, size, d->chunk->stride, pts, sequence,
                        d->type == SPA_DATA_DmaBuf ? (int)d->fd : -1);
        }
    }
    pw_stream_queue_buffer(s->stream, b);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = stream_state,
    .param_changed = stream_param,
    .process = stream_process,
};

ck_pw_stream *ck_pw_stream_open(int fd, uint64_t serial, const ck_pw_format *format,
                                ck_pw_frame_callback on_frame, ck_pw_state_callback on_state, void *user,
                                char *error, size_t error_size) {
    ck_pw_init_once();
    struct ck_pw_stream *s = calloc(1, sizeof(*s));
    if (s == NULL) { snprintf(error, error_size, "out of memory"); return NULL; }
    s->on_frame = on_frame;
    s->on_state = on_state;
    s->user = user;
    s->loop = pw_thread_loop_new("ck-pw-stream", NULL);
    if (s->loop == NULL) { snprintf(error, error_size, "pw_thread_loop_new failed"); free(s); return NULL; }
    s->context = pw_context_new(pw_thread_loop_get_loop(s->loop), NULL, 0);
    if (s->context == NULL || pw_thread_loop_start(s->loop) < 0) {
        snprintf(error, error_size, "pw_context_new failed");
        if (s->context) pw_context_destroy(s->context);
        pw_thread_loop_destroy(s->loop);
        free(s);
        return NULL;
    }
    pw_thread_loop_lock(s->loop);
    s->core = ck_pw_connect_core(s->context, fd);
    if (s->core == NULL) {
        snprintf(error, error_size, "cannot connect to PipeWire: %s", strerror(errno));
        goto fail;
    }
    char target[32];
    snprintf(target, sizeof(target), "%llu", (unsigned long long)serial);
    struct pw_properties *props = pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                    PW_KEY_MEDIA_ROLE, "Camera", PW_KEY_TARGET_OBJECT, target,
                                                    PW_KEY_NODE_DONT_RECONNECT, "true", NULL);
    s->stream = pw_stream_new(s->core, "CaptureKit", props);
    if (s->stream == NULL) { snprintf(error, error_size, "pw_stream_new failed: %s", strerror(errno)); goto fail; }
    pw_stream_add_listener(s->stream, &s->stream_listener, &stream_events, s);

    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    struct spa_rectangle size = SPA_RECTANGLE(format->width, format->height);
    struct spa_fraction rate = SPA_FRACTION(format->rate_num[0], format->rate_den[0] ? format->rate_den[0] : 1);
    if (format->subtype == CK_PW_SUBTYPE_RAW) {
        params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
                                               SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
                                               SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
                                               SPA_FORMAT_VIDEO_format, SPA_POD_Id(spa_of(format->pixels)),
                                               SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&size),
                                               SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&rate));
    } else {
        params[0] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
                                               SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
                                               SPA_FORMAT_mediaSubtype, SPA_POD_Id(format->subtype == CK_PW_SUBTYPE_MJPEG
                                                                                       ? SPA_MEDIA_SUBTYPE_mjpg : SPA_MEDIA_SUBTYPE_h264),
                                               SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&size),
                                               SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&rate));
    }
    int res = pw_stream_connect(s->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                                PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, params, 1);
    if (res < 0) { snprintf(error, error_size, "pw_stream_connect failed: %s", spa_strerror(res)); goto fail; }
    pw_thread_loop_unlock(s->loop);
    return s;
fail:
    if (s->stream) { spa_hook_remove(&s->stream_listener); pw_stream_destroy(s->stream); }
    if (s->core) pw_core_disconnect(s->core);
    pw_thread_loop_unlock(s->loop);
    pw_thread_loop_stop(s->loop);
    pw_context_destroy(s->context);
    pw_thread_loop_destroy(s->loop);
    free(s);
    return NULL;
}

int ck_pw_stream_format(ck_pw_stream *s, ck_pw_format *format) {
    pw_thread_loop_lock(s->loop);
    int known = s->has_format;
    if (known) *format = s->negotiated;
    pw_thread_loop_unlock(s->loop);
    return known;
}

void ck_pw_stream_close(ck_pw_stream *s) {
    if (s == NULL) return;
    pw_thread_loop_lock(s->loop);
    spa_hook_remove(&s->stream_listener);
    pw_stream_disconnect(s->stream);
    pw_stream_destroy(s->stream);
    pw_core_disconnect(s->core);
    pw_thread_loop_unlock(s->loop);
    pw_thread_loop_stop(s->loop);
    pw_context_destroy(s->context);
    pw_thread_loop_destroy(s->loop);
    free(s);
}

/* MARK: Monitor */

struct ck_pw_monitor {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook registry_listener;
    ck_pw_change_callback on_change;
    void *user;
    uint32_t cameras[256];
    size_t count;
};

static void monitor_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version,
                           const struct spa_dict *props) {
    struct ck_pw_monitor *m = data;
    if (props == NULL || strcmp(type, PW_TYPE_INTERFACE_Node) != 0) return;
    const char *klass = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    if (klass == NULL || strcmp(klass, "Video/Source") != 0 || m->count >= 256) return;
    m->cameras[m->count++] = id;
    m->on_change(m->user, id, 1);
}

static void monitor_global_remove(void *data, uint32_t id) {
    struct ck_pw_monitor *m = data;
    for (size_t i = 0; i < m->count; i++) {
        if (m->cameras[i] != id) continue;
        m->cameras[i] = m->cameras[--m->count];
        m->on_change(m->user, id, 0);
        return;
    }
}

static const struct pw_registry_events monitor_events = {
    PW_VERSION_REGISTRY_EVENTS,
    .global = monitor_global,
    .global_remove = monitor_global_remove,
};

ck_pw_monitor *ck_pw_monitor_open(int fd, ck_pw_change_callback on_change, void *user) {
    ck_pw_init_once();
    struct ck_pw_monitor *m = calloc(1, sizeof(*m));
    if (m == NULL) return NULL;
    m->on_change = on_change;
    m->user = user;
    m->loop = pw_thread_loop_new("ck-pw-monitor", NULL);
    if (m->loop == NULL) { free(m); return NULL; }
    m->context = pw_context_new(pw_thread_loop_get_loop(m->loop), NULL, 0);
    if (m->context == NULL || pw_thread_loop_start(m->loop) < 0) {
        if (m->context) pw_context_destroy(m->context);
        pw_thread_loop_destroy(m->loop);
        free(m);
        return NULL;
    }
    pw_thread_loop_lock(m->loop);
    m->core = ck_pw_connect_core(m->context, fd);
    if (m->core != NULL) {
        m->registry = pw_core_get_registry(m->core, PW_VERSION_REGISTRY, 0);
        pw_registry_add_listener(m->registry, &m->registry_listener, &monitor_events, m);
    }
    pw_thread_loop_unlock(m->loop);
    if (m->core == NULL) {
        pw_thread_loop_stop(m->loop);
        pw_context_destroy(m->context);
        pw_thread_loop_destroy(m->loop);
        free(m);
        return NULL;
    }
    return m;
}

void ck_pw_monitor_close(ck_pw_monitor *m) {
    if (m == NULL) return;
    pw_thread_loop_lock(m->loop);
    spa_hook_remove(&m->registry_listener);
    pw_proxy_destroy((struct pw_proxy *)m->registry);
    pw_core_disconnect(m->core);
    pw_thread_loop_unlock(m->loop);
    pw_thread_loop_stop(m->loop);
    pw_context_destroy(m->context);
    pw_thread_loop_destroy(m->loop);
    free(m);
}
