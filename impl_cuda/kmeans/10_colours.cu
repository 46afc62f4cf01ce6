/* 10_colours.cu - cuda-colours.  A branch of cuda-lastblock.  The idea: a
 * pass visits each distinct colour once, weighted by its pixels, instead of
 * every pixel. */
#include "colours.cuh"
#include "km_quads.cuh"          /* km_last_block, cuda-lastblock's */

/* One pass over the colours; the block that finishes last keeps the
 * centres it labelled with (for the pixels' labels) and updates. */
static __global__ void __launch_bounds__(KM_COLOUR_THREADS)
    km_colour_pass(km_colour_list list, int k, int first_pass, int converge, unsigned long long *sums,
                   int32_t *centres, float4 *prepped, float4 *last_prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    extern __shared__ unsigned long long acc[];     /* a slice of 4k a warp */
    __shared__ unsigned block_changed;
    for (int c = threadIdx.x; c < k; c += blockDim.x)
        centre[c] = prepped[c];
    km_colours_zero(acc, k);
    if (threadIdx.x == 0)
        block_changed = 0;
    __syncthreads();
    unsigned changed = km_colours_assign(list, centre, k, first_pass, acc);
    km_colours_flush(acc, k, changed, &block_changed, sums, &control->changed);
    if (km_last_block(control)) {
        for (int c = threadIdx.x; c < k; c += blockDim.x)
            last_prepped[c] = centre[c];
        km_finish_pass(k, converge, sums, centres, prepped, control);
    }
}

struct rung_state {
    km_device dev;          /* first: the shared upload and fetch read it */
    km_colours colours;
    unsigned blocks;
    size_t smem;            /* the warps' slices of the sums */
};

static void rung_release(void *state)
{
    if (state)
        km_colours_close(&((rung_state *)state)->colours);
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
    /* The colours are counted on the device, so the grid is sized for the
     * most there can be.  Its sums are 64-bit: no cap on a block's pixels
     * (n = 1 below). */
    int per_sm = 0;
    s->smem = km_colours_smem(d->params.k, KM_COLOUR_THREADS);
    SB_CUDA_TRY(cudaFuncSetAttribute(km_colour_pass, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s->smem), err,
                d->who);
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, km_colour_pass, KM_COLOUR_THREADS, s->smem),
                err, d->who);
    s->blocks = km_blocks_for(d->sm_count, 1, s->colours.most, KM_COLOUR_THREADS, (unsigned)per_sm);
    return SB_OK;
}

static sb_status rung_pass(rung_state *s, int first_pass, sb_error *err)
{
    km_device *d = &s->dev;
    km_colour_pass<<<s->blocks, KM_COLOUR_THREADS, s->smem, d->stream>>>(
        km_colours_list(&s->colours), d->params.k, first_pass, !d->params.fixed, d->sums, d->centres, d->prepped,
        s->colours.last_prepped, d->control);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    km_device *d = &s->dev;
    sb_status st = km_colours_histogram(&s->colours, d, err);
    if (!st)
        st = km_run_passes(d, [s](int first_pass, sb_error *e) { return rung_pass(s, first_pass, e); }, err);
    if (!st)
        st = km_colours_label_pixels(&s->colours, d, err);
    return st;
}

SB_CUDA_RUNG("kmeans", "cuda-colours", "cuda-lastblock", "cuda-shared", 0,
             "the passes over the image's distinct colours, each weighted by its pixels (an exact histogram first)",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, rung_release)
