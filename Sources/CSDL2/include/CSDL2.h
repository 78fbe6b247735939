#ifndef CAPTUREKIT_CSDL2_SHIM_H
#define CAPTUREKIT_CSDL2_SHIM_H

#include <stddef.h>

/* The preview window: SDL2 (X11, Wayland or KMS/DRM, whichever SDL's video drivers find). */
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>

/* SDL_WINDOWPOS_UNDEFINED is a function-like macro Swift cannot import. */
static inline int ck_sdl_windowpos_undefined(void) {
    return (int)SDL_WINDOWPOS_UNDEFINED;
}

/* Opens SDL2 now rather than on the first call (see CLibraryLoader.h): 0, or -1 with
   the reason in `why`. Entry points call it to turn a missing library into a typed error. */
int ck_sdl_load(char *why, size_t size);

#endif
