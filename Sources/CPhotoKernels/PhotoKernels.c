// The photo encoder's plane kernels (see CPhotoKernels.h): a C target of their own rather than
// inline functions in a system library's shim, so they are compiled once, by the C compiler.
#include "CPhotoKernels.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The reference: 255/219 and 255/224 in 1.15 fixed point, rounded to nearest. */
static inline uint8_t ck_photo_luma_to_full(int v) {
    int r = ((v - 16) * 38154 + 16384) >> 15;
    return (uint8_t)(r < 0 ? 0 : (r > 255 ? 255 : r));
}

static inline uint8_t ck_photo_chroma_to_full(int v) {
    int r = (((v - 128) * 37303 + 16384) >> 15) + 128;
    return (uint8_t)(r < 0 ? 0 : (r > 255 ? 255 : r));
}

#if defined(__SSE2__)
/*
 * The same on eight 16-bit lanes with SSE2's high-half multiplies: luma (d * 128 + 55) * 596
 * >> 16 = d * 1.1641 + 0.5, chroma (s * 256 + 112) * 291 >> 16 = s * 1.1367 + 0.5; within one
 * step of the reference everywhere. The final pack to bytes clamps to 0...255.
 */
static inline __m128i ck_photo_luma16(__m128i y) {
    __m128i d = _mm_subs_epu16(y, _mm_set1_epi16(16));
    __m128i x = _mm_add_epi16(_mm_slli_epi16(d, 7), _mm_set1_epi16(55));
    return _mm_mulhi_epu16(x, _mm_set1_epi16(596));
}

static inline __m128i ck_photo_chroma16(__m128i c) {
    __m128i s = _mm_sub_epi16(c, _mm_set1_epi16(128));
    __m128i x = _mm_add_epi16(_mm_slli_epi16(s, 8), _mm_set1_epi16(112));
    return _mm_add_epi16(_mm_mulhi_epi16(x, _mm_set1_epi16(291)), _mm_set1_epi16(128));
}
#endif

/* Copies a width x height plane of one-byte samples, applying `mode`. */
void ck_photo_copy_plane(uint8_t *dst, ptrdiff_t dstStride, const uint8_t *src, ptrdiff_t srcStride,
                         int width, int height, int mode) {
    for (int y = 0; y < height; y++) {
        const uint8_t *s = src + (ptrdiff_t)y * srcStride;
        uint8_t *d = dst + (ptrdiff_t)y * dstStride;
        if (mode == CK_PHOTO_COPY) {
            memcpy(d, s, (size_t)width);
            continue;
        }
        int x = 0;
#if defined(__SSE2__)
        const __m128i zero = _mm_setzero_si128();
        for (; x + 16 <= width; x += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + x));
            __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
            if (mode == CK_PHOTO_LUMA_TO_FULL) {
                lo = ck_photo_luma16(lo);
                hi = ck_photo_luma16(hi);
            } else {
                lo = ck_photo_chroma16(lo);
                hi = ck_photo_chroma16(hi);
            }
            _mm_storeu_si128((__m128i *)(d + x), _mm_packus_epi16(lo, hi));
        }
#endif
        for (; x < width; x++) d[x] = mode == CK_PHOTO_LUMA_TO_FULL ? ck_photo_luma_to_full(s[x]) : ck_photo_chroma_to_full(s[x]);
    }
}

/*
 * Packed 4:2:2 (YUYV when lumaFirst, UYVY otherwise), width x height pixels, into full-range
 * Y, U and V planes (U and V width / 2 wide) in one pass.
 */
void ck_photo_packed422_to_planes(uint8_t *yPlane, ptrdiff_t yStride, uint8_t *uPlane, ptrdiff_t uStride,
                                  uint8_t *vPlane, ptrdiff_t vStride, const uint8_t *src, ptrdiff_t srcStride,
                                  int width, int height, int lumaFirst) {
    const int yo = lumaFirst ? 0 : 1;
    for (int row = 0; row < height; row++) {
        const uint8_t *s = src + (ptrdiff_t)row * srcStride;
        uint8_t *yr = yPlane + (ptrdiff_t)row * yStride;
        uint8_t *ur = uPlane + (ptrdiff_t)row * uStride;
        uint8_t *vr = vPlane + (ptrdiff_t)row * vStride;
        int x = 0;
#if defined(__SSE2__)
        const __m128i low = _mm_set1_epi16(0x00FF);
        for (; x + 16 <= width; x += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + 2 * x));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + 2 * x + 16));
            __m128i ya = lumaFirst ? _mm_and_si128(a, low) : _mm_srli_epi16(a, 8);
            __m128i yb = lumaFirst ? _mm_and_si128(b, low) : _mm_srli_epi16(b, 8);
            __m128i ca = lumaFirst ? _mm_srli_epi16(a, 8) : _mm_and_si128(a, low);
            __m128i cb = lumaFirst ? _mm_srli_epi16(b, 8) : _mm_and_si128(b, low);
            _mm_storeu_si128((__m128i *)(yr + x), _mm_packus_epi16(ck_photo_luma16(ya), ck_photo_luma16(yb)));
            __m128i uv = _mm_packus_epi16(ck_photo_chroma16(ca), ck_photo_chroma16(cb));   /* U0 V0 U1 V1 ... */
            __m128i u = _mm_and_si128(uv, low), v = _mm_srli_epi16(uv, 8);
            _mm_storel_epi64((__m128i *)(ur + x / 2), _mm_packus_epi16(u, u));
            _mm_storel_epi64((__m128i *)(vr + x / 2), _mm_packus_epi16(v, v));
        }
