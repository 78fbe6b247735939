#ifndef CAPTUREKIT_CPIPEWIRE_H
#define CAPTUREKIT_CPIPEWIRE_H

/*
 * PipeWire for CaptureKit: the camera nodes (media class Video/Source) with their formats, a
 * capture stream from one of them (pw_stream), the registry's node events, and a native audio
 * capture stream from a sound-server source (cheaper than libpulse's route through
 * pipewire-pulse). libpipewire's
 * API is macros and inline functions over SPA pods, which Swift cannot call; this shim does
 * that work in C and hands Swift plain structs and callbacks. Every function takes the
 * PipeWire remote as a file descriptor (the Camera portal's) or -1 for the user's daemon.
 */

#include <stddef.h>
#include <stdint.h>

/* What a format's frames are. */
enum { CK_PW_SUBTYPE_OTHER = 0, CK_PW_SUBTYPE_RAW = 1, CK_PW_SUBTYPE_MJPEG = 2, CK_PW_SUBTYPE_H264 = 3 };

/* Pixel layouts CaptureKit knows, as SPA video formats are mapped onto them. */
enum {
    CK_PW_PIXELS_UNKNOWN = 0, CK_PW_PIXELS_YUYV, CK_PW_PIXELS_UYVY, CK_PW_PIXELS_NV12, CK_PW_PIXELS_NV21,
    CK_PW_PIXELS_I420, CK_PW_PIXELS_Y42B, CK_PW_PIXELS_GRAY8, CK_PW_PIXELS_RGB, CK_PW_PIXELS_BGR,
    CK_PW_PIXELS_BGRA, CK_PW_PIXELS_RGBA
};

#define CK_PW_MAX_RATES 16

/* One enumerated format: a size (or a range of sizes) and its frame rates (or a range). */
typedef struct ck_pw_format {
    uint32_t subtype;
    uint32_t pixels;
    uint32_t width, height;                             /* discrete, or a range's default */
    uint32_t min_width, min_height, max_width, max_height; /* equal to width/height when discrete */
    uint32_t rate_count;                                /* discrete rates; 0: the range below */
    uint32_t rate_num[CK_PW_MAX_RATES], rate_den[CK_PW_MAX_RATES];
    uint32_t rate_min_num, rate_min_den, rate_max_num, rate_max_den;
} ck_pw_format;

#define CK_PW_MAX_FORMATS 96

/* A Video/Source node. */
typedef struct ck_pw_camera {
    uint32_t id;
    uint64_t serial;
    char name[256];
    char description[256];
    char media_role[64];
    char device_api[64];     /* "v4l2", "libcamera", or empty */
    char object_path[256];   /* "v4l2:/dev/video0", … */
    int lends_buffers;       /* 1: a node the daemon made from a factory, whose frames a stream
                                may keep by reference; 0: another client's stream, or unknown */
    uint32_t format_count;
    ck_pw_format formats[CK_PW_MAX_FORMATS];
} ck_pw_camera;

/* Lists the cameras: 0 and a malloc'd array (free with ck_pw_free), or a negative errno
 * (-EHOSTDOWN: no daemon; -ETIMEDOUT: it did not answer within timeout_ms). With camera_wait_ms,
 * a connection that shows no camera at first waits that long for one to be announced (the
 * Camera portal's connection shows its cameras once the session manager has granted them,
 * just after it connects). */
int ck_pw_list_cameras(int fd, int timeout_ms, int camera_wait_ms, ck_pw_camera **cameras, size_t *count);
void ck_pw_free(void *pointer);

/* A running capture from one node. */
typedef struct ck_pw_stream ck_pw_stream;

/* A buffer of a stream as the shim mapped it (its own mapping of the buffer's memfd or
 * DMA-BUF), so that a frame lent out stays readable after PipeWire took the buffer back (a
 * node gone, a format renegotiated) or the stream closed. */
typedef struct ck_pw_frame ck_pw_frame;

