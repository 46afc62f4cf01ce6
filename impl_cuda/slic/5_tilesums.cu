/* 5_tilesums.cu - cuda-tilesums.  Grows from cuda-tilecentres.  The idea: a
 * tile's sums in shared memory first, a slot per candidate centre. */
#include "slic_tiles.cuh"

static __global__ void __launch_bounds__(TILE_THREADS)
    slic_tile_pass(GlobalColour load, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                   unsigned long long *sums)
{
    TileShared t = slic_tile_stage(g, centres);
    TileCentres at = { t.xyc, t.c2, t.cx0, t.cy0, t.span };
    int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    int x = x0 + threadIdx.x, gx = x / g.S;       /* the pixel's cell column: once a thread */
    for (int r = 0; r < TILE / TILE_ROWS; r++) {
        int y = y0 + threadIdx.y + r * TILE_ROWS;
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

SLIC_TILE_OPS(slic_tile_pass)

SB_CUDA_RUNG("slic", "cuda-tilesums", "cuda-tilecentres", "cuda-shared", 0,
             "the sums in shared memory too: shared atomics a pixel, one flush a tile",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
