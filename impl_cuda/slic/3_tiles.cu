/* 3_tiles.cu - cuda-tiles.  Grows from cuda-global.  The idea: a block takes
 * a 32x32 tile, a thread every 8th row of its column, so its cell column is
 * fixed. */
#include "slic_device.cuh"

enum { TILE = 32, TILE_ROWS = 8, TILE_THREADS = TILE * TILE_ROWS };

struct GlobalColour {
    const ushort4 *colour;
    __device__ __forceinline__ ushort4 operator()(size_t i) const { return __ldg(&colour[i]); }
};

static __global__ void __launch_bounds__(TILE_THREADS)
    slic_tile_pass(GlobalColour load, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                   unsigned long long *sums)
{
    GlobalCentres at = { reinterpret_cast<const int4 *>(centres), g.grid_w };
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
            unsigned long long *s = sums + 6 * (size_t)label;   /* 6 global atomics a pixel */
#pragma unroll
            for (int j = 0; j < 6; j++)
                atomicAdd(&s[j], (unsigned long long)v[j]);
        }
    }
}

static sb_status rung_iterate(slic_device *d, GlobalColour load, sb_error *err)
{
    const sb_slic_geometry &g = d->geo;
    dim3 block(TILE, TILE_ROWS), grid(sb_div_up(g.width, TILE), sb_div_up(g.height, TILE));
    slic_tile_pass<<<grid, block, 0, d->stream>>>(load, g, d->centres, d->labels, d->sums);
    SB_CUDA_LAUNCHED(err, d->who);
    return slic_enqueue_update(d, err);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);
    return st;
}

static sb_status rung_run(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    GlobalColour load = { d->colour };
    return slic_run(d, [&](sb_error *e) { return rung_iterate(d, load, e); }, err);
}

SB_CUDA_RUNG("slic", "cuda-tiles", "cuda-global", "cuda-global", 0,
             "32x32 tiles: a thread keeps one column, so its cell column is divided out once",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
