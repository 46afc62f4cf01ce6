/* test_image_io.c - PNG kinds, PNM, round-trips and bad files. */
#include "test_groups.h"

#include "segbench/image_io.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { W = 37, H = 23 };   /* odd sizes: no accidental alignment */

static unsigned v_at(int x, int y) { return (unsigned)(x * 7 + y * 13) & 255u; }

/* Write a PNG with libpng directly; `sample(x, y, c)` gives each sample at
 * the file's own bit depth. */
static void write_png_kind(const char *path, int color_type, int depth, int interlace, int channels,
                           unsigned (*sample)(int x, int y, int c), int palette_size, int with_trns)
{
    FILE *fp = fopen(path, "wb");
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (!fp || !png || !info || setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "cannot write test PNG %s\n", path);
        exit(2);
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, W, H, depth, color_type, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (palette_size) {
        png_color pal[256];
        png_byte trns[256];
        for (int i = 0; i < palette_size; i++) {
            pal[i].red = (png_byte)i;
            pal[i].green = (png_byte)(255 - i);
            pal[i].blue = (png_byte)(i * 3);
            trns[i] = (png_byte)(i * 5);
        }
        png_set_PLTE(png, info, pal, palette_size);
        if (with_trns)
            png_set_tRNS(png, info, trns, palette_size, NULL);
    }
    png_write_info(png, info);
    if (depth < 8)
        png_set_packing(png);
    if (depth == 16)
        png_set_swap(png);   /* we fill little-endian shorts below */
    size_t sample_bytes = depth == 16 ? 2 : 1;
    unsigned char *row = malloc((size_t)W * channels * sample_bytes);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++)
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++)
                for (int c = 0; c < channels; c++) {
                    unsigned s = sample(x, y, c);
                    size_t at = ((size_t)x * channels + c) * sample_bytes;
                    if (depth == 16) {
                        row[at] = (unsigned char)(s & 0xff);
                        row[at + 1] = (unsigned char)(s >> 8);
                    } else {
                        row[at] = (unsigned char)s;
                    }
                }
            png_write_row(png, row);
        }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    fclose(fp);
}

static unsigned s_grey(int x, int y, int c) { return c == 0 ? v_at(x, y) : 255u - v_at(x, y); }
static unsigned s_rgb(int x, int y, int c)
{
    unsigned v = v_at(x, y);
    return c == 0 ? v : c == 1 ? (v ^ 0x55u) : c == 2 ? 255u - v : 77u;   /* c == 3: alpha */
}
static unsigned s_grey16(int x, int y, int c)
{
    unsigned v = v_at(x, y);   /* v * 257 plus a little that must round away */
    return c == 0 ? v * 257u + (v < 255 ? 100u : 0u) : 65535u;
}
static unsigned s_rgb16(int x, int y, int c) { return s_rgb(x, y, c) * 257u; }
static unsigned s_index(int x, int y, int c) { (void)c; return v_at(x, y); }
static unsigned s_index4(int x, int y, int c) { (void)c; return v_at(x, y) & 15u; }
static unsigned s_bit(int x, int y, int c) { (void)c; return v_at(x, y) & 1u; }
static unsigned s_2bit(int x, int y, int c) { (void)c; return v_at(x, y) & 3u; }

/* Load `path` natively and compare with expect(x, y, c). */
static void expect_pixels(const char *path, int channels, unsigned (*expect)(int x, int y, int c))
{
    sb_image img;
    sb_error err;
    sb_status st = sb_image_load(path, SB_LOAD_NATIVE, &img, &err);
    CHECKF(st == SB_OK, "%s: %s", path, err.msg);
    if (st)
        return;
    CHECKF(img.width == W && img.height == H && img.channels == channels, "%s: got %dx%dx%d", path, img.width,
           img.height, img.channels);
    int bad = 0;
    for (int y = 0; y < H && img.channels == channels; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < channels; c++)
                bad += sb_image_row(&img, y)[x * channels + c] != expect(x, y, c);
    CHECKF(bad == 0, "%s: %d samples differ", path, bad);
    sb_image_free(&img);
}

