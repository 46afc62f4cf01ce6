/* 7_blockcount.cu - cuda-blockcount.  Grows from cuda-quadsums.  The idea:
 * changed labels counted per warp and block, one global atomic a block. */
#include "7_blockcount.cuh"

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_block_pass(load, quads, n, labels, k, first_pass, sums, prepped, control);
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

SB_CUDA_RUNG("kmeans", "cuda-blockcount", "cuda-quadsums", "cuda-shared", 0,
             "changed labels counted per warp, then per block: one global atomic a block, not one a quad",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
