/* y4m.c - YUV4MPEG2 frames (segbench/video_io.h): the colours, the
 * chroma kinds, a frame cut off, and what is refused. */
#include "test_groups.h"

#include "segbench/video_io.h"

#include <stdio.h>
#include <string.h>

/* A y4m file: header, then `frames` frames of the given planes (the same
 * each frame but for the first luma sample, the frame's number), and
 * `tail` more bytes of one more frame. */
static const char *write_y4m(const char *name, const char *header, const unsigned char *planes, size_t bytes,
                             int frames, size_t tail)
{
    const char *path = test_path(name);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return path;
    fprintf(fp, "%s\n", header);
    for (int f = 0; f < frames; f++) {
        fputs("FRAME\n", fp);
        fputc(f, fp);
        fwrite(planes + 1, 1, bytes - 1, fp);
    }
    if (tail) {
        fputs("FRAME\n", fp);
        fwrite(planes, 1, tail, fp);
    }
    fclose(fp);
    return path;
}

static int rgb_at(const sb_image *img, int x, int y, int r, int g, int b)
{
    const unsigned char *p = sb_image_row(img, y) + 3 * x;
    return p[0] == r && p[1] == g && p[2] == b;
}

/* BT.601 by hand: full range Y 100, U 128, V 200 is R 100 + 1.402 * 72 =
 * 200.9, G 100 - 0.714136 * 72 = 48.6, B 100; limited range Y 16 is
 * black and Y 235 white. */
static void test_colours(void)
{
    /* 4x2, 4:4:4: Y, U and V planes of 8 samples each */
    unsigned char planes[24];
    memset(planes, 128, sizeof planes);
    for (int i = 0; i < 8; i++)
        planes[i] = 100;
    planes[16 + 1] = 200;                                   /* V of pixel (1, 0) */
    sb_y4m v;
    sb_error err = { SB_OK, "" };
    const char *path = write_y4m("full.y4m", "YUV4MPEG2 W4 H2 F30:1 Ip A1:1 C444 XCOLORRANGE=FULL", planes, 24, 2, 0);
    CHECKF(sb_y4m_open(path, &v, &err) == SB_OK && v.frames == 2 && v.width == 4 && v.full_range && !v.note[0],
           "%s", err.msg);
    sb_image img;
    if (sb_y4m_read_frame(path, &v, 1, SB_LOAD_RGB, &img, &err) == SB_OK) {
        CHECKF(rgb_at(&img, 1, 0, 201, 49, 100) && rgb_at(&img, 2, 1, 100, 100, 100), "(1,0) = %d %d %d",
               sb_image_row(&img, 0)[3], sb_image_row(&img, 0)[4], sb_image_row(&img, 0)[5]);
        CHECK(rgb_at(&img, 0, 0, 1, 1, 1));                 /* frame 1's first Y sample is 1 */
        sb_image_free(&img);
    }
    CHECK(sb_y4m_read_frame(path, &v, 2, SB_LOAD_RGB, &img, &err) == SB_ERR_USAGE && strstr(err.msg, "no frame 3"));
    sb_y4m_free(&v);

    /* 4x4, 4:2:0 (the default), limited range: black and white rows, a red chroma sample over the top left 2x2 */
    unsigned char p420[16 + 4 + 4];
    memset(p420, 128, sizeof p420);
    for (int i = 0; i < 16; i++)
        p420[i] = i < 8 ? 16 : 235;
    p420[20] = 240;                                         /* V of the top left 2x2 */
    path = write_y4m("limited.y4m", "YUV4MPEG2 W4 H4 F25:1", p420, sizeof p420, 3, 0);
    CHECKF(sb_y4m_open(path, &v, &err) == SB_OK && v.frames == 3 && v.chroma_w == 2 && !v.full_range, "%s", err.msg);
    if (sb_y4m_read_frame(path, &v, 2, SB_LOAD_RGB, &img, &err) == SB_OK) {
        /* Y 16, V 240: R 1.596 * 112 = 178.8, G -0.813 * 112 < 0, B 0 */
        CHECKF(rgb_at(&img, 1, 1, 179, 0, 0) && rgb_at(&img, 2, 1, 0, 0, 0) && rgb_at(&img, 3, 3, 255, 255, 255),
               "%d %d %d", sb_image_row(&img, 1)[3], sb_image_row(&img, 1)[4], sb_image_row(&img, 1)[5]);
        sb_image_free(&img);
    }
    if (sb_y4m_read_frame(path, &v, 1, SB_LOAD_GREY, &img, &err) == SB_OK) {
        CHECK(img.channels == 1 && sb_image_row(&img, 3)[0] == 255 && sb_image_row(&img, 0)[3] == 0);
        sb_image_free(&img);
    }
    sb_y4m_free(&v);
}

