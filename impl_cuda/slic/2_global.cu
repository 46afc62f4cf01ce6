/* 2_global.cu - cuda-global.  Grows from cuda-seed.  The idea: the update
 * fused into the assignment, global memory only: the window reduction is
 * gone. */
#include "slic_device.cuh"

enum { BLOCK_DIM = 16 };

static __global__ void global_assign_accumulate(sb_slic_geometry g, const ushort4 *colour, const sb_slic_centre *centres,
                                         int32_t *labels, unsigned long long *sums)
{
    int x = blockIdx.x * BLOCK_DIM + threadIdx.x, y = blockIdx.y * BLOCK_DIM + threadIdx.y;
    if (x >= g.width || y >= g.height)
        return;
    size_t i = (size_t)y * g.width + x;
    ushort4 c = colour[i];
    GlobalCentres at = { reinterpret_cast<const int4 *>(centres), g.grid_w };
    int32_t label = slic_label(at, g, x, y, c);
    labels[i] = label;
    unsigned long long *s = sums + 6 * (size_t)label;
    atomicAdd(&s[0], (unsigned long long)x);
    atomicAdd(&s[1], (unsigned long long)y);
    atomicAdd(&s[2], (unsigned long long)c.x);
    atomicAdd(&s[3], (unsigned long long)c.y);
    atomicAdd(&s[4], (unsigned long long)c.z);
    atomicAdd(&s[5], 1ull);
}

static sb_status rung_iterate(slic_device *d, sb_error *err)
{
    const sb_slic_geometry &g = d->geo;
    dim3 tile(BLOCK_DIM, BLOCK_DIM);
    dim3 image(sb_div_up(g.width, BLOCK_DIM), sb_div_up(g.height, BLOCK_DIM));
    global_assign_accumulate<<<image, tile, 0, d->stream>>>(g, d->colour, d->centres, d->labels, d->sums);
    SB_CUDA_LAUNCHED(err, d->who);
    return slic_enqueue_update(d, err);
}

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return slic_device_open(state, sizeof(slic_device), in, params, output, exec, err);
}

static sb_status rung_run(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    return slic_run(d, [d](sb_error *e) { return rung_iterate(d, e); }, err);
}

SB_CUDA_RUNG("slic", "cuda-global", "cuda-seed", "cuda-global", 0,
             "assignment fused with the sums: a thread a pixel adds its values by 6 global atomics",
             rung_prepare, slic_cuda_upload, rung_run, slic_cuda_fetch, slic_device_close)
