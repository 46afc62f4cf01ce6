/* 7_texture.cu - cuda-texture.  A branch of cuda-pdl.  The idea: a lane's
 * four pixels come as one tex2D fetch of a uchar4 texel. */
#include "6_pdl_tiles.cuh"

/* Pixels through the texture path: pixel x is in texel x / 4. */
struct TextureLoader {
    cudaTextureObject_t tex;      /* uchar4 texels */
    __device__ __forceinline__ uchar4 operator()(int x, int y) const
    {
        return tex2D<uchar4>(tex, (float)(x / 4) + 0.5f, (float)y + 0.5f);
    }
};

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    tiled_scratch carries;
    int overlap;           /* programmatic dependent launch (compute capability 9.0+) */
    cudaTextureObject_t tex;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    int major = 0, dev = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, s->dev.who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), err, s->dev.who);
    s->overlap = major >= 9;
    if ((st = tiled_scratch_init(&s->carries, &s->dev, err)))
        return st;

    integral_device *d = &s->dev;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = d->in;
    res.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
    res.res.pitch2D.width = (size_t)d->pw / 4;
    res.res.pitch2D.height = (size_t)d->ph;
    res.res.pitch2D.pitchInBytes = (size_t)d->pw;
    cudaTextureDesc desc = {};
    desc.addressMode[0] = desc.addressMode[1] = cudaAddressModeClamp;
    desc.filterMode = cudaFilterModePoint;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = 0;
    SB_CUDA_TRY(cudaCreateTextureObject(&s->tex, &res, &desc, NULL), err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    integral_device *d = &s->dev;
    TextureLoader load = { s->tex };
    sb_status st = tiled_table<SumOp>(d, load, s->carries.sum, d->sum, s->overlap, err);
    if (!st && d->squares)
        st = tiled_table<SquareOp>(d, load, s->carries.sq, d->sq, s->overlap, err);
    return st;
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s) {
        if (s->tex)
            cudaDestroyTextureObject(s->tex);
        tiled_scratch_release(&s->carries);
    }
    integral_device_close(s);
}

SB_CUDA_RUNG("integral", "cuda-texture", "cuda-pdl", "cuda-texture", 0,
             "the pixels through a texture object (tex2D) instead of __ldg: a branch that loses",
             rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
