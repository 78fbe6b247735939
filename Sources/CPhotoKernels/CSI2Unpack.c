// MIPI CSI-2 packed Bayer rows into 16-bit words (see CPhotoKernels.h). No library unpacks
// them (libswscale and libyuv know only byte- and word-aligned Bayer), and sensors on embedded
// boards deliver nothing else in their raw modes.
#include "CPhotoKernels.h"

ptrdiff_t ck_csi2_packed_row_bytes(int width, int bits) {
    if (width <= 0) return 0;
    return bits == 12 ? (ptrdiff_t)(width + 1) / 2 * 3 : (ptrdiff_t)(width + 3) / 4 * 5;
}

static void unpack10(uint16_t *out, const uint8_t *in, int width) {
    int x = 0;
    for (; x + 4 <= width; x += 4, in += 5) {
        uint8_t low = in[4];
        out[x] = (uint16_t)(in[0] << 2 | (low & 3));
        out[x + 1] = (uint16_t)(in[1] << 2 | (low >> 2 & 3));
        out[x + 2] = (uint16_t)(in[2] << 2 | (low >> 4 & 3));
        out[x + 3] = (uint16_t)(in[3] << 2 | (low >> 6));
    }
    if (x < width) {
        // The partial group's low bits follow its last (padding) high byte: byte 4 of the group.
        uint8_t low = in[4];
        for (int i = 0; x < width; i++, x++) out[x] = (uint16_t)(in[i] << 2 | (low >> (2 * i) & 3));
    }
}

static void unpack12(uint16_t *out, const uint8_t *in, int width) {
    int x = 0;
    for (; x + 2 <= width; x += 2, in += 3) {
        out[x] = (uint16_t)(in[0] << 4 | (in[2] & 15));
        out[x + 1] = (uint16_t)(in[1] << 4 | (in[2] >> 4));
    }
    if (x < width) out[x] = (uint16_t)(in[0] << 4 | (in[2] & 15));
}

void ck_unpack_csi2_bayer(uint16_t *dst, ptrdiff_t dstStride, const uint8_t *src, ptrdiff_t srcStride,
                          int width, int height, int bits) {
    for (int y = 0; y < height; y++) {
        uint16_t *out = (uint16_t *)((uint8_t *)dst + y * dstStride);
        const uint8_t *in = src + y * srcStride;
        if (bits == 12) unpack12(out, in, width); else unpack10(out, in, width);
    }
}
