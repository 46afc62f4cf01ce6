/* 6_texture.cu - SLIC with the colour read through a texture object
 * (variant "cuda-texture").
 *
 * A branch of cuda-warpagg: only the loads of the converted colour change, to
 * tex1Dfetch on a 1-D linear texture of ushort4.  Each pixel is read once
 * per iteration, in rows, so the texture path's caching and addressing
 * have little to offer over __ldg; expect the two to tie.  (The source
 * read the image through a texture; this row shows what that buys here.)
 * What it bought on the H100 (run 20261123T025827Z-bcdf, 10 iterations):
 * a tie, 2.58 -> 2.57 ms at S = 16 and 2.34 -> 2.33 ms for 1000
 * superpixels, both at 3840x2160.
 */
#include "tile_pass.cuh"

struct TextureColour {
    cudaTextureObject_t tex;
    __device__ __forceinline__ ushort4 operator()(size_t i) const { return tex1Dfetch<ushort4>(tex, (int)i); }
};

struct rung_state {
    slic_device dev;       /* first: the shared upload and fetch read it */
    cudaTextureObject_t tex;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    slic_device *d = &s->dev;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d->colour;
    res.res.linear.desc = cudaCreateChannelDesc<ushort4>();
    res.res.linear.sizeInBytes = (size_t)d->n * sizeof(ushort4);
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    SB_CUDA_TRY(cudaCreateTextureObject(&s->tex, &res, &desc, NULL), err, d->who);
    return slic_tile_allow_shared<TextureColour, WarpAggregated>(d, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    slic_device *d = &s->dev;
    TextureColour load = { s->tex };
    return slic_run(d, [&](sb_error *e) { return slic_tile_iterate<WarpAggregated>(d, load, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s && s->tex)
        cudaDestroyTextureObject(s->tex);
    slic_device_close(s);
}

SB_VARIANT("slic", "cuda-texture", "cuda-texture", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-warpagg with the colour read through a texture object",
           rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, rung_release)
SB_RUNG("slic", "cuda-texture", "cuda-warpagg", "the converted colour through a texture object (a branch)")
