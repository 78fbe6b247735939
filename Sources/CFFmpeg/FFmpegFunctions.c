// The FFmpeg functions CaptureKit calls (libavformat, libavcodec, libswscale, libswresample,
// libavutil), each forwarding to the library's own, which is opened on the first call
// (CLibraryLoader.h says why). Each definition repeats the prototype of the library's header,
// which the compiler checks it against; to call a further function, add one here the same way
// (the link fails until then).
#include "CFFmpeg.h"

#include "CLibraryLoader.h"

static ck_library avformat = CK_LIBRARY("libavformat" AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR), "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR));
static ck_library avcodec = CK_LIBRARY("libavcodec" AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR), "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR));
static ck_library swscale = CK_LIBRARY("libswscale" AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR), "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR));
static ck_library swresample = CK_LIBRARY("libswresample" AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR), "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR));
static ck_library avutil = CK_LIBRARY("libavutil" AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR), "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR));

int ck_ffmpeg_load(char *why, size_t size) {
    return ck_library_open(&avformat, why, size) != 0 ||
           ck_library_open(&avcodec, why, size) != 0 ||
           ck_library_open(&swscale, why, size) != 0 ||
           ck_library_open(&swresample, why, size) != 0 ||
           ck_library_open(&avutil, why, size) != 0 ? -1 : 0;
}

int av_find_best_stream(AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags) {
    return CK_LAZY(avformat, av_find_best_stream)(ic, type, wanted_stream_nb, related_stream, decoder_ret, flags);
}

const AVInputFormat *av_find_input_format(const char *short_name) {
    return CK_LAZY(avformat, av_find_input_format)(short_name);
}

int av_interleaved_write_frame(AVFormatContext *s, AVPacket *pkt) {
    return CK_LAZY(avformat, av_interleaved_write_frame)(s, pkt);
}

int av_read_frame(AVFormatContext *s, AVPacket *pkt) {
    return CK_LAZY(avformat, av_read_frame)(s, pkt);
}

int av_seek_frame(AVFormatContext *s, int stream_index, int64_t timestamp, int flags) {
    return CK_LAZY(avformat, av_seek_frame)(s, stream_index, timestamp, flags);
}

uint8_t *av_stream_get_side_data(const AVStream *stream, enum AVPacketSideDataType type, size_t *size) {
    return CK_LAZY(avformat, av_stream_get_side_data)(stream, type, size);
}

uint8_t *av_stream_new_side_data(AVStream *stream, enum AVPacketSideDataType type, size_t size) {
    return CK_LAZY(avformat, av_stream_new_side_data)(stream, type, size);
}

int av_write_frame(AVFormatContext *s, AVPacket *pkt) {
    return CK_LAZY(avformat, av_write_frame)(s, pkt);
}

int av_write_trailer(AVFormatContext *s) {
    return CK_LAZY(avformat, av_write_trailer)(s);
}

AVFormatContext *avformat_alloc_context(void) {
    return CK_LAZY(avformat, avformat_alloc_context)();
}

int avformat_alloc_output_context2(AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename) {
    return CK_LAZY(avformat, avformat_alloc_output_context2)(ctx, oformat, format_name, filename);
}

void avformat_close_input(AVFormatContext **s) {
    CK_LAZY(avformat, avformat_close_input)(s);
}

int avformat_find_stream_info(AVFormatContext *ic, AVDictionary **options) {
    return CK_LAZY(avformat, avformat_find_stream_info)(ic, options);
}

void avformat_free_context(AVFormatContext *s) {
    CK_LAZY(avformat, avformat_free_context)(s);
}

AVStream *avformat_new_stream(AVFormatContext *s, const AVCodec *c) {
    return CK_LAZY(avformat, avformat_new_stream)(s, c);
}

int avformat_open_input(AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options) {
    return CK_LAZY(avformat, avformat_open_input)(ps, url, fmt, options);
}

unsigned int avformat_version(void) {
    return CK_LAZY(avformat, avformat_version)();
}

int avformat_write_header(AVFormatContext *s, AVDictionary **options) {
    return CK_LAZY(avformat, avformat_write_header)(s, options);
}

int avio_closep(AVIOContext **s) {
    return CK_LAZY(avformat, avio_closep)(s);
}

int avio_open(AVIOContext **s, const char *url, int flags) {
    return CK_LAZY(avformat, avio_open)(s, url, flags);
}

