// DNG files through libtiff, opened on first use (CLibraryLoader.h says why). TIFFSetField is
// variadic, so the writer lives here in C and Swift sees one call.
#include "CTIFF.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

#include "CLibraryLoader.h"

static ck_library tiff = CK_LIBRARY("libtiff6", "libtiff.so.6");

int ck_tiff_load(char *why, size_t size) {
    return ck_library_open(&tiff, why, size);
}

void ck_dng_free(uint8_t *bytes) { free(bytes); }

// The file grows in memory: libtiff writes, seeks back to patch offsets, and reads nothing.
typedef struct memory_file {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    size_t position;
    int failed;
} memory_file;

static tmsize_t file_read(thandle_t handle, void *buffer, tmsize_t size) {
    memory_file *file = handle;
    size_t available = file->position < file->length ? file->length - file->position : 0;
    size_t count = (size_t)size < available ? (size_t)size : available;
    memcpy(buffer, file->bytes + file->position, count);
    file->position += count;
    return (tmsize_t)count;
}

static tmsize_t file_write(thandle_t handle, void *buffer, tmsize_t size) {
    memory_file *file = handle;
    size_t end = file->position + (size_t)size;
    if (end > file->capacity) {
        size_t capacity = file->capacity ? file->capacity : 1 << 16;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = realloc(file->bytes, capacity);
        if (grown == NULL) { file->failed = 1; return -1; }
        file->bytes = grown;
        file->capacity = capacity;
    }
    if (file->position > file->length) memset(file->bytes + file->length, 0, file->position - file->length);
    memcpy(file->bytes + file->position, buffer, (size_t)size);
    file->position = end;
    if (end > file->length) file->length = end;
    return size;
}

static toff_t file_seek(thandle_t handle, toff_t offset, int whence) {
    memory_file *file = handle;
    switch (whence) {
    case SEEK_SET: file->position = (size_t)offset; break;
    case SEEK_CUR: file->position += (size_t)offset; break;
    case SEEK_END: file->position = file->length + (size_t)offset; break;
    default: return (toff_t)-1;
    }
    return (toff_t)file->position;
}

static int file_close(thandle_t handle) { (void)handle; return 0; }
static toff_t file_size(thandle_t handle) { return (toff_t)((memory_file *)handle)->length; }
static int file_map(thandle_t handle, void **base, toff_t *size) { (void)handle; (void)base; (void)size; return 0; }
static void file_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

// libtiff's first error, kept for the caller; warnings are dropped (nothing of ours to act on).
typedef struct failure { char *text; size_t size; int set; } failure;

static int keep_error(TIFF *tif, void *user, const char *module, const char *format, va_list args) {
    (void)tif;
    failure *f = user;
    if (!f->set && f->size > 0) {
        int used = snprintf(f->text, f->size, "%s: ", module ? module : "libtiff");
        if (used >= 0 && (size_t)used < f->size) vsnprintf(f->text + used, f->size - (size_t)used, format, args);
        f->set = 1;
    }
    return 1;
}

static int ignore_warning(TIFF *tif, void *user, const char *module, const char *format, va_list args) {
    (void)tif; (void)user; (void)module; (void)format; (void)args;
    return 1;
}

// An array-valued tag, whichever way this libtiff registers it: with or without a count
// argument, as floats or doubles (rational tags).
static int set_array(TIFF *tif, uint32_t tag, int count, const void *values) {
    const TIFFField *field = CK_LAZY(tiff, TIFFFieldWithTag)(tif, tag);
    if (field == NULL) return 0;
    if (CK_LAZY(tiff, TIFFFieldPassCount)(field)) return CK_LAZY(tiff, TIFFSetField)(tif, tag, count, values);
    return CK_LAZY(tiff, TIFFSetField)(tif, tag, values);
}

static int set_reals(TIFF *tif, uint32_t tag, int count, const double *values) {
    const TIFFField *field = CK_LAZY(tiff, TIFFFieldWithTag)(tif, tag);
    if (field == NULL) return 0;
    if (CK_LAZY(tiff, TIFFFieldSetGetSize)(field) == 8) return set_array(tif, tag, count, values);
    float narrow[16];
    for (int i = 0; i < count && i < 16; i++) narrow[i] = (float)values[i];
    return set_array(tif, tag, count, narrow);
}

