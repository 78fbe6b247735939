#ifndef CAPTUREKIT_CYUV_SHIM_H
#define CAPTUREKIT_CYUV_SHIM_H

/* libyuv: the luma of packed 4:2:2 frames and box-filtered plane scaling (SIMD), for the
   motion output's small grey picture. */
#include <stdint.h>
#include <libyuv/planar_functions.h>
#include <libyuv/scale.h>

#endif
