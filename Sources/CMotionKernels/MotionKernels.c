#include "CMotionKernels.h"

#include <math.h>

void ck_motion_difference_histogram(const uint8_t *frame, const float *background, const float *weights,
                                    size_t count, uint32_t *histogram) {
    for (size_t i = 0; i < 511; i++) histogram[i] = 0;
    for (size_t i = 0; i < count; i++) {
        if (weights[i] == 0.0f) continue;
        int difference = (int)lrintf((float)frame[i] - background[i]);
        histogram[255 + difference]++;
    }
}

size_t ck_motion_mark_changes(const uint8_t *frame, const float *background, const float *weights, size_t count,
                              float offset, float threshold, uint8_t *changed) {
    size_t marked = 0;
    for (size_t i = 0; i < count; i++) {
        float difference = fabsf((float)frame[i] - background[i] - offset) * weights[i];
        uint8_t mark = difference > threshold;
        changed[i] = mark;
        marked += mark;
    }
    return marked;
}

void ck_motion_update_background(float *background, const uint8_t *frame, const uint8_t *changed, size_t count,
                                 float rate, float changedRate) {
    for (size_t i = 0; i < count; i++) {
        float step = changed[i] ? changedRate : rate;
        background[i] += step * ((float)frame[i] - background[i]);
    }
}

void ck_motion_reset_background(float *background, const uint8_t *frame, size_t count) {
    for (size_t i = 0; i < count; i++) background[i] = (float)frame[i];
}
