/* copy.cu - the speed-of-light row for the integral image (variant
 * "cuda-copy", backend cuda-global).
 *
 * Not an integral image: it reads each pixel once and writes it once,
 * widened to the output type (u8 -> u32, and u8 -> u64 of its square for
 * the "sqsum" stage).  Those are exactly the bytes any integral image must
 * move, so no variant can beat this row by much; the distance from it is
 * what a design still leaves on the table.  Its own check is that every
 * output equals its pixel (or the square of it).
 */
#include "integral_device.cuh"

enum { COPY_PX = 16, COPY_THREADS = 128 };

/* Each thread: 16 pixels in one 16-byte load; the u32 copies out in four
 * 16-byte stores and, for "sqsum", the u64 squares in eight more. */
__global__ void widen_copy(const uint8_t *in, uint32_t *sum, uint64_t *sq, int pitch, int height)
{
    int x = (blockIdx.x * blockDim.x + threadIdx.x) * COPY_PX;
    int y = blockIdx.y;
    if (x >= pitch || y >= height)
        return;
    size_t at = (size_t)y * pitch + x;
    uint4 v = __ldg(reinterpret_cast<const uint4 *>(in + at));
    const uint32_t words[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint32_t w = words[k];
        uint32_t p0 = w & 0xff, p1 = (w >> 8) & 0xff, p2 = (w >> 16) & 0xff, p3 = w >> 24;
        *reinterpret_cast<uint4 *>(sum + at + 4 * k) = make_uint4(p0, p1, p2, p3);
        if (sq) {
            ulonglong2 *q = reinterpret_cast<ulonglong2 *>(sq + at + 4 * k);
            q[0] = make_ulonglong2(SquareOp::of(p0), SquareOp::of(p1));
            q[1] = make_ulonglong2(SquareOp::of(p2), SquareOp::of(p3));
        }
    }
}

static sb_status copy_run(integral_device *d, sb_error *err)
{
    dim3 grid(sb_div_up(d->pw / COPY_PX, COPY_THREADS), d->height);
    widen_copy<<<grid, COPY_THREADS, 0, d->stream>>>(d->in, d->sum, d->sq, d->pw, d->height);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static const integral_cuda_hooks copy_hooks = { "integral/cuda-copy", NULL, copy_run, NULL, NULL, 0 };

static sb_status copy_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return integral_cuda_prepare(&copy_hooks, state, in, params, output, exec, err);
}

extern "C" const sb_variant_ops sb_integral_cuda_copy_ops = {
    copy_prepare, integral_cuda_run, integral_cuda_fetch, integral_cuda_release
};
