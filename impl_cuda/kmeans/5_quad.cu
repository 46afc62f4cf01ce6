/* 5_quad.cu - cuda-quad.  Grows from cuda-fourpixels.  The idea: a quad's 4
 * labels stored as one word. */
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
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        centre[c] = prepped[c];
        acc[4 * c] = acc[4 * c + 1] = acc[4 * c + 2] = acc[4 * c + 3] = 0;
    }
    __syncthreads();

    unsigned lane = threadIdx.x & 31, stride = gridDim.x * blockDim.x;
    /* whole warps walk the quads together, so every lane reaches km_warp_add */
    for (unsigned base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < quads; base += stride) {
        unsigned q = base + lane;
        bool live = q < quads;
        unsigned rgb[4][3], lab[4], inside;
        uint32_t inside_bytes, now = km_quad_labels(load, q, live, n, centre, k, rgb, lab, inside, inside_bytes);
        if (live) {
            uint32_t differ = first_pass ? 0xffffffffu : __vcmpne4(labels[q], now);   /* 0xff per changed byte */
            unsigned changed = __popc(differ & inside_bytes) / 8;
            if (changed)
                atomicAdd(&control->changed, changed);
            labels[q] = now;
        }

        /* Sums: pixel by pixel, each as cuda-warpsums adds one. */
#pragma unroll
        for (int j = 0; j < 4; j++)
            km_warp_add(acc, (unsigned)j < inside, lab[j], rgb[j][0], rgb[j][1], rgb[j][2], 1u);
    }

    __syncthreads();
    for (int i = threadIdx.x; i < 4 * k; i += blockDim.x)
        if (acc[i])
            atomicAdd(&sums[i], (unsigned long long)acc[i]);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return km_grid_open(state, sizeof(km_grid_state), km_pass, BLOCK_THREADS, in, params, output, exec, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    km_grid_state *s = (km_grid_state *)state;
    GlobalLoader load = { s->dev.rgb };
    return km_run_passes(&s->dev, [s, load](int first_pass, sb_error *e) {
        return km_grid_pass(s, km_pass, BLOCK_THREADS, load, first_pass, true, e);
    }, err);
}

SB_CUDA_RUNG("kmeans", "cuda-quad", "cuda-fourpixels", "cuda-shared", 0,
             "a word of 4 labels out a thread, the changed ones counted 4 at a time with __vcmpne4",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
