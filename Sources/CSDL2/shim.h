#ifndef CAPTUREKIT_CSDL2_SHIM_H
#define CAPTUREKIT_CSDL2_SHIM_H

/* The preview window: SDL2 (X11, Wayland or KMS/DRM, whichever SDL's video drivers find). */
#define SDL_MAIN_HANDLED 1
#include <SDL2/SDL.h>

/* SDL_WINDOWPOS_UNDEFINED is a function-like macro Swift cannot import. */
static inline int ck_sdl_windowpos_undefined(void) {
    return (int)SDL_WINDOWPOS_UNDEFINED;
}

#endif