/* One frame, as the stream's thread hands it over. */
typedef struct ck_pw_frame_info {
    const uint8_t *data;      /* the first plane's first byte */
    uint32_t size;            /* bytes from `data` the frame fills */
    int32_t stride;           /* the first plane's bytes per row (0: unknown) */
    int64_t pts_ns;           /* the buffer header's capture time, or -1 */
    uint64_t sequence;        /* the header's sequence number, or the stream's count */
    /* Non-NULL when the frame may be kept past the callback: keeping it leaves enough buffers
     * with the producer. Then, and only then, these name its DMA-BUF (or -1): a descriptor
     * the frame owns, the offset of `data` in it and the DMA-BUF's size. */
    ck_pw_frame *lendable;
    int dmabuf_fd;
    uint64_t dmabuf_offset, dmabuf_length;
} ck_pw_frame_info;

/* One frame, on the stream's thread. Return 1 to keep `frame->lendable` (the memory then stays
 * valid and the buffer stays out of the stream until ck_pw_frame_release), else 0: the memory is
 * valid until the callback returns. */
typedef int (*ck_pw_frame_callback)(void *user, const ck_pw_frame_info *frame);
/* Gives a kept frame's buffer back to its stream (or, the stream or buffer gone, unmaps it);
 * from any thread. */
void ck_pw_frame_release(ck_pw_frame *frame);
/* The stream's state changed (pw_stream_state: -1 error, 0 unconnected, 1 connecting, 2 paused,
 * 3 streaming); error is NULL unless state is -1. */
typedef void (*ck_pw_state_callback)(void *user, int state, const char *error);

/* Opens a stream from the node with object serial `serial` in a fixed format (subtype, pixels,
 * width, height, rate_num[0]/rate_den[0] of `format`). NULL on failure, with a message in
 * `error`. Callbacks run on the stream's own thread until ck_pw_stream_close returns; frames
 * kept from it stay valid after that, until released. With `lend` 0 no frame is lendable (the
 * camera's lends_buffers). */
ck_pw_stream *ck_pw_stream_open(int fd, uint64_t serial, const ck_pw_format *format, int lend,
                                ck_pw_frame_callback on_frame, ck_pw_state_callback on_state, void *user,
                                char *error, size_t error_size);
/* The format the stream negotiated, once streaming (0 when not yet known). */
int ck_pw_stream_format(ck_pw_stream *stream, ck_pw_format *format);
void ck_pw_stream_close(ck_pw_stream *stream);

/* Node events: a Video/Source node appeared (added 1) or went (added 0), on the monitor's thread. */
typedef struct ck_pw_monitor ck_pw_monitor;
typedef void (*ck_pw_change_callback)(void *user, uint32_t id, int added);
ck_pw_monitor *ck_pw_monitor_open(int fd, ck_pw_change_callback on_change, void *user);
void ck_pw_monitor_close(ck_pw_monitor *monitor);

/* MARK: Audio */

/* Sample formats of an audio stream (little-endian, interleaved). */
enum { CK_PW_AUDIO_S16 = 1, CK_PW_AUDIO_S32 = 2, CK_PW_AUDIO_F32 = 3 };

/* A running audio capture from one node. */
typedef struct ck_pw_audio ck_pw_audio;

/* One buffer of `frames` interleaved frames, on PipeWire's data thread; the memory is valid until
 * the callback returns. `captured_ns`: when its first frame was captured, on CLOCK_MONOTONIC
 * (the graph cycle's time less the delay from the device, the samples held in the stream's
 * resampler and the buffer's own length), or -1 before the stream knows its timing; `read_ns`:
 * when the buffer was taken. */
typedef void (*ck_pw_audio_callback)(void *user, const uint8_t *data, uint32_t frames, int64_t captured_ns, int64_t read_ns);

/* Opens a capture stream from the node named `target` (node.name: the name pipewire-pulse
 * gives the source) — with `capture_sink`, from what the sink named `target` plays (its
 * monitor) — converted to `rate`, `channels` (1 or 2) and `sample_format`, `latency_frames`
 * per buffer. The stream follows no other node: when its target goes it ends (state -1 or
 * 0 through `on_state`, as for a camera stream). NULL on failure, with a message in `error`.
 * Callbacks run until ck_pw_audio_close returns. */
ck_pw_audio *ck_pw_audio_open(int fd, const char *target, int capture_sink, uint32_t rate, uint32_t channels,
                              uint32_t sample_format, uint32_t latency_frames, ck_pw_audio_callback on_audio,
                              ck_pw_state_callback on_state, void *user, char *error, size_t error_size);
void ck_pw_audio_close(ck_pw_audio *audio);

#endif
