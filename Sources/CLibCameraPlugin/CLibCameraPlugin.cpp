// libcamera behind CLibCamera.h's function table, as the CaptureKitLibCamera library that
// CaptureKit loads on first use (the only code that links libcamera). One CameraManager per
// process (libcamera's rule), started on first use and kept. Completed requests are handed
// from libcamera's thread to the session's own reader (ck_lc_wait) through a queue; frames go
// back with ck_lc_requeue.
#include "CLibCamera.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <libcamera/base/object.h>

#include <libcamera/camera.h>
#include <libcamera/camera_manager.h>
#include <libcamera/control_ids.h>
#include <libcamera/controls.h>
#include <libcamera/framebuffer_allocator.h>
#include <libcamera/property_ids.h>
#include <libcamera/request.h>
#include <libcamera/stream.h>
#include <libcamera/version.h>

using namespace libcamera;

namespace {

std::mutex managerLock;
CameraManager *manager = nullptr;
int managerStatus = 1;  // 1: not started yet
void (*hotplugHandler)(void *) = nullptr;
void *hotplugUser = nullptr;

void recordNodes();

void cameraChanged(std::shared_ptr<Camera>) {
    recordNodes();
    void (*handler)(void *);
    void *user;
    {
        std::lock_guard<std::mutex> guard(managerLock);
        handler = hotplugHandler;
        user = hotplugUser;
    }
    if (handler) handler(user);
}

std::shared_ptr<Camera> findCamera(const char *id) {
    if (!manager || !id) return nullptr;
    return manager->get(id);
}

// The camera whose capture nodes include device `devnum`: 0.0.x looks it up by number, 0.1
// dropped that lookup for the camera's SystemDevices property.
std::shared_ptr<Camera> cameraForDevnum(dev_t devnum) {
    if (!manager) return nullptr;
#if LIBCAMERA_VERSION_MAJOR == 0 && LIBCAMERA_VERSION_MINOR == 0
    return manager->get(devnum);
#else
    for (const auto &camera : manager->cameras()) {
        auto devices = camera->properties().get(properties::SystemDevices);
        if (!devices) continue;
        for (int64_t device : *devices) {
            if (static_cast<dev_t>(device) == devnum) return camera;
        }
    }
    return nullptr;
#endif
}

// A string_view: properties::Model is one from libcamera 0.6 on (a std::string before).
void copyString(char *target, size_t size, std::string_view value) {
    if (size == 0) return;
    size_t count = std::min(size - 1, value.size());
    memcpy(target, value.data(), count);
    target[count] = 0;
}

// A scalar control value as a double; false for arrays and non-numeric types.
bool scalar(const ControlValue &value, double *out) {
    if (value.isArray()) return false;
    switch (value.type()) {
    case ControlTypeBool: *out = value.get<bool>() ? 1 : 0; return true;
    case ControlTypeByte: *out = value.get<uint8_t>(); return true;
    case ControlTypeInteger32: *out = value.get<int32_t>(); return true;
    case ControlTypeInteger64: *out = static_cast<double>(value.get<int64_t>()); return true;
    case ControlTypeFloat: *out = value.get<float>(); return true;
    default: return false;
    }
}

// The shim's name for a scalar control type (libcamera 0.4 added unsigned types in the middle of
// ControlType, so its numbers are not the shim's); 0 for any other type.
int32_t controlType(ControlType type) {
    switch (type) {
    case ControlTypeBool: return CK_LC_CONTROL_BOOL;
    case ControlTypeInteger32: return CK_LC_CONTROL_INT32;
    case ControlTypeInteger64: return CK_LC_CONTROL_INT64;
    case ControlTypeFloat: return CK_LC_CONTROL_FLOAT;
    default: return 0;
    }
}

StreamRole role(int value) {
    switch (value) {
    case CK_LC_ROLE_RAW: return StreamRole::Raw;
    case CK_LC_ROLE_STILL: return StreamRole::StillCapture;
    case CK_LC_ROLE_VIEWFINDER: return StreamRole::Viewfinder;
    default: return StreamRole::VideoRecording;
    }
}

// 0.1 takes a Span of roles and 0.0.x a vector: a vector converts to both.
std::unique_ptr<CameraConfiguration> configuration(Camera &camera, int value) {
    std::vector<StreamRole> roles{ role(value) };
    return camera.generateConfiguration(roles);
}

// One stream of `role` at that format and size, validated; null when the camera has no such
// role or cannot take it at all. `adjusted`: validate() changed something.
std::unique_ptr<CameraConfiguration> validated(Camera &camera, int roleValue, uint32_t fourcc, uint32_t width, uint32_t height,
                                               bool *adjusted) {
    auto config = configuration(camera, roleValue);
    if (!config || config->empty()) return nullptr;
    StreamConfiguration &stream = config->at(0);
    stream.pixelFormat = PixelFormat(fourcc);
    stream.size = Size(width, height);
    CameraConfiguration::Status validity = config->validate();
    if (validity == CameraConfiguration::Invalid) return nullptr;
    *adjusted = validity == CameraConfiguration::Adjusted;
    return config;
}

// What a configuration's (first) stream became: a format with a modifier (validation may turn
// raw SRGGB10 into SRGGB10_CSI2P) as fourcc 0, which no CaptureKit layout is.
ck_lc_configured describe(const StreamConfiguration &stream, bool adjusted) {
    uint32_t fourcc = stream.pixelFormat.modifier() == 0 ? stream.pixelFormat.fourcc() : 0;
    return ck_lc_configured{ fourcc, stream.size.width, stream.size.height, stream.stride,
                             stream.frameSize, stream.bufferCount, adjusted };
}

}  // namespace

