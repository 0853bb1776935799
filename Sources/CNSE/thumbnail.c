// cnse_thumbnail_make: a small preview of a JPEG, PNG or GIF attachment for the HTML report.
// Why scaled decoding: the report runs over whole batches, so a preview must cost memory in proportion to its
// own size (at most max_width x max_height cells) plus one source row, never a whole decoded image. JPEG is
// decoded at 1/2..1/8 scale by libjpeg itself; PNG and GIF rows are box-filtered into the cells as they arrive.
// Why in C: libjpeg and libpng report errors by longjmp, which must never cross a Swift frame.

#include "CNSE.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>

/// An encoded preview never grows past this, whatever max_bytes says (the PNG writer's buffer bound).
#define CNSE_THUMB_ENCODED_MAX ((size_t)16 * 1024 * 1024)

static void cnse_thumb_say(cnse_thumbnail_result *result, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void cnse_thumb_say(cnse_thumbnail_result *result, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(result->message, sizeof(result->message), format, arguments);
    va_end(arguments);
}

// MARK: The cells: a box filter over a region of the decoded image

/// The output image as cells of source pixels: cell (ox, oy) averages columns [x0 + ox*rw/ow, x0 + (ox+1)*rw/ow)
/// and the rows likewise, so every source pixel of the region falls in exactly one cell.
typedef struct {
    uint32_t x0, y0, rw, rh;  // the region, in decoded pixels
    uint32_t ow, oh;          // the output size (ow <= rw, oh <= rh)
    double *sum;              // ow*oh*4: premultiplied r, g, b (c*a) and a
    uint32_t *count;          // ow*oh: source pixels added
} cnse_cells;

/// The region a normalized clip rectangle selects in a width x height image (the whole image when invalid).
static void cnse_region(const cnse_thumbnail_request *request, uint32_t width, uint32_t height, uint32_t *x0,
                        uint32_t *y0, uint32_t *rw, uint32_t *rh) {
    *x0 = 0;
    *y0 = 0;
    *rw = width;
    *rh = height;
    double cx = request->clip_x, cy = request->clip_y, cw = request->clip_width, ch = request->clip_height;
    if (!(cw > 0) || !(ch > 0) || !isfinite(cx) || !isfinite(cy) || !isfinite(cw) || !isfinite(ch)) {
        return;
    }
    double left = fmin(fmax(cx, 0), 1), top = fmin(fmax(cy, 0), 1);
    double right = fmin(fmax(cx + cw, 0), 1), bottom = fmin(fmax(cy + ch, 0), 1);
    uint32_t l = (uint32_t)floor(left * width), t = (uint32_t)floor(top * height);
    uint32_t r = (uint32_t)ceil(right * width), b = (uint32_t)ceil(bottom * height);
    if (l >= width) l = width - 1;
    if (t >= height) t = height - 1;
    if (r <= l) r = l + 1;
    if (b <= t) b = t + 1;
    if (r > width) r = width;
    if (b > height) b = height;
    *x0 = l;
    *y0 = t;
    *rw = r - l;
    *rh = b - t;
}

/// The output size for a region: scaled down (never up) to fit the request, aspect ratio kept.
static void cnse_output_size(const cnse_thumbnail_request *request, uint32_t rw, uint32_t rh, uint32_t *ow,
                             uint32_t *oh) {
    double scale = 1;
    if (request->max_width > 0 && rw > request->max_width) scale = fmin(scale, (double)request->max_width / rw);
    if (request->max_height > 0 && rh > request->max_height) scale = fmin(scale, (double)request->max_height / rh);
    double w = floor(rw * scale + 0.5), h = floor(rh * scale + 0.5);
    *ow = w < 1 ? 1 : (uint32_t)w;
    *oh = h < 1 ? 1 : (uint32_t)h;
    if (*ow > rw) *ow = rw;
    if (*oh > rh) *oh = rh;
}

static int cnse_cells_init(cnse_cells *cells, uint32_t x0, uint32_t y0, uint32_t rw, uint32_t rh, uint32_t ow,
                           uint32_t oh) {
    cells->x0 = x0;
    cells->y0 = y0;
    cells->rw = rw;
    cells->rh = rh;
    cells->ow = ow;
    cells->oh = oh;
    size_t n = (size_t)ow * oh;
    cells->sum = calloc(n * 4, sizeof(double));
    cells->count = calloc(n, sizeof(uint32_t));
    return cells->sum != NULL && cells->count != NULL;
}

static void cnse_cells_release(cnse_cells *cells) {
    free(cells->sum);
    free(cells->count);
    cells->sum = NULL;
    cells->count = NULL;
}

/// The cell row that region row `y` (0-based within the region) falls in: the largest k with k*rh/oh <= y.
static uint32_t cnse_cell_row(const cnse_cells *cells, uint32_t y) {
    return (uint32_t)((((uint64_t)y + 1) * cells->oh - 1) / cells->rh);
}

/// Adds one decoded RGBA row (image row `y`) to the cells it covers.
static void cnse_cells_add_row(cnse_cells *cells, uint32_t y, const uint8_t *rgba) {
    if (y < cells->y0 || y - cells->y0 >= cells->rh) {
        return;
    }
    uint32_t oy = cnse_cell_row(cells, y - cells->y0);
    const uint8_t *pixel = rgba + (size_t)cells->x0 * 4;
    for (uint32_t ox = 0; ox < cells->ow; ox++) {
        uint32_t start = (uint32_t)((uint64_t)ox * cells->rw / cells->ow);
        uint32_t end = (uint32_t)((uint64_t)(ox + 1) * cells->rw / cells->ow);
        double r = 0, g = 0, b = 0, a = 0;
        for (uint32_t x = start; x < end; x++, pixel += 4) {
            double alpha = pixel[3];
            r += pixel[0] * alpha;
            g += pixel[1] * alpha;
            b += pixel[2] * alpha;
            a += alpha;
        }
        size_t cell = (size_t)oy * cells->ow + ox;
        cells->sum[cell * 4] += r;
        cells->sum[cell * 4 + 1] += g;
        cells->sum[cell * 4 + 2] += b;
        cells->sum[cell * 4 + 3] += a;
        cells->count[cell] += end - start;
    }
}

/// Turns averaged premultiplied cells (c*a and a, per pixel) into straight RGBA bytes.
static void cnse_premultiplied_to_rgba(const double *average, size_t n, uint8_t *rgba) {
    for (size_t i = 0; i < n; i++) {
        double a = average[i * 4 + 3];
        for (int c = 0; c < 3; c++) {
            double value = a > 0 ? average[i * 4 + c] / a : 0;
            rgba[i * 4 + c] = (uint8_t)fmin(fmax(floor(value + 0.5), 0), 255);
        }
        rgba[i * 4 + 3] = (uint8_t)fmin(fmax(floor(a + 0.5), 0), 255);
    }
}

/// The cells' averages as RGBA; cells no row reached (cannot happen for a complete image) stay transparent.
static void cnse_cells_finish(cnse_cells *cells, uint8_t *rgba) {
    size_t n = (size_t)cells->ow * cells->oh;
    for (size_t i = 0; i < n; i++) {
        uint32_t count = cells->count[i];
        for (int c = 0; c < 4; c++) {
            cells->sum[i * 4 + c] = count > 0 ? cells->sum[i * 4 + c] / count : 0;
        }
    }
    cnse_premultiplied_to_rgba(cells->sum, n, rgba);
}

// MARK: JPEG

typedef struct {
    struct jpeg_error_mgr base;  // first, so a j_common_ptr's err converts to this type
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    cnse_thumbnail_result *result;
    const cnse_image_limits *limits;
    /// The cnse_image_status to return after the jump.
    int status;
} cnse_thumb_jpeg_error;

static void cnse_thumb_jpeg_error_exit(j_common_ptr cinfo) {
    cnse_thumb_jpeg_error *error = (cnse_thumb_jpeg_error *)cinfo->err;
    if (cinfo->err->msg_code == JERR_NO_BACKING_STORE) {
        cnse_thumb_say(error->result, "the JPEG needs more than %ld bytes to decode", cinfo->mem->max_memory_to_use);
        error->status = CNSE_IMAGE_OVER_MEMORY_LIMIT;
    } else {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        cnse_thumb_say(error->result, "%s", text);
        error->status = CNSE_IMAGE_CORRUPT;
    }
    longjmp(error->jump, 1);
}

static void cnse_thumb_jpeg_quiet(j_common_ptr cinfo, int level) {
    // Warnings (damaged data) were already reported by validation; the preview shows what decodes.
    (void)cinfo;
    (void)level;
}

/// Stops a JPEG past the scan limit, or whose scans add up to more pixel work than allowed.
static void cnse_thumb_jpeg_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) {
        return;
    }
    j_decompress_ptr decompress = (j_decompress_ptr)cinfo;
    cnse_thumb_jpeg_error *error = (cnse_thumb_jpeg_error *)cinfo->err;
    uint64_t scans = decompress->input_scan_number > 0 ? (uint64_t)decompress->input_scan_number : 0;
    uint64_t pixels = (uint64_t)decompress->image_width * decompress->image_height;
    if (scans > error->limits->max_scans) {
        cnse_thumb_say(error->result, "the JPEG has more than %u scans", error->limits->max_scans);
        error->status = CNSE_IMAGE_OVER_SCAN_LIMIT;
        longjmp(error->jump, 1);
    }
    if (pixels > 0 && scans > error->limits->max_pixel_work / pixels) {
        cnse_thumb_say(error->result, "the JPEG's scans add up to more than %llu pixels of work",
                       (unsigned long long)error->limits->max_pixel_work);
        error->status = CNSE_IMAGE_OVER_WORK_LIMIT;
        longjmp(error->jump, 1);
    }
}

