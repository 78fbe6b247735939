#ifndef CAPTUREKIT_CMICROHTTPD_SHIM_H
#define CAPTUREKIT_CMICROHTTPD_SHIM_H

/* The web preview's HTTP server: GNU libmicrohttpd. */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/*
 * MHD_start_daemon and MHD_get_daemon_info are variadic, which Swift cannot call (wrapped in
 * MicroHTTPDFunctions.c), and MHD_CONTENT_READER_END_OF_STREAM is a cast macro: all three are
 * re-exported here.
 *
 * Errors are not logged to stderr (a viewer closing its tab is routine, not an error).
 * The daemon runs one thread per connection, so a content reader may wait for the next frame
 * and a slow viewer only ever holds up its own thread.
 */

/*
 * Slow clients (a "slowloris" trickling its headers) each hold a connection thread until the
 * idle timeout: the limits are high enough that hundreds of them leave room for real requests
 * (threads are cheap: 1 MiB stacks, mostly untouched), one address holds at most a quarter of
 * them, and an idle connection goes after 30 s.
 */
struct MHD_Daemon *ck_mhd_start(const struct sockaddr *address, unsigned int connection_limit,
                                MHD_AccessHandlerCallback handler, void *context);

/* The port the daemon listens on (the one the kernel picked when asked for port 0). */
uint16_t ck_mhd_bound_port(struct MHD_Daemon *daemon);

static inline ssize_t ck_mhd_end_of_stream(void) {
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static inline ssize_t ck_mhd_end_with_error(void) {
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

/* Opens libmicrohttpd now rather than on the first call (see CLibraryLoader.h): 0, or -1 with
   the reason in `why`. Entry points call it to turn a missing library into a typed error. */
int ck_mhd_load(char *why, size_t size);

#endif
