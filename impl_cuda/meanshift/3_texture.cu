/* 3_texture.cu - mean-shift with the filter's reads through a texture
 * (variant "cuda-texture" of every mean-shift step).
 *
 * The filter: as cuda-global, but every window pixel comes from a 2D
 * texture object over the converted image (point sampling, integer
 * coordinates: the window is clipped, so no border mode is ever used).
 * The texture cache is organised for 2D locality, which suits windows
 * that span many rows.  Flood and merge are cuda-shared's: they read each
 * pixel once or twice, in order, where a texture has nothing to add.
 */
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

__global__ void __launch_bounds__(MS_BLOCK_W * MS_BLOCK_H)
    texture_filter(int width, int height, cudaTextureObject_t tex, sb_ms_params p, uint32_t *out)
{
    int x = blockIdx.x * MS_BLOCK_W + threadIdx.x, y = blockIdx.y * MS_BLOCK_H + threadIdx.y;
    if (x >= width || y >= height)
        return;
    TextureSums sums = { tex, (unsigned)(p.range * p.range) };
    out[(size_t)y * width + x] = ms_mode(sums, x, y, width, height, p, tex2D<unsigned>(tex, (float)x, (float)y));
}

static sb_status texture_setup(ms_device *d, sb_error *err)
{
    if (d->step != SB_MS_FILTER && d->step != SB_MS_PIPELINE)
        return SB_OK;
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
    SB_CUDA_TRY(cudaCreateTextureObject(&d->texture, &res, &desc, NULL), err, d->who);
    return SB_OK;
}

static void texture_teardown(ms_device *d)
{
    if (d->texture)
        cudaDestroyTextureObject(d->texture);
}

static sb_status texture_run_filter(ms_device *d, sb_error *err)
{
    dim3 block(MS_BLOCK_W, MS_BLOCK_H), grid(sb_div_up(d->width, MS_BLOCK_W), sb_div_up(d->height, MS_BLOCK_H));
    texture_filter<<<grid, block, 0, d->stream>>>(d->width, d->height, d->texture, d->p, d->filtered);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static const ms_hooks texture_hooks = {
    CCL_TILED, texture_setup, texture_run_filter, texture_teardown
};

MS_CUDA_PREPARE(filter_prepare, texture_hooks, SB_MS_FILTER)
MS_CUDA_PREPARE(pipeline_prepare, texture_hooks, SB_MS_PIPELINE)

SB_VARIANT("meanshift-filter", "cuda-texture", "cuda-texture", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-global with the window read through a 2D texture",
           filter_prepare, ms_cuda_upload, ms_cuda_run, ms_cuda_fetch, ms_cuda_release)
SB_VARIANT("meanshift", "cuda-texture", "cuda-texture", CUDA, SB_DEVICE, ALL_STAGES,
           "texture-read filter, then the cuda-shared flood and merge",
           pipeline_prepare, ms_cuda_upload, ms_cuda_run, ms_cuda_fetch, ms_cuda_release)
