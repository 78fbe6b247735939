#include "CSDBus.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#define PORTAL_NAME "org.freedesktop.portal.Desktop"
#define PORTAL_PATH "/org/freedesktop/portal/desktop"
#define CAMERA_INTERFACE "org.freedesktop.portal.Camera"
#define REQUEST_INTERFACE "org.freedesktop.portal.Request"
/* A method call's bound: the portal answers at once (a prompt is answered by a signal later). */
#define CALL_TIMEOUT_USEC (10ULL * 1000 * 1000)

static int fail(ck_portal_error *error, int code, const sd_bus_error *bus_error, const char *what) {
    error->code = code < 0 ? code : -EIO;
    error->name[0] = 0;
    if (bus_error != NULL && sd_bus_error_is_set(bus_error)) {
        snprintf(error->name, sizeof(error->name), "%s", bus_error->name);
        snprintf(error->message, sizeof(error->message), "%s: %s", what,
                 bus_error->message ? bus_error->message : bus_error->name);
    } else {
        snprintf(error->message, sizeof(error->message), "%s: %s", what, strerror(-error->code));
    }
    return error->code;
}

static int open_bus(sd_bus **bus, ck_portal_error *error) {
    int r = sd_bus_open_user(bus);
    if (r < 0) return fail(error, r, NULL, "cannot connect to the session bus");
    return 0;
}

int ck_portal_is_camera_present(int *present, ck_portal_error *error) {
    sd_bus *bus = NULL;
    sd_bus_error bus_error = SD_BUS_ERROR_NULL;
    int r = open_bus(&bus, error);
    if (r < 0) return r;
    int value = 0;
    r = sd_bus_get_property_trivial(bus, PORTAL_NAME, PORTAL_PATH, CAMERA_INTERFACE, "IsCameraPresent", &bus_error, 'b', &value);
    if (r < 0) { fail(error, r, &bus_error, "IsCameraPresent"); goto out; }
    *present = value;
    r = 0;
out:
    sd_bus_error_free(&bus_error);
    sd_bus_flush_close_unref(bus);
    return r;
}

/* Appends the options dictionary a{sv}: { "handle_token": <token> } when token is set, else empty. */
static int append_options(sd_bus_message *message, const char *token) {
    int r = sd_bus_message_open_container(message, 'a', "{sv}");
    if (r < 0 || token == NULL) return r < 0 ? r : sd_bus_message_close_container(message);
    if ((r = sd_bus_message_open_container(message, 'e', "sv")) < 0) return r;
    if ((r = sd_bus_message_append_basic(message, 's', "handle_token")) < 0) return r;
    if ((r = sd_bus_message_open_container(message, 'v', "s")) < 0) return r;
    if ((r = sd_bus_message_append_basic(message, 's', token)) < 0) return r;
    if ((r = sd_bus_message_close_container(message)) < 0) return r;
    if ((r = sd_bus_message_close_container(message)) < 0) return r;
    return sd_bus_message_close_container(message);
}

/* Calls the Camera interface's `method` with the options { handle_token: token } (or none) and
 * returns its reply in *reply (the caller unrefs it); 0 or a negative errno with `error` filled. */
static int call_camera(sd_bus *bus, const char *method, const char *token, sd_bus_message **reply, ck_portal_error *error) {
    sd_bus_message *call = NULL;
    sd_bus_error bus_error = SD_BUS_ERROR_NULL;
    int r;
    if ((r = sd_bus_message_new_method_call(bus, &call, PORTAL_NAME, PORTAL_PATH, CAMERA_INTERFACE, method)) < 0 ||
        (r = append_options(call, token)) < 0) {
        fail(error, r, NULL, method);
    } else if ((r = sd_bus_call(bus, call, CALL_TIMEOUT_USEC, &bus_error, reply)) < 0) {
        fail(error, r, &bus_error, method);
    }
    sd_bus_error_free(&bus_error);
    sd_bus_message_unref(call);
    return r < 0 ? r : 0;
}

struct answer {
    int done;
    uint32_t response;
};

static int on_response(sd_bus_message *message, void *user, sd_bus_error *ret_error) {
    (void)ret_error;
    struct answer *answer = user;
    uint32_t response = 2;
    if (sd_bus_message_read_basic(message, 'u', &response) < 0) response = 2;
    answer->response = response;
    answer->done = 1;
    return 0;
}

