#include "CPipeWire.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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
    uint32_t camera_factories[256];      /* each camera's factory.id (SPA_ID_INVALID: none), by index */
    uint32_t factory_ids[128];           /* the factories this connection sees */
    uint8_t factory_is_client_node[128];
    size_t factory_count;
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
        const char *factory = spa_dict_lookup(props, PW_KEY_FACTORY_ID);
        if (l->count <= 256) l->camera_factories[l->count - 1] = factory ? (uint32_t)strtoul(factory, NULL, 10) : SPA_ID_INVALID;
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
    } else if (strcmp(type, PW_TYPE_INTERFACE_Factory) == 0) {
        const char *name = spa_dict_lookup(props, PW_KEY_FACTORY_NAME);
        if (l->factory_count < 128) {
            l->factory_ids[l->factory_count] = id;
            l->factory_is_client_node[l->factory_count++] = name != NULL && strcmp(name, "client-node") == 0;
        }
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
    /* Frames are lent by reference only from nodes the daemon made from a factory (a device
       monitor's camera, a SPA source): their buffers come back on every graph cycle. Another
       client's stream (no factory; GStreamer's pipewiresink, say) may stop producing while a
       consumer keeps any of its buffers, so its frames are copied, as are those of a node whose
       factory this connection cannot see (a Camera portal's restricted one). */
    for (size_t i = 0; i < l.count; i++) {
        uint32_t factory = i < 256 ? l.camera_factories[i] : SPA_ID_INVALID;
        int lend = 0;
        for (size_t f = 0; f < l.factory_count && !lend; f++) {
            if (l.factory_ids[f] == factory) lend = !l.factory_is_client_node[f];
        }
        l.cameras[i].lends_buffers = lend;
    }
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

/* The most buffers a stream keeps track of; PipeWire's own limit is 64. */
#define CK_PW_MAX_BUFFERS 64
/* Buffers that stay in circulation however many frames are kept. A buffer given back reaches
   the producer only in a later graph cycle, one per cycle, so a camera (a V4L2 node) needs a
   few spare ones to keep a buffer in the driver when frames arrive unevenly. */
#define CK_PW_MIN_QUEUED 4
/* How many buffers a stream asks for: room to keep frames by reference and still leave the
   producer CK_PW_MIN_QUEUED. */
#define CK_PW_WANTED_BUFFERS 8

struct ck_pw_frame {
    struct ck_pw_stream *stream;
    struct pw_buffer *buffer;     /* NULL once the stream let the buffer go */
    void *map;
    size_t map_size;
    uint8_t *base;                /* the data's start inside the mapping */
    int dmabuf_fd;                /* a duplicate the frame owns, or -1 */
    uint64_t dmabuf_offset, dmabuf_length;
    int lent;
    int refs;                     /* one while attached to the stream, one while lent */
};

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
    /* Lending. The loop's lock comes first where both are taken. A kept frame gives its buffer
       back from any thread, and pw_stream_queue_buffer has a single-producer queue, so every
       queueing goes through `lend_lock`, as do the counts and the frames' attachment. */
    pthread_mutex_t lend_lock;
    ck_pw_frame *frames[CK_PW_MAX_BUFFERS];
    int frame_count;
    int lent_count;
    int may_lend;                 /* the node's buffers come back every cycle (lends_buffers) */
    int closing;                  /* set once closing (under the loop's lock): no more callbacks */
    int refs;                     /* one while open, one per lent frame */
};

static void frame_free(ck_pw_frame *f) {
    munmap(f->map, f->map_size);
    if (f->dmabuf_fd >= 0) close(f->dmabuf_fd);
    free(f);
}

static void stream_memory_free(struct ck_pw_stream *s) {
    pthread_mutex_destroy(&s->lend_lock);
    free(s);
}

/* Drops one reference each from `f` and `s` (either may be NULL), freeing what is left unheld.
   Takes the lend lock. */
static void lend_unref(struct ck_pw_stream *s, ck_pw_frame *f, int frame_refs, int stream_refs) {
    pthread_mutex_lock(&s->lend_lock);
    int frame_gone = f != NULL && (f->refs -= frame_refs) == 0;
    int stream_gone = (s->refs -= stream_refs) == 0;
    pthread_mutex_unlock(&s->lend_lock);
    if (frame_gone) frame_free(f);
    if (stream_gone) stream_memory_free(s);
}

