#ifndef CAPTUREKIT_CMICROHTTPD_SHIM_H
#define CAPTUREKIT_CMICROHTTPD_SHIM_H

/* The web preview's HTTP server: GNU libmicrohttpd. */
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/*
 * MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call, and
 * MHD_CONTENT_READER_END_OF_STREAM is a cast macro: all three are re-exported here.
 *
 * Errors are not logged to stderr (a viewer closing its tab is routine, not an error).
 * The daemon runs one thread per connection, so a content reader may wait for the next frame
 * and a slow viewer only ever holds up its own thread.
 */
/*
 * A viewer's kernel send buffer is kept small: with the default (autotuned up to megabytes on
 * loopback) a slow viewer would be sent seconds of stale frames; small, its connection thread
 * blocks soon and takes the newest frame when the viewer catches up.
 */
#define CK_MHD_SEND_BUFFER_BYTES (32 * 1024)

static void ck_mhd_connection_notified(void *context, struct MHD_Connection *connection, void **socket_context,
                                       enum MHD_ConnectionNotificationCode code) {
    (void)context;
    (void)socket_context;
    if (code != MHD_CONNECTION_NOTIFY_STARTED) return;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == NULL) return;
    int size = CK_MHD_SEND_BUFFER_BYTES;
    (void)setsockopt(info->connect_fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

/*
 * Slow clients (a "slowloris" trickling its headers) each hold a connection thread until the
 * idle timeout: the limits are high enough that hundreds of them leave room for real requests
 * (threads are cheap: 1 MiB stacks, mostly untouched), one address holds at most a quarter of
 * them, and an idle connection goes after 30 s.
 */
static inline struct MHD_Daemon *ck_mhd_start(const struct sockaddr *address, unsigned int connection_limit,
                                              MHD_AccessHandlerCallback handler, void *context) {
    unsigned int per_address = connection_limit / 4 > 0 ? connection_limit / 4 : 1;
    return MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                                (address->sa_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                            0, NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address,
                            MHD_OPTION_THREAD_STACK_SIZE, (size_t)(1024 * 1024),
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
                            MHD_OPTION_NOTIFY_CONNECTION, ck_mhd_connection_notified, NULL,
                            MHD_OPTION_END);
}

/* The port the daemon listens on (the one the kernel picked when asked for port 0). */
static inline uint16_t ck_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

static inline ssize_t ck_mhd_end_of_stream(void) {
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static inline ssize_t ck_mhd_end_with_error(void) {
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

#endif
