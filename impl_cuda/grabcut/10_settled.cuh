/* 10_settled.cuh - what cuda-settled (10_settled.cu) lends the cuts
 * after it: its relabel, which skips the tiles that have settled. */
#ifndef SEGBENCH_GC_10_SETTLED_CUH
#define SEGBENCH_GC_10_SETTLED_CUH

#include "gc_tiles.cuh"

/* When each tile last changed a height: launch `slot` of a batch is
 * number *base + slot. */
struct bfs_tiles {
    int *stamp;
    long count;
    const int *base;
};

/* A relabel launch `slot` in SIDE x SIDE tiles, a thread a node (the
 * body of cuda-settled's tile_bfs, and of cuda-bfs32's in 32x32 tiles):
 * skipped when launch slot - 1 changed nothing, and in a tile when
 * neither it nor a neighbour changed anything since. */
template <int SIDE>
__device__ __forceinline__ void gc_settled_tile_bfs(tile_net t, int *changed, bfs_tiles bt, int slot)
{
    __shared__ int32_t hs[SIDE + 2][SIDE + 2];
    if (changed[slot - 1] == 0)
        return;
    int launch = *bt.base + slot, moved = 0;
    if (threadIdx.x < 9) {
        int nx = (int)blockIdx.x + (int)threadIdx.x % 3 - 1, ny = (int)blockIdx.y + (int)threadIdx.x / 3 - 1;
        moved = nx >= 0 && ny >= 0 && nx < (int)gridDim.x && ny < (int)gridDim.y &&
                bt.stamp[(long)ny * gridDim.x + nx] >= launch - 1;
    }
    if (!__syncthreads_or(moved))
        return;                                 /* settled: its halo is as it was */
    int tx = threadIdx.x % SIDE, ty = threadIdx.x / SIDE;
    int x = blockIdx.x * SIDE + tx, y = blockIdx.y * SIDE + ty;
    bool inside = x < t.width && y < t.height;
    long p = (long)y * t.width + x;
    for (int i = threadIdx.x; i < (SIDE + 2) * (SIDE + 2); i += SIDE * SIDE) {
        int hx = blockIdx.x * SIDE + i % (SIDE + 2) - 1, hy = blockIdx.y * SIDE + i / (SIDE + 2) - 1;
        hs[i / (SIDE + 2)][i % (SIDE + 2)] = hx >= 0 && hy >= 0 && hx < t.width && hy < t.height
                                     ? t.h[(long)hy * t.width + hx] : SB_MF_INF;
    }
    uint8_t bits = 0;                       /* bit k: the node's edge k has residual capacity */
    if (inside)
        for (int k = 0; k < SB_MF_DIRS; k++)
            bits |= (t.r[(size_t)k * t.n + p] > 0) << k;
    __syncthreads();
    int changed_any = 0;
    for (;;) {
        int32_t best = hs[ty + 1][tx + 1];
        if (inside)
            for (int k = 0; k < SB_MF_DIRS; k++)
                if (bits >> k & 1) {
                    int32_t hq = hs[ty + 1 + sb_mf_dy(k)][tx + 1 + sb_mf_dx(k)];
                    if (hq + 1 < best)
                        best = hq + 1;
                }
        __syncthreads();
        int mine = best < hs[ty + 1][tx + 1];
        if (mine)
            hs[ty + 1][tx + 1] = best;
        changed_any |= mine;
        if (!__syncthreads_or(mine))
            break;
    }
    if (inside && changed_any)
        t.h[p] = hs[ty + 1][tx + 1];
    if (__syncthreads_or(changed_any) && threadIdx.x == 0) {
        changed[slot] = 1;
        bt.stamp[(long)blockIdx.y * gridDim.x + blockIdx.x] = launch;
    }
}

void gc_settled_bfs_start(cudaStream_t s, const gc_loop &l);
void gc_settled_bfs(cudaStream_t s, const gc_loop &l, int slot);

#endif