/* The stream no longer has `f`'s buffer (removed, or the stream closing): a frame kept from it
   stays mapped until released. Under the lend lock. */
static void frame_detach_locked(struct ck_pw_stream *s, ck_pw_frame *f) {
    for (int i = 0; i < s->frame_count; i++) {
        if (s->frames[i] == f) { s->frames[i] = s->frames[--s->frame_count]; break; }
    }
    if (f->lent) s->lent_count--;
    f->buffer = NULL;
}

static void queue_locked(struct ck_pw_stream *s, struct pw_buffer *b) {
    if (s->stream != NULL) pw_stream_queue_buffer(s->stream, b);
}

void ck_pw_frame_release(ck_pw_frame *f) {
    if (f == NULL) return;
    struct ck_pw_stream *s = f->stream;
    pthread_mutex_lock(&s->lend_lock);
    if (f->buffer != NULL) {
        queue_locked(s, f->buffer);
        s->lent_count--;
    }
    f->lent = 0;
    pthread_mutex_unlock(&s->lend_lock);
    lend_unref(s, f, 1, 1);
}

/* Where a MemPtr buffer's data lies: in a block of the connection's memory pool (a memfd) that
   PipeWire maps a buffer at a time and unmaps when it clears the buffers or the stream closes.
   The pool names the block; the process's own map of its address space (/proc/self/maps, the
   one interface that turns an address into a file offset) says where in the block the mapping
   holding the data starts. Read once per buffer, when PipeWire hands the buffers over. */
static int memptr_location(struct ck_pw_stream *s, const struct spa_data *d, int *fd, uint64_t *offset) {
    struct pw_mempool *pool = pw_core_get_mempool(s->core);
    struct pw_memblock *block = pool != NULL ? pw_mempool_find_ptr(pool, d->data) : NULL;
    struct stat status;
    if (block == NULL || block->fd < 0 || block->type != SPA_DATA_MemFd || fstat(block->fd, &status) != 0) return 0;
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return 0;
    uintptr_t address = (uintptr_t)d->data;
    int found = 0;
    char line[512];
    while (!found && fgets(line, sizeof(line), maps) != NULL) {
        unsigned long start, end, file_offset, inode;
        if (sscanf(line, "%lx-%lx %*s %lx %*s %lu", &start, &end, &file_offset, &inode) != 4) continue;
        if (address < start || address + d->maxsize > end) continue;
        /* The mapping must be of the block's file, or the offset means nothing. */
        found = inode == (unsigned long)status.st_ino;
        if (found) {
            *fd = block->fd;
            *offset = file_offset + (address - start);
        }
        break;
    }
    fclose(maps);
    return found;
}

/* A buffer the shim could not map: one PipeWire mapped (MemPtr) is read in place and copied;
   one only a descriptor reaches could never be read, so the stream fails, saying why, rather
   than lose every frame in it unseen. */
static void buffer_unmapped(struct ck_pw_stream *s, const struct spa_data *d, int error) {
    if (d->data == NULL) pw_stream_set_error(s->stream, -error, "cannot map the camera's buffer: %s", strerror(error));
}

/* Maps the buffer's memory (a memfd, a DMA-BUF, or the pool block a MemPtr lies in) for the
   shim itself, so that its lifetime is the frame's rather than PipeWire's. */
