// The SDL2 functions CaptureKit calls, each forwarding to the library's own, which is opened on
// the first call (CLibraryLoader.h says why). Each definition repeats the prototype of the
// library's header, which the compiler checks it against; to call a further function, add one
// here the same way (the link fails until then).
#include "CSDL2.h"

#include "CLibraryLoader.h"

static ck_library sdl2 = CK_LIBRARY("libsdl2-2.0-0", "libSDL2-2.0.so.0");

int ck_sdl_load(char *why, size_t size) {
    return ck_library_open(&sdl2, why, size);
}

SDL_Renderer *SDL_CreateRenderer(SDL_Window *window, int index, Uint32 flags) {
    return CK_LAZY(sdl2, SDL_CreateRenderer)(window, index, flags);
}

SDL_Texture *SDL_CreateTexture(SDL_Renderer *renderer, Uint32 format, int access, int w, int h) {
    return CK_LAZY(sdl2, SDL_CreateTexture)(renderer, format, access, w, h);
}

SDL_Window *SDL_CreateWindow(const char *title, int x, int y, int w, int h, Uint32 flags) {
    return CK_LAZY(sdl2, SDL_CreateWindow)(title, x, y, w, h, flags);
}

void SDL_DestroyRenderer(SDL_Renderer *renderer) {
    CK_LAZY(sdl2, SDL_DestroyRenderer)(renderer);
}

void SDL_DestroyTexture(SDL_Texture *texture) {
    CK_LAZY(sdl2, SDL_DestroyTexture)(texture);
}

void SDL_DestroyWindow(SDL_Window *window) {
    CK_LAZY(sdl2, SDL_DestroyWindow)(window);
}

const char *SDL_GetError(void) {
    return CK_LAZY(sdl2, SDL_GetError)();
}

int SDL_GetRendererOutputSize(SDL_Renderer *renderer, int *w, int *h) {
    return CK_LAZY(sdl2, SDL_GetRendererOutputSize)(renderer, w, h);
}

void SDL_GetWindowSize(SDL_Window *window, int *w, int *h) {
    CK_LAZY(sdl2, SDL_GetWindowSize)(window, w, h);
}

int SDL_InitSubSystem(Uint32 flags) {
    return CK_LAZY(sdl2, SDL_InitSubSystem)(flags);
}

int SDL_PollEvent(SDL_Event *event) {
    return CK_LAZY(sdl2, SDL_PollEvent)(event);
}

void SDL_QuitSubSystem(Uint32 flags) {
    CK_LAZY(sdl2, SDL_QuitSubSystem)(flags);
}

int SDL_RenderClear(SDL_Renderer *renderer) {
    return CK_LAZY(sdl2, SDL_RenderClear)(renderer);
}

int SDL_RenderCopyEx(SDL_Renderer *renderer, SDL_Texture *texture, const SDL_Rect *srcrect, const SDL_Rect *dstrect, const double angle, const SDL_Point *center, const SDL_RendererFlip flip) {
    return CK_LAZY(sdl2, SDL_RenderCopyEx)(renderer, texture, srcrect, dstrect, angle, center, flip);
}

void SDL_RenderPresent(SDL_Renderer *renderer) {
    CK_LAZY(sdl2, SDL_RenderPresent)(renderer);
}

SDL_bool SDL_SetHint(const char *name, const char *value) {
    return CK_LAZY(sdl2, SDL_SetHint)(name, value);
}

int SDL_SetRenderDrawColor(SDL_Renderer *renderer, Uint8 r, Uint8 g, Uint8 b, Uint8 a) {
    return CK_LAZY(sdl2, SDL_SetRenderDrawColor)(renderer, r, g, b, a);
}

int SDL_SetWindowFullscreen(SDL_Window *window, Uint32 flags) {
    return CK_LAZY(sdl2, SDL_SetWindowFullscreen)(window, flags);
}

void SDL_SetYUVConversionMode(SDL_YUV_CONVERSION_MODE mode) {
    CK_LAZY(sdl2, SDL_SetYUVConversionMode)(mode);
}

int SDL_UpdateNVTexture(SDL_Texture *texture, const SDL_Rect *rect, const Uint8 *Yplane, int Ypitch, const Uint8 *UVplane, int UVpitch) {
    return CK_LAZY(sdl2, SDL_UpdateNVTexture)(texture, rect, Yplane, Ypitch, UVplane, UVpitch);
}

int SDL_UpdateTexture(SDL_Texture *texture, const SDL_Rect *rect, const void *pixels, int pitch) {
    return CK_LAZY(sdl2, SDL_UpdateTexture)(texture, rect, pixels, pitch);
}

int SDL_UpdateYUVTexture(SDL_Texture *texture, const SDL_Rect *rect, const Uint8 *Yplane, int Ypitch, const Uint8 *Uplane, int Upitch, const Uint8 *Vplane, int Vpitch) {
    return CK_LAZY(sdl2, SDL_UpdateYUVTexture)(texture, rect, Yplane, Ypitch, Uplane, Upitch, Vplane, Vpitch);
}
