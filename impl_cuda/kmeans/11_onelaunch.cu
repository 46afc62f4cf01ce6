/* 11_onelaunch.cu - cuda-onelaunch.  A branch of cuda-colours.  The idea:
 * once a pass is a few microseconds, its launch is the pass: every pass in
 * one cooperative launch. */
#include "colours.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* The sums of the passes, three in rotation (zeroed before a run). */
struct onelaunch_sums {
    unsigned long long sums[3][4 * SB_KMEANS_MAX_K];
    unsigned changed[3];
};

static __global__ void __launch_bounds__(KM_COLOUR_THREADS)
    km_all_passes(km_colour_list list, int k, int max_iter, int converge, const int32_t *initial,
                  onelaunch_sums *rot, int32_t *centres, float4 *prepped, float4 *last_prepped,
                  km_control *control)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    __shared__ int32_t level[SB_KMEANS_MAX_K][3];   /* the centres as integers (kmeans.h) */
    extern __shared__ unsigned long long acc[];     /* a slice of 4k a warp */
    __shared__ unsigned block_changed;
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        for (int ch = 0; ch < 3; ch++)
            level[c][ch] = initial[3 * c + ch];
        centre[c] = km_prep(level[c]);
    }
    int pass = 0;
    while (pass < max_iter) {
        int now = pass % 3, next = (pass + 1) % 3;
        km_colours_zero(acc, k);
        if (threadIdx.x == 0)
            block_changed = 0;
        __syncthreads();
        unsigned changed = km_colours_assign(list, centre, k, pass == 0, acc);
        km_colours_flush(acc, k, changed, &block_changed, rot->sums[now], &rot->changed[now]);
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < 4u * k; i += gridDim.x * blockDim.x)
            rot->sums[next][i] = 0;
        if (blockIdx.x == 0 && threadIdx.x == 0)
            rot->changed[next] = 0;
        if (blockIdx.x == 0)   /* the centres this pass labelled with */
            for (int c = threadIdx.x; c < k; c += blockDim.x)
                last_prepped[c] = centre[c];
        grid.sync();

        /* kmeans.h's update, in every block */
        for (int c = threadIdx.x; c < k; c += blockDim.x) {
            unsigned long long count = __ldcg(&rot->sums[now][4 * c + 3]);
            if (count)                     /* an empty cluster keeps its centre */
                for (int ch = 0; ch < 3; ch++)
                    level[c][ch] = sb_kmeans_mean(__ldcg(&rot->sums[now][4 * c + ch]), count);
            centre[c] = km_prep(level[c]);
        }
        pass++;
        if (converge && __ldcg(&rot->changed[now]) == 0)
            break;
    }
    if (blockIdx.x == 0) {
        for (int c = threadIdx.x; c < k; c += blockDim.x) {
            for (int ch = 0; ch < 3; ch++)
                centres[3 * c + ch] = level[c][ch];
            prepped[c] = centre[c];
        }
        if (threadIdx.x == 0) {
            control->passes = pass;
            control->done = 1;
        }
    }
}

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    km_colours colours;
    onelaunch_sums *rot;
    int blocks;             /* resident blocks of the cooperative kernel */
    size_t smem;            /* the warps' slices of the sums */
};

static void rung_release(void *state)
{
    if (state) {
        rung_state *s = (rung_state *)state;
        km_colours_close(&s->colours);
        cudaFree(s->rot);
    }
    km_device_close(state);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    km_device *d = &s->dev;
    if ((st = km_colours_open(&s->colours, d, err)))
        return st;
    SB_CUDA_TRY(cudaMalloc(&s->rot, sizeof(onelaunch_sums)), err, d->who);
    int dev, coop = 0, per_sm = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev), err, d->who);
    if (!coop)
        return sb_fail(err, SB_ERR_UNAVAILABLE, "%s: the device cannot launch cooperative kernels", d->who);
    /* every block resident for grid.sync(); no more than the colours can need */
    s->smem = km_colours_smem(d->params.k, KM_COLOUR_THREADS);
    SB_CUDA_TRY(cudaFuncSetAttribute(km_all_passes, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s->smem), err,
                d->who);
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, km_all_passes, KM_COLOUR_THREADS, s->smem),
                err, d->who);
    s->blocks = (int)km_blocks_for(d->sm_count, 1, s->colours.most, KM_COLOUR_THREADS, (unsigned)per_sm);
    if (per_sm < 1 || s->blocks < 1)
        return sb_fail(err, SB_ERR_DEVICE, "%s: the pass kernel cannot be resident", d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    km_device *d = &s->dev;
    sb_status st = km_colours_histogram(&s->colours, d, err);
    if (st)
        return st;
    SB_CUDA_TRY(cudaMemsetAsync(s->rot, 0, sizeof(onelaunch_sums), d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(d->control, 0, sizeof(km_control), d->stream), err, d->who);
    km_colour_list list = km_colours_list(&s->colours);
    int k = d->params.k, max_iter = d->params.max_iter, converge = !d->params.fixed;
    void *args[] = { &list, &k, &max_iter, &converge, &d->initial, &s->rot, &d->centres, &d->prepped,
                     &s->colours.last_prepped, &d->control };
    SB_CUDA_TRY(cudaLaunchCooperativeKernel((const void *)km_all_passes, dim3(s->blocks), dim3(KM_COLOUR_THREADS),
                                            args, s->smem, d->stream),
                err, d->who);
    return km_colours_label_pixels(&s->colours, d, err);
}

SB_CUDA_RUNG("kmeans", "cuda-onelaunch", "cuda-colours", "cuda-shared", 0,
             "every pass in one cooperative launch: one grid.sync a pass, each block updating the centres itself",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, rung_release)