static unsigned e_grey(int x, int y, int c) { (void)c; return v_at(x, y); }
static unsigned e_rgb(int x, int y, int c) { return s_rgb(x, y, c); }
static unsigned e_palette(int x, int y, int c)
{
    unsigned i = v_at(x, y);
    return c == 0 ? i : c == 1 ? 255u - i : (i * 3u) & 255u;
}
static unsigned e_palette4(int x, int y, int c)
{
    unsigned i = v_at(x, y) & 15u;
    return c == 0 ? i : c == 1 ? 255u - i : (i * 3u) & 255u;
}
static unsigned e_bit(int x, int y, int c) { (void)c; return (v_at(x, y) & 1u) * 255u; }
static unsigned e_2bit(int x, int y, int c) { (void)c; return (v_at(x, y) & 3u) * 85u; }

static void test_png_every_kind(void)
{
    struct {
        const char *name;
        int type, depth, interlace, channels, palette, trns;
        unsigned (*sample)(int, int, int);
        int out_channels;
        unsigned (*expect)(int, int, int);
    } kinds[] = {
        { "grey8.png", PNG_COLOR_TYPE_GRAY, 8, 0, 1, 0, 0, s_grey, 1, e_grey },
        { "grey-alpha8.png", PNG_COLOR_TYPE_GRAY_ALPHA, 8, 0, 2, 0, 0, s_grey, 1, e_grey },
        { "grey16.png", PNG_COLOR_TYPE_GRAY, 16, 0, 1, 0, 0, s_grey16, 1, e_grey },
        { "grey1.png", PNG_COLOR_TYPE_GRAY, 1, 0, 1, 0, 0, s_bit, 1, e_bit },
        { "grey2.png", PNG_COLOR_TYPE_GRAY, 2, 0, 1, 0, 0, s_2bit, 1, e_2bit },
        { "palette8.png", PNG_COLOR_TYPE_PALETTE, 8, 0, 1, 256, 0, s_index, 3, e_palette },
        { "palette4-trns.png", PNG_COLOR_TYPE_PALETTE, 4, 0, 1, 16, 1, s_index4, 3, e_palette4 },
        { "rgb8.png", PNG_COLOR_TYPE_RGB, 8, 0, 3, 0, 0, s_rgb, 3, e_rgb },
        { "rgba8.png", PNG_COLOR_TYPE_RGBA, 8, 0, 4, 0, 0, s_rgb, 3, e_rgb },
        { "rgb16.png", PNG_COLOR_TYPE_RGB, 16, 0, 3, 0, 0, s_rgb16, 3, e_rgb },
        { "rgb8-interlaced.png", PNG_COLOR_TYPE_RGB, 8, PNG_INTERLACE_ADAM7, 3, 0, 0, s_rgb, 3, e_rgb },
        { "grey16-interlaced.png", PNG_COLOR_TYPE_GRAY, 16, PNG_INTERLACE_ADAM7, 1, 0, 0, s_grey16, 1, e_grey },
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *path = test_path(kinds[k].name);
        write_png_kind(path, kinds[k].type, kinds[k].depth, kinds[k].interlace, kinds[k].channels,
                       kinds[k].sample, kinds[k].palette, kinds[k].trns);
        expect_pixels(path, kinds[k].out_channels, kinds[k].expect);
    }
}

static void test_png_load_modes(void)
{
    const char *rgb = test_path("modes-rgb.png"), *grey = test_path("modes-grey.png");
    write_png_kind(rgb, PNG_COLOR_TYPE_RGB, 8, 0, 3, s_rgb, 0, 0);
    write_png_kind(grey, PNG_COLOR_TYPE_GRAY, 8, 0, 1, s_grey, 0, 0);
    sb_image a, b;
    sb_error err;
    CHECK(sb_image_load(rgb, SB_LOAD_GREY, &a, &err) == SB_OK && a.channels == 1);
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            bad += a.data[y * W + x] != sb_luma_u8((uint8_t)s_rgb(x, y, 0), (uint8_t)s_rgb(x, y, 1),
                                                   (uint8_t)s_rgb(x, y, 2));
    CHECKF(bad == 0, "%d grey values differ from sb_luma_u8", bad);
    CHECK(sb_image_load(grey, SB_LOAD_RGB, &b, &err) == SB_OK && b.channels == 3);
    bad = 0;
    for (int i = 0; i < W * H; i++)
        bad += b.data[3 * i] != b.data[3 * i + 2] || b.data[3 * i] != v_at(i % W, i / W);
    CHECKF(bad == 0, "%d RGB values are not the grey value repeated", bad);
    sb_image_free(&a);
    sb_image_free(&b);
    CHECK(sb_luma_u8(255, 255, 255) == 255 && sb_luma_u8(0, 0, 0) == 0);
}

