/* 7_texture.cu - cuda-texture.  A branch of cuda-warpagg.  The idea: the
 * colour read through a texture. */
#include "6_warpagg.cuh"

/* The converted colour through the texture path: tex1Dfetch on a 1-D
 * linear texture of ushort4. */
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
    return slic_allow_shared(slic_tile_pass<TextureColour>, slic_tile_shared_bytes(d->geo.S), d, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    slic_device *d = &s->dev;
    TextureColour load = { s->tex };
    return slic_run(d, [&](sb_error *e) { return slic_tile_iterate(d, slic_tile_pass<TextureColour>, load, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s && s->tex)
        cudaDestroyTextureObject(s->tex);
    slic_device_close(s);
}

SB_CUDA_RUNG("slic", "cuda-texture", "cuda-warpagg", "cuda-texture", 0,
             "the converted colour through a texture object (a branch)",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, rung_release)
