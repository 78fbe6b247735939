#ifndef CAPTUREKIT_CMOTIONKERNELS_H
#define CAPTUREKIT_CMOTIONKERNELS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The per-pixel passes of CaptureKit's motion detection (CaptureMotionOutput). They run on a
 * small grey picture (the frame's luma, downscaled once by libswscale) against a background
 * kept as floats, so they are plain loops the compiler vectorises; what is left in Swift works
 * on the few pixels that changed. `weights` holds one factor per pixel: 0 for a pixel that is
 * not watched, more than 1 where a region is more sensitive than the rest.
 */

/*
 * Counts the watched pixels by their signed difference frame - background, rounded, into
 * `histogram` (511 bins: bin 255 + d for a difference d in -255...255). Its median is how
 * much the whole picture brightened or darkened; its spread around the median is the noise.
 */
void ck_motion_difference_histogram(const uint8_t *frame, const float *background, const float *weights,
                                    size_t count, uint32_t *histogram);

/*
 * Marks (changed[i] = 1, else 0) the watched pixels whose difference from the background,
 * less the picture's overall `offset`, times the pixel's weight, exceeds `threshold`; returns
 * how many it marked.
 */
size_t ck_motion_mark_changes(const uint8_t *frame, const float *background, const float *weights, size_t count,
                              float offset, float threshold, uint8_t *changed);

/*
 * Moves the background toward the frame: by `rate` of the difference where nothing changed,
 * by `changedRate` where something did (so a thing that stops moving becomes background, but
 * slowly).
 */
void ck_motion_update_background(float *background, const uint8_t *frame, const uint8_t *changed, size_t count,
                                 float rate, float changedRate);

/* Sets the background to the frame. */
void ck_motion_reset_background(float *background, const uint8_t *frame, size_t count);

#endif
