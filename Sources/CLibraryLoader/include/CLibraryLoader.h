// Shared libraries opened on first use instead of at process start.
//
// Linking FFmpeg, libheif, SDL2 and the rest made every process that uses CaptureKit load
// about 185 shared libraries and resolve their symbols before main (over 40 ms of a 55 ms
// `capture devices`). Their shims (CFFmpeg, CHeif, CSDL2, CZBar, CMicroHTTPD, CSRT) instead
// define each function CaptureKit calls under its own name, forwarding to the library's
// through a pointer found on the first call (CK_LAZY); the library is dlopen'ed then.
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One shared library, opened on first use. Define one per library as a static
/// `CK_LIBRARY(...)`; all fields are the loader's after that.
typedef struct ck_library {
    /// The sonames to try in order (NULL-terminated), e.g. { "libavcodec.so.59", NULL }.
    const char *const *sonames;
    /// The Debian package that installs it, named in the error.
    const char *package;
    pthread_mutex_t lock;
    void *handle;
    int tried;
    char failure[512];
} ck_library;

/// A `ck_library` initialiser: `static ck_library avcodec = CK_LIBRARY("libavcodec59", "libavcodec.so.59");`
#define CK_LIBRARY(package_name, ...) \
    { (const char *const[]){ __VA_ARGS__, NULL }, (package_name), PTHREAD_MUTEX_INITIALIZER, NULL, 0, { 0 } }

/// Opens `library` if it is not yet open (dlopen, RTLD_LAZY | RTLD_LOCAL). Returns 0, or -1
/// with the reason (the sonames tried, dlerror's text, the package to install) in `why`.
int ck_library_open(ck_library *library, char *why, size_t size);

/// The address of `name` in `library`, opened first if need be; `*cache` keeps it for the
/// next call. A library or function that cannot be found is an installation fault, as it is
/// for the dynamic loader at start-up: the process ends with the reason on stderr and status
/// 127, the loader's own. Entry points call the shims' `ck_*_load` first to get a typed error.
void *ck_library_function(ck_library *library, const char *name, void **cache);

/// The forwarding pointer to `name` in `library`, typed as the library's header declares it:
/// `return CK_LAZY(avcodec, avcodec_open2)(context, codec, options);`
#define CK_LAZY(library, name)                                                         \
    (__extension__({                                                                   \
        static void *ck_cached_##name;                                                 \
        (__typeof__(&name))ck_library_function(&(library), #name, &ck_cached_##name);  \
    }))

#ifdef __cplusplus
}
#endif

#endif
