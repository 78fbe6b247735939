// The ZBar functions CaptureKit calls, each forwarding to the library's own, which is opened on
// the first call (CLibraryLoader.h says why). Each definition repeats the prototype of the
// library's header, which the compiler checks it against; to call a further function, add one
// here the same way (the link fails until then).
#include "CZBar.h"

#include "CLibraryLoader.h"

static ck_library zbar = CK_LIBRARY("libzbar0", "libzbar.so.0");

int ck_zbar_load(char *why, size_t size) {
    return ck_library_open(&zbar, why, size);
}

zbar_image_t *zbar_image_create(void) {
    return CK_LAZY(zbar, zbar_image_create)();
}

void zbar_image_destroy(zbar_image_t *image) {
    CK_LAZY(zbar, zbar_image_destroy)(image);
}

const zbar_symbol_t *zbar_image_first_symbol(const zbar_image_t *image) {
    return CK_LAZY(zbar, zbar_image_first_symbol)(image);
}

zbar_image_scanner_t *zbar_image_scanner_create(void) {
    return CK_LAZY(zbar, zbar_image_scanner_create)();
}

void zbar_image_scanner_destroy(zbar_image_scanner_t *scanner) {
    CK_LAZY(zbar, zbar_image_scanner_destroy)(scanner);
}

void zbar_image_scanner_recycle_image(zbar_image_scanner_t *scanner, zbar_image_t *image) {
    CK_LAZY(zbar, zbar_image_scanner_recycle_image)(scanner, image);
}

int zbar_image_scanner_set_config(zbar_image_scanner_t *scanner, zbar_symbol_type_t symbology, zbar_config_t config, int value) {
    return CK_LAZY(zbar, zbar_image_scanner_set_config)(scanner, symbology, config, value);
}

void zbar_image_set_crop(zbar_image_t *image, unsigned int x, unsigned int y, unsigned int width, unsigned int height) {
    CK_LAZY(zbar, zbar_image_set_crop)(image, x, y, width, height);
}

void zbar_image_set_data(zbar_image_t *image, const void *data, unsigned long data_byte_length, zbar_image_cleanup_handler_t *cleanup_hndlr) {
    CK_LAZY(zbar, zbar_image_set_data)(image, data, data_byte_length, cleanup_hndlr);
}

void zbar_image_set_format(zbar_image_t *image, unsigned long format) {
    CK_LAZY(zbar, zbar_image_set_format)(image, format);
}

void zbar_image_set_size(zbar_image_t *image, unsigned int width, unsigned int height) {
    CK_LAZY(zbar, zbar_image_set_size)(image, width, height);
}

int zbar_scan_image(zbar_image_scanner_t *scanner, zbar_image_t *image) {
    return CK_LAZY(zbar, zbar_scan_image)(scanner, image);
}

const char *zbar_symbol_get_data(const zbar_symbol_t *symbol) {
    return CK_LAZY(zbar, zbar_symbol_get_data)(symbol);
}

unsigned int zbar_symbol_get_data_length(const zbar_symbol_t *symbol) {
    return CK_LAZY(zbar, zbar_symbol_get_data_length)(symbol);
}

unsigned int zbar_symbol_get_loc_size(const zbar_symbol_t *symbol) {
    return CK_LAZY(zbar, zbar_symbol_get_loc_size)(symbol);
}

int zbar_symbol_get_loc_x(const zbar_symbol_t *symbol, unsigned int index) {
    return CK_LAZY(zbar, zbar_symbol_get_loc_x)(symbol, index);
}

int zbar_symbol_get_loc_y(const zbar_symbol_t *symbol, unsigned int index) {
    return CK_LAZY(zbar, zbar_symbol_get_loc_y)(symbol, index);
}

zbar_orientation_t zbar_symbol_get_orientation(const zbar_symbol_t *symbol) {
    return CK_LAZY(zbar, zbar_symbol_get_orientation)(symbol);
}

zbar_symbol_type_t zbar_symbol_get_type(const zbar_symbol_t *symbol) {
    return CK_LAZY(zbar, zbar_symbol_get_type)(symbol);
}

const zbar_symbol_t *zbar_symbol_next(const zbar_symbol_t *symbol) {
    return CK_LAZY(zbar, zbar_symbol_next)(symbol);
}
