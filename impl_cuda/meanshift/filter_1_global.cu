/* filter_1_global.cu - the mean-shift filter with global memory only
 * (cuda-global of meanshift-filter, the root). */
#include "filter_1_global.cuh"

struct GlobalSums {
    const uint32_t *luv;
    size_t pitch;
    unsigned range2;

    __device__ void operator()(ms_window w, int cx, int cy, uint32_t m, sb_ms_sums *s) const
    {
        auto fetch = [this](int x, int y) { return __ldg(luv + (size_t)y * pitch + x); };
        ms_window_sums(fetch, w.x0, w.x1, w.y0, w.y1, cx, cy, m, range2, s);
    }
};

static __global__ void __launch_bounds__(MS_BLOCK_W * MS_BLOCK_H)
    global_filter(int width, int height, const uint32_t *luv, size_t pitch, sb_ms_params p, uint32_t *out)
{
    int x = blockIdx.x * MS_BLOCK_W + threadIdx.x, y = blockIdx.y * MS_BLOCK_H + threadIdx.y;
    if (x >= width || y >= height)
        return;
    GlobalSums sums = { luv, pitch, (unsigned)(p.range * p.range) };
    out[(size_t)y * width + x] = ms_mode(sums, x, y, width, height, p, luv[(size_t)y * pitch + x]);
}

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return ms_device_open(state, sizeof(ms_device), step, NULL, in, params, output, exec, err);
}

static sb_status rung_filter_launch(ms_device *d, sb_error *err)
{
    dim3 block(MS_BLOCK_W, MS_BLOCK_H), grid(sb_div_up(d->width, MS_BLOCK_W), sb_div_up(d->height, MS_BLOCK_H));
    global_filter<<<grid, block, 0, d->stream>>>(d->width, d->height, d->luv, d->pitch, d->p, d->filtered);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status ms_run_global(void *state, sb_error *err)
{
    ms_device *d = (ms_device *)state;
    return ms_run(d, [d](sb_error *e) { return rung_filter_launch(d, e); }, err);
}

/* The pipelines' filter (regions_*.cu). */
sb_status ms_filter_global(ms_device *d, sb_error *err) { return rung_filter_launch(d, err); }

MS_STEP_PREPARE(filter_prepare, rung_prepare, SB_MS_FILTER)

SB_CUDA_RUNG("meanshift-filter", "cuda-global", NULL, "cuda-global", SB_LADDER_TOP,
             "the root: a thread a pixel, its moving window read from global memory through L1",
             filter_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
