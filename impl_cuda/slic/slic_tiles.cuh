/* slic_tiles.cuh - what SLIC's tile rungs keep from the rungs that
 * brought it, for cuda-tilesums (5_tilesums.cu) and every rung after it:
 *   - a tile's geometry and the colour read through the read-only cache
 *     (GlobalColour), cuda-tiles';
 *   - the candidate centres of a tile copied to shared memory and read
 *     from there (TileCentres), cuda-tilecentres';
 *   - the tile's sums in shared memory, zeroed with the copy
 *     (slic_tile_stage) and added to the global sums once a tile
 *     (slic_tile_flush), cuda-tilesums';
 *   - a warp's values added once per distinct slot (slic_warp_add),
 *     cuda-warpagg's;
 *   - a tile pass launched over the image, then the centres' update
 *     (slic_tile_iterate), and the ops of a rung whose state is a
 *     slic_device (SLIC_TILE_OPS).
 * Each rung's pass kernel is its own: that is what the rungs change. */
#ifndef SEGBENCH_SLIC_TILES_CUH
#define SEGBENCH_SLIC_TILES_CUH

#include "slic_device.cuh"
#include "../warp.cuh"

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

/* Copy the centres tile (bx, by) can need into shared memory as floats
 * and zero its sums.  A cell outside the grid gets a centre at infinity:
 * its distance is never < another's. */
__device__ __forceinline__ TileShared slic_tile_stage(const sb_slic_geometry &g, const sb_slic_centre *centres,
                                                      unsigned bx, unsigned by)
{
    extern __shared__ float4 tile_shared[];
    TileShared t;
    t.span = slic_tile_span(g.S);
    t.slots = t.span * t.span;
    t.xyc = tile_shared;
    t.c2 = reinterpret_cast<float *>(t.xyc + t.slots);
    t.acc = reinterpret_cast<unsigned *>(t.c2 + t.slots);
    t.cx0 = bx * TILE / g.S - 1;
    t.cy0 = by * TILE / g.S - 1;
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

/* The same for the block's own tile, one tile a block. */
__device__ __forceinline__ TileShared slic_tile_stage(const sb_slic_geometry &g, const sb_slic_centre *centres)
{
    return slic_tile_stage(g, centres, blockIdx.x, blockIdx.y);
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

/* Pass `pass` over the image in tiles, each with the shared memory its
 * centres and sums take, then the update of the centres. */
template <class Load, class Pass>
static sb_status slic_tile_iterate(slic_device *d, Pass *pass, Load load, sb_error *err)
{
    const sb_slic_geometry &g = d->geo;
    dim3 block(TILE, TILE_ROWS), grid(sb_div_up(g.width, TILE), sb_div_up(g.height, TILE));
    pass<<<grid, block, slic_tile_shared_bytes(g.S), d->stream>>>(load, g, d->centres, d->labels, d->sums);
    SB_CUDA_LAUNCHED(err, d->who);
    return slic_enqueue_update(d, err);
}

/* rung_prepare and rung_run of a rung whose state is a slic_device and
 * whose pass reads the colour through GlobalColour. */
#define SLIC_TILE_OPS(pass)                                                                                  \
    static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,       \
                                  const sb_exec *exec, sb_error *err)                                       \
    {                                                                                                        \
        sb_status st = slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);         \
        return st ? st : slic_allow_shared(pass, slic_tile_shared_bytes(((slic_device *)*state)->geo.S),    \
                                           (slic_device *)*state, err);                                     \
    }                                                                                                        \
    static sb_status rung_run(void *state, sb_error *err)                                                   \
    {                                                                                                        \
        slic_device *d = (slic_device *)state;                                                               \
        GlobalColour load = { d->colour };                                                                   \
        return slic_run(d, [&](sb_error *e) { return slic_tile_iterate(d, pass, load, e); }, err);            \
    }

#endif
