/* 9_held.cu - cuda-held.  A branch of cuda-rows.  The idea: a thread's 9
 * candidate centres held in registers down its rows. */
#include "slic_tiles.cuh"

enum { ROWS_PER_THREAD = TILE / TILE_ROWS };

/* 80 registers, 3 blocks an SM.  Capping them for more blocks spills and
 * loses (ncu, cuda-registers' 1080p pass: 2 blocks 59.2 us, 3 45.8, 4
 * 49.3, 5 55.5). */
static __global__ void __launch_bounds__(TILE_THREADS, 3)
    slic_tile_pass(GlobalColour load, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                   unsigned long long *sums)
{
    TileShared t = slic_tile_stage(g, centres);
    int x = blockIdx.x * TILE + threadIdx.x, gx = x / g.S;       /* the pixel's cell column: once a thread */
    slic_fcentre held[9];
    int held_gy = -1, first_slot = 0;   /* the cell row `held` is for; its (-1, -1) candidate's slot */
    int y = blockIdx.y * TILE + threadIdx.y * ROWS_PER_THREAD;   /* 4 consecutive rows a thread */
    bool in_x = x < g.width;
    size_t i = (size_t)y * g.width + x;
    for (int r = 0; r < ROWS_PER_THREAD; r++, y++, i += g.width) {
        if (y >= g.height)              /* the same for the whole warp */
            break;
        int gy = y / g.S;
        if (gy != held_gy) {            /* also the same for the whole warp */
            held_gy = gy;
            first_slot = (gy - 1 - t.cy0) * t.span + (gx - 1 - t.cx0);
#pragma unroll
            for (int k = 0; k < 9; k++) {
                int slot = first_slot + (k / 3) * t.span + k % 3;
                float4 v = t.xyc[slot];
                held[k] = { v.x, v.y, { v.z, v.w, t.c2[slot] } };
            }
        }
        int local = -1;
        unsigned v[6] = { 0, 0, 0, 0, 0, 0 };
        if (in_x) {
            ushort4 c = load(i);
            const float pc[3] = { (float)c.x, (float)c.y, (float)c.z };
            float px = (float)(SB_SLIC_XY_UNIT * x), py = (float)(SB_SLIC_XY_UNIT * y), best = INFINITY;
            int nearest = 0;
#pragma unroll
            for (int k = 0; k < 9; k++) {   /* slic.h's order; strict <, so ties keep the first */
                float d = sb_slic_distance(g.cn, g.wxy, px, py, pc, held[k].x, held[k].y, held[k].c);
                if (d < best) {
                    best = d;
                    nearest = k;
                }
            }
            labels[i] = (gy + nearest / 3 - 1) * g.grid_w + gx + nearest % 3 - 1;
            local = first_slot + (nearest / 3) * t.span + nearest % 3;
            slic_sum_values(v, x, y, c);
        }
        if (local >= 0)                 /* 6 shared atomics a pixel */
#pragma unroll
            for (int j = 0; j < 6; j++)
                atomicAdd(&t.acc[6 * local + j], v[j]);
    }
    slic_tile_flush(t, g, sums);
}

SLIC_TILE_OPS(slic_tile_pass)

SB_CUDA_RUNG("slic", "cuda-held", "cuda-rows", "cuda-shared", 0,
             "the 9 candidates held in registers down a thread's 4 rows, read from shared memory once a cell row",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
