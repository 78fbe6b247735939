// A C interface over libcamera (C++): the process's CameraManager, its cameras' properties,
// stream formats and controls, and one capture session per acquired camera. No C++ type
// crosses this header; std::shared_ptr, signals and requests stay in the plugin
// (Sources/CLibCameraPlugin), which this target loads on first use (CLibCameraLoader.c).
#ifndef CLIBCAMERA_H
#define CLIBCAMERA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What libcamera says of a camera.
typedef struct ck_lc_camera_info {
    char id[256];
    /// properties::Model, or "" when the camera has none.
    char model[128];
    /// properties::Location: 0 front, 1 back, 2 external; -1 when unknown.
    int32_t location;
    /// properties::Rotation in degrees; -1 when unknown.
    int32_t rotation;
    /// properties::PixelArraySize (the sensor's full resolution); 0 when unknown.
    uint32_t pixel_array_width;
    uint32_t pixel_array_height;
} ck_lc_camera_info;

/// One pixel format at one size that a stream role offers.
typedef struct ck_lc_format {
    /// The DRM FourCC libcamera names formats by (libcamera::PixelFormat::fourcc()).
    uint32_t fourcc;
    uint32_t width;
    uint32_t height;
} ck_lc_format;

/// Stream roles (libcamera::StreamRole).
enum {
    CK_LC_ROLE_RAW = 0,
    CK_LC_ROLE_STILL = 1,
    CK_LC_ROLE_VIDEO = 2,
    CK_LC_ROLE_VIEWFINDER = 3,
};

/// Control value types: libcamera::ControlType's scalar ones (by name: its numbers changed in 0.4).
enum {
    CK_LC_CONTROL_BOOL = 1,
    CK_LC_CONTROL_INT32 = 3,
    CK_LC_CONTROL_INT64 = 4,
    CK_LC_CONTROL_FLOAT = 5,
};

/// A control a camera takes (camera->controls()), scalar values as doubles.
typedef struct ck_lc_control {
    uint32_t id;
    char name[64];
    int32_t type;
    /// Whether the control takes an array (FrameDurationLimits, ColourGains): listed, not set.
    int32_t is_array;
    double minimum;
    double maximum;
    double default_value;
} ck_lc_control;

/// A completed request's frame, lent until ck_lc_requeue(index).
typedef struct ck_lc_frame {
    int32_t index;
    /// FrameMetadata::Status: 0 success, 1 error, 2 cancelled.
    int32_t status;
    uint32_t sequence;
    /// controls::SensorTimestamp when the pipeline reports it, else the buffer's timestamp
    /// (CLOCK_MONOTONIC, nanoseconds).
    uint64_t timestamp_ns;
    int32_t has_sensor_timestamp;
    uint32_t bytes_used;
    /// The first plane's bytes: planes lie at `plane_offset[i]` from here (one mapping).
    uint8_t * _Nullable data;
    uint32_t plane_count;
    uint32_t plane_offset[4];
    uint32_t plane_length[4];
    /// The DMA-BUF of the first plane (the session's duplicate: valid until ck_lc_close).
    int32_t dma_fd;
    /// Bytes mapped from `dma_fd`.
    uint32_t mapped_length;
    /// Scalar metadata the request completed with (exposure time, gains, ...).
    uint32_t metadata_count;
    uint32_t metadata_id[16];
    double metadata_value[16];
} ck_lc_frame;

/// What a configuration became (validate() may adjust it).
typedef struct ck_lc_configured {
    uint32_t fourcc;
    uint32_t width;
    uint32_t height;
    uint32_t stride;
    uint32_t frame_size;
    uint32_t buffer_count;
    /// CameraConfiguration::Adjusted: the camera changed what was asked for.
    int32_t adjusted;
} ck_lc_configured;

typedef struct ck_lc_session ck_lc_session;

