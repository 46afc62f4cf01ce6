/* y4m_io.c - YUV4MPEG2 frames as RGB images (video_io.h). */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L       /* fseeko, ftello */
#include "segbench/video_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { Y4M_LINE_MAX = 4096 };
static const char Y4M_MAGIC[] = "YUV4MPEG2 ";

/* One header line (without its '\n') into line; -1 at EOF before any
 * character, -2 when it runs past the buffer. */
static int read_line(FILE *fp, char *line, size_t size)
{
    size_t n = 0;
    int c;
    while ((c = fgetc(fp)) != EOF && c != '\n') {
        if (n + 1 >= size)
            return -2;
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return c == EOF && n == 0 ? -1 : c == EOF ? -3 : 0;
}

int sb_y4m_sniff(const char *path)
{
    char head[sizeof Y4M_MAGIC] = "";
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    size_t n = fread(head, 1, sizeof head - 1, fp);
    fclose(fp);
    return n == sizeof head - 1 && memcmp(head, Y4M_MAGIC, n) == 0;
}

/* The C tag: the chroma planes' subsampling (shift amounts), or a refusal. */
static sb_status chroma_tag(const char *path, const char *tag, sb_y4m *v, int *sx, int *sy, sb_error *err)
{
    static const struct { const char *name; int sx, sy, mono; } known[] = {
        { "420jpeg", 1, 1, 0 }, { "420paldv", 1, 1, 0 }, { "420mpeg2", 1, 1, 0 }, { "420", 1, 1, 0 },
        { "422", 1, 0, 0 },     { "444", 0, 0, 0 },      { "mono", 0, 0, 1 },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(tag, known[i].name) == 0) {
            *sx = known[i].sx;
            *sy = known[i].sy;
            v->chroma_w = known[i].mono ? -1 : 0;     /* sized once W and H are known */
            return SB_OK;
        }
    if (strchr(tag, 'p'))
        return sb_fail(err, SB_ERR_FORMAT, "%s: chroma C%s has samples over 8 bits; segbench reads 8-bit y4m "
                       "(ffmpeg: -pix_fmt yuv420p)", path, tag);
    return sb_fail(err, SB_ERR_FORMAT, "%s: chroma C%s is not one segbench reads (420jpeg, 420paldv, 420mpeg2, "
                   "420, 422, 444, mono)", path, tag);
}

/* The stream header's tags. */
static sb_status parse_header(const char *path, char *line, sb_y4m *v, sb_error *err)
{
    if (strncmp(line, Y4M_MAGIC, sizeof Y4M_MAGIC - 1) != 0)
        return sb_fail(err, SB_ERR_FORMAT, "%s: not a YUV4MPEG2 stream (no 'YUV4MPEG2' header)", path);
    int sx = 1, sy = 1;                 /* the default chroma: 4:2:0 */
    long w = 0, h = 0;
    sb_status st = SB_OK;
    for (char *tag = strtok(line + sizeof Y4M_MAGIC - 1, " "); tag && !st; tag = strtok(NULL, " ")) {
        char *end;
        switch (tag[0]) {
        case 'W':
        case 'H': {
            long n = strtol(tag + 1, &end, 10);
            if (end == tag + 1 || *end || n <= 0 || n > SB_MAX_SIDE)
                st = sb_fail(err, SB_ERR_FORMAT, "%s: header tag '%s' is no size (1 to %d)", path, tag, SB_MAX_SIDE);
            *(tag[0] == 'W' ? &w : &h) = n;
            break;
        }
        case 'I':
            if (tag[1] == 't' || tag[1] == 'b' || tag[1] == 'm')
                st = sb_fail(err, SB_ERR_FORMAT, "%s: interlaced frames (I%s); segbench reads progressive y4m "
                             "(ffmpeg: -vf yadif)", path, tag + 1);
            break;
        case 'C': st = chroma_tag(path, tag + 1, v, &sx, &sy, err); break;
        case 'X':
            if (strcmp(tag, "XCOLORRANGE=FULL") == 0)
                v->full_range = 1;
            break;
        default: break;                 /* F (rate), A (aspect), anything later: not needed */
        }
    }
    if (st)
        return st;
    if (!w || !h)
        return sb_fail(err, SB_ERR_FORMAT, "%s: the y4m header names no size (W and H)", path);
    v->width = (int)w;
    v->height = (int)h;
    if (v->chroma_w < 0) {
        v->chroma_w = v->chroma_h = 0;  /* mono: no chroma planes */
    } else {
        v->chroma_w = (v->width + sx) >> sx;
        v->chroma_h = (v->height + sy) >> sy;
    }
    return sb_image_check_decode(path, v->width, v->height, err);
}

static size_t frame_bytes(const sb_y4m *v)
{
    return (size_t)v->width * (size_t)v->height + 2 * (size_t)v->chroma_w * (size_t)v->chroma_h;
}

/* Every whole frame after the header: its planes' offset. */
static sb_status find_frames(FILE *fp, const char *path, off_t size, sb_y4m *v, sb_error *err)
{
    char line[Y4M_LINE_MAX];
    size_t bytes = frame_bytes(v);
    int cap = 0;
    for (;;) {
        int rc = read_line(fp, line, sizeof line);
        if (rc == -1)
            break;                      /* the end, after a whole frame */
        if (rc != 0 || strncmp(line, "FRAME", 5) != 0 || (line[5] && line[5] != ' ')) {
            snprintf(v->note, sizeof v->note, "frame %d has no FRAME header: the %d before it are kept",
                     v->frames + 1, v->frames);
            break;
        }
        off_t at = ftello(fp);
        if (at < 0 || (off_t)bytes > size - at) {
            snprintf(v->note, sizeof v->note, "frame %d is cut off (%lld of its %zu bytes): the %d before it are "
                     "kept", v->frames + 1, at < 0 ? 0LL : (long long)(size - at), bytes, v->frames);
            break;
        }
        if (v->frames == cap) {
            int grown_cap = cap ? 2 * cap : 64;
            long *grown = realloc(v->frame_at, (size_t)grown_cap * sizeof *grown);
            if (!grown)
                return sb_fail(err, SB_ERR_NOMEM, "out of memory");
            v->frame_at = grown;
            cap = grown_cap;
        }
        v->frame_at[v->frames++] = (long)at;
        if (fseeko(fp, at + (off_t)bytes, SEEK_SET) != 0)
            return sb_fail(err, SB_ERR_IO, "%s: cannot seek past frame %d (%s)", path, v->frames, strerror(errno));
    }
    if (!v->frames)
        return sb_fail(err, SB_ERR_FORMAT, "%s: no whole frame (%s)", path, v->note[0] ? v->note : "the file ends "
                       "after its header");
    return SB_OK;
}

sb_status sb_y4m_open(const char *path, sb_y4m *v, sb_error *err)
{
    memset(v, 0, sizeof *v);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    struct stat sbuf;
    char line[Y4M_LINE_MAX];
    sb_status st = SB_OK;
    if (fstat(fileno(fp), &sbuf) != 0 || !S_ISREG(sbuf.st_mode))
        st = sb_fail(err, SB_ERR_USAGE, "%s: not a regular file", path);
    else if (read_line(fp, line, sizeof line) != 0)
        st = sb_fail(err, SB_ERR_FORMAT, "%s: not a YUV4MPEG2 stream (no header line)", path);
    if (!st)
        st = parse_header(path, line, v, err);
    if (!st)
        st = find_frames(fp, path, sbuf.st_size, v, err);
    fclose(fp);
    if (st)
        sb_y4m_free(v);
    return st;
}

void sb_y4m_free(sb_y4m *v)
{
    free(v->frame_at);
    v->frame_at = NULL;
    v->frames = 0;
}

/* BT.601 in 16 fractional bits: limited range (Y 16-235 to 0-255) and full. */
static uint8_t clamp16(long v)
{
    return v <= 0 ? 0 : v >= (255L << 16) ? 255 : (uint8_t)((v + 32768) >> 16);
}

static void yuv_to_rgb(int y, int u, int v, int full, uint8_t *rgb)
{
    long c = full ? (long)y << 16 : 76309L * (y - 16), d = u - 128, e = v - 128;
    if (full) {
        rgb[0] = clamp16(c + 91881L * e);
        rgb[1] = clamp16(c - 22554L * d - 46802L * e);
        rgb[2] = clamp16(c + 116130L * d);
    } else {
        rgb[0] = clamp16(c + 104597L * e);
        rgb[1] = clamp16(c - 25675L * d - 53279L * e);
        rgb[2] = clamp16(c + 132201L * d);
    }
}

sb_status sb_y4m_read_frame(const char *path, const sb_y4m *v, int index, sb_load_mode mode, sb_image *img,
                            sb_error *err)
{
    memset(img, 0, sizeof *img);
    if (index < 0 || index >= v->frames)
        return sb_fail(err, SB_ERR_USAGE, "%s: no frame %d (it holds %d)", path, index + 1, v->frames);
    size_t bytes = frame_bytes(v), luma = (size_t)v->width * (size_t)v->height;
    uint8_t *planes = malloc(bytes);
    if (!planes)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d frame", path, v->width, v->height);
    FILE *fp = fopen(path, "rb");
    sb_status st = SB_OK;
    if (!fp)
        st = sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    else if (fseeko(fp, (off_t)v->frame_at[index], SEEK_SET) != 0 || fread(planes, 1, bytes, fp) != bytes)
        st = sb_fail(err, SB_ERR_IO, "%s: frame %d cannot be read (the file changed since it was opened?)", path,
                     index + 1);
    if (fp)
        fclose(fp);
    sb_image rgb = { 0 };
    if (!st)
        st = sb_image_alloc(&rgb, v->width, v->height, 3, err);
    if (!st) {
        const uint8_t *Y = planes, *U = planes + luma, *V = U + (size_t)v->chroma_w * v->chroma_h;
        int sx = v->chroma_w && v->chroma_w < v->width, sy = v->chroma_h && v->chroma_h < v->height;
        for (int y = 0; y < v->height; y++) {
            uint8_t *out = sb_image_row(&rgb, y);
            for (int x = 0; x < v->width; x++) {
                size_t ci = (size_t)(y >> sy) * (size_t)v->chroma_w + (size_t)(x >> sx);
                int u = v->chroma_w ? U[ci] : 128, vv = v->chroma_w ? V[ci] : 128;
                yuv_to_rgb(Y[(size_t)y * v->width + x], u, vv, v->full_range, out + 3 * x);
            }
        }
    }
    free(planes);
    if (st)
        return st;
    if (mode != SB_LOAD_GREY) {
        *img = rgb;
        return SB_OK;
    }
    st = sb_image_convert(&rgb, 1, img, err);
    sb_image_free(&rgb);
    return st;
}

/* ---- writing ---- */

/* BT.601, full range, RGB to Y, Cb, Cr (16 fractional bits, rounded). */
static void rgb_to_yuv(const uint8_t *rgb, uint8_t *y, uint8_t *u, uint8_t *v)
{
    long r = rgb[0], g = rgb[1], b = rgb[2];
    *y = clamp16(19595L * r + 38470L * g + 7471L * b);
    *u = clamp16(-11059L * r - 21709L * g + 32768L * b + (128L << 16));
    *v = clamp16(32768L * r - 27439L * g - 5329L * b + (128L << 16));
}

void sb_y4m_write_abort(sb_y4m_writer *w)
{
    if (w->af.fp)
        sb_atomic_abort(&w->af);
    free(w->planes);
    w->planes = NULL;
}

sb_status sb_y4m_write_begin(sb_y4m_writer *w, const char *path, int width, int height, int channels, int fps,
                             sb_error *err)
{
    memset(w, 0, sizeof *w);
    if (width < 1 || height < 1 || (channels != 1 && channels != 3) || fps < 1)
        return sb_fail(err, SB_ERR_USAGE, "%s: cannot write a %dx%d y4m of %d channels at %d frames/s", path, width,
                       height, channels, fps);
    w->width = width;
    w->height = height;
    w->channels = channels;
    w->planes = malloc((size_t)width * (size_t)height * (size_t)channels);
    if (!w->planes)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory for a %dx%d frame", path, width, height);
    sb_status st = sb_atomic_open(&w->af, path, err);
    if (!st && fprintf(w->af.fp, "YUV4MPEG2 W%d H%d F%d:1 Ip A1:1 %s\n", width, height, fps,
                       channels == 3 ? "C444 XCOLORRANGE=FULL" : "Cmono XCOLORRANGE=FULL") < 0)
        st = sb_fail(err, SB_ERR_IO, "%s: cannot write (%s)", path, strerror(errno));
    if (st)
        sb_y4m_write_abort(w);
    return st;
}

sb_status sb_y4m_write_frame(sb_y4m_writer *w, const sb_image *img, sb_error *err)
{
    sb_status st = SB_OK;
    size_t plane = (size_t)w->width * (size_t)w->height;
    if (img->width != w->width || img->height != w->height || img->channels != w->channels)
        st = sb_fail(err, SB_ERR_USAGE, "%s: frame %d is %dx%d with %d channels, the file's %dx%d with %d",
                     w->af.path, w->frames + 1, img->width, img->height, img->channels, w->width, w->height,
                     w->channels);
    for (int y = 0; !st && y < w->height; y++) {
        const uint8_t *row = sb_image_row(img, y);
        uint8_t *Y = w->planes + (size_t)y * w->width, *U = Y + plane, *V = U + plane;
        for (int x = 0; x < w->width; x++) {
            if (w->channels == 1)
                Y[x] = row[x];
            else
                rgb_to_yuv(row + 3 * x, Y + x, U + x, V + x);
        }
    }
    if (!st && (fputs("FRAME\n", w->af.fp) < 0 ||
                fwrite(w->planes, 1, plane * (size_t)w->channels, w->af.fp) != plane * (size_t)w->channels))
        st = sb_fail(err, SB_ERR_IO, "%s: cannot write frame %d (%s)", w->af.path, w->frames + 1, strerror(errno));
    if (st)
        sb_y4m_write_abort(w);
    else
        w->frames++;
    return st;
}

sb_status sb_y4m_write_end(sb_y4m_writer *w, sb_error *err)
{
    free(w->planes);
    w->planes = NULL;
    return sb_atomic_commit(&w->af, err);
}