struct ck_lc_session {
    std::shared_ptr<Camera> camera;
    std::unique_ptr<CameraConfiguration> config;
    std::unique_ptr<FrameBufferAllocator> allocator;
    Stream *stream = nullptr;
    std::vector<std::unique_ptr<Request>> requests;
    // One per buffer: its first plane's descriptor, mapped, and a duplicate of the descriptor
    // that outlives the allocator (lent frames keep both until ck_lc_close).
    struct Mapping { void *base; size_t length; int fd; };
    std::vector<Mapping> mappings;

    std::mutex lock;
    std::condition_variable completedChanged;
    std::deque<Request *> completed;
    ControlList pending;
    bool acquired = false;
    bool running = false;
    bool stopped = false;
    bool disconnected = false;
    int queued = 0;

    void requestCompleted(Request *request) {
        std::lock_guard<std::mutex> guard(lock);
        queued -= 1;
        if (request->status() == Request::RequestCancelled || stopped) return;
        completed.push_back(request);
        completedChanged.notify_all();
    }

    void cameraDisconnected() {
        std::lock_guard<std::mutex> guard(lock);
        disconnected = true;
        completedChanged.notify_all();
    }

    // Under `lock`.
    int queue(Request *request) {
        if (!pending.empty()) {
            for (const auto &entry : pending) request->controls().set(entry.first, entry.second);
            pending.clear();
        }
        int status = camera->queueRequest(request);
        if (status == 0) queued += 1;
        return status;
    }
};

// What a session of a vanished camera leaves behind. libcamera 0.0.3 cannot stop such a camera:
// its requests never complete, and PipelineHandler::stop() asserts that none is queued, which
// aborts the process. So the camera stays "running", and what it may still reach (requests,
// buffers, the configuration) is kept alive here rather than freed under it.
namespace {

struct Abandoned {
    std::shared_ptr<Camera> camera;
    std::unique_ptr<CameraConfiguration> config;
    std::unique_ptr<FrameBufferAllocator> allocator;
    std::vector<std::unique_ptr<Request>> requests;
};
std::mutex abandonedLock;
// Never destroyed: at exit the last reference to a camera still "running" would go with it, and
// destroying a running camera's pipeline (its IPA thread) terminates the process.
std::vector<Abandoned> &abandoned = *new std::vector<Abandoned>();

}  // namespace

