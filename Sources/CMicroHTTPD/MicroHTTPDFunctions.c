// The libmicrohttpd functions CaptureKit calls, each forwarding to the library's own, which is
// opened on the first call (CLibraryLoader.h says why). Each definition repeats the prototype of
// the library's header, which the compiler checks it against; to call a further function, add one
// here the same way (the link fails until then).
#include "CMicroHTTPD.h"

#include "CLibraryLoader.h"

static ck_library microhttpd = CK_LIBRARY("libmicrohttpd12", "libmicrohttpd.so.12");

int ck_mhd_load(char *why, size_t size) {
    return ck_library_open(&microhttpd, why, size);
}

enum MHD_Result MHD_add_response_header(struct MHD_Response *response, const char *header, const char *content) {
    return CK_LAZY(microhttpd, MHD_add_response_header)(response, header, content);
}

struct MHD_Response *MHD_create_response_from_buffer(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode) {
    return CK_LAZY(microhttpd, MHD_create_response_from_buffer)(size, buffer, mode);
}

struct MHD_Response *MHD_create_response_from_callback(uint64_t size, size_t block_size, MHD_ContentReaderCallback crc, void *crc_cls, MHD_ContentReaderFreeCallback crfc) {
    return CK_LAZY(microhttpd, MHD_create_response_from_callback)(size, block_size, crc, crc_cls, crfc);
}

struct MHD_Response *MHD_create_response_from_fd_at_offset64(uint64_t size, int fd, uint64_t offset) {
    return CK_LAZY(microhttpd, MHD_create_response_from_fd_at_offset64)(size, fd, offset);
}

void MHD_destroy_response(struct MHD_Response *response) {
    CK_LAZY(microhttpd, MHD_destroy_response)(response);
}

const char *MHD_lookup_connection_value(struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key) {
    return CK_LAZY(microhttpd, MHD_lookup_connection_value)(connection, kind, key);
}

enum MHD_Result MHD_queue_response(struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response) {
    return CK_LAZY(microhttpd, MHD_queue_response)(connection, status_code, response);
}

void MHD_stop_daemon(struct MHD_Daemon *daemon) {
    CK_LAZY(microhttpd, MHD_stop_daemon)(daemon);
}

// The variadic calls, which Swift cannot make, with the arguments the web preview needs.

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
    const union MHD_ConnectionInfo *info = CK_LAZY(microhttpd, MHD_get_connection_info)(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info == NULL) return;
    int size = CK_MHD_SEND_BUFFER_BYTES;
    (void)setsockopt(info->connect_fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

struct MHD_Daemon *ck_mhd_start(const struct sockaddr *address, unsigned int connection_limit,
                                MHD_AccessHandlerCallback handler, void *context) {
    unsigned int per_address = connection_limit / 4 > 0 ? connection_limit / 4 : 1;
    return CK_LAZY(microhttpd, MHD_start_daemon)(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
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

uint16_t ck_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = CK_LAZY(microhttpd, MHD_get_daemon_info)(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
