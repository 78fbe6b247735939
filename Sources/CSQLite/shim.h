#ifndef CAPTUREKIT_CSQLITE_SHIM_H
#define CAPTUREKIT_CSQLITE_SHIM_H

#include <sqlite3.h>

/*
 * SQLite for the media library's index. SQLITE_TRANSIENT is a macro casting -1 to a function
 * pointer, which Swift cannot import: it is re-exported here as a function. Binding text or
 * blobs with it makes SQLite copy them before the bind call returns, so Swift's temporary
 * buffers may go away at once.
 */
static inline sqlite3_destructor_type ck_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
