#ifndef CAPTUREKIT_CPHOTOKERNELS_H
#define CAPTUREKIT_CPHOTOKERNELS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Plane kernels for photo encoding (CaptureKitMedia's JPEG encoder feeds TurboJPEG with them):
 * they are what turns a camera frame into TurboJPEG's input: JFIF stores full-range YCbCr while
 * cameras deliver limited range ("studio swing", Y 16...235, Cb/Cr 16...240), and a camera's
 * packed or semi-planar layout has to become three planes. Doing both in one pass is what
 * libswscale cannot do quickly (its range conversion takes its slow generic path), so these
 * are SSE2 (the x86-64 baseline) with scalar fallbacks; a photo may also ask for its pixels to
 * be turned to the connection's orientation, which the strided kernel at the end does.
 */

/* What a kernel does to each sample on the way. */
enum {
    CK_PHOTO_COPY = 0,           /* unchanged */
    CK_PHOTO_LUMA_TO_FULL = 1,   /* Y 16...235 -> 0...255 */
    CK_PHOTO_CHROMA_TO_FULL = 2  /* C 16...240 -> 0...255 around 128 */
};

/* Copies a width x height plane of one-byte samples, applying `mode`. */
void ck_photo_copy_plane(uint8_t *dst, ptrdiff_t dstStride, const uint8_t *src, ptrdiff_t srcStride,
                         int width, int height, int mode);

/*
 * Packed 4:2:2 (YUYV when lumaFirst, UYVY otherwise), width x height pixels, into full-range
 * Y, U and V planes (U and V width / 2 wide) in one pass.
 */
void ck_photo_packed422_to_planes(uint8_t *yPlane, ptrdiff_t yStride, uint8_t *uPlane, ptrdiff_t uStride,
                                  uint8_t *vPlane, ptrdiff_t vStride, const uint8_t *src, ptrdiff_t srcStride,
                                  int width, int height, int lumaFirst);

/*
 * An interleaved chroma plane (NV12's UV when uFirst, NV21's VU otherwise), width x height
 * sample pairs, into full-range U and V planes in one pass.
 */
void ck_photo_interleaved_chroma_to_planes(uint8_t *uPlane, ptrdiff_t uStride, uint8_t *vPlane, ptrdiff_t vStride,
                                           const uint8_t *src, ptrdiff_t srcStride, int width, int height, int uFirst);

/*
 * Writes a dstWidth x dstHeight plane whose pixel (x, y) is the source pixel at
 * origin + y * rowStep + x * columnStep (steps in bytes, either sign): any rotation by a
 * multiple of 90 degrees combined with mirroring. `pixelBytes` is 1 for YUV planes, 3 or 4 for
 * packed RGB (then `mode` must be CK_PHOTO_COPY). Only for photos that ask for turned pixels.
 */
void ck_photo_transform_plane(uint8_t *dst, ptrdiff_t dstStride, int dstWidth, int dstHeight,
                              const uint8_t *origin, ptrdiff_t rowStep, ptrdiff_t columnStep,
                              int pixelBytes, int mode);

/*
 * Raw Bayer rows packed as MIPI CSI-2 carries them (V4L2's SBGGR10P `pBAA` ... SRGGB12P `pRCC`)
 * into 16-bit words, the sample in the low bits: `bits` 10 (four samples in five bytes: the
 * high eight bits of each, then a byte of their low two bits, first sample lowest) or 12 (two
 * samples in three bytes, the third holding the low four bits of each). A row's last group may
 * be partial (a width that is not a multiple of the group's): the row still holds all of its
 * bytes, as the formats require, and the padding samples are not written.
 */
void ck_unpack_csi2_bayer(uint16_t *dst, ptrdiff_t dstStride, const uint8_t *src, ptrdiff_t srcStride,
                          int width, int height, int bits);

/* The bytes a row of `width` CSI-2 packed samples of `bits` (10 or 12) takes. */
ptrdiff_t ck_csi2_packed_row_bytes(int width, int bits);

#endif