static void test_save_round_trips(void)
{
    sb_image rgb, grey, back;
    sb_error err;
    test_random_grey(&grey, 61, 17, 3);
    CHECK(sb_image_alloc(&rgb, 61, 17, 3, &err) == SB_OK);
    for (size_t i = 0; i < rgb.stride * 17; i++)
        rgb.data[i] = (unsigned char)(i * 31 + 7);
    const struct {
        const char *name;
        sb_image *img;
    } cases[] = { { "rt.png", &rgb }, { "rt-grey.png", &grey }, { "rt.ppm", &rgb }, { "rt.pgm", &grey } };
    for (size_t k = 0; k < 4; k++) {
        const char *path = test_path(cases[k].name);
        CHECKF(sb_image_save(path, cases[k].img, &err) == SB_OK, "%s: %s", path, err.msg);
        CHECKF(sb_image_load(path, SB_LOAD_NATIVE, &back, &err) == SB_OK, "%s: %s", path, err.msg);
        CHECK(back.width == cases[k].img->width && back.channels == cases[k].img->channels);
        CHECKF(memcmp(back.data, cases[k].img->data, cases[k].img->stride * 17) == 0, "%s differs", path);
        sb_image_free(&back);
    }
    CHECK(sb_image_save(test_path("bad.pgm"), &rgb, &err) == SB_ERR_USAGE);   /* RGB into PGM */
    CHECK(sb_image_save(test_path("bad.bmp"), &rgb, &err) == SB_ERR_USAGE);
    sb_image_free(&rgb);
    sb_image_free(&grey);
}

static void test_pnm_16bit_and_comments(void)
{
    const char *path = test_path("p16.pgm");
    FILE *fp = fopen(path, "wb");
    fprintf(fp, "P5\n# a comment\n3 1\n65535\n");
    const unsigned char data[] = { 0, 0, 0x80, 0x80, 0xff, 0xff };
    fwrite(data, 1, sizeof data, fp);
    fclose(fp);
    sb_image img;
    sb_error err;
    CHECKF(sb_image_load(path, SB_LOAD_NATIVE, &img, &err) == SB_OK, "%s", err.msg);
    CHECK(img.width == 3 && img.data[0] == 0 && img.data[1] == 128 && img.data[2] == 255);
    sb_image_free(&img);
}

/* ---- bad files ---- */