// Cameras whose device vanished. libcamera 0.0.x removes a camera only for the pipeline handlers
// that support hot-plug (uvcvideo): vimc's, the Raspberry Pi's and the others keep a camera whose
// driver was unbound or unloaded listed, and when the device comes back they register a camera
// of the same id, which libcamera treats as fatal — it aborts the process. So the shim watches
// /dev (inotify, on a thread of its own) and removes a camera from the manager once one of its
// capture nodes is gone (CameraManager::removeCamera is public in 0.0.x, and must run on the
// manager's thread: a Remover moved there does it). Later versions made removeCamera internal;
// there a driver reload still aborts (docs: DevicesOnLinux).
namespace {

#if LIBCAMERA_VERSION_MAJOR == 0 && LIBCAMERA_VERSION_MINOR == 0
struct Node { std::string path; dev_t devnum; };
struct Recorded { std::weak_ptr<Camera> camera; std::vector<Node> nodes; };
// Never destroyed: the watch thread may still use them while the process exits.
std::mutex &nodesLock = *new std::mutex();
std::map<std::string, Recorded> &cameraNodes = *new std::map<std::string, Recorded>();

// Notes which /dev/video* nodes each listed camera has now; a camera listed before keeps its
// old nodes when none is found (they are what vanished).
void recordNodes() {
    if (!manager) return;
    std::map<std::string, Recorded> found;
    if (DIR *dir = opendir("/dev")) {
        while (struct dirent *entry = readdir(dir)) {
            if (strncmp(entry->d_name, "video", 5) != 0) continue;
            std::string path = std::string("/dev/") + entry->d_name;
            struct stat status;
            if (stat(path.c_str(), &status) != 0 || !S_ISCHR(status.st_mode)) continue;
            auto camera = cameraForDevnum(status.st_rdev);
            if (!camera) continue;
            Recorded &record = found[camera->id()];
            record.camera = camera;
            record.nodes.push_back(Node{ path, status.st_rdev });
        }
        closedir(dir);
    }
    std::lock_guard<std::mutex> guard(nodesLock);
    for (auto &entry : found) cameraNodes[entry.first] = std::move(entry.second);
    for (auto iter = cameraNodes.begin(); iter != cameraNodes.end();) {
        auto camera = iter->second.camera.lock();
        if (!camera || manager->get(iter->first) != camera) iter = cameraNodes.erase(iter); else ++iter;
    }
}

class Remover : public Object {
public:
    void remove(std::shared_ptr<Camera> camera) {
        if (manager->get(camera->id()) == camera) manager->removeCamera(camera);
        deleteLater();
    }
};

// Removes the recorded cameras one of whose nodes is gone (or is another device now).
void removeVanished() {
    std::vector<std::shared_ptr<Camera>> vanished;
    {
        std::lock_guard<std::mutex> guard(nodesLock);
        for (auto iter = cameraNodes.begin(); iter != cameraNodes.end();) {
            bool gone = std::any_of(iter->second.nodes.begin(), iter->second.nodes.end(), [](const Node &node) {
                struct stat status;
                return stat(node.path.c_str(), &status) != 0 || status.st_rdev != node.devnum;
            });
            auto camera = iter->second.camera.lock();
            if (gone && camera) vanished.push_back(camera);
            if (gone) iter = cameraNodes.erase(iter); else ++iter;
        }
    }
    for (auto &camera : vanished) {
        // Made here (a thread libcamera treats as its main one), handed to the manager's thread.
        auto remover = new Remover();
        remover->moveToThread(camera->thread());
        remover->invokeMethod(&Remover::remove, ConnectionTypeQueued, camera);
    }
}

void watchNodes() {
    int fd = inotify_init1(IN_CLOEXEC);
    if (fd < 0 || inotify_add_watch(fd, "/dev", IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB) < 0) {
        if (fd >= 0) close(fd);
        return;
    }
    std::thread([fd] {
        alignas(struct inotify_event) char buffer[4096];
        while (true) {
            ssize_t count = read(fd, buffer, sizeof buffer);
            if (count < 0 && errno == EINTR) continue;
            if (count <= 0) break;
            bool relevant = false;
            for (ssize_t offset = 0; offset + static_cast<ssize_t>(sizeof(struct inotify_event)) <= count;) {
                auto event = reinterpret_cast<const struct inotify_event *>(buffer + offset);
                if (event->len > 0 && (strncmp(event->name, "video", 5) == 0 || strncmp(event->name, "media", 5) == 0)) relevant = true;
                offset += sizeof(struct inotify_event) + event->len;
            }
            if (!relevant) continue;
            removeVanished();
            recordNodes();
        }
        close(fd);
    }).detach();
}
#else
void recordNodes() {}
void watchNodes() {}
#endif

}  // namespace

