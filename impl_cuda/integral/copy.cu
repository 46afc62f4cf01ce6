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

enum { COPY_THREADS = 256, COPY_ITEMS = 4 };

/* Each thread widens 4 pixels at a time: one 4-byte load (128 contiguous
 * bytes a warp) and one 16-byte store of sums (512 contiguous bytes a warp),
 * plus two 16-byte stores of squares for "sqsum".  A warp's 128 squares are
 * 1 KB: lane i stores 16-byte pieces i and 32 + i of it (the squares of
 * pixels 2i, 2i + 1 and 64 + 2i, 65 + 2i, fetched from the lanes that
 * loaded them), so each store instruction writes 512 contiguous bytes; a
 * lane storing its own four squares would leave every 32-byte sector half
 * written by each instruction.  COPY_ITEMS independent groups per thread
 * keep several loads in flight. */
static __global__ void widen_copy(const uint8_t *in, uint32_t *sum, uint64_t *sq, size_t groups)
{
    size_t first = (size_t)blockIdx.x * blockDim.x * COPY_ITEMS + threadIdx.x;
    uchar4 p[COPY_ITEMS];
#pragma unroll
    for (int k = 0; k < COPY_ITEMS; k++) {
        size_t g = first + (size_t)k * blockDim.x;
        if (g < groups)
            p[k] = __ldg(reinterpret_cast<const uchar4 *>(in) + g);
    }
#pragma unroll
    for (int k = 0; k < COPY_ITEMS; k++) {
        size_t g = first + (size_t)k * blockDim.x;
        if (g >= groups)
            break;
        reinterpret_cast<uint4 *>(sum)[g] = make_uint4(p[k].x, p[k].y, p[k].z, p[k].w);
        if (sq) {
            int lane = threadIdx.x % 32;
            size_t warp_first = g - lane;             /* the warp's first group; groups are whole warps */
            uint32_t packed = *reinterpret_cast<const uint32_t *>(&p[k]);
#pragma unroll
            for (int half = 0; half < 2; half++) {
                int piece = lane + 32 * half;         /* pixels 2 piece, 2 piece + 1 of the warp's 128 */
                uint32_t from = __shfl_sync(LANES_ALL, packed, piece / 2);
                uint32_t a = (from >> (16 * (piece % 2))) & 0xff, b = (from >> (16 * (piece % 2) + 8)) & 0xff;
                reinterpret_cast<ulonglong2 *>(sq)[2 * warp_first + piece] = make_ulonglong2(SquareOp::of(a), SquareOp::of(b));
            }
        }
    }
}

static sb_status copy_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return integral_device_open(state, sizeof(integral_device), INTEGRAL_SHARED_OUTPUTS, in, params, output,
                                exec, err);
}

/* The padded rows are contiguous (pitch = pw), so the H image rows are one
 * run of pw * H pixels. */
static sb_status copy_run(void *state, sb_error *err)
{
    integral_device *d = (integral_device *)state;
    size_t groups = (size_t)d->pw * d->height / 4;
    unsigned blocks = sb_div_up(groups, (unsigned long long)COPY_THREADS * COPY_ITEMS);
    widen_copy<<<blocks, COPY_THREADS, 0, d->stream>>>(d->in, d->sum, d->sq, groups);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

SB_CUDA_RUNG("integral", "cuda-copy", NULL, "cuda-global", SB_FLOOR,
             "a root outside the ladder: the floor, one read and one write of the bytes",
             copy_prepare, integral_cuda_upload, copy_run, integral_cuda_fetch, integral_device_close)
