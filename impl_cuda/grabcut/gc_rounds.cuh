/* gc_rounds.cuh - the stages of one launch of push/relabel rounds in a
 * 16x16 tile.  Each rung's kernel holds its own loop -- what it changes
 * is in the loop or in a stage it writes out itself -- and takes from
 * here the stages it keeps:
 *   - entering the tile, loading it, a round's push and relabel reading
 *     each neighbour as it goes, the write-back and settling the halo's
 *     excess: cuda-tiles' (3_tiles.cu);
 *   - each round's neighbour heights loaded at once into registers, and
 *     the relabel on them: cuda-ilp's (7_ilp.cu);
 *   - the push that leaves a halo node's share in shared memory and the
 *     write-back that hands it on once a launch: cuda-halo's (8_halo.cu).
 * A stage is called by every thread of the block: some end in a barrier.
 * All are inlined, so a kernel built from them is the one written out. */
#ifndef SEGBENCH_GC_ROUNDS_CUH
#define SEGBENCH_GC_ROUNDS_CUH

#include "gc_tiles.cuh"

#define GC_HALO (GC_TILE + 2)

typedef int32_t gc_halo_plane[GC_HALO][GC_HALO];                 /* a tile and its halo: heights, inflow */
typedef int32_t gc_tile_residuals[SB_MF_DIRS][GC_TILE][GC_TILE]; /* the tile's residuals, edge by edge */

/* Where a thread works: its block's tile (bx, by), its place (tx, ty) in
 * it, its node (x, y), p, and whether that node is in the image. */
struct gc_tile_node {
    int bx, by, tx, ty, x, y;
    bool inside;
    long p;
};

/* This thread's place in tile (bx, by). */
__device__ __forceinline__ void gc_tile_at(const tile_net &t, int bx, int by, gc_tile_node &at)
{
    at.bx = bx;
    at.by = by;
    at.tx = threadIdx.x % GC_TILE;
    at.ty = threadIdx.x / GC_TILE;
    at.x = bx * GC_TILE + at.tx;
    at.y = by * GC_TILE + at.ty;
    at.inside = at.x < t.width && at.y < t.height;
    at.p = (long)at.y * t.width + at.x;
}

/* The block's tile of colour (cx, cy).  False, for the whole block, where
 * the tile lies off the image, or holds no active node: such a tile would
 * push nothing and relabel nothing in any round, so it leaves at once,
 * having read 8 bytes a node instead of 48 and written none.  Late in a
 * cut most tiles are such. */
__device__ __forceinline__ bool gc_tile_enter(const tile_net &t, int cx, int cy, gc_tile_node &at)
{
    int bx = 2 * blockIdx.x + cx, by = 2 * blockIdx.y + cy;
    if (bx * GC_TILE >= t.width || by * GC_TILE >= t.height)
        return false;
    gc_tile_at(t, bx, by, at);
    return __syncthreads_or(at.inside && t.excess[at.p] > 0 && t.h[at.p] < SB_MF_INF);
}

/* The tile into shared memory -- the heights of it and its halo, the
 * node's residuals, the halo's inflow zeroed -- and the node's excess and
 * sink residual into registers.  Ends in a barrier. */
__device__ __forceinline__ void gc_tile_load(const tile_net &t, const gc_tile_node &at, gc_halo_plane &hs,
                                             gc_halo_plane &inflow, gc_tile_residuals &rs, int32_t &e, int32_t &sink)
{
    for (int i = threadIdx.x; i < GC_HALO * GC_HALO; i += GC_TILE * GC_TILE) {
        int hx = at.bx * GC_TILE + i % GC_HALO - 1, hy = at.by * GC_TILE + i / GC_HALO - 1;
        hs[i / GC_HALO][i % GC_HALO] = hx >= 0 && hy >= 0 && hx < t.width && hy < t.height
                                           ? t.h[(long)hy * t.width + hx] : SB_MF_INF;
        inflow[i / GC_HALO][i % GC_HALO] = 0;
    }
    e = 0;
    sink = 0;
    for (int k = 0; k < SB_MF_DIRS; k++)
        rs[k][at.ty][at.tx] = at.inside ? t.r[(size_t)k * t.n + at.p] : 0;
    if (at.inside) {
        e = t.excess[at.p];
        sink = t.sink[at.p];
    }
    __syncthreads();
}

/* Phase A, cuda-tiles': push along each admissible edge (maxflow.h's
 * sb_mf_push, on the shared copy), reading each neighbour's height and
 * residual as it goes.  A tile node's reverse residual takes its share at
 * once, a halo node's (its tile idle) in global memory; every node's
 * inflow waits in shared memory for the gather. */
