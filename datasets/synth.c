/* synth.c - sbgen, the deterministic dataset generator.
 *
 *     sbgen datasets/sets/default.set datasets/build/default
 *
 * reads a set definition and writes, into the output directory, each
 * synthetic image with its ground truth and a manifest.tsv listing every
 * image of the set (synthetic and photo) for the harness.
 *
 * A synthetic image is 12 regions (a jittered Voronoi partition with wavy
 * borders) of distinct colours, each with its own linear shading, plus a
 * foreground object (an ellipse joined by a circle, so it is not convex)
 * and per-pixel noise.  Everything is integer arithmetic on the seed and the
 * pixel's coordinates, so the same line gives the same bytes on any
 * machine, and the layout scales with the size: every size shows the same
 * scene.  Ground truth: <name>.labels.png (region id per pixel, 0..11, and
 * 12 for the object), <name>.mask.png (255 on the object) and the object's
 * rectangle (its bounding box grown by 4 % of the image size) in the
 * manifest.
 *
 * A scene is a short video of the same picture: the object moves a little
 * from frame to frame and the noise is drawn afresh for each, so no two
 * frames are equal.  Its frames are <name>-fNN.png, listed with the
 * rectangle that holds the object in every frame in sequences.tsv
 * (bench's stream rows, measure/stream.h); with `y4m`, the same frames
 * also as one video, <name>.y4m (4:4:4, full range: video_io.h), for
 * `segbench stream --frames` to read as a user's clip.
 *
 * Set files have one image (or scene) a line:
 *     synth WIDTHxHEIGHT [seed=N] [gallery] [sweep]
 *     scene WIDTHxHEIGHT [frames=N] [seed=N] [y4m]   (N frames, 4 by default)
 *     photo NAME [gallery] [rect=X,Y,W,H] [sweep]   (datasets/photos/NAME.png;
 *                                     the object's rectangle, for GrabCut)
 * `gallery` puts the image in the report's gallery; `sweep` marks the
 * image on which bench sweeps the thread counts of threaded variants.
 */
#include "segbench/atomic_file.h"
#include "segbench/image_io.h"
#include "segbench/rng.h"
#include "segbench/video_io.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { REGIONS = 12, OBJECT = REGIONS };

/* Distinct colours (R, G, B) for the 12 regions and the object. */
static const uint8_t synth_palette[REGIONS + 1][3] = {
    { 200, 60, 50 },  { 60, 140, 70 },  { 50, 90, 180 },  { 220, 200, 80 }, { 150, 80, 160 },
    { 70, 180, 190 }, { 120, 100, 60 }, { 230, 150, 170 }, { 40, 60, 60 },  { 170, 200, 130 },
    { 100, 110, 230 }, { 190, 120, 40 }, { 250, 110, 20 },
};

typedef struct synth_scene {
    int w, h;
    long sx[REGIONS], sy[REGIONS];        /* region seeds, pixels */
    int shade_x[REGIONS], shade_y[REGIONS]; /* shading slopes, grey levels across the image */
    long ex, ey, erx, ery;                /* object: ellipse centre and radii */
    long cx, cy, cr;                      /* object: circle centre and radius */
    long wave_amp, wave_len;              /* border waviness, pixels */
    uint64_t seed;
} synth_scene;

static long scale(long v, long size) { return v * size / 1000; }  /* per-mille of a side */

static void synth_scene_init(synth_scene *s, int w, int h, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->w = w;
    s->h = h;
    s->seed = seed;
    sb_rng rng;
    sb_rng_seed(&rng, seed);
    for (int i = 0; i < REGIONS; i++) {         /* a jittered 4 x 3 grid */
        long gx = i % 4, gy = i / 4;
        s->sx[i] = scale(gx * 250 + 40 + (long)sb_rng_below(&rng, 170), w);
        s->sy[i] = scale(gy * 333 + 50 + (long)sb_rng_below(&rng, 233), h);
        s->shade_x[i] = (int)sb_rng_below(&rng, 49) - 24;
        s->shade_y[i] = (int)sb_rng_below(&rng, 49) - 24;
    }
    s->ex = scale(470 + (long)sb_rng_below(&rng, 60), w);
    s->ey = scale(560 + (long)sb_rng_below(&rng, 40), h);
    s->erx = scale(170, w);
    s->ery = scale(200, h);
    long side = w < h ? w : h;
    s->cx = s->ex + scale(120, w);
    s->cy = s->ey - scale(230, h);
    s->cr = scale(110, side);
    s->wave_amp = scale(25, side) + 1;
    s->wave_len = scale(160, side) + 4;
}