static uint64_t now_usec(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000ULL + (uint64_t)now.tv_nsec / 1000ULL;
}

int ck_portal_access_camera(int timeout_ms, uint32_t *response, ck_portal_error *error) {
    sd_bus *bus = NULL;
    sd_bus_message *reply = NULL;
    sd_bus_slot *slot = NULL, *moved_slot = NULL;
    struct answer answer = { 0, 2 };
    int r = open_bus(&bus, error);
    if (r < 0) return r;

    /* The request object's path is known before the call (the portal's documented scheme:
     * request/SENDER/TOKEN, SENDER the unique name without ':' and with '.' as '_'), so the
     * Response signal is subscribed to first and cannot be missed. */
    const char *unique = NULL;
    if ((r = sd_bus_get_unique_name(bus, &unique)) < 0) { fail(error, r, NULL, "the bus gave no unique name"); goto out; }
    char sender[128], token[64], path[256];
    snprintf(sender, sizeof(sender), "%s", unique[0] == ':' ? unique + 1 : unique);
    for (char *c = sender; *c; c++) if (*c == '.') *c = '_';
    snprintf(token, sizeof(token), "capturekit%ld_%llu", (long)getpid(), (unsigned long long)now_usec());
    snprintf(path, sizeof(path), PORTAL_PATH "/request/%s/%s", sender, token);
    r = sd_bus_match_signal(bus, &slot, NULL, path, REQUEST_INTERFACE, "Response", on_response, &answer);
    if (r < 0) { fail(error, r, NULL, "cannot subscribe to the portal's answer"); goto out; }

    if ((r = call_camera(bus, "AccessCamera", token, &reply, error)) < 0) goto out;
    const char *handle = NULL;
    if ((r = sd_bus_message_read_basic(reply, 'o', &handle)) < 0) { fail(error, r, NULL, "AccessCamera's answer"); goto out; }
    if (strcmp(handle, path) != 0) {
        /* A portal older than the handle_token scheme chose another path: follow that one. */
        r = sd_bus_match_signal(bus, &moved_slot, NULL, handle, REQUEST_INTERFACE, "Response", on_response, &answer);
        if (r < 0) { fail(error, r, NULL, "cannot subscribe to the portal's answer"); goto out; }
        snprintf(path, sizeof(path), "%s", handle);
    }

    uint64_t deadline = now_usec() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000ULL;
    while (!answer.done) {
        r = sd_bus_process(bus, NULL);
        if (r < 0) { fail(error, r, NULL, "the session bus failed while waiting for the portal"); goto out; }
        if (r > 0) continue;
        uint64_t now = now_usec();
        if (now >= deadline) {
            /* Nobody answered: withdraw the request so no prompt stays behind. */
            sd_bus_call_method(bus, PORTAL_NAME, path, REQUEST_INTERFACE, "Close", NULL, NULL, "");
            r = fail(error, -ETIMEDOUT, NULL, "the Camera portal did not answer");
            goto out;
        }
        r = sd_bus_wait(bus, deadline - now);
        if (r < 0 && r != -EINTR) { fail(error, r, NULL, "the session bus failed while waiting for the portal"); goto out; }
    }
    *response = answer.response;
    r = 0;
out:
    sd_bus_message_unref(reply);
    sd_bus_slot_unref(moved_slot);
    sd_bus_slot_unref(slot);
    sd_bus_flush_close_unref(bus);
    return r;
}

int ck_portal_open_pipewire_remote(int *fd, ck_portal_error *error) {
    sd_bus *bus = NULL;
    sd_bus_message *reply = NULL;
    int r = open_bus(&bus, error);
    if (r < 0) return r;
    if ((r = call_camera(bus, "OpenPipeWireRemote", NULL, &reply, error)) < 0) goto out;
    int received = -1;
    if ((r = sd_bus_message_read_basic(reply, 'h', &received)) < 0) { fail(error, r, NULL, "OpenPipeWireRemote's answer"); goto out; }
    /* The message owns the descriptor it carries: keep a copy of our own. */
    int copy = fcntl(received, F_DUPFD_CLOEXEC, 3);
    if (copy < 0) { r = fail(error, -errno, NULL, "cannot keep the PipeWire connection"); goto out; }
    *fd = copy;
    r = 0;
out:
    sd_bus_message_unref(reply);
    sd_bus_flush_close_unref(bus);
    return r;
}