static void put_u32(unsigned char *p, unsigned v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A PNG with a valid signature, an IHDR claiming w x h, an empty IDAT and
 * IEND, all with correct CRCs. */
void test_write_png_header(const char *path, unsigned w, unsigned h)
{
    unsigned char buf[8 + 25 + 12 + 12];
    const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    memcpy(buf, sig, 8);
    unsigned char *c = buf + 8;
    put_u32(c, 13);
    memcpy(c + 4, "IHDR", 4);
    put_u32(c + 8, w);
    put_u32(c + 12, h);
    c[16] = 8;
    c[17] = 0;
    c[18] = c[19] = c[20] = 0;
    put_u32(c + 21, (unsigned)crc32(0, c + 4, 17));
    unsigned char *d = c + 25;
    put_u32(d, 0);
    memcpy(d + 4, "IDAT", 4);
    put_u32(d + 8, (unsigned)crc32(0, d + 4, 4));
    unsigned char *e = d + 12;
    put_u32(e, 0);
    memcpy(e + 4, "IEND", 4);
    put_u32(e + 8, (unsigned)crc32(0, e + 4, 4));
    FILE *fp = fopen(path, "wb");
    fwrite(buf, 1, sizeof buf, fp);
    fclose(fp);
}

void test_write_truncated_png(const char *path)
{
    sb_image img;
    test_random_grey(&img, 64, 64, 11);
    sb_error err;
    if (sb_image_save(path, &img, &err) != SB_OK)
        exit(2);
    sb_image_free(&img);
    struct stat st;
    stat(path, &st);
    if (truncate(path, st.st_size / 2) != 0)
        exit(2);
}

static void expect_load_error(const char *path, sb_status want, const char *needle)
{
    sb_image img;
    sb_error err = { SB_OK, "" };
    sb_status st = sb_image_load(path, SB_LOAD_NATIVE, &img, &err);
    CHECKF(st == want, "%s: status %d, wanted %d (%s)", path, st, want, err.msg);
    CHECKF(strstr(err.msg, path) != NULL, "message does not name the file: %s", err.msg);
    CHECKF(strstr(err.msg, needle) != NULL, "message lacks '%s': %s", needle, err.msg);
    CHECKF(strchr(err.msg, '\n') == NULL, "message is not one line: %s", err.msg);
    CHECK(img.data == NULL);
}

static void test_bad_files(void)
{
    const char *trunc = test_path("truncated.png"), *text = test_path("text.png"), *zero = test_path("zero.png");
    const char *huge = test_path("huge.png"), *empty = test_path("empty.png"), *jpeg = test_path("x.jpg");
    test_write_truncated_png(trunc);
    FILE *fp = fopen(text, "w");
    fputs("hello, not an image\n", fp);
    fclose(fp);
    fclose(fopen(empty, "w"));
    fp = fopen(jpeg, "wb");
    fputs("\xff\xd8\xff\xe0 JFIF", fp);
    fclose(fp);
    test_write_png_header(zero, 0, 16);
    test_write_png_header(huge, 100000, 100000);

    expect_load_error(trunc, SB_ERR_FORMAT, "truncated");
    expect_load_error(text, SB_ERR_FORMAT, "not a PNG");
    expect_load_error(empty, SB_ERR_FORMAT, "empty");
    expect_load_error(jpeg, SB_ERR_FORMAT, "JPEG");
    expect_load_error(zero, SB_ERR_FORMAT, "width is zero");
    expect_load_error(huge, SB_ERR_LIMIT, "100000x100000");
    expect_load_error(test_path("no-such-file.png"), SB_ERR_IO, "No such file");
    expect_load_error(sb_test_dir(), SB_ERR_IO, "directory");

    const char *pnm_huge = test_path("huge.ppm");
    fp = fopen(pnm_huge, "w");
    fputs("P6\n100000 100000\n255\n", fp);
    fclose(fp);
    expect_load_error(pnm_huge, SB_ERR_LIMIT, "100000x100000");
    const char *pnm_short = test_path("short.pgm");
    fp = fopen(pnm_short, "w");
    fputs("P5\n10 10\n255\nabc", fp);
    fclose(fp);
    expect_load_error(pnm_short, SB_ERR_FORMAT, "truncated");
}

static void test_save_errors_leave_nothing(void)
{
    sb_image img;
    test_random_grey(&img, 8, 8, 5);
    sb_error err = { SB_OK, "" };
    char path[600];
    snprintf(path, sizeof path, "%s/missing-dir/out.png", sb_test_dir());
    CHECK(sb_image_save(path, &img, &err) == SB_ERR_IO);
    CHECKF(strstr(err.msg, "directory does not exist") != NULL, "%s", err.msg);
    CHECK(test_count_temp_files(sb_test_dir()) == 0);
    sb_image_free(&img);

    sb_image bad = { 4, 4, 2, 8, NULL };   /* two channels cannot be written */
    unsigned char pixels[32] = { 0 };
    bad.data = pixels;
    CHECK(sb_image_save(test_path("two-channels.png"), &bad, &err) != SB_OK);
    struct stat st;
    CHECK(stat(test_path("two-channels.png"), &st) != 0);
    CHECK(test_count_temp_files(sb_test_dir()) == 0);
}

static void test_size_limits(void)
{
    sb_error err;
    CHECK(sb_check_size(1, 1, "x", &err) == SB_OK);
    CHECK(sb_check_size(SB_MAX_SIDE, 8192, "x", &err) == SB_OK);
    CHECK(sb_check_size(0, 5, "x", &err) == SB_ERR_LIMIT);
    CHECK(sb_check_size(5, -1, "x", &err) == SB_ERR_LIMIT);
    CHECK(sb_check_size(SB_MAX_SIDE + 1, 1, "x", &err) == SB_ERR_LIMIT);
    CHECK(sb_check_size(SB_MAX_SIDE, SB_MAX_SIDE, "x", &err) == SB_ERR_LIMIT);
}

const sb_test tests_image_io[] = {
    { "png: every kind decodes to the expected 8-bit pixels", test_png_every_kind },
    { "png: grey and RGB load modes use the stated conversions", test_png_load_modes },
    { "image: PNG/PPM/PGM save and load round-trip", test_save_round_trips },
    { "pnm: 16-bit samples and header comments", test_pnm_16bit_and_comments },
    { "image: bad files give one clear error each", test_bad_files },
    { "image: failed saves leave no file behind", test_save_errors_leave_nothing },
    { "image: size limits", test_size_limits },
};
const int tests_image_io_count = sizeof tests_image_io / sizeof tests_image_io[0];