/// libcamera's functions, as the plugin (the CaptureKitLibCamera library, built from
/// CLibCameraPlugin: the only code that links libcamera) provides them. Loading libcamera costs
/// a process some 20 ms at start-up (its tracing library's constructor above all), so it is
/// loaded on first use, and only on a machine with a media controller device.
typedef struct ck_lc_api {
    /// Starts the process's CameraManager once (libcamera allows one per process); 0 or
    /// -errno. Later calls return the first call's result.
    int (* _Nonnull start)(void);
    /// Calls `changed(user)` from libcamera's thread when a camera is added or removed.
    void (* _Nonnull set_hotplug_handler)(void (* _Nullable changed)(void * _Nullable user), void * _Nullable user);
    /// Fills up to `capacity` cameras; returns how many there are (may exceed capacity).
    int (* _Nonnull cameras)(ck_lc_camera_info * _Nonnull out, int capacity);
    /// Whether a camera of that id is present.
    int (* _Nonnull camera_exists)(const char * _Nonnull id);
    /// The id of the camera whose capture nodes include the V4L2 node `devnum`; 0, or -ENOENT.
    int (* _Nonnull camera_for_devnum)(dev_t devnum, char * _Nonnull id, size_t size);
    /// The formats `role` offers, flattened to (format, size) pairs; count (may exceed
    /// capacity) or -errno (-ENODEV: no such camera; -EINVAL: the role is not offered).
    int (* _Nonnull formats)(const char * _Nonnull id, int role, ck_lc_format * _Nonnull out, int capacity);
    /// The camera's controls; count (may exceed capacity) or -ENODEV.
    int (* _Nonnull controls)(const char * _Nonnull id, ck_lc_control * _Nonnull out, int capacity);
    /// controls::FrameDurationLimits' range in microseconds; 0, or -ENOENT without it.
    int (* _Nonnull frame_duration_limits)(const char * _Nonnull id, int64_t * _Nonnull minimum_us, int64_t * _Nonnull maximum_us);
    /// What the camera makes of one stream of `role` at that format and size (validate(), no
    /// acquire needed): 0 when it takes it as it is, 1 when it adjusted it (`out` says to
    /// what), -EINVAL when it cannot, -ENODEV without the camera.
    int (* _Nonnull validate)(const char * _Nonnull id, int role, uint32_t fourcc, uint32_t width, uint32_t height,
                              ck_lc_configured * _Nonnull out);
    /// Acquires the camera: -ENODEV when absent, -EBUSY when another process or session holds it.
    int (* _Nonnull open)(const char * _Nonnull id, ck_lc_session * _Nullable * _Nonnull out);
    /// Configures one stream of `role` with the format and size (validate, configure),
    /// allocates its buffers and maps them; 0 or -errno (-EINVAL: invalid configuration).
    int (* _Nonnull configure)(ck_lc_session * _Nonnull session, int role, uint32_t fourcc, uint32_t width, uint32_t height,
                               ck_lc_configured * _Nonnull out);
    /// Starts capturing (controls::FrameDurationLimits set to `frame_duration_us` when it is
    /// > 0 and the camera has it) and queues every buffer.
    int (* _Nonnull start_capture)(ck_lc_session * _Nonnull session, int64_t frame_duration_us);
    /// Waits up to `timeout_ms` for a completed request: 1 with `frame` filled, 0 on timeout,
    /// -ENODEV once the camera is gone, -ECANCELED once stopped.
    int (* _Nonnull wait)(ck_lc_session * _Nonnull session, int timeout_ms, ck_lc_frame * _Nonnull frame);
    /// Gives a frame back: its request is reused and queued again (with any pending
    /// controls). Thread-safe; a no-op once stopped.
    void (* _Nonnull requeue)(ck_lc_session * _Nonnull session, int index);
    /// Sets a control on the next request queued; 0, -ENOENT (no such control) or -EINVAL.
    int (* _Nonnull set_control)(ck_lc_session * _Nonnull session, uint32_t id, double value);
    /// How many requests are queued with the camera now.
    int (* _Nonnull queued_count)(ck_lc_session * _Nonnull session);
    /// Stops capture, frees the buffers and releases the camera (another process may acquire
    /// it). The mappings stay until `close`, so lent frames stay readable. `gone`: the camera
    /// is known to have vanished (its nodes are gone) even if libcamera has not said so.
    void (* _Nonnull stop)(ck_lc_session * _Nonnull session, int gone);
    /// Stops if needed, unmaps and frees the session.
    void (* _Nonnull close)(ck_lc_session * _Nonnull session);
} ck_lc_api;

/// Loads libcamera's functions once: the plugin's, found in the process (linked in) or loaded
/// from `$CAPTUREKIT_LIBCAMERA_PLUGIN`, else `libCaptureKitLibCamera.so` beside the binary that
/// holds CaptureKit, else on the library path. 0, or -1 with the reason in `why`.
int ck_lc_load(char * _Nonnull why, size_t size);

/// The functions ck_lc_load found — before it or without the plugin, stand-ins that list no
/// camera and fail everything else with -ENOSYS.
const ck_lc_api * _Nonnull ck_lc_functions(void);

/// The plugin's entry point (CLibCameraPlugin defines it).
const ck_lc_api * _Nonnull ck_lc_plugin_api(void);

#ifdef __cplusplus
}
#endif

#endif