/// Decodes at the smallest 1/1..1/8 scale that still gives at least one pixel per output pixel.
static int cnse_thumb_jpeg(FILE *file, const cnse_image_limits *limits, const cnse_thumbnail_request *request,
                           cnse_thumbnail_result *result, cnse_cells *cells) {
    struct jpeg_decompress_struct cinfo;
    memset(&cinfo, 0, sizeof(cinfo));
    cnse_thumb_jpeg_error error;
    cinfo.err = jpeg_std_error(&error.base);
    error.base.error_exit = cnse_thumb_jpeg_error_exit;
    error.base.emit_message = cnse_thumb_jpeg_quiet;
    error.result = result;
    error.limits = limits;
    error.status = CNSE_IMAGE_CORRUPT;
    // Changed after setjmp and read after longjmp, hence volatile.
    JSAMPROW volatile row = NULL;
    uint8_t *volatile rgba = NULL;

    if (setjmp(error.jump) != 0) {
        free(row);
        free(rgba);
        jpeg_destroy_decompress(&cinfo);
        return error.status;
    }
    jpeg_create_decompress(&cinfo);
    error.progress.progress_monitor = cnse_thumb_jpeg_progress;
    cinfo.progress = &error.progress;
    jpeg_stdio_src(&cinfo, file);
    jpeg_read_header(&cinfo, TRUE);
    result->source_width = cinfo.image_width;
    result->source_height = cinfo.image_height;
    uint64_t pixels = (uint64_t)cinfo.image_width * cinfo.image_height;
    if (pixels > limits->max_pixels || pixels == 0) {
        cnse_thumb_say(result, "%u x %u pixels is over the limit of %llu", cinfo.image_width, cinfo.image_height,
                       (unsigned long long)limits->max_pixels);
        jpeg_destroy_decompress(&cinfo);
        return CNSE_IMAGE_TOO_MANY_PIXELS;
    }
    // The checkers' memory limit: a progressive JPEG's whole-image coefficient buffer is kept at full size
    // whatever the scale, so it is what this bounds.
    cinfo.mem->max_memory_to_use = limits->max_memory > (uint64_t)LONG_MAX ? LONG_MAX : (long)limits->max_memory;

    uint32_t x0, y0, rw, rh, ow, oh;
    cnse_region(request, cinfo.image_width, cinfo.image_height, &x0, &y0, &rw, &rh);
    cnse_output_size(request, rw, rh, &ow, &oh);
    unsigned int denom = 8;
    while (denom > 1 && (rw / denom < ow || rh / denom < oh)) {
        denom /= 2;
    }
    cinfo.scale_num = 1;
    cinfo.scale_denom = denom;
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&cinfo);

    // The region in the scaled image's pixels.
    uint32_t width = cinfo.output_width, height = cinfo.output_height;
    uint32_t sx0 = (uint32_t)((uint64_t)x0 * width / cinfo.image_width);
    uint32_t sy0 = (uint32_t)((uint64_t)y0 * height / cinfo.image_height);
    uint32_t sx1 = (uint32_t)(((uint64_t)(x0 + rw) * width + cinfo.image_width - 1) / cinfo.image_width);
    uint32_t sy1 = (uint32_t)(((uint64_t)(y0 + rh) * height + cinfo.image_height - 1) / cinfo.image_height);
    if (sx1 > width) sx1 = width;
    if (sy1 > height) sy1 = height;
    if (sx1 <= sx0) sx1 = sx0 + 1;
    if (sy1 <= sy0) sy1 = sy0 + 1;
    if (ow > sx1 - sx0) ow = sx1 - sx0;
    if (oh > sy1 - sy0) oh = sy1 - sy0;
    if (!cnse_cells_init(cells, sx0, sy0, sx1 - sx0, sy1 - sy0, ow, oh)) {
        cnse_thumb_say(result, "out of memory for the preview");
        jpeg_destroy_decompress(&cinfo);
        return 3;
    }
    int components = cinfo.output_components;
    row = malloc((size_t)width * components);
    rgba = malloc((size_t)width * 4);
    if (row == NULL || rgba == NULL) {
        cnse_thumb_say(result, "out of memory for one row");
        free(row);
        free(rgba);
        jpeg_destroy_decompress(&cinfo);
        return 3;
    }
    // Adobe writes CMYK inverted (0 = full ink); that is what Photoshop's JPEGs, the common CMYK ones, hold.
    int inverted = cinfo.saw_Adobe_marker;
    while (cinfo.output_scanline < height) {
        uint32_t y = cinfo.output_scanline;
        if (y >= sy1) {
            break;
        }
        JSAMPROW rows[1] = {row};
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) {
            break;
        }
        if (y < sy0) {
            continue;
        }
        for (uint32_t x = 0; x < width; x++) {
            const JSAMPLE *source = row + (size_t)x * components;
            uint8_t *target = rgba + (size_t)x * 4;
            if (cmyk) {
                unsigned c = source[0], m = source[1], ye = source[2], k = source[3];
                if (!inverted) {
                    c = 255 - c;
                    m = 255 - m;
                    ye = 255 - ye;
                    k = 255 - k;
                }
                target[0] = (uint8_t)(c * k / 255);
                target[1] = (uint8_t)(m * k / 255);
                target[2] = (uint8_t)(ye * k / 255);
            } else {
                target[0] = source[0];
                target[1] = source[1];
                target[2] = source[2];
            }
            target[3] = 255;
        }
        cnse_cells_add_row(cells, y, rgba);
    }
    // Rows after the region are not needed: abort rather than decode them.
    jpeg_abort_decompress(&cinfo);
    free(row);
    free(rgba);
    row = NULL;
    rgba = NULL;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

