/* 1_seed.cu - k-means with the source's scheme, kept faithfully (cuda-seed,
 * the root). */
#include "1_seed.cuh"

#include <cstdlib>

enum { BLOCK_THREADS = 256 };

static __constant__ float4 seed_centres[SB_KMEANS_MAX_K];

static __global__ void km_pass(const uint8_t *rgb, unsigned long long n, uint8_t *labels, int k, int first_pass,
                               int *changed)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned label = km_nearest(seed_centres, k, rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    if (first_pass || labels[i] != label)
        *changed = 1;                 /* the source's flag: any change at all */
    labels[i] = (uint8_t)label;
}

struct seed_state {
    const sb_image *in;
    sb_kmeans_params params;
    sb_kmeans_out *out;
    cudaStream_t stream;
    const char *who;       /* for messages */
    long n;
    int32_t initial[SB_KMEANS_MAX_K][3];
    uint8_t *rgb;          /* device, packed */
    uint8_t *labels;       /* device */
    int *changed;          /* device flag */
    int *host_changed;     /* pinned */
};

static sb_status seed_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                           long *changed, sb_error *err)
{
    seed_state *s = (seed_state *)ctx;
    const sb_image *in = s->in;
    SB_CUDA_TRY(cudaMemcpy2DAsync(s->rgb, (size_t)in->width * 3, in->data, in->stride, (size_t)in->width * 3,
                                  (size_t)in->height, cudaMemcpyHostToDevice, s->stream),
                err, s->who);
    SB_CUDA_TRY(cudaMemcpyToSymbolAsync(seed_centres, centres, (size_t)s->params.k * sizeof(float4), 0,
                                        cudaMemcpyHostToDevice, s->stream),
                err, s->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->changed, 0, sizeof(int), s->stream), err, s->who);
    km_pass<<<sb_div_up((unsigned long long)s->n, BLOCK_THREADS), BLOCK_THREADS, 0, s->stream>>>(
        s->rgb, (unsigned long long)s->n, s->labels, s->params.k, first_pass, s->changed);
    SB_CUDA_LAUNCHED(err, s->who);
    SB_CUDA_TRY(cudaMemcpyAsync(s->out->labels, s->labels, (size_t)s->n, cudaMemcpyDeviceToHost, s->stream), err,
                s->who);
    SB_CUDA_TRY(cudaMemcpyAsync(s->host_changed, s->changed, sizeof(int), cudaMemcpyDeviceToHost, s->stream),
                err, s->who);
    SB_CUDA_TRY(cudaStreamSynchronize(s->stream), err, s->who);
    sb_kmeans_accumulate_rows(in, 0, in->height, s->out->labels, sums);
    *changed = *s->host_changed;
    return SB_OK;
}

static void seed_release(void *state)
{
    seed_state *s = (seed_state *)state;
    if (!s)
        return;
    cudaFree(s->rgb);
    cudaFree(s->labels);
    cudaFree(s->changed);
    cudaFreeHost(s->host_changed);
    free(s);
}

static sb_status seed_open(seed_state *s, const sb_exec *exec, sb_error *err)
{
    SB_CUDA_TRY(cudaMalloc(&s->rgb, (size_t)s->n * 3), err, s->who);
    SB_CUDA_TRY(cudaMalloc(&s->labels, (size_t)s->n), err, s->who);
    SB_CUDA_TRY(cudaMalloc(&s->changed, sizeof(int)), err, s->who);
    SB_CUDA_TRY(cudaMallocHost(&s->host_changed, sizeof(int)), err, s->who);
    if (exec->poison)
        SB_CUDA_TRY(cudaMemsetAsync(s->labels, 0xA5, (size_t)s->n, s->stream), err, s->who);
    return SB_OK;
}

/* A frame's initial centres, on the host.  The pixels cross the bus in
 * every pass, inside run(): that round trip is this variant's lesson. */
static sb_status seed_upload(void *state, sb_error *err)
{
    seed_state *s = (seed_state *)state;
    return sb_kmeans_initial(s->in, &s->params, s->initial, err);
}

static sb_status seed_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return seed_prepare_as<seed_state>(state, in, params, output, exec, err);
}

static sb_status seed_run(void *state, sb_error *err)
{
    seed_state *s = (seed_state *)state;
    return sb_kmeans_host_loop(&s->params, (const int32_t(*)[3])s->initial, seed_pass, s, s->out, err);
}

static sb_status seed_fetch(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;    /* the labels came back in the last pass; centres were computed on the host */
}

SB_VARIANT("kmeans", "cuda-seed", "cuda-global", CUDA, SB_DEVICE | SB_ONE_AT_A_TIME | SB_HOST_BOUND, ALL_STAGES,
           "the source's scheme: centres in __constant__, update on the host, image copied every pass",
           seed_prepare, seed_upload, seed_run, seed_fetch, seed_release)
SB_RUNG("kmeans", "cuda-seed", NULL,
        "the root: the source's scheme, centres in __constant__, the update on the host, the image copied every pass")
