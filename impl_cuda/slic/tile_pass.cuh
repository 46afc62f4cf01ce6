/* tile_pass.cuh - one SLIC iteration's assignment and accumulation as one
 * kernel over 32x32-pixel tiles: the skeleton of rungs 3 to 6, which
 * differ in two template arguments only: how a pixel's colour is loaded
 * (Loader: global memory or a texture) and how its values reach the
 * centre sums (Sums: the three policies below, one per rung).
 *
 * What every tile rung has, against cuda-global (3_tilecentres.cu):
 *   - The centres a tile can need -- the cells it covers plus one on each
 *     side, (31/S + 4)^2 at most, 25 for S = 16 -- are copied once into
 *     shared memory, already converted to the floats the distance reads;
 *     the 9 candidate reads of every pixel then come from there, with no
 *     int-to-float conversion (a quarter-rate instruction on the SM).
 *   - The pixel's own cell (x / S, y / S) is divided out once per column
 *     and once per row, not per pixel.
 * How the sums go (Sums):
 *   - PixelAtomics (3_tilecentres.cu): 6 global 64-bit atomics a pixel,
 *     as in cuda-global.
 *   - TileAtomics (4_tilesums.cu): one slot per candidate in shared
 *     memory, 6 shared 32-bit atomics a pixel; each tile then adds its
 *     non-empty slots to the global sums: about 25 x 6 global atomics per
 *     1024 pixels, against 6144.
 *   - WarpAggregated (5_shared.cu, 6_texture.cu): as TileAtomics, but a
 *     warp is 32 pixels of one row, which carry only a few labels; the
 *     lanes of each label add their values with a warp reduction and one
 *     lane adds the totals (6 shared atomics per label per warp).
 * Block: 32 x 8 threads, each thread 4 rows of its column.
 * Rung 7 (7_registers.cu) has a loop of its own but the same tiles: it
 * shares the staging and the flush (slic_tile_stage, slic_tile_flush).
 */
#ifndef SEGBENCH_SLIC_TILE_PASS_CUH
#define SEGBENCH_SLIC_TILE_PASS_CUH

#include "slic_device.cuh"
#include "../warp.cuh"

enum { TILE = 32, TILE_ROWS = 8, TILE_THREADS = TILE * TILE_ROWS };

/* Cells per side of a tile's candidate window. */
SB_HD int slic_tile_span(int S) { return (TILE - 1) / S + 4; }
static inline size_t slic_tile_shared_bytes(int S)
{
    size_t slots = (size_t)slic_tile_span(S) * slic_tile_span(S);
    return slots * (sizeof(float4) + sizeof(float) + 6 * sizeof(unsigned));
}

struct GlobalColour {
    const ushort4 *colour;
    __device__ __forceinline__ ushort4 operator()(size_t i) const { return __ldg(&colour[i]); }
};

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

/* Add 6 values per lane into the tile's slots, once per distinct slot in
 * the warp.  Every lane calls it; lanes with slot < 0 add nothing.
 * `pending` is the same in every lane, so the loop is too. */
__device__ __forceinline__ void slic_warp_add(unsigned *acc, int slot, const unsigned (&v)[6])
{
    unsigned pending = __ballot_sync(SLIC_FULL_MASK, slot >= 0);
    while (pending) {
        int leader = __ffs(pending) - 1;
        int target = __shfl_sync(SLIC_FULL_MASK, slot, leader);
        bool mine = slot == target;
        unsigned group = __ballot_sync(SLIC_FULL_MASK, mine);
        unsigned total[6];
#pragma unroll
        for (int k = 0; k < 6; k++)
            total[k] = sb_warp_sum(SLIC_FULL_MASK, mine ? v[k] : 0u);
        if ((threadIdx.x & 31) == (unsigned)leader)
#pragma unroll
            for (int k = 0; k < 6; k++)
                atomicAdd(&acc[6 * target + k], total[k]);
        pending &= ~group;
    }
}

/* What a pixel adds to its centre's sums: x, y, the three channels, 1. */
__device__ __forceinline__ void slic_sum_values(unsigned (&v)[6], int x, int y, ushort4 c)
{
    v[0] = (unsigned)x;
    v[1] = (unsigned)y;
    v[2] = c.x;
    v[3] = c.y;
    v[4] = c.z;
    v[5] = 1;
}

/* ---- how a pixel's 6 values (x, y, 3 colours, 1) reach the sums ---- */

struct PixelAtomics {
    static constexpr bool in_tile = false;
    __device__ __forceinline__ static void add(unsigned *, int, const unsigned (&v)[6], unsigned long long *s)
    {
        if (s)
#pragma unroll
            for (int k = 0; k < 6; k++)
                atomicAdd(&s[k], (unsigned long long)v[k]);
    }
};

