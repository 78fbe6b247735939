// Finds libcamera's functions at run time: the plugin may be linked into the process already,
// else it is loaded from beside the binary CaptureKit is in, or from the library path.
#define _GNU_SOURCE
#include "CLibCamera.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN "libCaptureKitLibCamera.so"
#define ENTRY "ck_lc_plugin_api"

typedef const ck_lc_api *(*entry_point)(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const ck_lc_api *loaded;
static char failure[512];

// Opens `path` and returns its entry point, or NULL with the reason appended to `failure`.
static entry_point open_plugin(const char *path) {
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *error = dlerror();
        size_t used = strlen(failure);
        snprintf(failure + used, sizeof failure - used, "%s%s", used ? "; " : "", error ? error : path);
        return NULL;
    }
    entry_point entry = (entry_point)dlsym(handle, ENTRY);
    if (!entry) dlclose(handle);
    return entry;
}

static void load(void) {
    entry_point entry = NULL;
    const char *configured = getenv("CAPTUREKIT_LIBCAMERA_PLUGIN");
    if (configured && *configured) {
        entry = open_plugin(configured);
    } else {
        entry = (entry_point)dlsym(RTLD_DEFAULT, ENTRY);
        Dl_info info;
        if (!entry && dladdr((void *)&load, &info) && info.dli_fname) {
            // The main program's name is as it was started (maybe relative, the working
            // directory since changed): the kernel's link names it whole.
            char binary[4096] = { 0 };
            if (info.dli_fname[0] == '/' || readlink("/proc/self/exe", binary, sizeof binary - 1) <= 0) {
                snprintf(binary, sizeof binary, "%s", info.dli_fname);
            }
            char path[4200];
            snprintf(path, sizeof path, "%s/" PLUGIN, dirname(binary));
            entry = open_plugin(path);
        }
        if (!entry) entry = open_plugin(PLUGIN);
    }
    loaded = entry ? entry() : NULL;
}

int ck_lc_load(char *why, size_t size) {
    pthread_once(&once, load);
    if (!loaded && size > 0) snprintf(why, size, "%s", failure[0] ? failure : "the plugin has no " ENTRY);
    return loaded ? 0 : -1;
}

// Stand-ins while no plugin is loaded: no camera, nothing else works.
static int no_start(void) { return -ENOSYS; }
static void no_hotplug(void (*changed)(void *), void *user) { (void)changed; (void)user; }
static int no_cameras(ck_lc_camera_info *out, int capacity) { (void)out; (void)capacity; return 0; }
static int no_camera(const char *id) { (void)id; return 0; }
static int no_devnum(dev_t devnum, char *id, size_t size) { (void)devnum; (void)id; (void)size; return -ENOENT; }
static int no_formats(const char *id, int role, ck_lc_format *out, int capacity) { (void)id; (void)role; (void)out; (void)capacity; return -ENOSYS; }
static int no_controls(const char *id, ck_lc_control *out, int capacity) { (void)id; (void)out; (void)capacity; return -ENOSYS; }
static int no_limits(const char *id, int64_t *minimum, int64_t *maximum) { (void)id; (void)minimum; (void)maximum; return -ENOSYS; }
static int no_validate(const char *id, int role, uint32_t fourcc, uint32_t width, uint32_t height, ck_lc_configured *out) {
    (void)id; (void)role; (void)fourcc; (void)width; (void)height; (void)out;
    return -ENOSYS;
}
static int no_open(const char *id, ck_lc_session **out) { (void)id; *out = NULL; return -ENOSYS; }
static int no_configure(ck_lc_session *session, int role, uint32_t fourcc, uint32_t width, uint32_t height, ck_lc_configured *out) {
    (void)session; (void)role; (void)fourcc; (void)width; (void)height; (void)out;
    return -ENOSYS;
}
static int no_start_capture(ck_lc_session *session, int64_t duration) { (void)session; (void)duration; return -ENOSYS; }
static int no_wait(ck_lc_session *session, int timeout, ck_lc_frame *frame) { (void)session; (void)timeout; (void)frame; return -ECANCELED; }
static void no_requeue(ck_lc_session *session, int index) { (void)session; (void)index; }
static int no_set_control(ck_lc_session *session, uint32_t id, double value) { (void)session; (void)id; (void)value; return -ENOSYS; }
static int no_queued(ck_lc_session *session) { (void)session; return 0; }
static void no_stop(ck_lc_session *session, int gone) { (void)session; (void)gone; }
static void no_close(ck_lc_session *session) { (void)session; }

static const ck_lc_api stand_ins = {
    no_start, no_hotplug, no_cameras, no_camera, no_devnum, no_formats, no_controls, no_limits, no_validate,
    no_open, no_configure, no_start_capture, no_wait, no_requeue, no_set_control, no_queued, no_stop, no_close,
};

const ck_lc_api *ck_lc_functions(void) {
    return loaded ? loaded : &stand_ins;
}