static int set_text(TIFF *tif, uint32_t tag, const char *text) {
    return text == NULL || CK_LAZY(tiff, TIFFSetField)(tif, tag, text);
}

int ck_dng_encode(const ck_dng_image *image, uint8_t **bytes, size_t *count, char *why, size_t size) {
    if (why && size) why[0] = 0;
    if (ck_library_open(&tiff, why, size) != 0) return -1;
    failure errors = { why, size, 0 };
    TIFFOpenOptions *options = CK_LAZY(tiff, TIFFOpenOptionsAlloc)();
    if (options == NULL) { snprintf(why, size, "TIFFOpenOptionsAlloc failed"); return -1; }
    CK_LAZY(tiff, TIFFOpenOptionsSetErrorHandlerExtR)(options, keep_error, &errors);
    CK_LAZY(tiff, TIFFOpenOptionsSetWarningHandlerExtR)(options, ignore_warning, NULL);
    memory_file file = { 0 };
    TIFF *tif = CK_LAZY(tiff, TIFFClientOpenExt)("photo.dng", "w", &file, file_read, file_write, file_seek, file_close,
                                                  file_size, file_map, file_unmap, options);
    CK_LAZY(tiff, TIFFOpenOptionsFree)(options);
    if (tif == NULL) {
        if (!errors.set) snprintf(why, size, "TIFFClientOpenExt failed");
        free(file.bytes);
        return -1;
    }
    // DNG 1.4, readable by any DNG 1.1 reader: the raw image is the main (and only) image.
    static const uint8_t version[4] = { 1, 4, 0, 0 }, backward[4] = { 1, 1, 0, 0 };
    static const uint16_t repeat[2] = { 2, 2 };
    // Without a calibration, the sensor's colours are taken as linear sRGB's: ColorMatrix1
    // maps CIE XYZ (D65) to them, and grey is neutral.
    static const double xyz_to_srgb[9] = { 3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570 };
    static const double neutral[3] = { 1, 1, 1 };
    uint32_t white = image->white_level;
    int ok = CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_SUBFILETYPE, 0)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)image->width)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_IMAGELENGTH, (uint32_t)image->height)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_BITSPERSAMPLE, image->bits_per_sample)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_SAMPLESPERPIXEL, 1)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_CFA)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)image->height)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_ORIENTATION, image->orientation)
        && set_text(tif, TIFFTAG_MAKE, image->make)
        && set_text(tif, TIFFTAG_MODEL, image->model)
        && set_text(tif, TIFFTAG_UNIQUECAMERAMODEL, image->unique_camera_model)
        && set_text(tif, TIFFTAG_SOFTWARE, image->software)
        && set_text(tif, TIFFTAG_DATETIME, image->date_time)
        && set_array(tif, TIFFTAG_DNGVERSION, 4, version)
        && set_array(tif, TIFFTAG_DNGBACKWARDVERSION, 4, backward)
        && set_array(tif, TIFFTAG_CFAREPEATPATTERNDIM, 2, repeat)
        && set_array(tif, TIFFTAG_CFAPATTERN, 4, image->cfa_pattern)
        && set_array(tif, TIFFTAG_WHITELEVEL, 1, &white)
        && set_reals(tif, TIFFTAG_COLORMATRIX1, 9, xyz_to_srgb)
        && CK_LAZY(tiff, TIFFSetField)(tif, TIFFTAG_CALIBRATIONILLUMINANT1, 21)  // D65
        && set_reals(tif, TIFFTAG_ASSHOTNEUTRAL, 3, neutral);
    for (int row = 0; ok && row < image->height; row++) {
        // libtiff takes a non-const buffer but only reads it.
        ok = CK_LAZY(tiff, TIFFWriteScanline)(tif, (void *)(image->samples + (ptrdiff_t)row * image->bytes_per_row), (uint32_t)row, 0) == 1;
    }
    if (ok) ok = CK_LAZY(tiff, TIFFWriteDirectory)(tif) == 1;
    CK_LAZY(tiff, TIFFClose)(tif);
    if (!ok || file.failed) {
        if (!errors.set) snprintf(why, size, file.failed ? "out of memory for a %dx%d DNG" : "libtiff refused a tag of the DNG", image->width, image->height);
        free(file.bytes);
        return -1;
    }
    *bytes = file.bytes;
    *count = file.length;
    return 0;
}
