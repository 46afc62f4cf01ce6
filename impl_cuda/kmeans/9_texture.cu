/* 9_texture.cu - cuda-texture.  A branch of cuda-lastblock.  The idea: the
 * quads' words come through a 1-D texture, not __ldg. */
#include "7_blockcount.cuh"

/* Quad q's three words through the texture path: tex1Dfetch on a 1-D
 * texture over the packed image (pixel i's byte c at 3i + c). */
struct TextureLoader {
    cudaTextureObject_t tex;      /* 32-bit words of the packed image */
    __device__ __forceinline__ uint3 operator()(unsigned q) const
    {
        int w = 3 * (int)q;
        return make_uint3(tex1Dfetch<unsigned>(tex, w), tex1Dfetch<unsigned>(tex, w + 1),
                          tex1Dfetch<unsigned>(tex, w + 2));
    }
};

static __global__ void __launch_bounds__(BLOCK_THREADS)
    km_pass(TextureLoader load, unsigned quads, unsigned long long n, uint32_t *labels, int k, int first_pass,
            int converge, unsigned long long *sums, int32_t *centres, float4 *prepped, km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_block_pass(load, quads, n, labels, k, first_pass, sums, prepped, control);
    if (km_last_block(control))
        km_finish_pass(k, converge, sums, centres, prepped, control);
}

struct rung_state {
    km_grid_state grid;     /* first: cuda-lastblock's */
    cudaTextureObject_t tex;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = km_grid_open(state, sizeof(rung_state), km_pass, BLOCK_THREADS, in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    km_device *d = &s->grid.dev;
    int dev, max_width;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&max_width, cudaDevAttrMaxTexture1DLinearWidth, dev), err, d->who);
    size_t words = 3 * (size_t)d->quads;
    if (words > (size_t)max_width)
        return sb_fail(err, SB_ERR_USAGE, "%s: %ld pixels need a 1-D texture of %zu words; this GPU allows %d",
                       d->who, d->n, words, max_width);

    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d->rgb;
    res.res.linear.desc = cudaCreateChannelDesc<unsigned>();
    res.res.linear.sizeInBytes = words * 4;
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    SB_CUDA_TRY(cudaCreateTextureObject(&s->tex, &res, &desc, NULL), err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    TextureLoader load = { s->tex };
    return km_run_passes(&s->grid.dev, [s, load](int first_pass, sb_error *e) {
        return km_grid_pass(&s->grid, km_pass, BLOCK_THREADS, load, first_pass, false, e);
    }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s && s->tex)
        cudaDestroyTextureObject(s->tex);
    km_device_close(s);
}

SB_CUDA_RUNG("kmeans", "cuda-texture", "cuda-lastblock", "cuda-texture", 0,
             "the pixels through a texture object instead of __ldg (a branch)",
             rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, rung_release)