int avio_open2(AVIOContext **s, const char *url, int flags, const AVIOInterruptCB *int_cb, AVDictionary **options) {
    return CK_LAZY(avformat, avio_open2)(s, url, flags, int_cb, options);
}

int64_t avio_seek(AVIOContext *s, int64_t offset, int whence) {
    return CK_LAZY(avformat, avio_seek)(s, offset, whence);
}

int av_new_packet(AVPacket *pkt, int size) {
    return CK_LAZY(avcodec, av_new_packet)(pkt, size);
}

AVPacket *av_packet_alloc(void) {
    return CK_LAZY(avcodec, av_packet_alloc)();
}

AVPacket *av_packet_clone(const AVPacket *src) {
    return CK_LAZY(avcodec, av_packet_clone)(src);
}

void av_packet_free(AVPacket **pkt) {
    CK_LAZY(avcodec, av_packet_free)(pkt);
}

void av_packet_rescale_ts(AVPacket *pkt, AVRational tb_src, AVRational tb_dst) {
    CK_LAZY(avcodec, av_packet_rescale_ts)(pkt, tb_src, tb_dst);
}

void av_packet_unref(AVPacket *pkt) {
    CK_LAZY(avcodec, av_packet_unref)(pkt);
}

AVCodecContext *avcodec_alloc_context3(const AVCodec *codec) {
    return CK_LAZY(avcodec, avcodec_alloc_context3)(codec);
}

const AVCodecDescriptor *avcodec_descriptor_get(enum AVCodecID id) {
    return CK_LAZY(avcodec, avcodec_descriptor_get)(id);
}

const AVCodecDescriptor *avcodec_descriptor_get_by_name(const char *name) {
    return CK_LAZY(avcodec, avcodec_descriptor_get_by_name)(name);
}

const AVCodec *avcodec_find_decoder(enum AVCodecID id) {
    return CK_LAZY(avcodec, avcodec_find_decoder)(id);
}

const AVCodec *avcodec_find_encoder(enum AVCodecID id) {
    return CK_LAZY(avcodec, avcodec_find_encoder)(id);
}

const AVCodec *avcodec_find_encoder_by_name(const char *name) {
    return CK_LAZY(avcodec, avcodec_find_encoder_by_name)(name);
}

void avcodec_flush_buffers(AVCodecContext *avctx) {
    CK_LAZY(avcodec, avcodec_flush_buffers)(avctx);
}

void avcodec_free_context(AVCodecContext **avctx) {
    CK_LAZY(avcodec, avcodec_free_context)(avctx);
}

const char *avcodec_get_name(enum AVCodecID id) {
    return CK_LAZY(avcodec, avcodec_get_name)(id);
}

int avcodec_open2(AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options) {
    return CK_LAZY(avcodec, avcodec_open2)(avctx, codec, options);
}

AVCodecParameters *avcodec_parameters_alloc(void) {
    return CK_LAZY(avcodec, avcodec_parameters_alloc)();
}

int avcodec_parameters_copy(AVCodecParameters *dst, const AVCodecParameters *src) {
    return CK_LAZY(avcodec, avcodec_parameters_copy)(dst, src);
}

void avcodec_parameters_free(AVCodecParameters **par) {
    CK_LAZY(avcodec, avcodec_parameters_free)(par);
}

int avcodec_parameters_from_context(AVCodecParameters *par, const AVCodecContext *codec) {
    return CK_LAZY(avcodec, avcodec_parameters_from_context)(par, codec);
}

int avcodec_parameters_to_context(AVCodecContext *codec, const AVCodecParameters *par) {
    return CK_LAZY(avcodec, avcodec_parameters_to_context)(codec, par);
}

const char *avcodec_profile_name(enum AVCodecID codec_id, int profile) {
    return CK_LAZY(avcodec, avcodec_profile_name)(codec_id, profile);
}

int avcodec_receive_frame(AVCodecContext *avctx, AVFrame *frame) {
    return CK_LAZY(avcodec, avcodec_receive_frame)(avctx, frame);
}

int avcodec_receive_packet(AVCodecContext *avctx, AVPacket *avpkt) {
    return CK_LAZY(avcodec, avcodec_receive_packet)(avctx, avpkt);
}

