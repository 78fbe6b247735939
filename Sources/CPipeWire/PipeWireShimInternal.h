#ifndef CAPTUREKIT_PIPEWIRE_SHIM_INTERNAL_H
#define CAPTUREKIT_PIPEWIRE_SHIM_INTERNAL_H

/* What the shim's camera and audio halves share; not part of the interface Swift sees. */

#include <pipewire/pipewire.h>

/* pw_init, once per process. */
void ck_pw_init_once(void);

/* Connects `context` to the user's daemon (fd -1) or through a copy of `fd` (a portal's
 * PipeWire remote); NULL with errno set on failure. Call with the context's loop locked. */
struct pw_core *ck_pw_connect_core(struct pw_context *context, int fd);

#endif
