/* 7_blockcount.cu - k-means counting changed labels per warp and block
 * (variant "cuda-blockcount").
 *
 * Grows from cuda-quadsums.  The idea: the changed labels are summed in
 * a register, then over the warp (km_warp_sum), then in the block's
 * shared counter, and one global atomic a block adds them -- where
 * cuda-quadsums made one global atomic per quad that changed, all on one
 * address.
 * What it should buy: little once labels settle (few quads change), but
 * the first passes change nearly every quad.
 *
 */
#include "km_quads.cuh"

enum { BLOCK_THREADS = 256 };

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
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
}

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    km_device *d = &s->dev;
    /* blocks: as many as fit on the GPU at this kernel's occupancy */
    int per_sm = 0;
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, km_pass, BLOCK_THREADS, 0), err, d->who);
    s->blocks = km_grid_blocks(d, d->quads, BLOCK_THREADS, (unsigned)per_sm);
    return SB_OK;
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    km_device *d = &s->dev;
    GlobalLoader load = { d->rgb };
    km_pass<<<s->blocks, BLOCK_THREADS, 0, d->stream>>>(load, d->quads, (unsigned long long)d->n, d->labels,
                                                        d->params.k, first_pass, !d->params.fixed, d->sums,
                                                        d->centres, d->prepped, d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    km_finish_kernel<<<1, 1024, 0, d->stream>>>(d->params.k, !d->params.fixed, d->sums, d->centres, d->prepped,
                                               d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return km_run_passes(&s->dev, [s](int first_pass, sb_error *e) { return rung_pass(s, first_pass, e); }, err);
}

SB_VARIANT("kmeans", "cuda-blockcount", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-quadsums with the changed labels counted per warp and block: one global atomic a block",
           rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
SB_RUNG("kmeans", "cuda-blockcount", "cuda-quadsums",
        "changed labels counted per warp, then per block: one global atomic a block, not one a quad")
