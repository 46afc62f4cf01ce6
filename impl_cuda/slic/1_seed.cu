/* 1_seed.cu - SLIC with the source's kernel structure, its three defects
 * fixed (cuda-seed, the root). */
#include "slic_device.cuh"

enum { BLOCK_DIM = 16, WINDOW_THREADS = BLOCK_DIM * BLOCK_DIM };

struct rung_state {
    slic_device dev;            /* first: the shared upload and fetch read it */
    int blocks_per_side;        /* ceil(3S / 16) */
    unsigned *partial;          /* centres x blocks_per_side^2 x 6 */
};

static __global__ void seed_assign(sb_slic_geometry g, const ushort4 *colour, const sb_slic_centre *centres,
                            int32_t *labels)
{
    int x = blockIdx.x * BLOCK_DIM + threadIdx.x, y = blockIdx.y * BLOCK_DIM + threadIdx.y;
    if (x >= g.width || y >= g.height)
        return;
    size_t i = (size_t)y * g.width + x;
    GlobalCentres at = { reinterpret_cast<const int4 *>(centres), g.grid_w };
    labels[i] = slic_label(at, g, x, y, colour[i]);
}

/* Block (c, bx, by): the pixels of tile (bx, by) of centre c's window that
 * carry label c, summed in shared memory. */
template <bool SourceRace>
static __global__ void seed_window_sums(sb_slic_geometry g, const ushort4 *colour, const int32_t *labels, int per_side,
                                 unsigned *partial)
{
    __shared__ unsigned s[6][WINDOW_THREADS];
    int c = blockIdx.x, tid = threadIdx.y * BLOCK_DIM + threadIdx.x;
    int wx0 = (c % g.grid_w - 1) * g.S, wy0 = (c / g.grid_w - 1) * g.S;
    int dx = blockIdx.y * BLOCK_DIM + threadIdx.x, dy = blockIdx.z * BLOCK_DIM + threadIdx.y;
    int x = wx0 + dx, y = wy0 + dy;
    unsigned v[6] = { 0, 0, 0, 0, 0, 0 };
    if (dx < 3 * g.S && dy < 3 * g.S && x >= 0 && y >= 0 && x < g.width && y < g.height) {
        size_t i = (size_t)y * g.width + x;
        if (labels[i] == c)
            slic_sum_values(v, x, y, colour[i]);
    }
    for (int k = 0; k < 6; k++)
        s[k][tid] = v[k];
    __syncthreads();

    if (!SourceRace) {
        for (int half = WINDOW_THREADS / 2; half > 0; half /= 2) {
            if (tid < half)
                for (int k = 0; k < 6; k++)
                    s[k][tid] += s[k][tid + half];
            __syncthreads();
        }
    } else {
        for (int half = WINDOW_THREADS / 2; half > 32; half /= 2) {
            if (tid < half)
                for (int k = 0; k < 6; k++)
                    s[k][tid] += s[k][tid + half];
            __syncthreads();
        }
        if (tid < 32)             /* the source's unsynchronised last warp: a race */
            for (int k = 0; k < 6; k++) {
                s[k][tid] += s[k][tid + 32];
                s[k][tid] += s[k][tid + 16];
                s[k][tid] += s[k][tid + 8];
                s[k][tid] += s[k][tid + 4];
                s[k][tid] += s[k][tid + 2];
                s[k][tid] += s[k][tid + 1];
            }
        __syncthreads();
    }
    if (tid < 6) {
        size_t block = (size_t)c * per_side * per_side + (size_t)blockIdx.z * per_side + blockIdx.y;
        partial[6 * block + tid] = s[tid][0];
    }
}

/* Each centre: its blocks' partials added, then slic.h's update. */
static __global__ void seed_finish(int count, int blocks, const unsigned *partial, sb_slic_centre *centres)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= count)
        return;
    uint64_t total[6] = { 0, 0, 0, 0, 0, 0 };
    for (int b = 0; b < blocks; b++)
        for (int k = 0; k < 6; k++)
            total[k] += partial[6 * ((size_t)c * blocks + b) + k];
    sb_slic_centre centre = centres[c];
    sb_slic_update_centre(&centre, total);
    centres[c] = centre;
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = slic_device_open(state, sizeof(rung_state), in, params, output, exec, err);
    if (st)
        return st;
    rung_state *s = (rung_state *)*state;
    slic_device *d = &s->dev;
    s->blocks_per_side = (3 * d->geo.S + BLOCK_DIM - 1) / BLOCK_DIM;
    if (s->blocks_per_side > 65535)
        return sb_fail(err, SB_ERR_USAGE, "%s: superpixels of side %d need more window blocks than a grid has",
                       d->who, d->geo.S);
    size_t blocks = (size_t)d->geo.centres * s->blocks_per_side * s->blocks_per_side;
    SB_CUDA_TRY(cudaMalloc(&s->partial, blocks * 6 * sizeof(unsigned)), err, d->who);
    return SB_OK;
}

template <bool SourceRace>
static sb_status rung_iterate(rung_state *s, sb_error *err)
{
    slic_device *d = &s->dev;
    const sb_slic_geometry &g = d->geo;
    dim3 tile(BLOCK_DIM, BLOCK_DIM);
    dim3 image(sb_div_up(g.width, BLOCK_DIM), sb_div_up(g.height, BLOCK_DIM));
    seed_assign<<<image, tile, 0, d->stream>>>(g, d->colour, d->centres, d->labels);
    dim3 windows(g.centres, s->blocks_per_side, s->blocks_per_side);
    seed_window_sums<SourceRace><<<windows, tile, 0, d->stream>>>(g, d->colour, d->labels, s->blocks_per_side,
                                                                  s->partial);
    int per_centre = s->blocks_per_side * s->blocks_per_side;
    seed_finish<<<sb_div_up(g.centres, 256), 256, 0, d->stream>>>(g.centres, per_centre, s->partial, d->centres);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

template <bool SourceRace>
static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    return slic_run(&s->dev, [s](sb_error *e) { return rung_iterate<SourceRace>(s, e); }, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        cudaFree(s->partial);
    slic_device_close(s);
}

SB_CUDA_RUNG("slic", "cuda-seed", NULL, "cuda-global", 0,
             "the root: the source's kernels, a window reduction per centre (its 3 defects fixed)",
             rung_prepare, slic_cuda_upload, rung_run<false>, slic_cuda_fetch, rung_release)
/* Not registered: the source's racy reduction, for tests/test_gpu.c only. */
extern "C" const sb_variant_ops sb_slic_cuda_seed_race_ops = {
    rung_prepare, slic_cuda_upload, rung_run<true>, slic_cuda_fetch, rung_release
};
