/* 3_shared.cu - tiled integral image, pixels read from global memory
 * (variant "cuda-shared").
 *
 * Against cuda-blocked6: tiles instead of whole-table passes.  Each warp
 * scans a 128 x 32 tile with register shuffles, a shared-memory transpose
 * scans the per-tile totals, and every sum is written exactly once, so the
 * traffic falls from ~29 to ~6 bytes a pixel (tiled.cuh explains the
 * algorithm).  Pixels come in as one 4-byte load per lane through the
 * read-only data path (__ldg), 128 contiguous bytes per warp.
 *
 * Next rung: 4_texture.cu reads the same pixels through a texture object.
 */
#include "tiled.cuh"

struct GlobalLoader {
    const uint8_t *in;
    int pitch;
    __device__ __forceinline__ uchar4 operator()(int x, int y) const
    {
        return __ldg(reinterpret_cast<const uchar4 *>(in + (size_t)y * pitch + x));
    }
};

struct shared_scratch {
    tiled_scratch carries;
};

static sb_status shared_setup(integral_device *d, sb_error *err)
{
    shared_scratch *s = (shared_scratch *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", d->who);
    d->scratch = s;
    return tiled_scratch_init(&s->carries, d, err);
}

static sb_status shared_run(integral_device *d, sb_error *err)
{
    shared_scratch *s = (shared_scratch *)d->scratch;
    GlobalLoader load = { d->in, d->pw };
    return tiled_run(d, &s->carries, load, err);
}

static void shared_teardown(integral_device *d)
{
    shared_scratch *s = (shared_scratch *)d->scratch;
    if (s)
        tiled_scratch_release(&s->carries);
    free(s);
}

static const integral_cuda_hooks shared_hooks = { shared_setup, shared_run,
                                                  shared_teardown, NULL, 0 };

static sb_status shared_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return integral_cuda_prepare(&shared_hooks, state, in, params, output, exec, err);
}

SB_VARIANT("integral", "cuda-shared", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "128x32 tiles: totals, carry scan in shared memory, one write per sum",
           shared_prepare, integral_cuda_upload, integral_cuda_run, integral_cuda_fetch, integral_cuda_release)
