/* filter_2_shared.cu - cuda-shared of meanshift-filter.  A branch of
 * cuda-global.  The idea: a block stages its tile and the window's halo in
 * shared memory, and the windows read from there. */
#include "ms_device.cuh"

struct SharedSums {
    const uint32_t *tile;          /* the staged area, tw x th, from (tx0, ty0) */
    int tx0, ty0, tw, th;
    const uint32_t *luv;
    size_t pitch;
    unsigned range2;

    __device__ void operator()(ms_window w, int cx, int cy, uint32_t m, sb_ms_sums *s) const
    {
        if (w.x0 >= tx0 && w.x1 < tx0 + tw && w.y0 >= ty0 && w.y1 < ty0 + th) {
            auto fetch = [this](int x, int y) { return tile[(y - ty0) * tw + (x - tx0)]; };
            ms_window_sums(fetch, w.x0, w.x1, w.y0, w.y1, cx, cy, m, range2, s);
        } else {
            auto fetch = [this](int x, int y) { return __ldg(luv + (size_t)y * pitch + x); };
            ms_window_sums(fetch, w.x0, w.x1, w.y0, w.y1, cx, cy, m, range2, s);
        }
    }
};

static __global__ void __launch_bounds__(MS_BLOCK_W * MS_BLOCK_H)
    shared_filter(int width, int height, const uint32_t *luv, size_t pitch, sb_ms_params p, uint32_t *out)
{
    extern __shared__ uint32_t tile[];
    int r = p.radius, tw = MS_BLOCK_W + 2 * r, th = MS_BLOCK_H + 2 * r;
    int tx0 = blockIdx.x * MS_BLOCK_W - r, ty0 = blockIdx.y * MS_BLOCK_H - r;
    /* stage: pixels outside the image are never read (windows are clipped) */
    for (int k = threadIdx.y * MS_BLOCK_W + threadIdx.x; k < tw * th; k += MS_BLOCK_W * MS_BLOCK_H) {
        int gx = tx0 + k % tw, gy = ty0 + k / tw;
        if (gx >= 0 && gx < width && gy >= 0 && gy < height)
            tile[k] = luv[(size_t)gy * pitch + gx];
    }
    __syncthreads();
    int x = blockIdx.x * MS_BLOCK_W + threadIdx.x, y = blockIdx.y * MS_BLOCK_H + threadIdx.y;
    if (x >= width || y >= height)
        return;
    SharedSums sums = { tile, tx0, ty0, tw, th, luv, pitch, (unsigned)(p.range * p.range) };
    out[(size_t)y * width + x] = ms_mode(sums, x, y, width, height, p, tile[(y - ty0) * tw + (x - tx0)]);
}

static size_t shared_bytes(int r) { return (size_t)(MS_BLOCK_W + 2 * r) * (MS_BLOCK_H + 2 * r) * sizeof(uint32_t); }

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(ms_device), step, NULL, in, params, output, exec, err);
    if (st)
        return st;
    ms_device *d = (ms_device *)*state;
    /* above 48 KiB from radius 41 */
    SB_CUDA_TRY(cudaFuncSetAttribute(shared_filter, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)shared_bytes(d->p.radius)),
                err, d->who);
    return SB_OK;
}

static sb_status rung_filter_launch(ms_device *d, sb_error *err)
{
    dim3 block(MS_BLOCK_W, MS_BLOCK_H), grid(sb_div_up(d->width, MS_BLOCK_W), sb_div_up(d->height, MS_BLOCK_H));
    shared_filter<<<grid, block, shared_bytes(d->p.radius), d->stream>>>(d->width, d->height, d->luv, d->pitch, d->p,
                                                                          d->filtered);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    ms_device *d = (ms_device *)state;
    return ms_run(d, [d](sb_error *e) { return rung_filter_launch(d, e); }, err);
}

MS_STEP_PREPARE(filter_prepare, rung_prepare, SB_MS_FILTER)

SB_CUDA_RUNG("meanshift-filter", "cuda-shared", "cuda-global", "cuda-shared", 0,
             "the tile and a radius halo staged in shared memory (a branch that loses: L1 already serves the windows)",
             filter_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, ms_device_close)
