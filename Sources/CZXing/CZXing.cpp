#include "CZXing.h"

#include <ZXing/ReadBarcode.h>

#include <cstring>
#include <exception>
#include <new>
#include <vector>

// Copies out what the C side needs, so no ZXing object outlives the call.
struct ck_zxing_symbol {
    int format;
    std::vector<uint8_t> bytes;
    int xy[8];
};

struct ck_zxing_results {
    std::vector<ck_zxing_symbol> symbols;
};

static void ck_zxing_set_error(char *error, size_t size, const char *message) {
    if (error == nullptr || size == 0) return;
    std::strncpy(error, message, size - 1);
    error[size - 1] = '\0';
}

ck_zxing_results *ck_zxing_read(const uint8_t *luma, int width, int height, int stride,
                                int left, int top, int crop_width, int crop_height, int formats,
                                char *error, size_t error_size) {
    try {
        ZXing::BarcodeFormats wanted;
        if (formats & CK_ZXING_DATA_MATRIX) wanted |= ZXing::BarcodeFormat::DataMatrix;
        if (formats & CK_ZXING_PDF417) wanted |= ZXing::BarcodeFormat::PDF417;
        ZXing::DecodeHints hints;
        hints.setFormats(wanted);
        ZXing::ImageView image(luma, width, height, ZXing::ImageFormat::Lum, stride);
        auto found = ZXing::ReadBarcodes(image.cropped(left, top, crop_width, crop_height), hints);
        auto *results = new ck_zxing_results;
        for (const auto &result : found) {
            if (!result.isValid()) continue;
            ck_zxing_symbol symbol;
            symbol.format = result.format() == ZXing::BarcodeFormat::DataMatrix ? CK_ZXING_DATA_MATRIX : CK_ZXING_PDF417;
            const auto &bytes = result.bytes();
            symbol.bytes.assign(bytes.begin(), bytes.end());
            const auto &position = result.position();
            for (int corner = 0; corner < 4; ++corner) {
                // Positions are relative to the crop; the caller wants plane pixels.
                symbol.xy[2 * corner] = position[corner].x + left;
                symbol.xy[2 * corner + 1] = position[corner].y + top;
            }
            results->symbols.push_back(std::move(symbol));
        }
        return results;
    } catch (const std::exception &exception) {
        ck_zxing_set_error(error, error_size, exception.what());
    } catch (...) {
        ck_zxing_set_error(error, error_size, "zxing-cpp threw an unknown exception");
    }
    return nullptr;
}

int ck_zxing_results_count(const ck_zxing_results *results) {
    return static_cast<int>(results->symbols.size());
}

int ck_zxing_result_format(const ck_zxing_results *results, int index) {
    return results->symbols[index].format;
}

const uint8_t *ck_zxing_result_bytes(const ck_zxing_results *results, int index, size_t *count) {
    const auto &bytes = results->symbols[index].bytes;
    *count = bytes.size();
    return bytes.data();
}

void ck_zxing_result_corners(const ck_zxing_results *results, int index, int xy[8]) {
    std::memcpy(xy, results->symbols[index].xy, sizeof(int) * 8);
}

void ck_zxing_results_free(ck_zxing_results *results) {
    delete results;
}