static void stream_add_buffer(void *data, struct pw_buffer *b) {
    struct ck_pw_stream *s = data;
    b->user_data = NULL;
    if (b->buffer->n_datas == 0) return;
    struct spa_data *d = &b->buffer->datas[0];
    int fd = -1;
    uint64_t location = 0;
    if ((d->type == SPA_DATA_MemFd || d->type == SPA_DATA_DmaBuf) && d->fd >= 0) {
        fd = (int)d->fd;
        location = d->mapoffset;
    } else if (d->type != SPA_DATA_MemPtr || d->data == NULL || !memptr_location(s, d, &fd, &location)) {
        return;
    }
    if (d->maxsize == 0) return;
    long page = sysconf(_SC_PAGESIZE);
    uint64_t aligned = location - location % (uint64_t)(page > 0 ? page : 4096);
    size_t size = d->maxsize + (location - aligned);
    /* Read-only, as PipeWire hands a consumer its buffers: nothing writes a delivered frame. */
    void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, (off_t)aligned);
    if (map == MAP_FAILED) { buffer_unmapped(s, d, errno); return; }
    ck_pw_frame *f = calloc(1, sizeof(*f));
    if (f == NULL) { munmap(map, size); buffer_unmapped(s, d, ENOMEM); return; }
    f->stream = s;
    f->buffer = b;
    f->map = map;
    f->map_size = size;
    f->base = (uint8_t *)map + (location - aligned);
    f->dmabuf_fd = -1;
    if (d->type == SPA_DATA_DmaBuf) {
        f->dmabuf_fd = fcntl((int)d->fd, F_DUPFD_CLOEXEC, 0);
        off_t end = f->dmabuf_fd >= 0 ? lseek(f->dmabuf_fd, 0, SEEK_END) : -1;
        f->dmabuf_offset = d->mapoffset;
        f->dmabuf_length = end > 0 ? (uint64_t)end : d->mapoffset + d->maxsize;
    }
    f->refs = 1;
    pthread_mutex_lock(&s->lend_lock);
    int room = s->frame_count < CK_PW_MAX_BUFFERS;
    if (room) s->frames[s->frame_count++] = f;
    pthread_mutex_unlock(&s->lend_lock);
    if (!room) { frame_free(f); buffer_unmapped(s, d, ENOSPC); return; }
    b->user_data = f;
}

static void stream_remove_buffer(void *data, struct pw_buffer *b) {
    struct ck_pw_stream *s = data;
    ck_pw_frame *f = b->user_data;
    if (f == NULL) return;
    b->user_data = NULL;
    pthread_mutex_lock(&s->lend_lock);
    frame_detach_locked(s, f);
    pthread_mutex_unlock(&s->lend_lock);
    lend_unref(s, f, 1, 0);
}

static void stream_state(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    struct ck_pw_stream *s = data;
    if (s->on_state && !s->closing) s->on_state(s->user, (int)state, error);
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
       fixes (a V4L2 node's sizeimage), so negotiation never fails over it. Either way, ask for
       enough buffers to keep frames by reference, taking fewer if the producer offers fewer. */
    if (s->has_format && s->negotiated.subtype != CK_PW_SUBTYPE_RAW) {
        int32_t room = (int32_t)SPA_MIN((uint64_t)s->negotiated.width * s->negotiated.height * 2, (uint64_t)INT32_MAX);
        params[count++] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
                                                     SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(CK_PW_WANTED_BUFFERS, 1, CK_PW_MAX_BUFFERS),
                                                     SPA_PARAM_BUFFERS_size, SPA_POD_CHOICE_RANGE_Int(room, 1, INT32_MAX));
    } else if (s->has_format) {
        /* DMA-BUF too: a V4L2 node then says its exported buffers are DMA-BUFs (else it calls
           them memfds), and frames lent from them carry the descriptor. */
        params[count++] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
                                                     SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(CK_PW_WANTED_BUFFERS, 1, CK_PW_MAX_BUFFERS),
                                                     SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemPtr) | (1 << SPA_DATA_MemFd) | (1 << SPA_DATA_DmaBuf)));
    }
    pw_stream_update_params(s->stream, params, count);
}