// MARK: PNG

typedef struct {
    jmp_buf jump;
    cnse_thumbnail_result *result;
} cnse_thumb_png_context;

static void cnse_thumb_png_error(png_structp png, png_const_charp message) {
    cnse_thumb_png_context *context = png_get_error_ptr(png);
    cnse_thumb_say(context->result, "%s", message != NULL ? message : "libpng error");
    // Our own jump buffer (not png_jmpbuf's): the error function may leave libpng however it likes.
    longjmp(context->jump, 1);
}

static void cnse_thumb_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/// Metadata chunks skipped unread (as the checker does), so a hostile tEXt or zTXt costs no memory.
static const png_byte cnse_thumb_png_ignored[] = "tEXt\0zTXt\0iTXt\0sPLT\0eXIf\0pCAL\0sCAL";

static int cnse_thumb_png(FILE *file, const cnse_image_limits *limits, const cnse_thumbnail_request *request,
                          cnse_thumbnail_result *result, cnse_cells *cells) {
    cnse_thumb_png_context context;
    context.result = result;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, cnse_thumb_png_error,
                                             cnse_thumb_png_warning);
    if (png == NULL) {
        cnse_thumb_say(result, "libpng could not start");
        return 3;
    }
    png_infop info = png_create_info_struct(png);
    png_bytep volatile row = NULL;
    if (info == NULL || setjmp(context.jump) != 0) {
        free(row);
        png_destroy_read_struct(&png, info != NULL ? &info : NULL, NULL);
        return 1;
    }
    png_set_user_limits(png, 0x7fffffffu, 0x7fffffffu);
    png_set_chunk_malloc_max(png, (png_alloc_size_t)8 * 1024 * 1024);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, cnse_thumb_png_ignored, 7);
    png_init_io(png, file);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    result->source_width = width;
    result->source_height = height;
    uint64_t pixels = (uint64_t)width * height;
    if (pixels > limits->max_pixels || pixels == 0) {
        cnse_thumb_say(result, "%u x %u pixels is over the limit of %llu", width, height,
                       (unsigned long long)limits->max_pixels);
        png_destroy_read_struct(&png, &info, NULL);
        return CNSE_IMAGE_TOO_MANY_PIXELS;
    }
    // Three RGBA rows (ours and libpng's two) must fit the checkers' memory limit, as in the PNG check.
    if ((uint64_t)width * 4 * 3 > limits->max_memory) {
        cnse_thumb_say(result, "rows of %u pixels need more than %llu bytes", width,
                       (unsigned long long)limits->max_memory);
        png_destroy_read_struct(&png, &info, NULL);
        return CNSE_IMAGE_OVER_MEMORY_LIMIT;
    }
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) {
        cnse_thumb_say(result, "unexpected row layout after conversion to RGBA");
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }

    uint32_t x0, y0, rw, rh, ow, oh;
    cnse_region(request, width, height, &x0, &y0, &rw, &rh);
    cnse_output_size(request, rw, rh, &ow, &oh);
    row = calloc((size_t)width, 4);
    if (row == NULL || !cnse_cells_init(cells, x0, y0, rw, rh, ow, oh)) {
        cnse_thumb_say(result, "out of memory for the preview");
        free(row);
        png_destroy_read_struct(&png, &info, NULL);
        return 3;
    }
    if (passes == 1) {
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
            cnse_cells_add_row(cells, y, row);
        }
    } else if (height == 1) {
        // One row: libpng combines every pass into the display row.
        for (int pass = 0; pass < passes; pass++) {
            png_read_row(png, NULL, row);
        }
        cnse_cells_add_row(cells, 0, row);
    } else {
        // Adam7's last pass holds every odd row whole; each stands in for the even row above it (and the last
        // row when the height is odd), so no whole-image buffer is needed for interlaced files.
        for (int pass = 0; pass < passes; pass++) {
            for (png_uint_32 y = 0; y < height; y++) {
                png_read_row(png, row, NULL);
                if (pass == passes - 1 && (y & 1)) {
                    cnse_cells_add_row(cells, y - 1, row);
                    cnse_cells_add_row(cells, y, row);
                    if (y + 2 == height) {
                        cnse_cells_add_row(cells, y + 1, row);
                    }
                }
            }
        }
    }
    free(row);
    row = NULL;
    // The end of the file (IEND) is not needed for the preview; validation has already read it.
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

