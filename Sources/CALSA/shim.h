#ifndef CAPTUREKIT_CALSA_SHIM_H
#define CAPTUREKIT_CALSA_SHIM_H

#include <alsa/asoundlib.h>

/* ALSA prints its own errors to stderr through a variadic handler; a handler that prints
   nothing keeps stderr to the application (CaptureKit reports every error as a CaptureError). */
static void ck_alsa_silent_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void ck_alsa_silence_errors(void) { snd_lib_error_set_handler(ck_alsa_silent_error); }

/* The stream direction and open mode as plain ints (SND_PCM_NONBLOCK is a macro). */
static inline int ck_alsa_nonblock(void) { return SND_PCM_NONBLOCK; }

#endif
