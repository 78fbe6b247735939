#ifndef CAPTUREKIT_CZXING_H
#define CAPTUREKIT_CZXING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * zxing-cpp (libzxing-dev 1.4, C++ only) behind a C interface, for the symbologies ZBar cannot
 * read: Data Matrix and PDF417. Swift sees plain C; no C++ type crosses this header.
 */

/* The symbologies asked for and reported (bit flags). */
enum {
    CK_ZXING_DATA_MATRIX = 1,
    CK_ZXING_PDF417 = 2
};

/* What one read found; owned by the library, released with ck_zxing_results_free. */
typedef struct ck_zxing_results ck_zxing_results;

/*
 * Reads the `crop_width` x `crop_height` rectangle at (`left`, `top`) of an 8-bit luma plane of
 * `width` x `height` pixels whose rows are `stride` bytes apart, in place (ZXing::ReadBarcodes on
 * a cropped ZXing::ImageView). Returns NULL when zxing-cpp failed (it threw); the message is
 * then in `error` (at most `error_size` bytes, NUL-terminated).
 */
ck_zxing_results *ck_zxing_read(const uint8_t *luma, int width, int height, int stride,
                                int left, int top, int crop_width, int crop_height, int formats,
                                char *error, size_t error_size);

/* How many symbols were decoded. */
int ck_zxing_results_count(const ck_zxing_results *results);

/* Symbol `index`'s symbology (CK_ZXING_*). */
int ck_zxing_result_format(const ck_zxing_results *results, int index);

/* Symbol `index`'s payload bytes, without character-set conversion, and their count. */
const uint8_t *ck_zxing_result_bytes(const ck_zxing_results *results, int index, size_t *count);

/*
 * Symbol `index`'s corners in plane pixels: top-left, top-right, bottom-right, bottom-left of
 * the symbol in its reading direction, as x0, y0, x1, y1, ... in `xy`.
 */
void ck_zxing_result_corners(const ck_zxing_results *results, int index, int xy[8]);

void ck_zxing_results_free(ck_zxing_results *results);

#ifdef __cplusplus
}
#endif

#endif
