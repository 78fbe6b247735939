#ifndef CAPTUREKIT_CTURBOJPEG_SHIM_H
#define CAPTUREKIT_CTURBOJPEG_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <turbojpeg.h>

#endif
