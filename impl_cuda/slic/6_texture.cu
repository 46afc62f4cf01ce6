/* 6_texture.cu - SLIC with the colour read through a texture object
 * (variant "cuda-texture").
 *
 * Against cuda-shared: only the loads of the converted colour change, to
 * tex1Dfetch on a 1-D linear texture of ushort4.  Each pixel is read once
 * per iteration, in rows, so the texture path's caching and addressing
 * have little to offer over __ldg; expect the two to tie.  (The source
 * read the image through a texture; this row shows what that buys here.)
 */
#include "tile_pass.cuh"

#include <cstdlib>

struct TextureColour {
    cudaTextureObject_t tex;
    __device__ __forceinline__ ushort4 operator()(size_t i) const { return tex1Dfetch<ushort4>(tex, (int)i); }
};

static sb_status rung_setup(slic_device *d, sb_error *err)
{
    cudaTextureObject_t *tex = (cudaTextureObject_t *)calloc(1, sizeof *tex);
    if (!tex)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->scratch = tex;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d->colour;
    res.res.linear.desc = cudaCreateChannelDesc<ushort4>();
    res.res.linear.sizeInBytes = (size_t)d->n * sizeof(ushort4);
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    SB_CUDA_TRY(cudaCreateTextureObject(tex, &res, &desc, NULL), err, d->who);
    return slic_tile_allow_shared<TextureColour, WarpAggregated>(d, err);
}

static sb_status rung_iterate(slic_device *d, sb_error *err)
{
    TextureColour load = { *(cudaTextureObject_t *)d->scratch };
    return slic_tile_iterate<WarpAggregated>(d, load, err);
}

static void rung_teardown(slic_device *d)
{
    cudaTextureObject_t *tex = (cudaTextureObject_t *)d->scratch;
    if (tex && *tex)
        cudaDestroyTextureObject(*tex);
    free(tex);
}

static const slic_hooks rung_hooks = { rung_setup, rung_iterate, rung_teardown };

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return slic_cuda_prepare(&rung_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("slic", "cuda-texture", "cuda-texture", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-shared with the colour read through a texture object",
           rung_prepare, slic_cuda_upload, slic_cuda_run, slic_cuda_fetch, slic_cuda_release)