static void stream_process(void *data) {
    struct ck_pw_stream *s = data;
    if (s->closing) return;
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (b == NULL) return;
    struct spa_buffer *buffer = b->buffer;
    ck_pw_frame *f = b->user_data;
    if (buffer->n_datas > 0) {
        struct spa_data *d = &buffer->datas[0];
        struct spa_meta_header *h = spa_buffer_find_meta_data(buffer, SPA_META_Header, sizeof(*h));
        int corrupted = h != NULL && (h->flags & SPA_META_HEADER_FLAG_CORRUPTED) != 0;
        const uint8_t *base = f != NULL ? f->base : d->data;
        ck_pw_frame_info info = { .pts_ns = h != NULL ? h->pts : -1, .sequence = h != NULL ? h->seq : s->sequence, .dmabuf_fd = -1 };
        s->sequence++;
        if (base != NULL && d->chunk != NULL && !corrupted && (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED) == 0) {
            uint32_t offset = d->chunk->offset % (d->maxsize ? d->maxsize : 1);
            info.data = base + offset;
            info.size = SPA_MIN(d->chunk->size, d->maxsize - offset);
            info.stride = d->chunk->stride;
            pthread_mutex_lock(&s->lend_lock);
            int lend = s->may_lend && f != NULL && s->frame_count - (s->lent_count + 1) >= CK_PW_MIN_QUEUED;
            if (lend) { f->lent = 1; f->refs++; s->refs++; s->lent_count++; }
            pthread_mutex_unlock(&s->lend_lock);
            if (lend) {
                info.lendable = f;
                info.dmabuf_fd = f->dmabuf_fd;
                info.dmabuf_offset = f->dmabuf_offset + offset;
                info.dmabuf_length = f->dmabuf_length;
            }
            if (s->on_frame(s->user, &info) && lend) return;
            if (lend) {
                pthread_mutex_lock(&s->lend_lock);
                f->lent = 0; f->refs--; s->refs--; s->lent_count--;
                pthread_mutex_unlock(&s->lend_lock);
            }
        }
    }
    pthread_mutex_lock(&s->lend_lock);
    queue_locked(s, b);
    pthread_mutex_unlock(&s->lend_lock);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = stream_state,
    .param_changed = stream_param,
    .add_buffer = stream_add_buffer,
    .remove_buffer = stream_remove_buffer,
    .process = stream_process,
};

ck_pw_stream *ck_pw_stream_open(int fd, uint64_t serial, const ck_pw_format *format, int lend,
                                ck_pw_frame_callback on_frame, ck_pw_state_callback on_state, void *user,
                                char *error, size_t error_size) {
    ck_pw_init_once();
    struct ck_pw_stream *s = calloc(1, sizeof(*s));
    if (s == NULL) { snprintf(error, error_size, "out of memory"); return NULL; }
    s->on_frame = on_frame;
    s->on_state = on_state;
    s->user = user;
    s->refs = 1;
    s->may_lend = lend;
    pthread_mutex_init(&s->lend_lock, NULL);
    s->loop = pw_thread_loop_new("ck-pw-stream", NULL);
    if (s->loop == NULL) { snprintf(error, error_size, "pw_thread_loop_new failed"); stream_memory_free(s); return NULL; }
    s->context = pw_context_new(pw_thread_loop_get_loop(s->loop), NULL, 0);
    if (s->context == NULL || pw_thread_loop_start(s->loop) < 0) {
        snprintf(error, error_size, "pw_context_new failed");
        if (s->context) pw_context_destroy(s->context);
        pw_thread_loop_destroy(s->loop);
        stream_memory_free(s);
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
    /* Frames on the loop's thread, not the real-time data thread (PW_STREAM_FLAG_RT_PROCESS, as
       the audio stream): a frame may be copied or decoded, work too long for that thread. */
    int res = pw_stream_connect(s->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                                PW_STREAM_FLAG_AUTOCONNECT, params, 1);
    if (res < 0) { snprintf(error, error_size, "pw_stream_connect failed: %s", spa_strerror(res)); goto fail; }
    pw_thread_loop_unlock(s->loop);
    return s;
fail:
    pw_thread_loop_unlock(s->loop);
    ck_pw_stream_close(s);
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
    /* No callback reaches the caller from here on (they run under the loop's lock, held here).
       Disconnecting takes the buffers back, detaching their frames (remove_buffer). */
    s->closing = 1;
    struct pw_stream *stream = s->stream;
    if (stream) pw_stream_disconnect(stream);
    /* Frames kept past this stay mapped until released; their buffers are no longer queued. */
    pthread_mutex_lock(&s->lend_lock);
    ck_pw_frame *detached[CK_PW_MAX_BUFFERS];
    int count = s->frame_count;
    for (int i = 0; i < count; i++) detached[i] = s->frames[i];
    for (int i = 0; i < count; i++) frame_detach_locked(s, detached[i]);
    s->stream = NULL;
    pthread_mutex_unlock(&s->lend_lock);
    for (int i = 0; i < count; i++) lend_unref(s, detached[i], 1, 0);
    if (stream) {
        spa_hook_remove(&s->stream_listener);
        pw_stream_destroy(stream);
    }
    if (s->core) pw_core_disconnect(s->core);
    pw_thread_loop_unlock(s->loop);
    pw_thread_loop_stop(s->loop);
    pw_context_destroy(s->context);
    pw_thread_loop_destroy(s->loop);
    lend_unref(s, NULL, 0, 1);
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
