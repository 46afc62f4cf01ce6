/* gallery.c - the gallery reporter: gallery/<algo>-<image>-<name>.png,
 * the reference's pictures of each (algorithm, image), and
 * gallery/index.tsv, their captions.  The pictures come drawn and encoded
 * (an album, algos/pictures.h: the algorithm draws them as a case opens,
 * run/pictures.c, beside the GPU rows); each is written atomically here,
 * then its line.  An algorithm started afresh drops its old entries; each
 * case's lines replace that case's; the index is rewritten whole after
 * each case and as each algorithm ends, so a stopped run leaves it
 * consistent (io/gallery_index.h; reporter.h). */
#include "reporters/reporters.h"

#include "base/files.h"

#include "segbench/atomic_file.h"

#include <string.h>

static sb_status gallery_open(sb_reporter *self, const char *dir, const char *algos, sb_error *err)
{
    (void)algos;
    sb_gallery_state *g = self->state;
    char gallery_dir[SB_PATH_MAX], path[SB_PATH_MAX];
    sb_status st;
    if ((st = sb_path(gallery_dir, err, "%s/gallery", dir)) || (st = sb_path(path, err, "%s/index.tsv", gallery_dir)) ||
        (st = sb_mkdirs(gallery_dir, err)) || (st = sb_gallery_index_open(&g->index, path, err)))
        return st;
    snprintf(g->dir, sizeof g->dir, "%s", gallery_dir);
    g->open = 1;
    return SB_OK;
}

static sb_status gallery_begin(sb_reporter *self, const char *dir, const sb_algo *algo, int keep, sb_error *err)
{
    (void)dir, (void)err;
    sb_gallery_state *g = self->state;
    if (g->open && !keep)
        sb_gallery_index_drop_algo(&g->index, algo->name);
    return SB_OK;
}

/* One picture's bytes to <gallery>/<file>, whole or not at all. */
static sb_status write_picture(const char *dir, const sb_gallery_picture *p, sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_atomic_file af;
    sb_status st = sb_path(path, err, "%s/%s", dir, p->file);
    if (!st)
        st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    if (fwrite(p->png, 1, p->bytes, af.fp) != p->bytes) {
        sb_atomic_abort(&af);
        return sb_fail(err, SB_ERR_IO, "%s: cannot write", path);
    }
    return sb_atomic_commit(&af, err);
}

static sb_status gallery_case(sb_reporter *self, const sb_gallery_report *gr, sb_error *err)
{
    sb_gallery_state *g = self->state;
    if (!g->open)
        return SB_OK;
    sb_status st = SB_OK;
    for (int i = 0; i < gr->album->count && !st; i++)
        st = write_picture(g->dir, &gr->album->pic[i], err);
    if (st)
        return st;
    FILE *index = sb_gallery_index_redo(&g->index, gr->algo->name, gr->image);
    for (int i = 0; index && i < gr->album->count; i++)
        fprintf(index, "%s\t%s\t%s\t%s\n", gr->algo->name, gr->image, gr->album->pic[i].file,
                gr->album->pic[i].caption);
    return sb_gallery_index_write(&g->index, err);
}

/* The algorithm done: the index rewritten, its dropped entries gone even
 * where no case of it made a picture. */
static sb_status gallery_end(sb_reporter *self, const char *dir, const sb_algo *algo, const sb_rows *measured,
                             int finished, sb_error *err)
{
    (void)measured;
    (void)dir, (void)algo, (void)finished;
    sb_gallery_state *g = self->state;
    return g->open ? sb_gallery_index_write(&g->index, err) : SB_OK;
}

static sb_status gallery_close(sb_reporter *self, const char *dir, sb_error *err)
{
    (void)dir, (void)err;
    sb_gallery_state *g = self->state;
    if (g->open)
        sb_gallery_index_close(&g->index);
    g->open = 0;
    return SB_OK;
}

void sb_gallery_reporter(sb_reporter *rep, sb_gallery_state *state)
{
    memset(state, 0, sizeof *state);
    *rep = (sb_reporter){ .name = "gallery", .run_begin = gallery_open, .begin = gallery_begin,
                          .gallery = gallery_case, .end = gallery_end, .run_end = gallery_close, .state = state };
}
