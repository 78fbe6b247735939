#ifndef CAPTUREKIT_CTIFF_SHIM_H
#define CAPTUREKIT_CTIFF_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* DNG files from raw Bayer frames, written by libtiff (which knows the DNG tags). libtiff is
   opened on the first call (see CLibraryLoader.h). */

/* One raw frame and what the file says about it. */
typedef struct ck_dng_image {
    int width;
    int height;
    /* 8 or 16 (16-bit samples in the machine's byte order, as V4L2 delivers them). */
    int bits_per_sample;
    const uint8_t *samples;
    ptrdiff_t bytes_per_row;
    /* The colours of the top-left 2x2 pixels, row by row: 0 red, 1 green, 2 blue. */
    uint8_t cfa_pattern[4];
    /* The largest sample value the sensor gives (2^bits - 1 unless the data is narrower). */
    uint32_t white_level;
    /* TIFF/EXIF orientation, 1...8. */
    uint16_t orientation;
    /* Each may be NULL. `date_time` is "YYYY:MM:DD HH:MM:SS". */
    const char *make;
    const char *model;
    const char *unique_camera_model;
    const char *software;
    const char *date_time;
} ck_dng_image;

/* Opens libtiff now rather than on the first call: 0, or -1 with the reason in `why`. */
int ck_tiff_load(char *why, size_t size);

/* Writes `image` as a DNG file in memory: 0 with the file in `*bytes` (free it with
   ck_dng_free) and its length in `*count`, or -1 with libtiff's reason in `why`. */
int ck_dng_encode(const ck_dng_image *image, uint8_t **bytes, size_t *count, char *why, size_t size);

void ck_dng_free(uint8_t *bytes);

#endif
