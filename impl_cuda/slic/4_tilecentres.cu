/* 4_tilecentres.cu - cuda-tilecentres.  Grows from cuda-tiles.  The idea: the
 * centres a tile can need staged in shared memory as floats. */
#include "slic_device.cuh"

enum { TILE = 32, TILE_ROWS = 8, TILE_THREADS = TILE * TILE_ROWS };

struct GlobalColour {
    const ushort4 *colour;
    __device__ __forceinline__ ushort4 operator()(size_t i) const { return __ldg(&colour[i]); }
};

/* Cells per side of a tile's candidate window: the cells it covers plus
 * one on each side, (31/S + 4)^2 at most, 25 for S = 16. */
SB_HD int slic_tile_span(int S) { return (TILE - 1) / S + 4; }
static inline size_t slic_tile_shared_bytes(int S)
{
    size_t slots = (size_t)slic_tile_span(S) * slic_tile_span(S);
    return slots * (sizeof(float4) + sizeof(float));
}

/* Centres from the tile's shared copy: x, y, c0, c1 in one float4, c2
 * beside it. */
struct TileCentres {
    const float4 *xyc;
    const float *c2;
    int cx0, cy0, span;
    __device__ __forceinline__ slic_fcentre operator()(int cx, int cy) const
    {
        int k = (cy - cy0) * span + (cx - cx0);
        float4 v = xyc[k];
        slic_fcentre f = { v.x, v.y, { v.z, v.w, c2[k] } };
        return f;
    }
};

/* The tile's shared memory: its candidate centres (x, y, c0, c1 in one
 * float4, c2 beside it). */
struct TileShared {
    float4 *xyc;
    float *c2;
    int cx0, cy0, span, slots;
};

/* Copy the centres tile (blockIdx.x, blockIdx.y) can need into shared
 * memory as floats.  A cell outside the grid gets a centre at infinity:
 * its distance is never < another's. */
__device__ __forceinline__ TileShared slic_tile_stage(const sb_slic_geometry &g, const sb_slic_centre *centres)
{
    extern __shared__ float4 tile_shared[];
    TileShared t;
    t.span = slic_tile_span(g.S);
    t.slots = t.span * t.span;
    t.xyc = tile_shared;
    t.c2 = reinterpret_cast<float *>(t.xyc + t.slots);
    t.cx0 = blockIdx.x * TILE / g.S - 1;
    t.cy0 = blockIdx.y * TILE / g.S - 1;
    const int4 *all = reinterpret_cast<const int4 *>(centres);
    for (int k = threadIdx.y * TILE + threadIdx.x; k < t.slots; k += TILE_THREADS) {
        int cx = t.cx0 + k % t.span, cy = t.cy0 + k / t.span;
        if (cx >= 0 && cy >= 0 && cx < g.grid_w && cy < g.grid_h) {
            slic_fcentre f = slic_fcentre_of(all[cy * g.grid_w + cx]);
            t.xyc[k] = make_float4(f.x, f.y, f.c[0], f.c[1]);
            t.c2[k] = f.c[2];
        } else {
            t.xyc[k] = make_float4(INFINITY, INFINITY, 0.0f, 0.0f);
            t.c2[k] = 0.0f;
        }
    }
    __syncthreads();
    return t;
}

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
    slic_tile_pass<<<grid, block, slic_tile_shared_bytes(g.S), d->stream>>>(load, g, d->centres, d->labels, d->sums);
    SB_CUDA_LAUNCHED(err, d->who);
    return slic_enqueue_update(d, err);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);
    return st ? st : slic_allow_shared(slic_tile_pass, slic_tile_shared_bytes(((slic_device *)*state)->geo.S),
                                       (slic_device *)*state, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    GlobalColour load = { d->colour };
    return slic_run(d, [&](sb_error *e) { return rung_iterate(d, load, e); }, err);
}

SB_CUDA_RUNG("slic", "cuda-tilecentres", "cuda-tiles", "cuda-shared", 0,
             "the tile's candidate centres staged once in shared memory, as the floats the distance reads",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
