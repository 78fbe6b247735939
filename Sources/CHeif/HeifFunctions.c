// The libheif functions CaptureKit calls, each forwarding to the library's own, which is opened
// on the first call (CLibraryLoader.h says why). Each definition repeats the prototype of the
// library's header, which the compiler checks it against; to call a further function, add one
// here the same way (the link fails until then).
#include "CHeif.h"

#include "CLibraryLoader.h"

static ck_library heif = CK_LIBRARY("libheif1", "libheif.so.1");

int ck_heif_load(char *why, size_t size) {
    return ck_library_open(&heif, why, size);
}

enum heif_filetype_result heif_check_filetype(const uint8_t *data, int len) {
    return CK_LAZY(heif, heif_check_filetype)(data, len);
}

struct heif_error heif_context_add_exif_metadata(struct heif_context *a0, const struct heif_image_handle *image_handle, const void *data, int size) {
    return CK_LAZY(heif, heif_context_add_exif_metadata)(a0, image_handle, data, size);
}

struct heif_context *heif_context_alloc(void) {
    return CK_LAZY(heif, heif_context_alloc)();
}

struct heif_error heif_context_encode_image(struct heif_context *a0, const struct heif_image *image, struct heif_encoder *encoder, const struct heif_encoding_options *options, struct heif_image_handle **out_image_handle) {
    return CK_LAZY(heif, heif_context_encode_image)(a0, image, encoder, options, out_image_handle);
}

void heif_context_free(struct heif_context *a0) {
    CK_LAZY(heif, heif_context_free)(a0);
}

struct heif_error heif_context_get_encoder_for_format(struct heif_context *context, enum heif_compression_format format, struct heif_encoder **a2) {
    return CK_LAZY(heif, heif_context_get_encoder_for_format)(context, format, a2);
}

struct heif_error heif_context_get_primary_image_handle(struct heif_context *ctx, struct heif_image_handle **a1) {
    return CK_LAZY(heif, heif_context_get_primary_image_handle)(ctx, a1);
}

struct heif_error heif_context_read_from_file(struct heif_context *a0, const char *filename, const struct heif_reading_options *a2) {
    return CK_LAZY(heif, heif_context_read_from_file)(a0, filename, a2);
}

struct heif_error heif_context_read_from_memory_without_copy(struct heif_context *a0, const void *mem, size_t size, const struct heif_reading_options *a3) {
    return CK_LAZY(heif, heif_context_read_from_memory_without_copy)(a0, mem, size, a3);
}

struct heif_error heif_context_write(struct heif_context *a0, struct heif_writer *writer, void *userdata) {
    return CK_LAZY(heif, heif_context_write)(a0, writer, userdata);
}

struct heif_error heif_decode_image(const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace, enum heif_chroma chroma, const struct heif_decoding_options *options) {
    return CK_LAZY(heif, heif_decode_image)(in_handle, out_img, colorspace, chroma, options);
}

void heif_encoder_release(struct heif_encoder *a0) {
    CK_LAZY(heif, heif_encoder_release)(a0);
}

struct heif_error heif_encoder_set_lossy_quality(struct heif_encoder *a0, int quality) {
    return CK_LAZY(heif, heif_encoder_set_lossy_quality)(a0, quality);
}

struct heif_error heif_encoder_set_parameter_string(struct heif_encoder *a0, const char *parameter_name, const char *value) {
    return CK_LAZY(heif, heif_encoder_set_parameter_string)(a0, parameter_name, value);
}

struct heif_encoding_options *heif_encoding_options_alloc(void) {
    return CK_LAZY(heif, heif_encoding_options_alloc)();
}

void heif_encoding_options_free(struct heif_encoding_options *a0) {
    CK_LAZY(heif, heif_encoding_options_free)(a0);
}

int heif_have_encoder_for_format(enum heif_compression_format format) {
    return CK_LAZY(heif, heif_have_encoder_for_format)(format);
}

struct heif_error heif_image_add_plane(struct heif_image *image, enum heif_channel channel, int width, int height, int bit_depth) {
    return CK_LAZY(heif, heif_image_add_plane)(image, channel, width, height, bit_depth);
}

struct heif_error heif_image_create(int width, int height, enum heif_colorspace colorspace, enum heif_chroma chroma, struct heif_image **out_image) {
    return CK_LAZY(heif, heif_image_create)(width, height, colorspace, chroma, out_image);
}

int heif_image_get_height(const struct heif_image *a0, enum heif_channel channel) {
    return CK_LAZY(heif, heif_image_get_height)(a0, channel);
}

uint8_t *heif_image_get_plane(struct heif_image *a0, enum heif_channel channel, int *out_stride) {
    return CK_LAZY(heif, heif_image_get_plane)(a0, channel, out_stride);
}

const uint8_t *heif_image_get_plane_readonly(const struct heif_image *a0, enum heif_channel channel, int *out_stride) {
    return CK_LAZY(heif, heif_image_get_plane_readonly)(a0, channel, out_stride);
}

int heif_image_get_width(const struct heif_image *a0, enum heif_channel channel) {
    return CK_LAZY(heif, heif_image_get_width)(a0, channel);
}

int heif_image_handle_get_height(const struct heif_image_handle *handle) {
    return CK_LAZY(heif, heif_image_handle_get_height)(handle);
}

int heif_image_handle_get_list_of_metadata_block_IDs(const struct heif_image_handle *handle, const char *type_filter, heif_item_id *ids, int count) {
    return CK_LAZY(heif, heif_image_handle_get_list_of_metadata_block_IDs)(handle, type_filter, ids, count);
}

struct heif_error heif_image_handle_get_metadata(const struct heif_image_handle *handle, heif_item_id metadata_id, void *out_data) {
    return CK_LAZY(heif, heif_image_handle_get_metadata)(handle, metadata_id, out_data);
}

size_t heif_image_handle_get_metadata_size(const struct heif_image_handle *handle, heif_item_id metadata_id) {
    return CK_LAZY(heif, heif_image_handle_get_metadata_size)(handle, metadata_id);
}

int heif_image_handle_get_width(const struct heif_image_handle *handle) {
    return CK_LAZY(heif, heif_image_handle_get_width)(handle);
}

int heif_image_handle_has_alpha_channel(const struct heif_image_handle *a0) {
    return CK_LAZY(heif, heif_image_handle_has_alpha_channel)(a0);
}

void heif_image_handle_release(const struct heif_image_handle *a0) {
    CK_LAZY(heif, heif_image_handle_release)(a0);
}

void heif_image_release(const struct heif_image *a0) {
    CK_LAZY(heif, heif_image_release)(a0);
}

struct heif_error heif_image_set_nclx_color_profile(struct heif_image *image, const struct heif_color_profile_nclx *color_profile) {
    return CK_LAZY(heif, heif_image_set_nclx_color_profile)(image, color_profile);
}

struct heif_error heif_init(struct heif_init_params *a0) {
    return CK_LAZY(heif, heif_init)(a0);
}

struct heif_color_profile_nclx *heif_nclx_color_profile_alloc(void) {
    return CK_LAZY(heif, heif_nclx_color_profile_alloc)();
}

void heif_nclx_color_profile_free(struct heif_color_profile_nclx *nclx_profile) {
    CK_LAZY(heif, heif_nclx_color_profile_free)(nclx_profile);
}