namespace {

int ck_lc_start(void) {
    std::lock_guard<std::mutex> guard(managerLock);
    if (managerStatus != 1) return managerStatus;
    // libcamera logs at INFO to stderr by default; keep errors unless the user chose levels.
    // (logSetLevel takes no wildcard and only categories already made: the logger reads this
    // variable when it first starts, which is here at the latest.)
    setenv("LIBCAMERA_LOG_LEVELS", "*:ERROR", 0);
    auto created = new CameraManager();
    int status = created->start();
    if (status != 0) {
        delete created;
        managerStatus = status < 0 ? status : -status;
        return managerStatus;
    }
    created->cameraAdded.connect(cameraChanged);
    created->cameraRemoved.connect(cameraChanged);
    manager = created;
    managerStatus = 0;
    recordNodes();
    watchNodes();
    return 0;
}

void ck_lc_set_hotplug_handler(void (*changed)(void *user), void *user) {
    std::lock_guard<std::mutex> guard(managerLock);
    hotplugHandler = changed;
    hotplugUser = user;
}

int ck_lc_cameras(ck_lc_camera_info *out, int capacity) {
    if (!manager) return 0;
    auto cameras = manager->cameras();
    int index = 0;
    for (const auto &camera : cameras) {
        if (index < capacity) {
            ck_lc_camera_info &info = out[index];
            memset(&info, 0, sizeof info);
            copyString(info.id, sizeof info.id, camera->id());
            const ControlList &properties = camera->properties();
            if (auto model = properties.get(properties::Model)) copyString(info.model, sizeof info.model, *model);
            info.location = properties.get(properties::Location).value_or(-1);
            info.rotation = properties.get(properties::Rotation).value_or(-1);
            if (auto size = properties.get(properties::PixelArraySize)) {
                info.pixel_array_width = size->width;
                info.pixel_array_height = size->height;
            }
        }
        index += 1;
    }
    return index;
}

int ck_lc_camera_exists(const char *id) { return findCamera(id) != nullptr; }

int ck_lc_camera_for_devnum(dev_t devnum, char *id, size_t size) {
    auto camera = cameraForDevnum(devnum);
    if (!camera) return -ENOENT;
    copyString(id, size, camera->id());
    return 0;
}

int ck_lc_formats(const char *id, int roleValue, ck_lc_format *out, int capacity) {
    auto camera = findCamera(id);
    if (!camera) return -ENODEV;
    auto config = configuration(*camera, roleValue);
    if (!config || config->empty()) return -EINVAL;
    const StreamFormats &formats = config->at(0).formats();
    int count = 0;
    auto add = [&](uint32_t fourcc, const Size &size) {
        if (count < capacity) out[count] = ck_lc_format{ fourcc, size.width, size.height };
        count += 1;
    };
    for (const PixelFormat &format : formats.pixelformats()) {
        // A fourcc cannot name a format with a modifier: a raw role's CSI-2 packed samples
        // (SRGGB10_CSI2P, all the Raspberry Pi's raw role lists) go out as their unpacked twin
        // (SRGGB10), which the caller validates — the Pi's unicam unpacks when asked to, and a
        // pipeline that cannot turns the twin back into the packed format, which is then left
        // out (describe() reports it as fourcc 0).
        auto sizes = formats.sizes(format);
        if (sizes.empty()) {
            // A continuous range: its two ends.
            SizeRange range = formats.range(format);
            add(format.fourcc(), range.max);
            if (range.min != range.max) add(format.fourcc(), range.min);
        }
        for (const Size &size : sizes) add(format.fourcc(), size);
    }
    return count;
}

int ck_lc_controls(const char *id, ck_lc_control *out, int capacity) {
    auto camera = findCamera(id);
    if (!camera) return -ENODEV;
    int count = 0;
    for (const auto &entry : camera->controls()) {
        if (count < capacity) {
            ck_lc_control &control = out[count];
            memset(&control, 0, sizeof control);
            control.id = entry.first->id();
            copyString(control.name, sizeof control.name, entry.first->name());
            control.type = controlType(entry.first->type());
            const ControlInfo &info = entry.second;
            control.is_array = info.min().isArray() || info.max().isArray();
            scalar(info.min(), &control.minimum);
            scalar(info.max(), &control.maximum);
            scalar(info.def(), &control.default_value);
        }
        count += 1;
    }
    return count;
}

int ck_lc_frame_duration_limits(const char *id, int64_t *minimum_us, int64_t *maximum_us) {
    auto camera = findCamera(id);
    if (!camera) return -ENODEV;
    const ControlInfoMap &controls = camera->controls();
    auto found = controls.find(&controls::FrameDurationLimits);
    if (found == controls.end()) return -ENOENT;
    const ControlInfo &info = found->second;
    if (info.min().type() != ControlTypeInteger64) return -ENOENT;
    // The limits' ControlInfo holds one scalar per end (or, in some versions, arrays).
    auto first = [](const ControlValue &value) -> int64_t {
        if (value.isArray()) {
            auto span = value.get<Span<const int64_t>>();
            return span.empty() ? 0 : span[0];
        }
        return value.get<int64_t>();
    };
    *minimum_us = first(info.min());
    *maximum_us = first(info.max());
    return 0;
}

int ck_lc_validate(const char *id, int roleValue, uint32_t fourcc, uint32_t width, uint32_t height, ck_lc_configured *out) {
    auto camera = findCamera(id);
    if (!camera) return -ENODEV;
    bool adjusted = false;
    auto config = validated(*camera, roleValue, fourcc, width, height, &adjusted);
    if (!config) return -EINVAL;
    *out = describe(config->at(0), adjusted);
    return adjusted;
}

int ck_lc_open(const char *id, ck_lc_session **out) {
    auto camera = findCamera(id);
    if (!camera) return -ENODEV;
    int status = camera->acquire();
    if (status != 0) return status < 0 ? status : -status;
    auto session = new ck_lc_session();
    session->camera = camera;
    session->acquired = true;
    camera->requestCompleted.connect(session, &ck_lc_session::requestCompleted);
    camera->disconnected.connect(session, &ck_lc_session::cameraDisconnected);
    *out = session;
    return 0;
}

int ck_lc_configure(ck_lc_session *session, int roleValue, uint32_t fourcc, uint32_t width, uint32_t height,
                    ck_lc_configured *out) {
    bool adjusted = false;
    auto config = validated(*session->camera, roleValue, fourcc, width, height, &adjusted);
    if (!config) return -EINVAL;
    int status = session->camera->configure(config.get());
    if (status != 0) return status < 0 ? status : -status;
    session->config = std::move(config);
    const StreamConfiguration &chosen = session->config->at(0);
    session->stream = chosen.stream();
    session->allocator = std::make_unique<FrameBufferAllocator>(session->camera);
    if (session->allocator->allocate(session->stream) < 0) return -ENOMEM;
    const auto &buffers = session->allocator->buffers(session->stream);
    for (size_t index = 0; index < buffers.size(); index++) {
        const FrameBuffer &buffer = *buffers[index];
        const auto &planes = buffer.planes();
        if (planes.empty() || planes.size() > 4) return -EINVAL;
        // Planes share one descriptor (at offsets) or each has its own: map the first's whole
        // range up to the end of the last plane on that descriptor.
        size_t length = 0;
        for (const auto &plane : planes) {
            if (plane.fd.get() == planes[0].fd.get()) length = std::max<size_t>(length, plane.offset + plane.length);
        }
        // Writable where the exporter allows it: consumers get the frame as any other buffer.
        void *base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, planes[0].fd.get(), 0);
        if (base == MAP_FAILED) base = mmap(nullptr, length, PROT_READ, MAP_SHARED, planes[0].fd.get(), 0);
        if (base == MAP_FAILED) return -errno;
        session->mappings.push_back({ base, length, fcntl(planes[0].fd.get(), F_DUPFD_CLOEXEC, 0) });
        std::unique_ptr<Request> request = session->camera->createRequest(index);
        if (!request) return -ENOMEM;
        if (request->addBuffer(session->stream, buffers[index].get()) != 0) return -EINVAL;
        session->requests.push_back(std::move(request));
    }
    session->pending = ControlList(session->camera->controls());
    *out = describe(chosen, adjusted);
    out->buffer_count = static_cast<uint32_t>(buffers.size());
    return 0;
}