/* The last frame cut off, or a frame with no FRAME line: the frames
 * before it kept, and the note says so; nothing whole: refused. */
static void test_cut_off(void)
{
    unsigned char planes[24];
    memset(planes, 90, sizeof planes);
    sb_y4m v;
    sb_error err = { SB_OK, "" };
    const char *path = write_y4m("cut.y4m", "YUV4MPEG2 W4 H4 C420jpeg", planes, 24, 2, 10);
    CHECKF(sb_y4m_open(path, &v, &err) == SB_OK && v.frames == 2 && strstr(v.note, "frame 3 is cut off") &&
               strstr(v.note, "the 2 before it are kept"),
           "%s | %s", err.msg, v.note);
    sb_y4m_free(&v);
    path = write_y4m("bad-frame.y4m", "YUV4MPEG2 W4 H4", planes, 24, 1, 0);
    FILE *fp = fopen(path, "ab");
    if (fp) {
        fputs("FRAMX\n", fp);
        fwrite(planes, 1, 24, fp);
        fclose(fp);
    }
    CHECKF(sb_y4m_open(path, &v, &err) == SB_OK && v.frames == 1 && strstr(v.note, "frame 2 has no FRAME header"),
           "%s | %s", err.msg, v.note);
    sb_y4m_free(&v);
    path = write_y4m("only-cut.y4m", "YUV4MPEG2 W4 H4", planes, 24, 0, 5);
    CHECKF(sb_y4m_open(path, &v, &err) == SB_ERR_FORMAT && strstr(err.msg, "no whole frame") &&
               strstr(err.msg, "cut off"),
           "%s", err.msg);
}

/* One clear line for each: over 8 bits, interlaced, no size, too large,
 * not a y4m at all. */