// MARK: GIF

static int cnse_thumb_gif_read(GifFileType *gif, GifByteType *buffer, int length) {
    if (length <= 0) {
        return 0;
    }
    return (int)fread(buffer, 1, (size_t)length, (FILE *)gif->UserData);
}

/// The GIF's frames composited up to the requested one, directly at the output's resolution: each frame's
/// opaque pixels replace their share of a cell, transparent ones leave what was there (the box filter is
/// linear, so this is what compositing at full size and then scaling gives, up to the cell's average).
typedef struct {
    cnse_cells geometry;  // the region and cell layout; its sums hold the current frame's opaque pixels
    double *canvas;       // ow*oh*4 averaged premultiplied values: the composite so far
    double *saved;        // the canvas before a frame whose disposal is "restore previous"
    uint32_t *covered;    // ow*oh: pixels of the current frame's rectangle in each cell
} cnse_gif_canvas;

static double cnse_cell_pixels(const cnse_cells *cells, uint32_t ox, uint32_t oy) {
    uint64_t columns = (uint64_t)(ox + 1) * cells->rw / cells->ow - (uint64_t)ox * cells->rw / cells->ow;
    uint64_t rows = (uint64_t)(oy + 1) * cells->rh / cells->oh - (uint64_t)oy * cells->rh / cells->oh;
    return (double)(columns * rows);
}