__device__ __forceinline__ void gc_tiles_push(const tile_net &t, const gc_tile_node &at, int32_t h,
                                              const gc_halo_plane &hs, gc_tile_residuals &rs, gc_halo_plane &inflow,
                                              int32_t &e, int32_t &sink)
{
    if (!(at.inside && e > 0 && h < SB_MF_INF))
        return;
    if (h == 1 && sink > 0) {
        int32_t d = e < sink ? e : sink;
        sink -= d;
        e -= d;
    }
    for (int k = 0; k < SB_MF_DIRS && e > 0; k++) {
        int qx = at.x + sb_mf_dx(k), qy = at.y + sb_mf_dy(k);
        if (qx < 0 || qy < 0 || qx >= t.width || qy >= t.height)
            continue;
        int lx = at.tx + 1 + sb_mf_dx(k), ly = at.ty + 1 + sb_mf_dy(k);
        if (hs[ly][lx] != h - 1)
            continue;
        int32_t c = rs[k][at.ty][at.tx];
        if (c <= 0)
            continue;
        int32_t d = e < c ? e : c;
        rs[k][at.ty][at.tx] = c - d;
        if (lx >= 1 && lx <= GC_TILE && ly >= 1 && ly <= GC_TILE)
            rs[k ^ 4][ly - 1][lx - 1] += d;              /* a tile node: its shared copy */
        else
            t.r[(size_t)(k ^ 4) * t.n + (long)qy * t.width + qx] += d;   /* a halo node, idle tile */
        atomicAdd(&inflow[ly][lx], d);
        e -= d;
    }
}

/* Phase B, cuda-tiles': gather this round's pushes into the node, then
 * relabel against this round's heights, read as it goes.  The node's new
 * height; active: it still holds excess it can push. */
__device__ __forceinline__ int32_t gc_tiles_relabel(const gc_tile_node &at, int32_t h, const gc_halo_plane &hs,
                                                    const gc_tile_residuals &rs, gc_halo_plane &inflow, int32_t &e,
                                                    int32_t sink, int &active)
{
    int32_t nh = h;
    active = 0;
    if (!at.inside)
        return nh;
    e += inflow[at.ty + 1][at.tx + 1];
    inflow[at.ty + 1][at.tx + 1] = 0;
    if (e > 0 && h < SB_MF_INF) {
        if (sink > 0)
            nh = 1;
        else {
            int32_t lowest = SB_MF_INF;
            bool admissible = false;
            for (int k = 0; k < SB_MF_DIRS; k++) {
                if (rs[k][at.ty][at.tx] <= 0)
                    continue;
                int32_t hq = hs[at.ty + 1 + sb_mf_dy(k)][at.tx + 1 + sb_mf_dx(k)];
                admissible |= hq == h - 1;
                lowest = hq < lowest ? hq : lowest;
            }
            if (!admissible)
                nh = lowest >= SB_MF_INF - 1 ? SB_MF_INF : lowest + 1;
        }
    }
    active = e > 0 && nh < SB_MF_INF;
    return nh;
}

/* The write-back, cuda-tiles': the node's residuals, excess, sink
 * residual and height (a halo node's share went out as it was pushed). */
__device__ __forceinline__ void gc_tiles_store(const tile_net &t, const gc_tile_node &at, const gc_halo_plane &hs,
                                               const gc_tile_residuals &rs, int32_t e, int32_t sink)
{
    if (!at.inside)
        return;
    for (int k = 0; k < SB_MF_DIRS; k++)
        t.r[(size_t)k * t.n + at.p] = rs[k][at.ty][at.tx];
    t.excess[at.p] = e;
    t.sink[at.p] = sink;
    t.h[at.p] = hs[at.ty + 1][at.tx + 1];
}

/* The eight neighbours' heights this round, all loads issued at once
 * (they stay put until the round ends). */
__device__ __forceinline__ void gc_ilp_heights(const gc_halo_plane &hs, const gc_tile_node &at,
                                                 int32_t (&hq)[SB_MF_DIRS])
{
#pragma unroll
    for (int k = 0; k < SB_MF_DIRS; k++)
        hq[k] = hs[at.ty + 1 + sb_mf_dy(k)][at.tx + 1 + sb_mf_dx(k)];
}

/* Phase A, cuda-halo's: push along each admissible edge (maxflow.h's
 * sb_mf_push, on the shared copy).  A tile node's reverse residual takes
 * its share at once; every node's inflow (a halo node's too) waits in
 * shared memory for the gather, and a halo node's for the write-back. */