/* A triangle wave with period `len` and peak `amp`: integer and smooth enough. */
static long synth_wave(long t, long len, long amp)
{
    long p = ((t % len) + len) % len;
    long half = len / 2;
    long v = p < half ? p : len - p;          /* 0 .. half .. 0 */
    return (2 * v - half) * amp / (half ? half : 1);
}

static int synth_inside_object(const synth_scene *s, long x, long y)
{
    long dx = x - s->ex, dy = y - s->ey;
    /* (dx/erx)^2 + (dy/ery)^2 <= 1, scaled to integers */
    long long a = (long long)dx * dx * s->ery * s->ery + (long long)dy * dy * s->erx * s->erx;
    if (s->erx > 0 && s->ery > 0 && a <= (long long)s->erx * s->erx * s->ery * s->ery)
        return 1;
    long cx = x - s->cx, cy = y - s->cy;
    return (long long)cx * cx + (long long)cy * cy <= (long long)s->cr * s->cr;
}

static int synth_label(const synth_scene *s, int x, int y)
{
    if (synth_inside_object(s, x, y))
        return OBJECT;
    long wx = x + synth_wave(y, s->wave_len, s->wave_amp);
    long wy = y + synth_wave(x + s->wave_len / 3, s->wave_len, s->wave_amp);
    int best = 0;
    long long best_d = LLONG_MAX;
    for (int i = 0; i < REGIONS; i++) {
        long long dx = wx - s->sx[i], dy = wy - s->sy[i];
        long long d = dx * dx + dy * dy;
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    return best;
}

/* Approximately Gaussian noise, sigma about 6 grey levels, from the hash of
 * (seed, x, y, channel) alone. */
static int synth_noise(uint64_t seed, int x, int y, int c)
{
    uint64_t r = sb_hash64(seed ^ ((uint64_t)x << 20) ^ ((uint64_t)y << 42) ^ (uint64_t)c);
    int sum = (int)(r & 0xff) + (int)((r >> 8) & 0xff) + (int)((r >> 16) & 0xff) + (int)((r >> 24) & 0xff);
    return (sum - 510) / 24;
}

static uint8_t clamp_u8(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* Frame `frame` of a scene of `frames`: the object moved along one path,
 * 9 % of the width right and 3.6 % of the height down from the first
 * frame to the last, however many frames sample it (the default 4: 3 %
 * and 1.2 % a frame; 12: a third of that, as a camera of three times the
 * frame rate would see it); the noise drawn from a seed of its own. */
static void synth_scene_frame(synth_scene *s, int frame, int frames)
{
    long steps = frames > 1 ? frames - 1 : 1;
    long dx = 90L * frame * s->w / (1000L * steps), dy = 36L * frame * s->h / (1000L * steps);
    s->ex += dx;
    s->cx += dx;
    s->ey += dy;
    s->cy += dy;
    s->seed = sb_hash64(s->seed + 0x9e3779b97f4a7c15ull * (uint64_t)(frame + 1));
}

static sb_status synth_render(const synth_scene *s, sb_image *rgb, sb_image *labels, sb_image *mask,
                              int rect[4], sb_error *err)
{
    sb_status st;
    if ((st = sb_image_alloc(rgb, s->w, s->h, 3, err)) || (st = sb_image_alloc(labels, s->w, s->h, 1, err)) ||
        (st = sb_image_alloc(mask, s->w, s->h, 1, err)))
        return st;
    int x0 = s->w, y0 = s->h, x1 = -1, y1 = -1;
    for (int y = 0; y < s->h; y++) {
        uint8_t *out = sb_image_row(rgb, y), *lab = sb_image_row(labels, y), *msk = sb_image_row(mask, y);
        for (int x = 0; x < s->w; x++) {
            int l = synth_label(s, x, y);
            int shade_x = l == OBJECT ? 16 : s->shade_x[l], shade_y = l == OBJECT ? -16 : s->shade_y[l];
            int shade = (int)((shade_x * ((long)x * 256 / s->w - 128) + shade_y * ((long)y * 256 / s->h - 128)) / 128);
            for (int c = 0; c < 3; c++)
                out[3 * x + c] = clamp_u8(synth_palette[l][c] + shade + synth_noise(s->seed, x, y, c));
            lab[x] = (uint8_t)l;
            msk[x] = l == OBJECT ? 255 : 0;
            if (l == OBJECT) {
                x0 = x < x0 ? x : x0;
                x1 = x > x1 ? x : x1;
                y0 = y < y0 ? y : y0;
                y1 = y > y1 ? y : y1;
            }
        }
    }
    if (x1 < 0) {                       /* too small to hold the object */
        rect[0] = rect[1] = rect[2] = rect[3] = 0;
        return SB_OK;
    }
    int mx = (int)scale(40, s->w), my = (int)scale(40, s->h);
    x0 = x0 - mx < 0 ? 0 : x0 - mx;
    y0 = y0 - my < 0 ? 0 : y0 - my;
    x1 = x1 + mx >= s->w ? s->w - 1 : x1 + mx;
    y1 = y1 + my >= s->h ? s->h - 1 : y1 + my;
    rect[0] = x0;
    rect[1] = y0;
    rect[2] = x1 - x0 + 1;
    rect[3] = y1 - y0 + 1;
    return SB_OK;
}

static sb_status synth_write(const char *dir, const char *name, int w, int h, uint64_t seed, int rect[4],
                             sb_error *err)
{
    synth_scene scene;
    synth_scene_init(&scene, w, h, seed);
    sb_image rgb, labels, mask;
    memset(&rgb, 0, sizeof rgb);
    memset(&labels, 0, sizeof labels);
    memset(&mask, 0, sizeof mask);
    sb_status st = synth_render(&scene, &rgb, &labels, &mask, rect, err);
    char path[2048];
    if (!st) {
        snprintf(path, sizeof path, "%s/%s.png", dir, name);
        st = sb_image_save(path, &rgb, err);
    }
    if (!st) {
        snprintf(path, sizeof path, "%s/%s.labels.png", dir, name);
        st = sb_image_save(path, &labels, err);
    }
    if (!st) {
        snprintf(path, sizeof path, "%s/%s.mask.png", dir, name);
        st = sb_image_save(path, &mask, err);
    }
    sb_image_free(&rgb);
    sb_image_free(&labels);
    sb_image_free(&mask);
    return st;
}

/* A scene's frames, <name>-fNN.png (and, with y4m, <name>.y4m), and the
 * rectangle holding the object in all of them (the union of each
 * frame's). */
static sb_status scene_write(const char *dir, const char *name, int w, int h, uint64_t seed, int frames, int y4m,
                             int rect[4], sb_error *err)
{
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    sb_status st = SB_OK;
    sb_y4m_writer clip;
    memset(&clip, 0, sizeof clip);
    if (y4m) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s.y4m", dir, name);
        st = sb_y4m_write_begin(&clip, path, w, h, 3, 30, err);
    }
    for (int f = 0; f < frames && !st; f++) {
        synth_scene scene;
        synth_scene_init(&scene, w, h, seed);
        synth_scene_frame(&scene, f, frames);
        sb_image rgb, labels, mask;
        memset(&rgb, 0, sizeof rgb);
        memset(&labels, 0, sizeof labels);
        memset(&mask, 0, sizeof mask);
        int r[4];
        st = synth_render(&scene, &rgb, &labels, &mask, r, err);
        char path[2048];
        snprintf(path, sizeof path, "%s/%s-f%02d.png", dir, name, f);
        if (!st)
            st = sb_image_save(path, &rgb, err);
        if (!st && y4m)
            st = sb_y4m_write_frame(&clip, &rgb, err);
        if (!st && r[2] > 0) {
            x0 = r[0] < x0 ? r[0] : x0;
            y0 = r[1] < y0 ? r[1] : y0;
            x1 = r[0] + r[2] > x1 ? r[0] + r[2] : x1;
            y1 = r[1] + r[3] > y1 ? r[1] + r[3] : y1;
        }
        sb_image_free(&rgb);
        sb_image_free(&labels);
        sb_image_free(&mask);
    }
    if (y4m && !st)
        st = sb_y4m_write_end(&clip, err);
    else if (y4m)
        sb_y4m_write_abort(&clip);       /* a failed frame write has aborted it already: a no-op then */
    rect[0] = x1 < 0 ? 0 : x0;
    rect[1] = x1 < 0 ? 0 : y0;
    rect[2] = x1 < 0 ? 0 : x1 - x0;
    rect[3] = x1 < 0 ? 0 : y1 - y0;
    return st;
}

/* A synth or scene line's WIDTHxHEIGHT, checked, and its name: KIND-WxH,
 * with -sSEED for a seed other than 1. */
static sb_status sized_name(const char *kind, const char *what, unsigned long long seed, const char *set_path,
                            int lineno, int *w, int *h, char *name, size_t size, sb_error *err)
{
    char tail;
    if (sscanf(what, "%dx%d%c", w, h, &tail) != 2)
        return sb_fail(err, SB_ERR_FORMAT, "%s:%d: size '%s' is not WIDTHxHEIGHT", set_path, lineno, what);
    sb_status st = sb_check_size(*w, *h, what, err);
    if (!st && seed == 1)
        snprintf(name, size, "%s-%dx%d", kind, *w, *h);
    else if (!st)
        snprintf(name, size, "%s-%dx%d-s%llu", kind, *w, *h, seed);
    return st;
}

static sb_status sbgen(const char *set_path, const char *out_dir, sb_error *err)
{
    FILE *set = fopen(set_path, "r");
    if (!set)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open", set_path);
    sb_status st = sb_mkdirs(out_dir, err);
    char *manifest = NULL, *sequences = NULL;
    size_t manifest_len = 0, sequences_len = 0;
    FILE *mf = st ? NULL : open_memstream(&manifest, &manifest_len);
    FILE *sf = st ? NULL : open_memstream(&sequences, &sequences_len);
    if (!st && (!mf || !sf))
        st = sb_fail(err, SB_ERR_NOMEM, "out of memory");

    /* photos live in ../photos beside the set file's directory */
    char photos[2048];
    snprintf(photos, sizeof photos, "%s", set_path);
    char *slash = strrchr(photos, '/');
    snprintf(slash ? slash + 1 : photos, sizeof photos - (size_t)(slash ? slash + 1 - photos : 0), "../photos");
    char photos_abs[PATH_MAX];
    int have_photos = realpath(photos, photos_abs) != NULL;

    if (mf)
        fprintf(mf, "# name\tpath\tkind\twidth\theight\trect_x\trect_y\trect_w\trect_h\tlabels\tmask\tgallery\tsweep\n");
    if (sf)
        fprintf(sf, "# name\tframes\twidth\theight\trect_x\trect_y\trect_w\trect_h\tpattern\n");
    int scenes = 0;
    char line[512];
    int lineno = 0, count = 0;
    while (!st && fgets(line, sizeof line, set)) {
        lineno++;
        line[strcspn(line, "#\r\n")] = '\0';
        char kind[32] = "", what[128] = "", opt1[64] = "", opt2[64] = "", opt3[64] = "", opt4[64] = "";
        int n = sscanf(line, "%31s %127s %63s %63s %63s %63s", kind, what, opt1, opt2, opt3, opt4);
        if (n <= 0)
            continue;
        int gallery = !strcmp(opt1, "gallery") || !strcmp(opt2, "gallery") || !strcmp(opt3, "gallery");
        int sweep = !strcmp(opt1, "sweep") || !strcmp(opt2, "sweep") || !strcmp(opt3, "sweep") || !strcmp(opt4, "sweep");
        /* a photo's object rectangle for GrabCut: rect=X,Y,W,H */
        const char *rect_opt = !strncmp(opt1, "rect=", 5) ? opt1 : !strncmp(opt2, "rect=", 5) ? opt2
                             : !strncmp(opt3, "rect=", 5) ? opt3 : NULL;
        unsigned long long seed = 1;
        if (!strncmp(opt1, "seed=", 5))
            seed = strtoull(opt1 + 5, NULL, 10);
        else if (!strncmp(opt2, "seed=", 5))
            seed = strtoull(opt2 + 5, NULL, 10);
        int frames = 4;
        const char *frames_opt = !strncmp(opt1, "frames=", 7) ? opt1 : !strncmp(opt2, "frames=", 7) ? opt2 : NULL;
        if (frames_opt) {
            char *end;
            long v = strtol(frames_opt + 7, &end, 10);
            if (*end || v < 1 || v > 99) {
                st = sb_fail(err, SB_ERR_FORMAT, "%s:%d: '%s': a scene has 1 to 99 frames", set_path, lineno,
                             frames_opt);
                break;
            }
            frames = (int)v;
        }

        int w, h;
        char name[160];
        if (!strcmp(kind, "synth")) {
            if ((st = sized_name("synth", what, seed, set_path, lineno, &w, &h, name, sizeof name, err)))
                break;
            fprintf(stderr, "sbgen: %s/%s.png\n", out_dir, name);
            int rect[4];
            if ((st = synth_write(out_dir, name, w, h, seed, rect, err)))
                break;
            fprintf(mf, "%s\t%s.png\tsynthetic\t%d\t%d\t%d\t%d\t%d\t%d\t%s.labels.png\t%s.mask.png\t%s\t%s\n", name,
                    name, w, h, rect[0], rect[1], rect[2], rect[3], name, name, gallery ? "yes" : "no",
                    sweep ? "yes" : "no");
        } else if (!strcmp(kind, "scene")) {
            if ((st = sized_name("scene", what, seed, set_path, lineno, &w, &h, name, sizeof name, err)))
                break;
            int y4m = !strcmp(opt1, "y4m") || !strcmp(opt2, "y4m") || !strcmp(opt3, "y4m");
            fprintf(stderr, "sbgen: %s/%s-f*.png (%d frames)%s\n", out_dir, name, frames, y4m ? " and .y4m" : "");
            int rect[4];
            if ((st = scene_write(out_dir, name, w, h, seed, frames, y4m, rect, err)))
                break;
            fprintf(sf, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s-f*.png\n", name, frames, w, h, rect[0], rect[1],
                    rect[2], rect[3], name);
            scenes++;
            continue;                    /* a scene is no image of the manifest */
        } else if (!strcmp(kind, "photo")) {
            if (!have_photos) {
                st = sb_fail(err, SB_ERR_IO, "%s: photo directory not found", photos);
                break;
            }
            char path[PATH_MAX + 200];
            snprintf(path, sizeof path, "%s/%s.png", photos_abs, what);
            sb_image img;
            if ((st = sb_image_load(path, SB_LOAD_RGB, &img, err)))
                break;
            char rect_cols[80] = "-\t-\t-\t-";
            if (rect_opt) {
                int r[4], used = 0;
                if (sscanf(rect_opt + 5, "%d,%d,%d,%d%n", &r[0], &r[1], &r[2], &r[3], &used) != 4 ||
                    rect_opt[5 + used] != '\0' || r[0] < 0 || r[1] < 0 || r[2] <= 0 || r[3] <= 0 ||
                    r[0] + r[2] > img.width || r[1] + r[3] > img.height) {
                    st = sb_fail(err, SB_ERR_FORMAT, "%s:%d: '%s' is not a rectangle X,Y,W,H inside the %dx%d photo",
                                 set_path, lineno, rect_opt, img.width, img.height);
                    sb_image_free(&img);
                    break;
                }
                snprintf(rect_cols, sizeof rect_cols, "%d\t%d\t%d\t%d", r[0], r[1], r[2], r[3]);
            }
            fprintf(mf, "%s\t%s\tphoto\t%d\t%d\t%s\t-\t-\t%s\t%s\n", what, path, img.width, img.height, rect_cols,
                    gallery ? "yes" : "no", sweep ? "yes" : "no");
            sb_image_free(&img);
        } else {
            st = sb_fail(err, SB_ERR_FORMAT, "%s:%d: unknown kind '%s' (synth, scene or photo)", set_path, lineno,
                         kind);
            break;
        }
        count++;
    }
    fclose(set);
    if (mf)
        fclose(mf);
    if (sf)
        fclose(sf);
    if (!st && count == 0)
        st = sb_fail(err, SB_ERR_FORMAT, "%s: lists no images", set_path);
    char path[2048];
    snprintf(path, sizeof path, "%s/sequences.tsv", out_dir);
    if (!st && scenes)
        st = sb_atomic_write_text(path, sequences, err);
    else if (!st)
        remove(path);                    /* none now: an older set's list would name frames no longer made */
    if (!st) {
        snprintf(path, sizeof path, "%s/manifest.tsv", out_dir);
        st = sb_atomic_write_text(path, manifest, err);   /* last, so a manifest means a complete set */
        if (!st)
            fprintf(stderr, "sbgen: %s (%d images)\n", path, count);
    }
    free(manifest);
    free(sequences);
    return st;
}

/* sbgen --convert IN OUT: re-encode an image (PPM, PGM or PNG) as an 8-bit
 * PNG at the strongest compression; how the committed photos were made. */
static sb_status sbgen_convert(const char *in, const char *out, sb_error *err)
{
    sb_image img;
    sb_status st = sb_image_load(in, SB_LOAD_NATIVE, &img, err);
    if (st)
        return st;
    sb_png_set_compression(9);
    st = sb_image_save(out, &img, err);
    sb_image_free(&img);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 4 && strcmp(argv[1], "--convert") == 0)) {
        fprintf(stderr, "usage: sbgen SET_FILE OUT_DIR\n       sbgen --convert IN OUT\n");
        return 2;
    }
    sb_error err = { SB_OK, "" };
    sb_status st;
    if (argc == 4) {
        st = sbgen_convert(argv[2], argv[3], &err);
    } else {
        sb_png_set_compression(1);   /* generated files are rewritten often: favour speed */
        st = sbgen(argv[1], argv[2], &err);
    }
    if (st)
        fprintf(stderr, "sbgen: %s\n", err.msg);
    return sb_exit_code(st);
}
