/* 1_seed.cuh - what cuda-seed (1_seed.cu) lends cuda-copyonce and
 * cuda-devsums, the rungs whose update runs on the host
 * (sb_kmeans_host_loop): their state and buffers, the copy of the pixels,
 * the start of a pass, and cuda-seed's label pass, a thread a pixel. */
#ifndef SEGBENCH_KM_1_SEED_CUH
#define SEGBENCH_KM_1_SEED_CUH

#include "kmeans_device.cuh"

#include <cstdlib>

/* Its helpers are inline: cuda-devsums, which keeps the state and not the
 * label pass, would be warned of the ones it does not call. */
enum { SEED_THREADS = 256 };

/* The centres of the pass: every lane of a warp reads the same one at
 * once, which the constant cache serves as one broadcast. */
static __constant__ float4 seed_centres[SB_KMEANS_MAX_K];

/* A thread a pixel: its nearest centre, and the source's flag: any
 * change at all. */
static __global__ void seed_label_kernel(const uint8_t *rgb, unsigned long long n, uint8_t *labels, int k,
                                         int first_pass, int *changed)
{
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned label = km_nearest(seed_centres, k, rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
    if (first_pass || labels[i] != label)
        *changed = 1;
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

/* The frame's pixels onto the device, packed. */
static sb_status seed_copy_pixels(seed_state *s, sb_error *err)
{
    const sb_image *in = s->in;
    SB_CUDA_TRY(cudaMemcpy2DAsync(s->rgb, (size_t)in->width * 3, in->data, in->stride, (size_t)in->width * 3,
                                  (size_t)in->height, cudaMemcpyHostToDevice, s->stream),
                err, s->who);
    return SB_OK;
}

/* A pass's start: the centres into __constant__, the flag cleared. */
static sb_status seed_pass_start(seed_state *s, const sb_kmeans_prepped *centres, sb_error *err)
{
    SB_CUDA_TRY(cudaMemcpyToSymbolAsync(seed_centres, centres, (size_t)s->params.k * sizeof(float4), 0,
                                        cudaMemcpyHostToDevice, s->stream),
                err, s->who);
    SB_CUDA_TRY(cudaMemsetAsync(s->changed, 0, sizeof(int), s->stream), err, s->who);
    return SB_OK;
}

/* cuda-seed's pass over pixels already on the device (an
 * sb_kmeans_pass_fn): the labels, then labels and flag back, and the sums
 * made on the host from the labels. */
static inline sb_status seed_labels_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass,
                                         sb_kmeans_sums *sums, long *changed, sb_error *err)
{
    seed_state *s = (seed_state *)ctx;
    sb_status st = seed_pass_start(s, centres, err);
    if (st)
        return st;
    seed_label_kernel<<<sb_div_up((unsigned long long)s->n, SEED_THREADS), SEED_THREADS, 0, s->stream>>>(
        s->rgb, (unsigned long long)s->n, s->labels, s->params.k, first_pass, s->changed);
    SB_CUDA_LAUNCHED(err, s->who);
    SB_CUDA_TRY(cudaMemcpyAsync(s->out->labels, s->labels, (size_t)s->n, cudaMemcpyDeviceToHost, s->stream), err,
                s->who);
    SB_CUDA_TRY(cudaMemcpyAsync(s->host_changed, s->changed, sizeof(int), cudaMemcpyDeviceToHost, s->stream),
                err, s->who);
    SB_CUDA_TRY(cudaStreamSynchronize(s->stream), err, s->who);
    sb_kmeans_accumulate_rows(s->in, 0, s->in->height, s->out->labels, sums);
    *changed = *s->host_changed;
    return SB_OK;
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

/* A zeroed State (a seed_state or one that extends it) in *state, the
 * frame's size noted, then open(); on failure release() and no state. */
template <class State>
static sb_status seed_prepare_as(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_status (*open)(State *, const sb_exec *, sb_error *),
                                 void (*release)(void *), sb_error *err)
{
    *state = NULL;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs an RGB input, got %d channel(s)", exec->who, in->channels);
    State *s = (State *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", exec->who);
    s->in = in;
    s->params = *(const sb_kmeans_params *)params;
    s->out = (sb_kmeans_out *)output;
    s->stream = (cudaStream_t)exec->stream;
    s->who = exec->who;
    s->n = (long)in->width * in->height;
    sb_status st = open(s, exec, err);
    if (st) {
        release(s);
        return st;
    }
    *state = s;
    return SB_OK;
}

static inline sb_status seed_prepare(void **state, const sb_image *in, const void *params, void *output,
                                     const sb_exec *exec, sb_error *err)
{
    return seed_prepare_as<seed_state>(state, in, params, output, exec, seed_open, seed_release, err);
}

/* The host's loop (sb_kmeans_host_loop) over the rung's pass. */
static sb_status seed_run_with(void *state, sb_kmeans_pass_fn pass, sb_error *err)
{
    seed_state *s = (seed_state *)state;
    return sb_kmeans_host_loop(&s->params, (const int32_t(*)[3])s->initial, pass, s, s->out, err);
}

/* Nothing to fetch: the labels came back in the last pass, and the host
 * made the centres. */
static inline sb_status seed_fetch_nothing(void *state, sb_error *err)
{
    (void)state;
    (void)err;
    return SB_OK;
}

#endif
