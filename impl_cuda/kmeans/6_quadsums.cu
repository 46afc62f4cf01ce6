/* 6_quadsums.cu - cuda-quadsums.  Grows from cuda-quad.  The idea: a quad of
 * one label adds as one value. */
#include "5_quad.cuh"
#include "6_quadsums.cuh"

enum { BLOCK_THREADS = 256 };

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(GlobalLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_shared_sums(prepped, k, sums, [&](const float4 *centre, unsigned *acc) {
        km_quad_walk(load, quads, n, labels, k, first_pass, centre, acc, km_count_quad{ control }, km_add_quad());
    });
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

SB_CUDA_RUNG("kmeans", "cuda-quadsums", "cuda-quad", "cuda-shared", 0,
             "a quad of one label joins the sums as one value: one warp aggregation for 4 pixels",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
