#ifndef CAPTUREKIT_CYUV_SHIM_H
#define CAPTUREKIT_CYUV_SHIM_H

/* libyuv: the pixel conversions it does faster than libswscale (and, for the colour matrix,
   closer to BT.601), the luma of packed 4:2:2 frames and box-filtered plane scaling (SIMD) for
   the motion output's small grey picture. libyuv names packed RGB by its 32-bit word, so its
   "ARGB" is FFmpeg's BGRA in memory, "ABGR" RGBA, "RAW" RGB24 and "RGB24" BGR24. */
#include <stdint.h>
#include <libyuv/convert.h>
#include <libyuv/convert_argb.h>
#include <libyuv/convert_from.h>
#include <libyuv/convert_from_argb.h>
#include <libyuv/planar_functions.h>
#include <libyuv/scale.h>
#include <libyuv/scale_argb.h>

#endif