int avcodec_send_frame(AVCodecContext *avctx, const AVFrame *frame) {
    return CK_LAZY(avcodec, avcodec_send_frame)(avctx, frame);
}

int avcodec_send_packet(AVCodecContext *avctx, const AVPacket *avpkt) {
    return CK_LAZY(avcodec, avcodec_send_packet)(avctx, avpkt);
}

void sws_freeContext(struct SwsContext *swsContext) {
    CK_LAZY(swscale, sws_freeContext)(swsContext);
}

struct SwsContext *sws_getCachedContext(struct SwsContext *context, int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param) {
    return CK_LAZY(swscale, sws_getCachedContext)(context, srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param);
}

const int *sws_getCoefficients(int colorspace) {
    return CK_LAZY(swscale, sws_getCoefficients)(colorspace);
}

int sws_getColorspaceDetails(struct SwsContext *c, int **inv_table, int *srcRange, int **table, int *dstRange, int *brightness, int *contrast, int *saturation) {
    return CK_LAZY(swscale, sws_getColorspaceDetails)(c, inv_table, srcRange, table, dstRange, brightness, contrast, saturation);
}

struct SwsContext *sws_getContext(int srcW, int srcH, enum AVPixelFormat srcFormat, int dstW, int dstH, enum AVPixelFormat dstFormat, int flags, SwsFilter *srcFilter, SwsFilter *dstFilter, const double *param) {
    return CK_LAZY(swscale, sws_getContext)(srcW, srcH, srcFormat, dstW, dstH, dstFormat, flags, srcFilter, dstFilter, param);
}

int sws_scale(struct SwsContext *c, const uint8_t *const *srcSlice, const int *srcStride, int srcSliceY, int srcSliceH, uint8_t *const *dst, const int *dstStride) {
    return CK_LAZY(swscale, sws_scale)(c, srcSlice, srcStride, srcSliceY, srcSliceH, dst, dstStride);
}

int sws_setColorspaceDetails(struct SwsContext *c, const int *inv_table, int srcRange, const int *table, int dstRange, int brightness, int contrast, int saturation) {
    return CK_LAZY(swscale, sws_setColorspaceDetails)(c, inv_table, srcRange, table, dstRange, brightness, contrast, saturation);
}

int swr_alloc_set_opts2(struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset, void *log_ctx) {
    return CK_LAZY(swresample, swr_alloc_set_opts2)(ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset, log_ctx);
}

int swr_convert(struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count) {
    return CK_LAZY(swresample, swr_convert)(s, out, out_count, in, in_count);
}

void swr_free(struct SwrContext **s) {
    CK_LAZY(swresample, swr_free)(s);
}

int swr_get_out_samples(struct SwrContext *s, int in_samples) {
    return CK_LAZY(swresample, swr_get_out_samples)(s, in_samples);
}

int swr_init(struct SwrContext *s) {
    return CK_LAZY(swresample, swr_init)(s);
}

int swr_set_matrix(struct SwrContext *s, const double *matrix, int stride) {
    return CK_LAZY(swresample, swr_set_matrix)(s, matrix, stride);
}

AVAudioFifo *av_audio_fifo_alloc(enum AVSampleFormat sample_fmt, int channels, int nb_samples) {
    return CK_LAZY(avutil, av_audio_fifo_alloc)(sample_fmt, channels, nb_samples);
}

void av_audio_fifo_free(AVAudioFifo *af) {
    CK_LAZY(avutil, av_audio_fifo_free)(af);
}

int av_audio_fifo_read(AVAudioFifo *af, void **data, int nb_samples) {
    return CK_LAZY(avutil, av_audio_fifo_read)(af, data, nb_samples);
}

int av_audio_fifo_size(AVAudioFifo *af) {
    return CK_LAZY(avutil, av_audio_fifo_size)(af);
}

int av_audio_fifo_write(AVAudioFifo *af, void **data, int nb_samples) {
    return CK_LAZY(avutil, av_audio_fifo_write)(af, data, nb_samples);
}

AVBufferRef *av_buffer_create(uint8_t *data, size_t size, void (*free)(void *, uint8_t *), void *opaque, int flags) {
    return CK_LAZY(avutil, av_buffer_create)(data, size, free, opaque, flags);
}

int av_channel_layout_copy(AVChannelLayout *dst, const AVChannelLayout *src) {
    return CK_LAZY(avutil, av_channel_layout_copy)(dst, src);
}