int ck_lc_start_capture(ck_lc_session *session, int64_t frame_duration_us) {
    ControlList controls(session->camera->controls());
    const ControlInfoMap &available = session->camera->controls();
    if (frame_duration_us > 0 && available.find(&controls::FrameDurationLimits) != available.end()) {
        controls.set(controls::FrameDurationLimits, Span<const int64_t, 2>({ frame_duration_us, frame_duration_us }));
    }
    int status = session->camera->start(&controls);
    if (status != 0) return status < 0 ? status : -status;
    std::lock_guard<std::mutex> guard(session->lock);
    session->running = true;
    for (auto &request : session->requests) {
        status = session->queue(request.get());
        if (status != 0) return status < 0 ? status : -status;
    }
    return 0;
}

int ck_lc_wait(ck_lc_session *session, int timeout_ms, ck_lc_frame *frame) {
    std::unique_lock<std::mutex> guard(session->lock);
    session->completedChanged.wait_for(guard, std::chrono::milliseconds(timeout_ms), [session] {
        return !session->completed.empty() || session->disconnected || session->stopped;
    });
    if (session->stopped) return -ECANCELED;
    if (session->completed.empty()) return session->disconnected ? -ENODEV : 0;
    Request *request = session->completed.front();
    session->completed.pop_front();
    guard.unlock();

    memset(frame, 0, sizeof *frame);
    int index = static_cast<int>(request->cookie());
    FrameBuffer *buffer = request->findBuffer(session->stream);
    frame->index = index;
    if (!buffer) {
        frame->status = 1;
        return 1;
    }
    const FrameMetadata &metadata = buffer->metadata();
    frame->status = metadata.status;
    frame->sequence = metadata.sequence;
    frame->timestamp_ns = metadata.timestamp;
    if (auto sensor = request->metadata().get(controls::SensorTimestamp)) {
        frame->timestamp_ns = static_cast<uint64_t>(*sensor);
        frame->has_sensor_timestamp = 1;
    }
    const auto &planes = buffer->planes();
    frame->plane_count = static_cast<uint32_t>(std::min<size_t>(planes.size(), 4));
    uint32_t used = 0;
    for (uint32_t plane = 0; plane < frame->plane_count; plane++) {
        frame->plane_offset[plane] = planes[plane].offset;
        frame->plane_length[plane] = planes[plane].length;
        if (plane < metadata.planes().size()) used += metadata.planes()[plane].bytesused;
    }
    frame->bytes_used = used;
    frame->data = static_cast<uint8_t *>(session->mappings[index].base);
    frame->mapped_length = static_cast<uint32_t>(session->mappings[index].length);
    frame->dma_fd = session->mappings[index].fd;
    for (const auto &entry : request->metadata()) {
        if (frame->metadata_count == 16) break;
        double value;
        if (entry.first == controls::SensorTimestamp.id() || !scalar(entry.second, &value)) continue;
        frame->metadata_id[frame->metadata_count] = entry.first;
        frame->metadata_value[frame->metadata_count] = value;
        frame->metadata_count += 1;
    }
    return 1;
}

