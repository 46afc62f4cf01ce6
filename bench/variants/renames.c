/* renames.c - the table behind renames.h.  An old name is never given to
 * another variant of the same algorithm (sb_ladder_problems checks). */
#include "variants/renames.h"

#include <string.h>

static const sb_rename renames[] = {
    /* 2026-11-25: "cuda-shared" named a different lesson in every ladder */
    { "integral", "cuda-shared", "cuda-pdl" },        /* the tiles, then dependent launch: split in two */
    { "kmeans", "cuda-shared", "cuda-lastblock" },    /* the update in the block that finishes last */
    { "slic", "cuda-shared", "cuda-warpagg" },        /* warp-aggregated sums */
    { "grabcut-maxflow", "cuda-shared", "cuda-tiles" }, /* tile push-relabel */
    { "grabcut", "cuda-shared", "cuda-tiles" },
    /* mean-shift's cuda-shared was a filter halo, a tiled union-find and
     * block sums at once: split by idea.  Its pipeline (halo filter) and
     * cuda-texture pipeline are retired, not renamed: the pipelines now
     * run the fastest filter, so no new rung does the same work. */
    { "meanshift-flood", "cuda-shared", "cuda-tiles" },
    { "meanshift-merge", "cuda-shared", "cuda-blocksums" },
    /* integral's cuda-tiles held three ideas (the tiles, the transposed row
     * totals, the loads in flight): split into cuda-tilescan, cuda-transposed
     * and cuda-inflight, which is its code under a name that says its lesson */
    { "integral", "cuda-tiles", "cuda-inflight" },
};

int sb_rename_count(void) { return (int)(sizeof renames / sizeof renames[0]); }
const sb_rename *sb_rename_at(int i) { return &renames[i]; }

const char *sb_variant_current_name(const char *algo, const char *name)
{
    for (int i = 0; i < sb_rename_count(); i++)
        if (strcmp(renames[i].algo, algo) == 0 && strcmp(renames[i].before, name) == 0)
            return renames[i].now;
    return name;
}