static int cnse_thumb_gif(FILE *file, const cnse_image_limits *limits, const cnse_thumbnail_request *request,
                          cnse_thumbnail_result *result, uint8_t **output, uint32_t *out_width, uint32_t *out_height) {
    int error = 0;
    GifFileType *gif = DGifOpen(file, cnse_thumb_gif_read, &error);
    if (gif == NULL) {
        cnse_thumb_say(result, "%s", GifErrorString(error) != NULL ? GifErrorString(error) : "not a GIF file");
        return 1;
    }
    uint32_t width = (uint32_t)gif->SWidth, height = (uint32_t)gif->SHeight;
    result->source_width = width;
    result->source_height = height;
    uint64_t pixels = (uint64_t)width * height;
    if (pixels > limits->max_pixels || pixels == 0) {
        cnse_thumb_say(result, "%u x %u pixels is over the limit of %llu", width, height,
                       (unsigned long long)limits->max_pixels);
        DGifCloseFile(gif, &error);
        return CNSE_IMAGE_TOO_MANY_PIXELS;
    }
    uint32_t x0, y0, rw, rh, ow, oh;
    cnse_region(request, width, height, &x0, &y0, &rw, &rh);
    cnse_output_size(request, rw, rh, &ow, &oh);
    cnse_gif_canvas canvas;
    memset(&canvas, 0, sizeof(canvas));
    size_t n = (size_t)ow * oh;
    GifPixelType *line = NULL;
    uint8_t *rgba = NULL;
    int status = 0;
    if (!cnse_cells_init(&canvas.geometry, x0, y0, rw, rh, ow, oh) ||
        (canvas.canvas = calloc(n * 4, sizeof(double))) == NULL ||
        (canvas.saved = calloc(n * 4, sizeof(double))) == NULL ||
        (canvas.covered = calloc(n, sizeof(uint32_t))) == NULL || (rgba = malloc((size_t)width * 4)) == NULL) {
        cnse_thumb_say(result, "out of memory for the preview");
        status = 3;
        goto done;
    }

    int disposal = 0, transparent = -1;
    int pending_disposal = 0;
    uint32_t frame = 0;
    uint64_t work = 0;
    int shown = 0;
    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            status = 1;
            break;
        }
        if (record == TERMINATE_RECORD_TYPE) {
            break;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) {
                status = 1;
                break;
            }
            if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(block[0], block + 1, &gcb) == GIF_OK) {
                    disposal = gcb.DisposalMode;
                    transparent = gcb.TransparentColor;
                }
            }
            while (block != NULL) {
                if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) {
                    status = 1;
                    break;
                }
            }
            if (status != 0) break;
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) {
            status = 1;
            break;
        }
        if (frame >= limits->max_frames) {
            cnse_thumb_say(result, "the GIF has more than %u frames", limits->max_frames);
            status = CNSE_IMAGE_OVER_FRAME_LIMIT;
            break;
        }
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            status = 1;
            break;
        }
        // Only this frame's descriptor is needed; giflib keeps a copy of each for DGifSlurp.
        GifFreeSavedImages(gif);
        gif->SavedImages = NULL;
        gif->ImageCount = 0;
        uint32_t left = (uint32_t)gif->Image.Left, top = (uint32_t)gif->Image.Top;
        uint32_t fw = (uint32_t)gif->Image.Width, fh = (uint32_t)gif->Image.Height;
        if ((uint64_t)fw * fh > limits->max_pixels || fw == 0 || fh == 0) {
            cnse_thumb_say(result, "frame %u is %u x %u pixels", frame + 1, fw, fh);
            status = (uint64_t)fw * fh > limits->max_pixels ? CNSE_IMAGE_TOO_MANY_PIXELS : CNSE_IMAGE_CORRUPT;
            break;
        }
        work += (uint64_t)fw * fh;
        if (work > limits->max_pixel_work) {
            cnse_thumb_say(result, "the GIF's frames add up to more than %llu pixels of work",
                           (unsigned long long)limits->max_pixel_work);
            status = CNSE_IMAGE_OVER_WORK_LIMIT;
            break;
        }
        free(line);
        line = malloc(fw);
        if (line == NULL) {
            status = 3;
            break;
        }
        const ColorMapObject *map = gif->Image.ColorMap != NULL ? gif->Image.ColorMap : gif->SColorMap;

        // The previous frame's disposal happens now, before this frame is drawn.
        if (pending_disposal == 3) {
            memcpy(canvas.canvas, canvas.saved, n * 4 * sizeof(double));
        } else if (pending_disposal == 2) {
            for (size_t i = 0; i < n; i++) {
                double total = cnse_cell_pixels(&canvas.geometry, (uint32_t)(i % ow), (uint32_t)(i / ow));
                double keep = total > 0 ? (total - canvas.covered[i]) / total : 1;
                for (int c = 0; c < 4; c++) canvas.canvas[i * 4 + c] *= keep;
            }
        }
        if (disposal == 3) {
            memcpy(canvas.saved, canvas.canvas, n * 4 * sizeof(double));
        }
        memset(canvas.geometry.sum, 0, n * 4 * sizeof(double));
        memset(canvas.geometry.count, 0, n * sizeof(uint32_t));
        memset(canvas.covered, 0, n * sizeof(uint32_t));

        // Interlaced frames store rows in four passes.
        static const uint32_t offsets[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
        int passes = gif->Image.Interlace ? 4 : 1;
        int failed = 0;
        for (int pass = 0; pass < passes && !failed; pass++) {
            uint32_t start = passes == 1 ? 0 : offsets[pass], step = passes == 1 ? 1 : steps[pass];
            for (uint32_t fy = start; fy < fh; fy += step) {
                if (DGifGetLine(gif, line, (int)fw) == GIF_ERROR) {
                    failed = 1;
                    break;
                }
                uint32_t y = top + fy;
                if (y >= height) continue;
                // Pixels outside the canvas are dropped; the row is laid out over the whole canvas width.
                memset(rgba, 0, (size_t)width * 4);
                for (uint32_t fx = 0; fx < fw && left + fx < width; fx++) {
                    uint8_t *target = rgba + (size_t)(left + fx) * 4;
                    int index = line[fx];
                    target[3] = 254;  // marks "inside this frame's rectangle" for the coverage count below
                    if (index == transparent) continue;
                    if (map != NULL && index < map->ColorCount) {
                        target[0] = map->Colors[index].Red;
                        target[1] = map->Colors[index].Green;
                        target[2] = map->Colors[index].Blue;
                    } else if (map == NULL) {
                        target[0] = target[1] = target[2] = (uint8_t)index;
                    }
                    target[3] = 255;
                }
                if (y < y0 || y - y0 >= rh) continue;
                uint32_t oy = cnse_cell_row(&canvas.geometry, y - y0);
                for (uint32_t ox = 0; ox < ow; ox++) {
                    uint32_t from = x0 + (uint32_t)((uint64_t)ox * rw / ow);
                    uint32_t to = x0 + (uint32_t)((uint64_t)(ox + 1) * rw / ow);
                    size_t cell = (size_t)oy * ow + ox;
                    for (uint32_t x = from; x < to; x++) {
                        const uint8_t *pixel = rgba + (size_t)x * 4;
                        if (pixel[3] == 0) continue;
                        canvas.covered[cell] += 1;
                        if (pixel[3] != 255) continue;
                        canvas.geometry.sum[cell * 4] += pixel[0] * 255.0;
                        canvas.geometry.sum[cell * 4 + 1] += pixel[1] * 255.0;
                        canvas.geometry.sum[cell * 4 + 2] += pixel[2] * 255.0;
                        canvas.geometry.sum[cell * 4 + 3] += 255.0;
                        canvas.geometry.count[cell] += 1;
                    }
                }
            }
        }
        if (failed) {
            cnse_thumb_say(result, "damaged or truncated GIF image data in frame %u", frame + 1);
            status = 1;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            double total = cnse_cell_pixels(&canvas.geometry, (uint32_t)(i % ow), (uint32_t)(i / ow));
            if (total <= 0 || canvas.geometry.count[i] == 0) continue;
            double rest = (total - canvas.geometry.count[i]) / total;
            for (int c = 0; c < 4; c++) {
                canvas.canvas[i * 4 + c] = canvas.geometry.sum[i * 4 + c] / total + canvas.canvas[i * 4 + c] * rest;
            }
        }
        shown = 1;
        result->frame = frame;
        if (frame >= request->frame) {
            break;
        }
        pending_disposal = disposal;
        disposal = 0;
        transparent = -1;
        frame += 1;
    }
    if (!shown && status == 0) {
        cnse_thumb_say(result, "no image in the file");
        status = 1;
    }
    if (status == 1 && result->message[0] == '\0') {
        const char *text = GifErrorString(gif->Error);
        cnse_thumb_say(result, "%s", text != NULL ? text : "damaged GIF");
    }
    if (status == 0) {
        *output = malloc(n * 4);
        if (*output == NULL) {
            status = 3;
        } else {
            cnse_premultiplied_to_rgba(canvas.canvas, n, *output);
            *out_width = ow;
            *out_height = oh;
        }
    }