static void test_refused(void)
{
    unsigned char planes[24] = { 0 };
    static const struct { const char *header, *says; } bad[] = {
        { "YUV4MPEG2 W4 H4 C420p10", "over 8 bits" },
        { "YUV4MPEG2 W4 H4 It", "interlaced" },
        { "YUV4MPEG2 W4 C420", "no size" },
        { "YUV4MPEG2 W4 H0", "no size" },
        { "YUV4MPEG2 W4x H4", "no size" },
        { "YUV4MPEG2 W32768 H32768", "limit" },
        { "YUV4MPEG2 W4 H4 C411", "not one segbench reads" },
        { "YUV4MPEG1 W4 H4", "not a YUV4MPEG2 stream" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad-%zu.y4m", i);
        const char *path = write_y4m(name, bad[i].header, planes, 24, 1, 0);
        sb_y4m v;
        sb_error err = { SB_OK, "" };
        sb_status st = sb_y4m_open(path, &v, &err);
        CHECKF(st != SB_OK && strstr(err.msg, bad[i].says) && !strchr(err.msg, '\n') && !v.frame_at,
               "'%s': %d %s", bad[i].header, st, err.msg);
    }
    CHECK(!sb_y4m_sniff(test_path("bad-7.y4m")) && sb_y4m_sniff(test_path("bad-0.y4m")));
}

/* Written and read back: every colour of a cube of steps within 2 levels
 * a channel (BT.601 full range both ways, 16 fractional bits), grey
 * exactly; a frame of another size refused in one line, and then no file
 * at all (atomic_file.h). */
static void test_written(void)
{
    sb_error err = { SB_OK, "" };
    sb_image rgb = { 0 }, grey = { 0 }, back = { 0 };
    CHECK(sb_image_alloc(&rgb, 16, 16, 3, &err) == SB_OK && sb_image_alloc(&grey, 16, 16, 1, &err) == SB_OK);
    if (!rgb.data || !grey.data)
        return;
    for (int i = 0; i < 256; i++) {                 /* R, G, B in steps of 51 (6 levels), and the corners */
        unsigned char *p = sb_image_row(&rgb, i / 16) + 3 * (i % 16);
        p[0] = (unsigned char)(i % 6 * 51);
        p[1] = (unsigned char)(i / 6 % 6 * 51);
        p[2] = (unsigned char)(i / 36 % 6 * 51);
        sb_image_row(&grey, i / 16)[i % 16] = (unsigned char)i;
    }
    const char *path = test_path("written.y4m");
    sb_y4m_writer w;
    CHECKF(sb_y4m_write_begin(&w, path, 16, 16, 3, 25, &err) == SB_OK && sb_y4m_write_frame(&w, &rgb, &err) == SB_OK &&
               sb_y4m_write_frame(&w, &rgb, &err) == SB_OK && sb_y4m_write_end(&w, &err) == SB_OK,
           "%s", err.msg);
    sb_y4m v;
    int worst = 0;
    if (sb_y4m_open(path, &v, &err) == SB_OK) {
        CHECKF(v.frames == 2 && v.full_range && v.chroma_w == 16, "%d frames, full %d, chroma %d", v.frames,
               v.full_range, v.chroma_w);
        if (sb_y4m_read_frame(path, &v, 1, SB_LOAD_RGB, &back, &err) == SB_OK) {
            for (int i = 0; i < 16 * 16 * 3; i++) {
                int d = (int)back.data[i] - (int)rgb.data[i];
                worst = d < 0 ? (-d > worst ? -d : worst) : (d > worst ? d : worst);
            }
            sb_image_free(&back);
        }
        sb_y4m_free(&v);
    }
    CHECKF(worst <= 2, "a colour came back %d levels off", worst);
    path = test_path("written-grey.y4m");
    CHECKF(sb_y4m_write_begin(&w, path, 16, 16, 1, 30, &err) == SB_OK && sb_y4m_write_frame(&w, &grey, &err) == SB_OK &&
               sb_y4m_write_end(&w, &err) == SB_OK,
           "%s", err.msg);
    if (sb_y4m_open(path, &v, &err) == SB_OK) {
        if (sb_y4m_read_frame(path, &v, 0, SB_LOAD_GREY, &back, &err) == SB_OK) {
            CHECK(back.channels == 1 && memcmp(back.data, grey.data, 256) == 0);
            sb_image_free(&back);
        }
        sb_y4m_free(&v);
    }
    path = test_path("written-mixed.y4m");
    remove(path);
    CHECK(sb_y4m_write_begin(&w, path, 16, 16, 3, 30, &err) == SB_OK && sb_y4m_write_frame(&w, &rgb, &err) == SB_OK);
    CHECKF(sb_y4m_write_frame(&w, &grey, &err) == SB_ERR_USAGE && strstr(err.msg, "frame 2 is 16x16 with 1 channels"),
           "%s", err.msg);
    FILE *fp = fopen(path, "rb");
    CHECKF(fp == NULL, "a refused clip left %s", path);
    if (fp)
        fclose(fp);
    CHECK(sb_y4m_write_begin(&w, path, 0, 16, 3, 30, &err) == SB_ERR_USAGE);
    sb_image_free(&rgb);
    sb_image_free(&grey);
}

const sb_test tests_y4m[] = {
    { "y4m: BT.601 full and limited range, 4:4:4 and 4:2:0, RGB and grey, frame by frame", test_colours },
    { "y4m: a frame cut off or without its FRAME line ends the frames, those before it kept; none whole: refused",
      test_cut_off },
    { "y4m: over 8 bits, interlaced, no size, too large, another chroma, not a y4m: one clear line each",
      test_refused },
    { "y4m: frames written (4:4:4 or mono, full range) read back within 2 levels, grey exactly; a misfit frame: "
      "no file", test_written },
};
const int tests_y4m_count = sizeof tests_y4m / sizeof tests_y4m[0];
