#ifndef CAPTUREKIT_CHEIF_SHIM_H
#define CAPTUREKIT_CHEIF_SHIM_H

#include <stddef.h>

#include <libheif/heif.h>

/* Opens libheif now rather than on the first call (see CLibraryLoader.h): 0, or -1 with
   the reason in `why`. Entry points call it to turn a missing library into a typed error. */
int ck_heif_load(char *why, size_t size);

#endif
