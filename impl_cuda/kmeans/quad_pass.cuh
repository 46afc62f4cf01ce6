/* quad_pass.cuh - one k-means pass over quads of 4 pixels: the kernel of
 * the rungs cuda-quad, cuda-lastblock and cuda-texture.  Two template
 * parameters carry what differs between them: OneLaunch (cuda-lastblock:
 * the update runs in the block that finishes last) and the Loader
 * (cuda-texture: the pixels come through a texture object).
 *
 * Against cuda-warpsums (the lesson of cuda-quad), 4 pixels a thread:
 *   - 3 aligned words in, one word of 4 labels out, where cuda-warpsums
 *     moves single bytes: fewer, wider memory instructions;
 *   - each read of a centre from shared memory serves 4 pixels;
 *   - changed labels are counted 4 at a time (__vcmpne4), and each warp
 *     adds its count to the block's, not one global atomic per pixel;
 *   - when every lane's 4 pixels share one label -- most of an image --
 *     the 4 are added first and the warp aggregates once, not 4 times.
 * Against cuda-quad (the lesson of cuda-lastblock): the update runs in the
 * block that finishes last (km_last_block), so a pass is one launch, not
 * two.
 */
#ifndef SEGBENCH_KMEANS_QUAD_PASS_CUH
#define SEGBENCH_KMEANS_QUAD_PASS_CUH

#include "kmeans_device.cuh"

enum { KM_QUAD_THREADS = 256 };

/* Loaders: quad q is words 3q, 3q+1, 3q+2 (pixel i's byte c at 3i + c). */
struct GlobalLoader {
    const uint32_t *words;
    __device__ __forceinline__ uint3 operator()(unsigned q) const
    {
        const uint32_t *w = words + 3 * (size_t)q;
        return make_uint3(__ldg(w), __ldg(w + 1), __ldg(w + 2));
    }
};

/* The nearest centre to each of 4 pixels: kmeans.h's exact score, strict
 * < so ties keep the lower index.  One shared-memory read of a centre
 * serves all 4 pixels. */
__device__ __forceinline__ void km_nearest4(const float4 *centre, int k, const unsigned (&rgb)[4][3],
                                            unsigned (&lab)[4])
{
    float m[4][3], best[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
#pragma unroll
        for (int ch = 0; ch < 3; ch++)
            m[j][ch] = sb_kmeans_pixel_weight(rgb[j][ch]);
        best[j] = INFINITY;
        lab[j] = 0;
    }
#pragma unroll 4
    for (int c = 0; c < k; c++) {
        float4 cen = centre[c];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float s = sb_kmeans_score({ cen.x, cen.y, cen.z, cen.w }, m[j][0], m[j][1], m[j][2]);
            if (s < best[j]) {
                best[j] = s;
                lab[j] = (unsigned)c;
            }
        }
    }
}

template <class Loader, bool OneLaunch>
__global__ void __launch_bounds__(KM_QUAD_THREADS)
    km_quad_pass(Loader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
                 int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    __shared__ unsigned acc[4 * SB_KMEANS_MAX_K];   /* per block: < 2^24 pixels, so no overflow */
    __shared__ unsigned block_changed;
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        centre[c] = prepped[c];
        acc[4 * c] = acc[4 * c + 1] = acc[4 * c + 2] = acc[4 * c + 3] = 0;
    }
    if (threadIdx.x == 0)
        block_changed = 0;
    __syncthreads();

    unsigned lane = threadIdx.x & 31, changed = 0, stride = gridDim.x * blockDim.x;
    /* whole warps walk the quads together, so every lane reaches km_warp_add */
    for (unsigned base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < quads; base += stride) {
        unsigned q = base + lane;
        bool live = q < quads;
        uint3 w = live ? load(q) : make_uint3(0, 0, 0);
        const uint32_t word[3] = { w.x, w.y, w.z };
        unsigned rgb[4][3], lab[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int ch = 0; ch < 3; ch++) {
                int byte = 3 * j + ch;
                rgb[j][ch] = (word[byte / 4] >> (8 * (byte % 4))) & 0xffu;
            }
        km_nearest4(centre, k, rgb, lab);
        uint32_t now = lab[0] | lab[1] << 8 | lab[2] << 16 | lab[3] << 24;

        /* pixels of this quad inside the image (the last quad may be short) */
        unsigned long long first_px = 4ull * q;
        unsigned inside = !live ? 0u : n - first_px >= 4 ? 4u : (unsigned)(n - first_px);
        uint32_t inside_bytes = inside == 4 ? 0xffffffffu : (1u << (8 * inside)) - 1u;
        if (live) {
            uint32_t differ = first_pass ? 0xffffffffu : __vcmpne4(labels[q], now);   /* 0xff per changed byte */
            changed += __popc(differ & inside_bytes) / 8;
            labels[q] = now;
        }

        /* Sums: a quad of one label (the usual case) goes in as one value,
         * otherwise pixel by pixel. */
        bool whole = inside == 4 && lab[0] == lab[1] && lab[0] == lab[2] && lab[0] == lab[3];
        if (__all_sync(KM_FULL_MASK, whole || !live)) {
            km_warp_add(acc, whole, lab[0], rgb[0][0] + rgb[1][0] + rgb[2][0] + rgb[3][0],
                        rgb[0][1] + rgb[1][1] + rgb[2][1] + rgb[3][1], rgb[0][2] + rgb[1][2] + rgb[2][2] + rgb[3][2],
                        4u);
        } else {
#pragma unroll
            for (int j = 0; j < 4; j++)
                km_warp_add(acc, (unsigned)j < inside, lab[j], rgb[j][0], rgb[j][1], rgb[j][2], 1u);
        }
    }

    changed = km_warp_sum(changed);
    if (lane == 0 && changed)
        atomicAdd(&block_changed, changed);
    __syncthreads();
    for (int i = threadIdx.x; i < 4 * k; i += blockDim.x)
        if (acc[i])
            atomicAdd(&sums[i], (unsigned long long)acc[i]);
    if (threadIdx.x == 0 && block_changed)
        atomicAdd(&control->changed, block_changed);
    if (OneLaunch && km_last_block(control))
        km_finish_pass(k, converge, sums, centres, prepped, control);
}

/* Blocks: as many as fit on the GPU at this kernel's occupancy. */
template <class Loader, bool OneLaunch = true>
static sb_status km_quad_grid(const km_device *d, unsigned *blocks, sb_error *err)
{
    int per_sm = 0;
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, km_quad_pass<Loader, OneLaunch>,
                                                              KM_QUAD_THREADS, 0),
                err, d->who);
    *blocks = km_grid_blocks(d, d->quads, KM_QUAD_THREADS, (unsigned)per_sm);
    return SB_OK;
}

template <class Loader, bool OneLaunch = true>
static sb_status km_quad_launch(km_device *d, Loader load, unsigned blocks, int first_pass, sb_error *err)
{
    km_quad_pass<Loader, OneLaunch><<<blocks, KM_QUAD_THREADS, 0, d->stream>>>(
        load, d->quads, (unsigned long long)d->n, d->labels, d->params.k, first_pass, !d->params.fixed, d->sums,
        d->centres, d->prepped, d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

#endif
