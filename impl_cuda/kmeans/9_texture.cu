/* 9_texture.cu - k-means with the pixels read through a texture object
 * (variant "cuda-texture").
 *
 * A branch of cuda-lastblock.  The idea: the three words of each quad
 * come from tex1Dfetch on a 1-D texture over the packed image instead of
 * __ldg.  Both go through the same unified L1/texture cache on Hopper,
 * and the access is a plain stream read once per pass, so expect the
 * same speed: the row shows that a texture buys nothing without 2-D
 * locality or filtering to exploit.  A 1-D linear texture holds at most
 * cudaDevAttrMaxTexture1DLinearWidth elements; larger images are refused
 * with that message.
 *
 */
#include "km_quads.cuh"

enum { BLOCK_THREADS = 256 };

/* Quad q's three words through the texture path: tex1Dfetch on a 1-D
 * texture over the packed image (pixel i's byte c at 3i + c). */
struct TextureLoader {
    cudaTextureObject_t tex;      /* 32-bit words of the packed image */
    __device__ __forceinline__ uint3 operator()(unsigned q) const
    {
        int w = 3 * (int)q;
        return make_uint3(tex1Dfetch<unsigned>(tex, w), tex1Dfetch<unsigned>(tex, w + 1),
                          tex1Dfetch<unsigned>(tex, w + 2));
    }
};

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(TextureLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
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
    if (km_last_block(control))
        km_finish_pass(k, converge, sums, centres, prepped, control);
}

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    unsigned blocks;
    cudaTextureObject_t tex;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    km_device *d = &s->dev;
    int dev, max_width;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&max_width, cudaDevAttrMaxTexture1DLinearWidth, dev), err, d->who);
    size_t words = 3 * (size_t)d->quads;
    if (words > (size_t)max_width)
        return sb_fail(err, SB_ERR_USAGE, "%s: %ld pixels need a 1-D texture of %zu words; this GPU allows %d",
                       d->who, d->n, words, max_width);

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d->rgb;
    res.res.linear.desc = cudaCreateChannelDesc<unsigned>();
    res.res.linear.sizeInBytes = words * 4;
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    SB_CUDA_TRY(cudaCreateTextureObject(&s->tex, &res, &desc, NULL), err, d->who);
    /* blocks: as many as fit on the GPU at this kernel's occupancy */
    int per_sm = 0;
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, km_pass, BLOCK_THREADS, 0), err, d->who);
    s->blocks = km_grid_blocks(d, d->quads, BLOCK_THREADS, (unsigned)per_sm);
    return SB_OK;
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    km_device *d = &s->dev;
    TextureLoader load = { s->tex };
    km_pass<<<s->blocks, BLOCK_THREADS, 0, d->stream>>>(load, d->quads, (unsigned long long)d->n, d->labels,
                                                        d->params.k, first_pass, !d->params.fixed, d->sums,
                                                        d->centres, d->prepped, d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return km_run_passes(&s->dev, [s](int first_pass, sb_error *e) { return rung_pass(s, first_pass, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s && s->tex)
        cudaDestroyTextureObject(s->tex);
    km_device_close(s);
}

SB_VARIANT("kmeans", "cuda-texture", "cuda-texture", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-lastblock with the pixels read through a texture object",
           rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, rung_release)
SB_RUNG("kmeans", "cuda-texture", "cuda-lastblock",
        "the pixels through a texture object instead of __ldg (a branch)")
