/* gc_tiles.cuh - what the tiled cuts of GrabCut's ladder share: cuda-tiles
 * (3_tiles.cu) and every rung that grows from it.
 *
 * A tiled cut is a loop -- a global relabel, then sweeps of push/relabel
 * rounds in tiles, again until no node is active -- and the kernels it
 * launches.  The rungs change one or the other, so the two are apart:
 *   - the kernels a rung brings are named in its gc_tile_kernels table,
 *     each behind a launcher that knows its grid; a rung's table names
 *     its own where its idea changes them and its parent's elsewhere;
 *   - the loop is driven from the host a batch at a time (cuda-tiles,
 *     3_tiles.cuh) or recorded once as a CUDA graph (cuda-graph,
 *     5_graph.cuh), from the table it is given;
 * A rung that others build on declares what it lends in a header of its
 * own (3_tiles.cuh, ...), which they include: that keeps each variant's
 * code identity (bench/base/code_id.h) over every file it runs.
 *   - the kernels around the loop -- its start (cold, or warm from the
 *     last cut's preflow), the count of active nodes, the cut read out --
 *     are in gc_tiles.cu, but for the warm start's repair, which is
 *     cuda-warm's (4_warm.cu). */
#ifndef SEGBENCH_GC_TILES_CUH
#define SEGBENCH_GC_TILES_CUH

#include "gc_device.cuh"

/* Node p's residual toward its neighbour k is r[k * n + p] (maxflow.h's
 * directions); sink, excess and h are a node's own. */
struct tile_net {
    int width, height;
    long n;
    int32_t *r, *sink, *excess, *h;
};

static inline tile_net gc_tile_net(const gc_dev *d)
{
    tile_net t = { d->width, d->height, d->n, d->r, d->sink, d->excess, d->h[0] };
    return t;
}

/* Node p of a width x height grid from zero flow: its residual toward
 * each neighbour k, r[k * n + p], the n-link (none out of the image:
 * nl[k] holds the link to the right and down neighbours, the others are
 * theirs), and its excess and sink residual from its t-link. */
__device__ __forceinline__ void gc_node_init(int width, int height, long n, int32_t *r, int32_t *excess, int32_t *sink,
                                             long p, const int32_t *term, const int32_t *const (&nl)[4])
{
    int x = (int)(p % width), y = (int)(p / width);
    for (int k = 0; k < SB_MF_DIRS; k++) {
        int qx = x + sb_mf_dx(k), qy = y + sb_mf_dy(k);
        int32_t c = 0;
        if (qx >= 0 && qy >= 0 && qx < width && qy < height)
            c = k < 4 ? nl[k][p] : nl[k - 4][(long)qy * width + qx];
        r[(size_t)k * n + p] = c;
    }
    excess[p] = term[p] > 0 ? term[p] : 0;
    sink[p] = term[p] < 0 ? -term[p] : 0;
}

/* A cut from zero flow, enqueued on d->stream: the residual network of
 * d->term and the n-links.  (A warm start, from the last cut's preflow:
 * gc_warm_start, 4_warm.cu.) */
sb_status gc_tiles_init(gc_dev *d, sb_error *err);

/* Enqueued on s: the active nodes of t added into count[slot]; the cut
 * (h = SB_MF_INF is foreground) into d->fg and its flow into d->s->flow;
 * the flow, rounds and relabels of cut `it` into d->stats. */
void gc_tiles_count(cudaStream_t s, tile_net t, int *count, int slot);
void gc_tiles_cut(cudaStream_t s, const gc_dev *d);
void gc_tiles_stats(cudaStream_t s, const gc_dev *d, int rounds, int relabels, int it);

/* ---- the loop and its kernels ---- */

enum {
    GC_TILE = 16,                      /* the tiles of the rounds, and of the relabel but in cuda-bfs32 */
    GC_BFS_PER_CHECK = 8,              /* relabel launches between two looks at their flags */
    GC_MAX_SWEEPS = 32                 /* sweeps between two looks at their counts, at most */
};

/* What the loop reads and writes on the device. */
struct gc_loop_flags {
    int bfs[GC_BFS_PER_CHECK + 1];     /* launch k of a batch changed a height; [0]: the batch before's last */
    int count[GC_MAX_SWEEPS];          /* sweep s of a batch left work (a count of active nodes, or a flag) */
    int sweeps, relabels;              /* the loop's tallies, for the stats */
    int bfs_base;                      /* the number of a batch's launch 0: relabels that skip settled tiles
                                          stamp them with it (10_settled.cu) */
    int keep;                          /* a warm cut's first relabel starts from the heights there are
                                          (cuda-keep, 14_keep.cu); the loop clears it after one */
};

/* What a launcher is handed. */
struct gc_loop {
    const gc_dev *d;
    tile_net t;
    gc_loop_flags *f;                  /* device */
    int *bfs_stamp;                    /* device: a tile's last relabel launch that changed a height */
    uint8_t *busy;                     /* device: 3 flags a tile (cuda-waves' tile_waves) */
};

/* A tiled cut's kernels, each enqueued on s by a launcher.  bfs_start
 * sets the heights a global relabel starts from and flags launch 0 as a
 * change; bfs is launch `slot` (1 to GC_BFS_PER_CHECK) of a batch of
 * relaxations, flagging f->bfs[slot] when it changed a height; sweep runs
 * the rounds in every tile once (four colour launches) and leaves
 * f->count[s] non-zero when work is left.  start, where a rung gives one,
 * replaces gc_warm_start (4_warm.cuh). */
struct gc_tile_kernels {
    void (*bfs_start)(cudaStream_t s, const gc_loop &l);
    void (*bfs)(cudaStream_t s, const gc_loop &l, int slot);
    void (*sweep)(cudaStream_t s, const gc_loop &l, int sweep);
    sb_status (*start)(gc_dev *d, int it, int32_t *last_term, gc_loop_flags *f, sb_error *err);
    int sweeps_per_check;              /* at most GC_MAX_SWEEPS */
};

/* A sweep of the rungs before cuda-tally: their kernel K (tile_rounds,
 * over the tiles of colour (cx, cy)) launched for each colour, then the
 * active nodes counted into f->count[sweep]. */
template <void (*K)(tile_net, int, int)>
static void gc_colour_sweep(cudaStream_t s, const gc_loop &l, int sweep)
{
    dim3 colour_grid(sb_div_up(l.t.width, 2 * GC_TILE), sb_div_up(l.t.height, 2 * GC_TILE));
    for (int c = 0; c < 4; c++)
        K<<<colour_grid, GC_TILE * GC_TILE, 0, s>>>(l.t, c & 1, c >> 1);
    gc_tiles_count(s, l.t, l.f->count, sweep);
}

#endif
