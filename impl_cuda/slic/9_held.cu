/* 9_held.cu - SLIC with each thread's 9 candidate centres held in
 * registers down its rows (variant "cuda-held").
 *
 * A branch of cuda-rows.  The idea: a thread's 4 consecutive rows nearly
 * always share one cell, so the same 9 candidates: it copies them from
 * shared memory into registers (9 x 5 floats) once per cell row, not
 * once per pixel, and scans them there.  What holding them needs: cells
 * outside the grid are already staged at infinity (slic_tile_stage), so
 * the scan has no bounds tests (such a centre is never nearer than
 * another, and slic.h skips it), and the nearest is kept as an index
 * 0..8.  A warp's pixels change cell row together: the reload is a
 * uniform branch.
 * What it should buy: 9 shared-memory reads of 5 floats a pixel become 9
 * a cell row.  What it costs: the held centres take some 80 registers,
 * so fewer blocks fit on an SM (capping the registers for more blocks
 * spills and loses, measured on cuda-registers).
 *
 */
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
    return slots * (sizeof(float4) + sizeof(float) + 6 * sizeof(unsigned));
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
 * float4, c2 beside it) and 6 sums a slot. */
struct TileShared {
    float4 *xyc;
    float *c2;
    unsigned *acc;     /* per tile: < 2^26 each, no overflow */
    int cx0, cy0, span, slots;
};

/* Copy the centres tile (blockIdx.x, blockIdx.y) can need into shared
 * memory as floats and zero its sums.  A cell outside the grid gets a centre at infinity:
 * its distance is never < another's. */
__device__ __forceinline__ TileShared slic_tile_stage(const sb_slic_geometry &g, const sb_slic_centre *centres)
{
    extern __shared__ float4 tile_shared[];
    TileShared t;
    t.span = slic_tile_span(g.S);
    t.slots = t.span * t.span;
    t.xyc = tile_shared;
    t.c2 = reinterpret_cast<float *>(t.xyc + t.slots);
    t.acc = reinterpret_cast<unsigned *>(t.c2 + t.slots);
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
        for (int j = 0; j < 6; j++)
            t.acc[6 * k + j] = 0;
    }
    __syncthreads();
    return t;
}

/* Add the tile's non-empty slots to the global sums, once each. */
__device__ __forceinline__ void slic_tile_flush(const TileShared &t, const sb_slic_geometry &g,
                                                unsigned long long *sums)
{
    __syncthreads();
    for (int k = threadIdx.y * TILE + threadIdx.x; k < t.slots; k += TILE_THREADS) {
        if (t.acc[6 * k + 5] == 0)
            continue;
        int cx = t.cx0 + k % t.span, cy = t.cy0 + k / t.span;
        unsigned long long *s = sums + 6 * ((size_t)cy * g.grid_w + cx);
        for (int j = 0; j < 6; j++)
            atomicAdd(&s[j], (unsigned long long)t.acc[6 * k + j]);
    }
}

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

SB_VARIANT("slic", "cuda-held", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-rows with a thread's 9 candidates held in registers down its 4 rows",
           rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
SB_RUNG("slic", "cuda-held", "cuda-rows",
        "the 9 candidates held in registers down a thread's 4 rows, read from shared memory once a cell row")