void ck_lc_requeue(ck_lc_session *session, int index) {
    std::lock_guard<std::mutex> guard(session->lock);
    if (!session->running || session->stopped || index < 0 || static_cast<size_t>(index) >= session->requests.size()) return;
    Request *request = session->requests[index].get();
    request->reuse(Request::ReuseBuffers);
    session->queue(request);
}

int ck_lc_set_control(ck_lc_session *session, uint32_t id, double value) {
    const ControlInfoMap &available = session->camera->controls();
    auto found = available.idmap().find(id);
    if (found == available.idmap().end()) return -ENOENT;
    ControlValue converted;
    switch (found->second->type()) {
    case ControlTypeBool: converted = ControlValue(value != 0); break;
    case ControlTypeInteger32: converted = ControlValue(static_cast<int32_t>(value)); break;
    case ControlTypeInteger64: converted = ControlValue(static_cast<int64_t>(value)); break;
    case ControlTypeFloat: converted = ControlValue(static_cast<float>(value)); break;
    default: return -EINVAL;
    }
    std::lock_guard<std::mutex> guard(session->lock);
    session->pending.set(id, converted);
    return 0;
}

int ck_lc_queued_count(ck_lc_session *session) {
    std::lock_guard<std::mutex> guard(session->lock);
    return session->queued;
}

