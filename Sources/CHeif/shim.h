#ifndef CAPTUREKIT_CHEIF_SHIM_H
#define CAPTUREKIT_CHEIF_SHIM_H

#include <libheif/heif.h>

#endif
