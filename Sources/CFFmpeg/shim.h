#ifndef CAPTUREKIT_CFFMPEG_SHIM_H
#define CAPTUREKIT_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixfmt.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/* Function-like macros and macro constants that do not import into Swift, re-exported. */
static inline int ck_averror(int e) { return AVERROR(e); }
static inline int ck_averror_eof(void) { return AVERROR_EOF; }
static inline int ck_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int64_t ck_nopts_value(void) { return AV_NOPTS_VALUE; }

/* The text of an FFmpeg error code (av_err2str is a macro with a compound literal). */
static inline void ck_av_strerror(int code, char *buffer, size_t size) { av_strerror(code, buffer, size); }

#endif
