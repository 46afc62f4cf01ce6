/* 8_rows.cuh - what cuda-rows (8_rows.cu) lends the rungs that keep its
 * pass whole: cuda-labels16, which narrows the labels after it, takes the
 * pass over the image (then the centres' update) and the shared memory
 * it needs; cuda-onelaunch, which makes every pass in one launch, takes
 * the pass over one tile (slic_rows_tile), a block looping over tiles. */
#ifndef SEGBENCH_SLIC_8_ROWS_CUH
#define SEGBENCH_SLIC_8_ROWS_CUH

#include "slic_tiles.cuh"

/* cuda-rows' pass over tile (bx, by): a thread takes 4 consecutive rows
 * of its column, so its pixels share one cell's candidates. */
__device__ __forceinline__ void slic_rows_tile(GlobalColour load, const sb_slic_geometry &g,
                                               const sb_slic_centre *centres, int32_t *labels,
                                               unsigned long long *sums, unsigned bx, unsigned by)
{
    TileShared t = slic_tile_stage(g, centres, bx, by);
    TileCentres at = { t.xyc, t.c2, t.cx0, t.cy0, t.span };
    int x0 = bx * TILE, y0 = by * TILE;
    int x = x0 + threadIdx.x, gx = x / g.S;       /* the pixel's cell column: once a thread */
    for (int r = 0; r < TILE / TILE_ROWS; r++) {
        int y = y0 + threadIdx.y * (TILE / TILE_ROWS) + r;   /* 4 consecutive rows a thread */
        if (x < g.width && y < g.height) {
            size_t i = (size_t)y * g.width + x;
            ushort4 c = load(i);
            const float pc[3] = { (float)c.x, (float)c.y, (float)c.z };
            int cx, cy;
            int32_t label = slic_nearest(at, g, gx, y / g.S, (float)(SB_SLIC_XY_UNIT * x),
                                         (float)(SB_SLIC_XY_UNIT * y), pc, &cx, &cy);
            labels[i] = label;
            unsigned v[6];
            slic_sum_values(v, x, y, c);
            int local = (cy - t.cy0) * t.span + (cx - t.cx0);   /* 6 shared atomics a pixel */
#pragma unroll
            for (int j = 0; j < 6; j++)
                atomicAdd(&t.acc[6 * local + j], v[j]);
        }
    }
    slic_tile_flush(t, g, sums);
}

sb_status slic_rows_iterate(slic_device *d, GlobalColour load, sb_error *err);
sb_status slic_rows_allow_shared(const slic_device *d, sb_error *err);

#endif
