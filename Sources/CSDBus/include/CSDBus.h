#ifndef CAPTUREKIT_CSDBUS_H
#define CAPTUREKIT_CSDBUS_H

/*
 * The XDG desktop Camera portal (org.freedesktop.portal.Camera) for CaptureKit, over the
 * user's session bus through sd-bus (libsystemd). sd-bus builds and reads messages with
 * variadic functions, which Swift cannot call; this shim makes the portal's three calls in C
 * and hands Swift plain values. Each call opens its own bus connection ($DBUS_SESSION_BUS_ADDRESS,
 * else $XDG_RUNTIME_DIR/bus) and closes it, so callers need no locking.
 */

#include <stddef.h>
#include <stdint.h>

/* Why a call failed: a negative errno, and the D-Bus error's name and message when the bus or
 * the portal answered with one (empty otherwise). */
typedef struct ck_portal_error {
    int code;
    char name[128];
    char message[512];
} ck_portal_error;

/* The Camera interface's `IsCameraPresent` property. 0, or a negative errno with `error` filled. */
int ck_portal_is_camera_present(int *present, ck_portal_error *error);

/* `AccessCamera`: asks the portal (which may ask the user) whether this application may use
 * cameras, and waits up to timeout_ms for the request's `Response` signal. 0 with the
 * response (0 granted, 1 denied by the user, 2 ended otherwise), or a negative errno
 * (-ETIMEDOUT: no answer in time; the request is closed). */
int ck_portal_access_camera(int timeout_ms, uint32_t *response, ck_portal_error *error);

/* `OpenPipeWireRemote`: a new connection to the PipeWire daemon that shows only the cameras
 * this application may use. 0 with a file descriptor the caller owns, or a negative errno. */
int ck_portal_open_pipewire_remote(int *fd, ck_portal_error *error);

#endif
