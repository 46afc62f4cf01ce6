/* 3_tiles.cuh - what cuda-tiles (3_tiles.cu) lends the tiled cuts
 * after it: its relabel and sweep, and its loop driven from the host. */
#ifndef SEGBENCH_GC_3_TILES_CUH
#define SEGBENCH_GC_3_TILES_CUH

#include "gc_tiles.cuh"

/* cuda-tiles' kernels (a gc_tile_kernels' launchers). */
void gc_tiles_bfs_start(cudaStream_t s, const gc_loop &l);
void gc_tiles_bfs(cudaStream_t s, const gc_loop &l, int slot);
void gc_tiles_sweep(cudaStream_t s, const gc_loop &l, int sweep);

/* The loop from the host, its state d->cut_state: prepare allocates its
 * flags (and last_term, when `warm`: cuda-warm's), run runs one cut from
 * the preflow d holds, a batch of launches between two waits, release
 * frees them. */
struct gc_host_loop_state {
    gc_loop_flags *flags;              /* device */
    gc_loop_flags *host;               /* pinned */
    int32_t *last_term;                /* a warm cut's (device), or NULL */
};
sb_status gc_host_loop_prepare(gc_dev *d, int warm, sb_error *err);
sb_status gc_host_loop_run(gc_dev *d, int it, sb_error *err);
void gc_host_loop_release(gc_dev *d);

#endif
