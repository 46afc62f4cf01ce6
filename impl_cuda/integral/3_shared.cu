/* 3_shared.cu - tiled integral image, pixels read from global memory
 * (variant "cuda-shared").
 *
 * Against cuda-blocked6: tiles instead of whole-table passes.  Each warp
 * scans a 128 x 32 tile with register shuffles, a shared-memory transpose
 * scans the per-tile totals, and every sum is written exactly once, so the
 * traffic falls from ~29 to ~6 bytes a pixel (tiled.cuh explains the
 * algorithm).  Pixels come in as one 4-byte load per lane through the
 * read-only data path (__ldg), 128 contiguous bytes per warp.  What it
 * bought on the H100 (sum, 3840x2160, run 20261123T025827Z-bcdf): 0.421 ->
 * 0.0245 ms, 17x; the copy floor over the same bytes is 0.0138 ms.
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

struct rung_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    tiled_scratch carries;
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, in, params,
                                        output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    return tiled_scratch_init(&s->carries, &s->dev, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    GlobalLoader load = { s->dev.in, s->dev.pw };
    return tiled_run(&s->dev, &s->carries, load, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        tiled_scratch_release(&s->carries);
    integral_device_close(s);
}

SB_VARIANT("integral", "cuda-shared", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "128x32 tiles: totals, carry scan in shared memory, one write per sum",
           rung_prepare, integral_cuda_upload, rung_run, integral_cuda_fetch, rung_release)
