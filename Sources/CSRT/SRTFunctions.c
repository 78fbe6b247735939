// The libsrt functions CaptureKit calls, each forwarding to the library's own, which is opened on
// the first call (CLibraryLoader.h says why). Each definition repeats the prototype of the
// library's header, which the compiler checks it against; to call a further function, add one
// here the same way (the link fails until then).
#include "CSRT.h"

#include "CLibraryLoader.h"

static ck_library srt = CK_LIBRARY("libsrt1.5-gnutls", "libsrt-gnutls.so.1.5", "libsrt-openssl.so.1.5", "libsrt.so.1.5");

int srt_bstats(SRTSOCKET u, SRT_TRACEBSTATS *perf, int clear) {
    return CK_LAZY(srt, srt_bstats)(u, perf, clear);
}

SRT_SOCKSTATUS srt_getsockstate(SRTSOCKET u) {
    return CK_LAZY(srt, srt_getsockstate)(u);
}
