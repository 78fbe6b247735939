#ifndef CAPTUREKIT_CFFMPEG_SHIM_H
#define CAPTUREKIT_CFFMPEG_SHIM_H

#include <stddef.h>

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

/* Opens FFmpeg (libavformat, libavcodec, libswscale, libswresample, libavutil) now rather
   than on the first call (see CLibraryLoader.h): 0, or -1 with the reason in `why`. Entry
   points call it to turn a missing library into a typed error. */
int ck_ffmpeg_load(char *why, size_t size);

#endif