void ck_lc_stop(ck_lc_session *session, int vanished) {
    bool gone;
    {
        std::lock_guard<std::mutex> guard(session->lock);
        if (session->stopped) return;
        session->stopped = true;
        session->completed.clear();
        session->completedChanged.notify_all();
        gone = session->disconnected || vanished;
    }
    if (session->running && (gone || manager->get(session->camera->id()) != session->camera)) {
        session->camera->requestCompleted.disconnect(session);
        session->camera->disconnected.disconnect(session);
        std::lock_guard<std::mutex> guard(abandonedLock);
        abandoned.push_back(Abandoned{ session->camera, std::move(session->config), std::move(session->allocator),
                                       std::move(session->requests) });
        session->running = false;
        session->acquired = false;
        return;
    }
    // Cancelled requests complete during stop(); their slot sees `stopped` and drops them.
    if (session->running) session->camera->stop();
    session->running = false;
    session->camera->requestCompleted.disconnect(session);
    session->camera->disconnected.disconnect(session);
    session->requests.clear();
    if (session->allocator && session->stream) session->allocator->free(session->stream);
    session->allocator.reset();
    session->config.reset();
    if (session->acquired) session->camera->release();
    session->acquired = false;
}

void ck_lc_close(ck_lc_session *session) {
    if (!session) return;
    ck_lc_stop(session, 0);
    for (const auto &mapping : session->mappings) {
        munmap(mapping.base, mapping.length);
        if (mapping.fd >= 0) close(mapping.fd);
    }
    delete session;
}

}  // namespace

extern "C" const ck_lc_api *ck_lc_plugin_api(void) {
    static const ck_lc_api api = {
        ck_lc_start, ck_lc_set_hotplug_handler, ck_lc_cameras, ck_lc_camera_exists, ck_lc_camera_for_devnum, ck_lc_formats,
        ck_lc_controls, ck_lc_frame_duration_limits, ck_lc_validate, ck_lc_open, ck_lc_configure, ck_lc_start_capture,
        ck_lc_wait, ck_lc_requeue, ck_lc_set_control, ck_lc_queued_count, ck_lc_stop, ck_lc_close,
    };
    return &api;
}