done:
    free(line);
    free(rgba);
    free(canvas.canvas);
    free(canvas.saved);
    free(canvas.covered);
    cnse_cells_release(&canvas.geometry);
    DGifCloseFile(gif, &error);
    return status;
}

// MARK: Encoding (image_pixels.c's encoders, shared with the UIKit stand-in)

/// Flattens transparency onto white, in place, for the JPEG encoder (which drops alpha).
static void cnse_flatten_on_white(uint8_t *rgba, size_t pixels) {
    for (size_t i = 0; i < pixels; i++) {
        unsigned a = rgba[i * 4 + 3];
        for (int c = 0; c < 3; c++) {
            rgba[i * 4 + c] = (uint8_t)((rgba[i * 4 + c] * a + 255 * (255 - a) + 127) / 255);
        }
        rgba[i * 4 + 3] = 255;
    }
}

/// Encodes the preview within max_bytes: PNG when it has transparency and fits, else JPEG at falling quality.
/// `rgba` is the caller's and may be flattened in place.
static int cnse_encode(uint8_t *rgba, uint32_t width, uint32_t height, size_t max_bytes, cnse_thumbnail_result *result) {
    size_t budget = max_bytes > 0 && max_bytes < CNSE_THUMB_ENCODED_MAX ? max_bytes : CNSE_THUMB_ENCODED_MAX;
    size_t pixels = (size_t)width * height;
    int transparent = 0;
    for (size_t i = 0; i < pixels; i++) {
        if (rgba[i * 4 + 3] != 255) {
            transparent = 1;
            break;
        }
    }
    cnse_encoded encoded;
    if (transparent) {
        if (cnse_encode_png(rgba, width, height, &encoded) == CNSE_PIXELS_OK && encoded.length <= budget) {
            result->data = encoded.bytes;
            result->size = encoded.length;
            result->is_png = 1;
            return 0;
        }
        cnse_encoded_free(&encoded);
        cnse_flatten_on_white(rgba, pixels);
    }
    static const int qualities[] = {70, 55, 40, 25};
    size_t count = sizeof(qualities) / sizeof(qualities[0]);
    for (size_t i = 0; i < count; i++) {
        if (cnse_encode_jpeg(rgba, width, height, qualities[i], &encoded) != CNSE_PIXELS_OK) {
            cnse_thumb_say(result, "libjpeg could not encode the preview: %s", encoded.message);
            cnse_encoded_free(&encoded);
            return CNSE_IMAGE_IO_ERROR;
        }
        // The last quality's output is kept even when over the budget: the caller decides what to do with it.
        if (encoded.length <= budget || i + 1 == count) {
            break;
        }
        cnse_encoded_free(&encoded);
    }
    result->data = encoded.bytes;
    result->size = encoded.length;
    result->is_png = 0;
    return 0;
}

