#ifndef CAPTUREKIT_CSRT_SHIM_H
#define CAPTUREKIT_CSRT_SHIM_H

#include <stddef.h>

/* libsrt (the GnuTLS flavour, the very library FFmpeg's srt:// protocol is linked with, so its
   sockets are this process's): the statistics of a stream's SRT connection. */
#include <srt/srt.h>

#endif
