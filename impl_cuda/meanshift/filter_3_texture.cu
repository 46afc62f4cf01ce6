/* filter_3_texture.cu - cuda-texture of meanshift-filter.  A branch of
 * cuda-global.  The idea: the window's pixels come through a 2-D texture,
 * whose cache suits windows spanning many rows. */
#include "ms_device.cuh"

#include <cstring>

struct TextureSums {
    cudaTextureObject_t tex;
    unsigned range2;

    __device__ void operator()(ms_window w, int cx, int cy, uint32_t m, sb_ms_sums *s) const
    {
        auto fetch = [this](int x, int y) { return tex2D<unsigned>(tex, (float)x, (float)y); };
        ms_window_sums(fetch, w.x0, w.x1, w.y0, w.y1, cx, cy, m, range2, s);
    }
};

static __global__ void __launch_bounds__(MS_BLOCK_W * MS_BLOCK_H)
    texture_filter(int width, int height, cudaTextureObject_t tex, sb_ms_params p, uint32_t *out)
{
    int x = blockIdx.x * MS_BLOCK_W + threadIdx.x, y = blockIdx.y * MS_BLOCK_H + threadIdx.y;
    if (x >= width || y >= height)
        return;
    TextureSums sums = { tex, (unsigned)(p.range * p.range) };
    out[(size_t)y * width + x] = ms_mode(sums, x, y, width, height, p, tex2D<unsigned>(tex, (float)x, (float)y));
}

struct rung_state {
    ms_device dev;                 /* first: the shared upload and fetch read it */
    cudaTextureObject_t tex;       /* over d->luv */
};

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(rung_state), step, NULL, in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    ms_device *d = &s->dev;
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = d->luv;
    res.res.pitch2D.desc = cudaCreateChannelDesc<unsigned>();
    res.res.pitch2D.width = d->width;
    res.res.pitch2D.height = d->height;
    res.res.pitch2D.pitchInBytes = d->pitch * sizeof(uint32_t);
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    desc.readMode = cudaReadModeElementType;
    SB_CUDA_TRY(cudaCreateTextureObject(&s->tex, &res, &desc, NULL), err, d->who);
    return SB_OK;
}

static sb_status rung_filter_launch(rung_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    dim3 block(MS_BLOCK_W, MS_BLOCK_H), grid(sb_div_up(d->width, MS_BLOCK_W), sb_div_up(d->height, MS_BLOCK_H));
    texture_filter<<<grid, block, 0, d->stream>>>(d->width, d->height, s->tex, d->p, d->filtered);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return ms_run(&s->dev, [s](sb_error *e) { return rung_filter_launch(s, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s && s->tex)
        cudaDestroyTextureObject(s->tex);
    ms_device_close(s);
}

MS_STEP_PREPARE(filter_prepare, rung_prepare, SB_MS_FILTER)

SB_CUDA_RUNG("meanshift-filter", "cuda-texture", "cuda-global", "cuda-texture", 0,
             "the window read through a 2D texture (a branch that loses at large radii)",
             filter_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, rung_release)
