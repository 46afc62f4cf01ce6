/* dataset.c - manifest parsing (see dataset.h). */
#include "cases/dataset.h"

#include "base/options.h"

#include "segbench/image_io.h"
#include "segbench/video_io.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void dataset_join(char *out, size_t size, const char *dir, const char *rel)
{
    if (rel[0] == '/' || !dir[0])
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%s/%s", dir, rel);
}

static sb_dataset_image *dataset_add(sb_dataset *ds)
{
    sb_dataset_image *grown = realloc(ds->images, (size_t)(ds->count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    ds->images = grown;
    sb_dataset_image *im = &ds->images[ds->count++];
    memset(im, 0, sizeof *im);
    return im;
}

/* Two images of one name would share every row key: refuse, naming both. */
static sb_status unique_names(const sb_dataset *ds, const char *what, sb_error *err)
{
    for (int i = 0; i < ds->count; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(ds->images[i].name, ds->images[j].name) == 0)
                return sb_fail(err, SB_ERR_USAGE, "%s: two images are named '%s' (%s and %s), and results rows "
                               "are keyed by name: rename one", what, ds->images[i].name, ds->images[j].path,
                               ds->images[i].path);
    return SB_OK;
}

/* A sequence's name -- the stem before the frame number ("clip/f*.png" ->
 * "clip-f"; "clip.y4m" -> "clip") -- and its rectangle. */
static void sequence_name(const char *pattern, const int *rect, sb_sequence *seq)
{
    const char *slash = strrchr(pattern, '/');
    const char *base = slash ? slash + 1 : pattern;
    int stem = (int)strcspn(base, "*?[.");
    while (stem > 0 && (base[stem - 1] == '-' || base[stem - 1] == '_'))
        stem--;
    if (stem > 0)
        snprintf(seq->name, sizeof seq->name, "%.*s", stem, base);
    else if (slash && slash > pattern) {
        const char *dir = slash;
        while (dir > pattern && dir[-1] != '/')
            dir--;
        snprintf(seq->name, sizeof seq->name, "%.*s", (int)(slash - dir), dir);
    } else
        snprintf(seq->name, sizeof seq->name, "frames");
    if (rect)
        memcpy(seq->rect, rect, sizeof seq->rect);
    else
        sb_dataset_default_rect(seq->width, seq->height, seq->rect);
}

sb_status sb_sequence_glob(const char *pattern, const int *rect, sb_sequence *seq, sb_error *err)
{
    memset(seq, 0, sizeof *seq);
    glob_t g;
    int rc = glob(pattern, GLOB_ERR, NULL, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
        if (rc == 0)
            globfree(&g);
        return sb_fail(err, SB_ERR_USAGE, "%s: names no file (an empty sequence)", pattern);
    }
    if (rc != 0)
        return sb_fail(err, rc == GLOB_NOSPACE ? SB_ERR_NOMEM : SB_ERR_IO, "%s: cannot list the frames", pattern);
    sb_status st = SB_OK;
    if (g.gl_pathc == 1 && sb_y4m_sniff(g.gl_pathv[0])) {          /* one video file: its frames */
        snprintf(seq->video, sizeof seq->video, "%s", g.gl_pathv[0]);
        globfree(&g);
        if ((st = sb_y4m_open(seq->video, &seq->y4m, err))) {
            sb_sequence_free(seq);
            return st;
        }
        seq->width = seq->y4m.width;
        seq->height = seq->y4m.height;
        seq->count = seq->y4m.frames;
        sequence_name(pattern, rect, seq);
        return SB_OK;
    }
    seq->frames = calloc(g.gl_pathc, sizeof *seq->frames);
    if (!seq->frames)
        st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
    for (size_t i = 0; !st && i < g.gl_pathc; i++) {
        const char *path = g.gl_pathv[i];
        struct stat sbuf;
        if (stat(path, &sbuf) != 0 || !S_ISREG(sbuf.st_mode)) {
            st = sb_fail(err, SB_ERR_USAGE, "%s: not a regular file (frame %zu of %s)", path, i + 1, pattern);
            break;
        }
        sb_image_info info;
        if ((st = sb_image_probe(path, &info, err)))
            break;
        if (i > 0 && (info.width != seq->width || info.height != seq->height)) {
            st = sb_fail(err, SB_ERR_USAGE, "%s is %dx%d and %s %dx%d: a sequence's frames are of one size", path,
                         info.width, info.height, seq->frames[0], seq->width, seq->height);
            break;
        }
        seq->width = info.width;
        seq->height = info.height;
        snprintf(seq->frames[seq->count++], SB_PATH_MAX, "%s", path);
    }
    globfree(&g);
    if (st) {
        sb_sequence_free(seq);
        return st;
    }
    sequence_name(pattern, rect, seq);
    return SB_OK;
}

sb_status sb_sequence_load_frame(const sb_sequence *seq, int i, sb_load_mode mode, sb_image *img, sb_error *err)
{
    if (seq->video[0])
        return sb_y4m_read_frame(seq->video, &seq->y4m, i, mode, img, err);
    return sb_image_load(seq->frames[i], mode, img, err);
}

void sb_sequence_free(sb_sequence *seq)
{
    free(seq->frames);
    sb_y4m_free(&seq->y4m);
    memset(seq, 0, sizeof *seq);
}

/* sequences.tsv beside the manifest in dir: the set's scenes, if any. */
static sb_status load_sequences(const char *dir, sb_dataset *ds, sb_error *err)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s%ssequences.tsv", dir, dir[0] ? "/" : "");
    FILE *fp = fopen(path, "r");
    if (!fp)
        return SB_OK;
    char line[4096];
    int lineno = 0;
    sb_status st = SB_OK;
    while (!st && fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char name[128], pattern[1024];
        int frames, w, h, r[4];
        if (sscanf(line, "%127[^\t]\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%1023[^\t]", name, &frames, &w, &h, &r[0], &r[1],
                   &r[2], &r[3], pattern) != 9) {
            st = sb_fail(err, SB_ERR_FORMAT, "%s:%d: expected 9 tab-separated fields", path, lineno);
            break;
        }
        sb_sequence *grown = realloc(ds->sequences, (size_t)(ds->nsequences + 1) * sizeof *grown);
        if (!grown) {
            st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
            break;
        }
        ds->sequences = grown;
        char full[SB_PATH_MAX];
        dataset_join(full, sizeof full, dir, pattern);
        sb_sequence *seq = &ds->sequences[ds->nsequences];
        if ((st = sb_sequence_glob(full, r, seq, err)))
            break;
        ds->nsequences++;
        snprintf(seq->name, sizeof seq->name, "%s", name);
        if (seq->count != frames || seq->width != w || seq->height != h)
            st = sb_fail(err, SB_ERR_FORMAT, "%s:%d: %s lists %d frames of %dx%d, and %d of %dx%d are there: "
                         "run 'make datasets'", path, lineno, name, frames, w, h, seq->count, seq->width, seq->height);
    }
    fclose(fp);
    return st;
}

sb_status sb_dataset_load_manifest(const char *path, sb_dataset *ds, sb_error *err)
{
    memset(ds, 0, sizeof *ds);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    char dir[SB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';

    char line[4096];
    int lineno = 0;
    sb_status st = SB_OK;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        char *f[13];
        int n = 0;
        for (char *save = NULL, *tok = strtok_r(line, "\t", &save); tok && n < 13;
             tok = strtok_r(NULL, "\t", &save))
            f[n++] = tok;
        if (n != 12 && n != 13) {     /* 12: a manifest from before the sweep column */
            st = sb_fail(err, SB_ERR_FORMAT, "%s:%d: expected 13 tab-separated fields, found %d", path, lineno, n);
            break;
        }
        sb_dataset_image *im = dataset_add(ds);
        if (!im) {
            st = sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        snprintf(im->name, sizeof im->name, "%s", f[0]);
        dataset_join(im->path, sizeof im->path, dir, f[1]);
        snprintf(im->kind, sizeof im->kind, "%s", f[2]);
        im->width = atoi(f[3]);
        im->height = atoi(f[4]);
        for (int k = 0; k < 4; k++)
            im->rect[k] = strcmp(f[5 + k], "-") ? atoi(f[5 + k]) : 0;
        if (strcmp(f[9], "-"))
            dataset_join(im->labels, sizeof im->labels, dir, f[9]);
        if (strcmp(f[10], "-"))
            dataset_join(im->mask, sizeof im->mask, dir, f[10]);
        im->gallery = strcmp(f[11], "yes") == 0;
        im->sweep = n == 13 && strcmp(f[12], "yes") == 0;
    }
    fclose(fp);
    if (!st && ds->count == 0)
        st = sb_fail(err, SB_ERR_FORMAT, "%s: lists no images", path);
    if (!st)
        st = unique_names(ds, path, err);
    if (!st)
        st = load_sequences(dir, ds, err);
    if (st)
        sb_dataset_free(ds);
    return st;
}

/* The set under root/datasets/sets/ whose name is nearest `set` (a typo),
 * into near; 0 when none is close. */
static int nearest_set(const char *root, const char *set, char *near, size_t size)
{
    char dir[SB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/datasets/sets", root);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    enum { MAX_SETS = 64 };
    char names[MAX_SETS][64];
    const char *list[MAX_SETS];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_SETS) {
        size_t len = strlen(e->d_name);
        if (len > 4 && len - 4 < sizeof names[n] && strcmp(e->d_name + len - 4, ".set") == 0) {
            snprintf(names[n], sizeof names[n], "%.*s", (int)(len - 4), e->d_name);
            list[n] = names[n];
            n++;
        }
    }
    closedir(d);
    const char *best = sb_nearest_name(set, list, n);
    if (best)
        snprintf(near, size, "%s", best);
    return best != NULL;
}

sb_status sb_dataset_load_set(const char *root, const char *set, sb_dataset *ds, sb_error *err)
{
    char path[SB_PATH_MAX];
    for (const char *p = set; *p; p++)
        if (!(*p == '-' || *p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return sb_fail(err, SB_ERR_USAGE, "dataset name '%s': use lower-case letters, digits, - and _", set);
    snprintf(path, sizeof path, "%s/datasets/build/%s/manifest.tsv", root, set);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        char def[SB_PATH_MAX];
        snprintf(def, sizeof def, "%s/datasets/sets/%s.set", root, set);
        if (stat(def, &sb) != 0) {
            char near[64];
            if (nearest_set(root, set, near, sizeof near))
                return sb_fail(err, SB_ERR_USAGE, "unknown dataset '%s' (no %s; did you mean '%s'?)", set, def, near);
            return sb_fail(err, SB_ERR_USAGE, "unknown dataset '%s' (no %s)", set, def);
        }
        return sb_fail(err, SB_ERR_USAGE, "dataset '%s' is not generated yet: run 'make datasets SET=%s'", set, set);
    }
    sb_status st = sb_dataset_load_manifest(path, ds, err);
    if (!st)
        snprintf(ds->name, sizeof ds->name, "%s", set);
    return st;
}

void sb_dataset_default_rect(int width, int height, int rect[4])
{
    int dx = width / 10, dy = height / 10;
    rect[0] = dx;
    rect[1] = dy;
    rect[2] = width - 2 * dx > 0 ? width - 2 * dx : 1;
    rect[3] = height - 2 * dy > 0 ? height - 2 * dy : 1;
}

sb_status sb_dataset_from_files(char *const *paths, int count, const int *rect, sb_dataset *ds, sb_error *err)
{
    memset(ds, 0, sizeof *ds);
    snprintf(ds->name, sizeof ds->name, "files");
    for (int i = 0; i < count; i++) {
        sb_dataset_image *im = dataset_add(ds);
        if (!im) {
            sb_dataset_free(ds);
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        }
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        snprintf(im->name, sizeof im->name, "%.*s", (int)strcspn(base, "."), base);
        snprintf(im->path, sizeof im->path, "%s", paths[i]);
        snprintf(im->kind, sizeof im->kind, "file");
        /* its size now, from the header (bench picks images by size), and a
         * bad or too large file refused before anything is measured or written */
        sb_image_info info;
        struct stat sbuf;
        if (stat(paths[i], &sbuf) == 0 && !S_ISREG(sbuf.st_mode) && !S_ISDIR(sbuf.st_mode)) {
            sb_dataset_free(ds);
            return sb_fail(err, SB_ERR_USAGE, "%s: not a regular file (each image is read several times; "
                           "'segbench run' takes a pipe)", paths[i]);
        }
        sb_status st = sb_image_probe(paths[i], &info, err);
        if (st) {
            sb_dataset_free(ds);
            return st;
        }
        im->width = info.width;
        im->height = info.height;
        if (rect)
            memcpy(im->rect, rect, sizeof im->rect);
        else
            sb_dataset_default_rect(info.width, info.height, im->rect);
    }
    sb_status st = unique_names(ds, "--image", err);
    if (st)
        sb_dataset_free(ds);
    return st;
}

void sb_dataset_free(sb_dataset *ds)
{
    for (int i = 0; i < ds->nsequences; i++)
        sb_sequence_free(&ds->sequences[i]);
    free(ds->sequences);
    free(ds->images);
    memset(ds, 0, sizeof *ds);
}