struct TileAtomics {
    static constexpr bool in_tile = true;
    __device__ __forceinline__ static void add(unsigned *acc, int slot, const unsigned (&v)[6], unsigned long long *)
    {
        if (slot >= 0)
#pragma unroll
            for (int k = 0; k < 6; k++)
                atomicAdd(&acc[6 * slot + k], v[k]);
    }
};

struct WarpAggregated {
    static constexpr bool in_tile = true;
    __device__ __forceinline__ static void add(unsigned *acc, int slot, const unsigned (&v)[6], unsigned long long *)
    {
        slic_warp_add(acc, slot, v);
    }
};

/* The tile's shared memory: its candidate centres (x, y, c0, c1 in one
 * float4, c2 beside it) and, for the Sums that keep them in the tile,
 * 6 sums a slot. */
struct TileShared {
    float4 *xyc;
    float *c2;
    unsigned *acc;     /* per tile: < 2^26 each, no overflow */
    int cx0, cy0, span, slots;
};

/* Copy the centres tile (blockIdx.x, blockIdx.y) can need into shared
 * memory as floats and zero the sums (when `zero_sums`).  A cell outside
 * the grid gets a centre at infinity: its distance is never < another's,
 * so a pass that reads it without a bounds test (cuda-registers) still
 * picks what slic.h picks.  slic_tile_pass keeps slic_nearest's tests. */
__device__ __forceinline__ TileShared slic_tile_stage(const sb_slic_geometry &g, const sb_slic_centre *centres,
                                                      bool zero_sums)
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
        if (zero_sums)
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

template <class Loader, class Sums>
__global__ void __launch_bounds__(TILE_THREADS)
    slic_tile_pass(Loader load, sb_slic_geometry g, const sb_slic_centre *centres, int32_t *labels,
                   unsigned long long *sums)
{
    TileShared t = slic_tile_stage(g, centres, Sums::in_tile);
    unsigned *acc = t.acc;
    int span = t.span, cx0 = t.cx0, cy0 = t.cy0;
    int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;

    TileCentres at = { t.xyc, t.c2, cx0, cy0, span };
    int x = x0 + threadIdx.x, gx = x / g.S;
    for (int r = 0; r < TILE / TILE_ROWS; r++) {
        int y = y0 + threadIdx.y + r * TILE_ROWS;
        int local = -1;
        unsigned long long *global = nullptr;    /* PixelAtomics: this pixel's centre's sums */
        unsigned v[6] = { 0, 0, 0, 0, 0, 0 };
        if (x < g.width && y < g.height) {         /* whole warps reach slic_warp_add below */
            size_t i = (size_t)y * g.width + x;
            ushort4 c = load(i);
            const float pc[3] = { (float)c.x, (float)c.y, (float)c.z };
            int cx, cy;
            int32_t label = slic_nearest(at, g, gx, y / g.S, (float)(SB_SLIC_XY_UNIT * x),
                                         (float)(SB_SLIC_XY_UNIT * y), pc, &cx, &cy);
            labels[i] = label;
            local = (cy - cy0) * span + (cx - cx0);
            global = sums + 6 * (size_t)label;
            slic_sum_values(v, x, y, c);
        }
        Sums::add(acc, local, v, global);
    }
    if (Sums::in_tile)
        slic_tile_flush(t, g, sums);
}

/* One iteration: the tile pass, then the update. */
template <class Sums, class Loader>
static sb_status slic_tile_iterate(slic_device *d, Loader load, sb_error *err)
{
    const sb_slic_geometry &g = d->geo;
    dim3 block(TILE, TILE_ROWS), grid(sb_div_up(g.width, TILE), sb_div_up(g.height, TILE));
    slic_tile_pass<Loader, Sums><<<grid, block, slic_tile_shared_bytes(g.S), d->stream>>>(load, g, d->centres, d->labels,
                                                                            d->sums);
    SB_CUDA_LAUNCHED(err, d->who);
    return slic_enqueue_update(d, err);
}

/* Small S needs more than the default 48 KiB of dynamic shared memory. */
template <class Kernel>
static sb_status slic_allow_tile_shared(Kernel *kernel, slic_device *d, sb_error *err)
{
    size_t bytes = slic_tile_shared_bytes(d->geo.S);
    if (bytes > 48 * 1024)
        SB_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), err,
                    d->who);
    return SB_OK;
}

template <class Loader, class Sums>
static sb_status slic_tile_allow_shared(slic_device *d, sb_error *err)
{
    return slic_allow_tile_shared(slic_tile_pass<Loader, Sums>, d, err);
}

#endif