// MARK: Entry points

int cnse_thumbnail_pixels(const char *path, cnse_thumbnail_format format, const cnse_image_limits *limits,
                          const cnse_thumbnail_request *request, cnse_thumbnail_result *result, uint8_t **rgba) {
    memset(result, 0, sizeof(*result));
    *rgba = NULL;
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        cnse_thumb_say(result, "cannot open %s: %s", path, strerror(errno));
        return 3;
    }
    uint8_t *pixels = NULL;
    uint32_t width = 0, height = 0;
    int status;
    if (format == CNSE_THUMBNAIL_GIF) {
        status = cnse_thumb_gif(file, limits, request, result, &pixels, &width, &height);
    } else {
        cnse_cells cells;
        memset(&cells, 0, sizeof(cells));
        status = format == CNSE_THUMBNAIL_JPEG ? cnse_thumb_jpeg(file, limits, request, result, &cells)
               : format == CNSE_THUMBNAIL_PNG  ? cnse_thumb_png(file, limits, request, result, &cells)
                                               : (cnse_thumb_say(result, "not an image format"), 1);
        if (status == 0) {
            width = cells.ow;
            height = cells.oh;
            pixels = malloc((size_t)width * height * 4);
            if (pixels == NULL) {
                status = 3;
            } else {
                cnse_cells_finish(&cells, pixels);
            }
        }
        cnse_cells_release(&cells);
    }
    fclose(file);
    if (status == 0) {
        result->width = width;
        result->height = height;
        *rgba = pixels;
    } else {
        free(pixels);
    }
    return status;
}

int cnse_thumbnail_make(const char *path, cnse_thumbnail_format format, const cnse_image_limits *limits,
                        const cnse_thumbnail_request *request, cnse_thumbnail_result *result) {
    uint8_t *rgba = NULL;
    int status = cnse_thumbnail_pixels(path, format, limits, request, result, &rgba);
    if (status == 0) {
        status = cnse_encode(rgba, result->width, result->height, request->max_bytes, result);
    }
    free(rgba);
    return status;
}

void cnse_thumbnail_free_pixels(uint8_t *rgba) {
    free(rgba);
}

void cnse_thumbnail_free(cnse_thumbnail_result *result) {
    free(result->data);
    result->data = NULL;
    result->size = 0;
}
