#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// Appends `text` to the reason kept in `failure`, "; " between the parts.
static void append(char *failure, size_t size, const char *text) {
    size_t used = strlen(failure);
    snprintf(failure + used, size - used, "%s%s", used ? "; " : "", text);
}

int ck_library_open(ck_library *library, char *why, size_t size) {
    pthread_mutex_lock(&library->lock);
    if (!library->tried) {
        library->tried = 1;
        for (const char *const *soname = library->sonames; *soname && !library->handle; soname++) {
            library->handle = dlopen(*soname, RTLD_LAZY | RTLD_LOCAL);
            if (!library->handle) {
                const char *error = dlerror();
                append(library->failure, sizeof library->failure, error ? error : *soname);
            }
        }
        if (!library->handle) {
            char hint[128];
            snprintf(hint, sizeof hint, "install the package %s", library->package);
            append(library->failure, sizeof library->failure, hint);
        }
    }
    void *handle = library->handle;
    pthread_mutex_unlock(&library->lock);
    if (!handle && size > 0) snprintf(why, size, "%s", library->failure);
    return handle ? 0 : -1;
}

// Ends the process as the dynamic loader ends one it cannot start, with the reason.
static void fail(const char *what) {
    fprintf(stderr, "CaptureKit: error while loading shared libraries: %s\n", what);
    _exit(127);
}

void *ck_library_function(ck_library *library, const char *name, void **cache) {
    void *function = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (function) return function;
    char why[sizeof library->failure];
    if (ck_library_open(library, why, sizeof why) != 0) fail(why);
    // Set once under the lock before ck_library_open returned 0, never changed after.
    function = dlsym(library->handle, name);
    if (!function) {
        char what[640];
        snprintf(what, sizeof what, "%s has no function %s", library->sonames[0], name);
        fail(what);
    }
    __atomic_store_n(cache, function, __ATOMIC_RELEASE);
    return function;
}
