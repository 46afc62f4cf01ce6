/* 4_texture.cu - tiled integral image, pixels read through a texture object
 * (variant "cuda-texture").
 *
 * Against cuda-shared: the same kernels (tiled.cuh), but each lane's four
 * pixels are one tex2D fetch of a uchar4 texel from a pitched 2-D texture
 * over the padded input.  Textures give 2-D-local caching and free border
 * handling, which help stencils that reread neighbours; this scan reads
 * each pixel once per pass in perfectly coalesced rows, so expect no gain
 * -- the row is here to show that, measured.
 */
#include "tiled.cuh"

struct TextureLoader {
    cudaTextureObject_t tex;      /* uchar4 texels: pixel x is in texel x / 4 */
    __device__ __forceinline__ uchar4 operator()(int x, int y) const
    {
        return tex2D<uchar4>(tex, (float)(x / 4) + 0.5f, (float)y + 0.5f);
    }
};

struct texture_scratch {
    tiled_scratch carries;
    cudaTextureObject_t tex;
};

static sb_status texture_setup(integral_device *d, sb_error *err)
{
    texture_scratch *s = (texture_scratch *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->scratch = s;
    sb_status st = tiled_scratch_init(&s->carries, d, err);
    if (st)
        return st;

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

static sb_status texture_run(integral_device *d, sb_error *err)
{
    texture_scratch *s = (texture_scratch *)d->scratch;
    TextureLoader load = { s->tex };
    return tiled_run(d, &s->carries, load, err);
}

static void texture_teardown(integral_device *d)
{
    texture_scratch *s = (texture_scratch *)d->scratch;
    if (!s)
        return;
    if (s->tex)
        cudaDestroyTextureObject(s->tex);
    tiled_scratch_release(&s->carries);
    free(s);
}

static const integral_cuda_hooks texture_hooks = { texture_setup, texture_run,
                                                   texture_teardown, NULL, 0 };

static sb_status texture_prepare(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    return integral_cuda_prepare(&texture_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("integral", "cuda-texture", "cuda-texture", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-shared with the pixels read through a texture object",
           texture_prepare, integral_cuda_upload, integral_cuda_run, integral_cuda_fetch, integral_cuda_release)