void av_channel_layout_default(AVChannelLayout *ch_layout, int nb_channels) {
    CK_LAZY(avutil, av_channel_layout_default)(ch_layout, nb_channels);
}

int av_channel_layout_describe(const AVChannelLayout *channel_layout, char *buf, size_t buf_size) {
    return CK_LAZY(avutil, av_channel_layout_describe)(channel_layout, buf, buf_size);
}

void av_channel_layout_uninit(AVChannelLayout *channel_layout) {
    CK_LAZY(avutil, av_channel_layout_uninit)(channel_layout);
}

int av_dict_copy(AVDictionary **dst, const AVDictionary *src, int flags) {
    return CK_LAZY(avutil, av_dict_copy)(dst, src, flags);
}

void av_dict_free(AVDictionary **m) {
    CK_LAZY(avutil, av_dict_free)(m);
}

AVDictionaryEntry *av_dict_get(const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags) {
    return CK_LAZY(avutil, av_dict_get)(m, key, prev, flags);
}

int av_dict_set(AVDictionary **pm, const char *key, const char *value, int flags) {
    return CK_LAZY(avutil, av_dict_set)(pm, key, value, flags);
}

void av_display_matrix_flip(int32_t *matrix, int hflip, int vflip) {
    CK_LAZY(avutil, av_display_matrix_flip)(matrix, hflip, vflip);
}

double av_display_rotation_get(const int32_t *matrix) {
    return CK_LAZY(avutil, av_display_rotation_get)(matrix);
}

void av_display_rotation_set(int32_t *matrix, double angle) {
    CK_LAZY(avutil, av_display_rotation_set)(matrix, angle);
}

AVFrame *av_frame_alloc(void) {
    return CK_LAZY(avutil, av_frame_alloc)();
}

void av_frame_free(AVFrame **frame) {
    CK_LAZY(avutil, av_frame_free)(frame);
}

int av_frame_get_buffer(AVFrame *frame, int align) {
    return CK_LAZY(avutil, av_frame_get_buffer)(frame, align);
}

void av_frame_move_ref(AVFrame *dst, AVFrame *src) {
    CK_LAZY(avutil, av_frame_move_ref)(dst, src);
}

void av_frame_unref(AVFrame *frame) {
    CK_LAZY(avutil, av_frame_unref)(frame);
}

void av_freep(void *ptr) {
    CK_LAZY(avutil, av_freep)(ptr);
}

const char *av_get_pix_fmt_name(enum AVPixelFormat pix_fmt) {
    return CK_LAZY(avutil, av_get_pix_fmt_name)(pix_fmt);
}

const char *av_get_sample_fmt_name(enum AVSampleFormat sample_fmt) {
    return CK_LAZY(avutil, av_get_sample_fmt_name)(sample_fmt);
}

int av_log_format_line2(void *ptr, int level, const char *fmt, va_list vl, char *line, int line_size, int *print_prefix) {
    return CK_LAZY(avutil, av_log_format_line2)(ptr, level, fmt, vl, line, line_size, print_prefix);
}

void av_log_set_callback(void (*callback)(void *, int, const char *, va_list)) {
    CK_LAZY(avutil, av_log_set_callback)(callback);
}

void av_log_set_level(int level) {
    CK_LAZY(avutil, av_log_set_level)(level);
}

int av_opt_set(void *obj, const char *name, const char *val, int search_flags) {
    return CK_LAZY(avutil, av_opt_set)(obj, name, val, search_flags);
}

const AVPixFmtDescriptor *av_pix_fmt_desc_get(enum AVPixelFormat pix_fmt) {
    return CK_LAZY(avutil, av_pix_fmt_desc_get)(pix_fmt);
}

int64_t av_rescale_q(int64_t a, AVRational bq, AVRational cq) {
    return CK_LAZY(avutil, av_rescale_q)(a, bq, cq);
}

int av_samples_alloc(uint8_t **audio_data, int *linesize, int nb_channels, int nb_samples, enum AVSampleFormat sample_fmt, int align) {
    return CK_LAZY(avutil, av_samples_alloc)(audio_data, linesize, nb_channels, nb_samples, sample_fmt, align);
}

int av_strerror(int errnum, char *errbuf, size_t errbuf_size) {
    return CK_LAZY(avutil, av_strerror)(errnum, errbuf, errbuf_size);
}
