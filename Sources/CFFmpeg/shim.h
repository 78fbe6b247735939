#ifndef CAPTUREKIT_CFFMPEG_SHIM_H
#define CAPTUREKIT_CFFMPEG_SHIM_H

#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixfmt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

/* Function-like macros do not import into Swift: re-export them. */
static inline int ck_averror(int e) { return AVERROR(e); }

#endif
