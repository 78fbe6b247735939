#ifndef CAPTUREKIT_CZBAR_SHIM_H
#define CAPTUREKIT_CZBAR_SHIM_H

#include <stddef.h>

#include <zbar.h>

/*
 * ZBar finds the metadata output's barcodes and QR codes in a frame's luma plane. Its image
 * format codes are built by the function-like macro zbar_fourcc, which Swift cannot import:
 * the one format the scanner takes (8-bit luma, "Y800") is re-exported here as a function.
 */
static inline unsigned long ck_zbar_format_y800(void) {
    return zbar_fourcc('Y', '8', '0', '0');
}

/* Opens ZBar now rather than on the first call (see CLibraryLoader.h): 0, or -1 with
   the reason in `why`. Entry points call it to turn a missing library into a typed error. */
int ck_zbar_load(char *why, size_t size);

#endif