#endif
        for (; x + 1 < width; x += 2) {
            const uint8_t *p = s + 2 * x;
            yr[x] = ck_photo_luma_to_full(p[yo]);
            yr[x + 1] = ck_photo_luma_to_full(p[yo + 2]);
            ur[x / 2] = ck_photo_chroma_to_full(p[1 - yo]);
            vr[x / 2] = ck_photo_chroma_to_full(p[3 - yo]);
        }
    }
}

/*
 * An interleaved chroma plane (NV12's UV when uFirst, NV21's VU otherwise), width x height
 * sample pairs, into full-range U and V planes in one pass.
 */
void ck_photo_interleaved_chroma_to_planes(uint8_t *uPlane, ptrdiff_t uStride, uint8_t *vPlane, ptrdiff_t vStride,
                                           const uint8_t *src, ptrdiff_t srcStride, int width, int height, int uFirst) {
    for (int row = 0; row < height; row++) {
        const uint8_t *s = src + (ptrdiff_t)row * srcStride;
        uint8_t *ur = uPlane + (ptrdiff_t)row * uStride;
        uint8_t *vr = vPlane + (ptrdiff_t)row * vStride;
        int x = 0;
#if defined(__SSE2__)
        const __m128i low = _mm_set1_epi16(0x00FF);
        for (; x + 16 <= width; x += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + 2 * x));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + 2 * x + 16));
            __m128i first = _mm_packus_epi16(ck_photo_chroma16(_mm_and_si128(a, low)), ck_photo_chroma16(_mm_and_si128(b, low)));
            __m128i second = _mm_packus_epi16(ck_photo_chroma16(_mm_srli_epi16(a, 8)), ck_photo_chroma16(_mm_srli_epi16(b, 8)));
            _mm_storeu_si128((__m128i *)(ur + x), uFirst ? first : second);
            _mm_storeu_si128((__m128i *)(vr + x), uFirst ? second : first);
        }
#endif
        for (; x < width; x++) {
            ur[x] = ck_photo_chroma_to_full(s[2 * x + (uFirst ? 0 : 1)]);
            vr[x] = ck_photo_chroma_to_full(s[2 * x + (uFirst ? 1 : 0)]);
        }
    }
}

/*
 * Writes a dstWidth x dstHeight plane whose pixel (x, y) is the source pixel at
 * origin + y * rowStep + x * columnStep (steps in bytes, either sign): any rotation by a
 * multiple of 90 degrees combined with mirroring. `pixelBytes` is 1 for YUV planes, 3 or 4 for
 * packed RGB (then `mode` must be CK_PHOTO_COPY). Only for photos that ask for turned pixels.
 */
void ck_photo_transform_plane(uint8_t *dst, ptrdiff_t dstStride, int dstWidth, int dstHeight,
                              const uint8_t *origin, ptrdiff_t rowStep, ptrdiff_t columnStep,
                              int pixelBytes, int mode) {
    for (int y = 0; y < dstHeight; y++) {
        const uint8_t *s = origin + (ptrdiff_t)y * rowStep;
        uint8_t *d = dst + (ptrdiff_t)y * dstStride;
        if (pixelBytes == 1) {
            for (int x = 0; x < dstWidth; x++, s += columnStep) {
                d[x] = mode == CK_PHOTO_LUMA_TO_FULL ? ck_photo_luma_to_full(*s)
                     : mode == CK_PHOTO_CHROMA_TO_FULL ? ck_photo_chroma_to_full(*s) : *s;
            }
        } else {
            for (int x = 0; x < dstWidth; x++, s += columnStep) {
                for (int b = 0; b < pixelBytes; b++) d[x * pixelBytes + b] = s[b];
            }
        }
    }
}
