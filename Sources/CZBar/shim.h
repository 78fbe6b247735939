#ifndef CAPTUREKIT_CZBAR_SHIM_H
#define CAPTUREKIT_CZBAR_SHIM_H

#include <zbar.h>

/*
 * ZBar finds the metadata output's barcodes and QR codes in a frame's luma plane. Its image
 * format codes are built by the function-like macro zbar_fourcc, which Swift cannot import:
 * the one format the scanner takes (8-bit luma, "Y800") is re-exported here as a function.
 */
static inline unsigned long ck_zbar_format_y800(void) {
    return zbar_fourcc('Y', '8', '0', '0');
}

#endif