__device__ __forceinline__ void gc_halo_push(const gc_tile_node &at, int32_t h, const int32_t (&hq)[SB_MF_DIRS],
                                              gc_tile_residuals &rs, gc_halo_plane &inflow, int32_t &e,
                                              int32_t &sink)
{
    if (!(at.inside && e > 0 && h < SB_MF_INF))
        return;
    int32_t c[SB_MF_DIRS];
#pragma unroll
    for (int k = 0; k < SB_MF_DIRS; k++)
        c[k] = rs[k][at.ty][at.tx];
    if (h == 1 && sink > 0) {
        int32_t d = e < sink ? e : sink;
        sink -= d;
        e -= d;
    }
#pragma unroll
    for (int k = 0; k < SB_MF_DIRS; k++) {
        if (e <= 0 || hq[k] != h - 1 || c[k] <= 0)
            continue;
        int lx = at.tx + 1 + sb_mf_dx(k), ly = at.ty + 1 + sb_mf_dy(k);
        int32_t d = e < c[k] ? e : c[k];
        rs[k][at.ty][at.tx] = c[k] - d;
        if (lx >= 1 && lx <= GC_TILE && ly >= 1 && ly <= GC_TILE)
            rs[k ^ 4][ly - 1][lx - 1] += d;              /* a tile node: its shared copy */
        atomicAdd(&inflow[ly][lx], d);                   /* a halo node's: at the write-back */
        e -= d;
    }
}

/* Phase B, cuda-ilp's: gather this round's pushes into the node, then
 * relabel against this round's heights, hq (gc_ilp_heights), with the
 * residuals loaded at once.  The node's new height; active: it still
 * holds excess it can push. */
__device__ __forceinline__ int32_t gc_ilp_relabel(const gc_tile_node &at, int32_t h, const int32_t (&hq)[SB_MF_DIRS],
                                                    const gc_tile_residuals &rs, gc_halo_plane &inflow, int32_t &e,
                                                    int32_t sink, int &active)
{
    int32_t nh = h;
    active = 0;
    if (!at.inside)
        return nh;
    e += inflow[at.ty + 1][at.tx + 1];
    inflow[at.ty + 1][at.tx + 1] = 0;
    if (e > 0 && h < SB_MF_INF) {
        if (sink > 0)
            nh = 1;
        else {
            int32_t lowest = SB_MF_INF, c[SB_MF_DIRS];
            bool admissible = false;
#pragma unroll
            for (int k = 0; k < SB_MF_DIRS; k++)
                c[k] = rs[k][at.ty][at.tx];              /* with this round's pushes both ways */
#pragma unroll
            for (int k = 0; k < SB_MF_DIRS; k++) {
                if (c[k] <= 0)
                    continue;
                admissible |= hq[k] == h - 1;
                lowest = hq[k] < lowest ? hq[k] : lowest;
            }
            if (!admissible)
                nh = lowest >= SB_MF_INF - 1 ? SB_MF_INF : lowest + 1;
        }
    }
    active = e > 0 && nh < SB_MF_INF;
    return nh;
}

/* The write-back, cuda-halo's: the node's residuals, excess, sink
 * residual and height; and what each edge into the halo lost since the
 * load, added to the idle neighbour's reverse residual. */
__device__ __forceinline__ void gc_halo_store(const tile_net &t, const gc_tile_node &at, const gc_halo_plane &hs,
                                              const gc_tile_residuals &rs, int32_t e, int32_t sink)
{
    if (!at.inside)
        return;
    int32_t out[SB_MF_DIRS];
#pragma unroll
    for (int k = 0; k < SB_MF_DIRS; k++) {
        int lx = at.tx + 1 + sb_mf_dx(k), ly = at.ty + 1 + sb_mf_dy(k);
        bool halo = lx < 1 || lx > GC_TILE || ly < 1 || ly > GC_TILE;
        out[k] = halo ? t.r[(size_t)k * t.n + at.p] - rs[k][at.ty][at.tx] : 0;
    }
#pragma unroll
    for (int k = 0; k < SB_MF_DIRS; k++) {
        t.r[(size_t)k * t.n + at.p] = rs[k][at.ty][at.tx];
        if (out[k])
            t.r[(size_t)(k ^ 4) * t.n + (long)(at.y + sb_mf_dy(k)) * t.width + at.x + sb_mf_dx(k)] += out[k];
    }
    t.excess[at.p] = e;
    t.sink[at.p] = sink;
    t.h[at.p] = hs[at.ty + 1][at.tx + 1];
}

/* What was pushed into the halo, added to the idle neighbours' excess;
 * with FLAG, *left set when some was (work left there: a push goes to a
 * node one lower, so below SB_MF_INF). */
template <bool FLAG = false>
__device__ __forceinline__ void gc_tile_settle(const tile_net &t, const gc_tile_node &at, const gc_halo_plane &inflow,
                                               int *left = nullptr)
{
    for (int i = threadIdx.x; i < GC_HALO * GC_HALO; i += GC_TILE * GC_TILE) {
        int lx = i % GC_HALO, ly = i / GC_HALO;
        if (lx >= 1 && lx <= GC_TILE && ly >= 1 && ly <= GC_TILE)
            continue;
        int hx = at.bx * GC_TILE + lx - 1, hy = at.by * GC_TILE + ly - 1;
        if (inflow[ly][lx] && hx >= 0 && hy >= 0 && hx < t.width && hy < t.height) {
            atomicAdd(&t.excess[(long)hy * t.width + hx], inflow[ly][lx]);
            if (FLAG)
                *left = 1;
        }
    }
}

#endif
