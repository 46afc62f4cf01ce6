/* 6_warpagg.cuh - cuda-warpagg's pass (6_warpagg.cu), lent to its branch
 * cuda-texture, which reads the colour through its own Loader. */
#ifndef SEGBENCH_SLIC_6_WARPAGG_CUH
#define SEGBENCH_SLIC_6_WARPAGG_CUH

#include "slic_tiles.cuh"

template <class Loader>
static __global__ void __launch_bounds__(TILE_THREADS)
    slic_tile_pass(Loader load, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                   unsigned long long *sums)
{
    TileShared t = slic_tile_stage(g, centres);
    TileCentres at = { t.xyc, t.c2, t.cx0, t.cy0, t.span };
    int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    int x = x0 + threadIdx.x, gx = x / g.S;       /* the pixel's cell column: once a thread */
    for (int r = 0; r < TILE / TILE_ROWS; r++) {
        int y = y0 + threadIdx.y + r * TILE_ROWS;
        int local = -1;
        unsigned v[6] = { 0, 0, 0, 0, 0, 0 };
        if (x < g.width && y < g.height) {         /* whole warps reach slic_warp_add below */
            size_t i = (size_t)y * g.width + x;
            ushort4 c = load(i);
            const float pc[3] = { (float)c.x, (float)c.y, (float)c.z };
            int cx, cy;
            int32_t label = slic_nearest(at, g, gx, y / g.S, (float)(SB_SLIC_XY_UNIT * x),
                                         (float)(SB_SLIC_XY_UNIT * y), pc, &cx, &cy);
            labels[i] = label;
            local = (cy - t.cy0) * t.span + (cx - t.cx0);
            slic_sum_values(v, x, y, c);
        }
        slic_warp_add(t.acc, local, v);
    }
    slic_tile_flush(t, g, sums);
}

#endif
