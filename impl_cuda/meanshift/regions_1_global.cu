/* regions_1_global.cu - mean-shift's flood and merge with global memory only
 * (cuda-global of meanshift-flood, -merge and the pipeline, their root). */
#include "regions_1_global.cuh"

#include "segbench/ccl.h"

#include "../regions/union_find.cuh"
#include "../warp.cuh"

/* ---- components: unions in global memory ---------------------------------------------- */

static __global__ void global_init(unsigned n, int32_t *parent)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        parent[i] = (int32_t)i;
}

static __global__ void global_unions(int width, unsigned n, const uint8_t *join, int32_t *parent)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint8_t bits = join[i];
    if (bits & SB_CCL_LEFT)
        rg_union(parent, (int32_t)i, (int32_t)i - 1);
    if (bits & SB_CCL_UP)
        rg_union(parent, (int32_t)i, (int32_t)(i - width));
}

static sb_status rung_components(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err)
{
    MS_LAUNCH(global_init, d->n, d->parent);
    MS_LAUNCH(global_unions, d->width, d->n, join, d->parent);
    SB_CUDA_LAUNCHED(err, d->who);
    return ccl_device_roots(d->n, d->parent, comp, d->stream, d->who, err);
}

/* ---- region sums: a warp's leaders add to global memory --------------------------------- *
 *
 * A large region still draws one atomic a warp on the same four
 * addresses, and those serialise in L2: 148 us at 1080p on the synthetic
 * image (ncu). */

static __global__ void warp_sums(unsigned n, const int32_t *label, const uint32_t *colour, int32_t *count,
                                 unsigned long long *sum)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t r = label[i];
    uint32_t c = colour[i];
    unsigned peers = __match_any_sync(__activemask(), r);
    unsigned L = sb_warp_sum(peers, c & 255u), u = sb_warp_sum(peers, c >> 8 & 255u),
             v = sb_warp_sum(peers, c >> 16 & 255u);
    if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1))
        ms_add_global(count, sum, r, __popc(peers), L, u, v);
}

sb_status ms_warp_region_sums(ms_device *d, const int32_t *label, const uint32_t *colour, sb_error *err)
{
    MS_LAUNCH(warp_sums, d->n, label, colour, d->count, d->sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the merge, driven by the host ------------------------------------------------------- *
 *
 * start, then pruning rounds while a region merged, then finish.  How
 * many rounds an image takes is known only on the device, so every round
 * copies a 4-byte "did anything merge?" flag back and waits for it. */

sb_status ms_host_merge(ms_device *d, const uint32_t *colour, const int32_t *flood, int32_t *labels,
                        sb_error *err)
{
    sb_status st = ms_merge_start(d, colour, flood, err);
    for (int round = 0; !st && round < SB_MS_MAX_PRUNE && d->p.min_area > 1; round++) {
        if ((st = ms_prune_mark(d, colour, d->comp, err)))
            break;
        SB_CUDA_TRY(cudaMemcpyAsync(d->host_flags + 1, d->flags + 1, sizeof(int), cudaMemcpyDeviceToHost,
                                    d->stream), err, d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        if (!d->host_flags[1])
            break;
        st = ms_prune_apply(d, d->comp, err);
    }
    return st ? st : ms_merge_finish(d, d->comp, labels, err);
}

/* ---- the rung -------------------------------------------------------------------------- */

static const ms_regions rung_regions = { rung_components, ms_warp_region_sums, nullptr, ms_host_merge };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return ms_device_open(state, sizeof(ms_device), step, &rung_regions, in, params, output, exec, err);
}

MS_STEP_PREPARE(flood_prepare, rung_prepare, SB_MS_FLOOD)
MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-flood", "cuda-global", NULL, "cuda-global", 0,
             "the root: join bits, then union-find by atomicMin in global memory",
             flood_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift-merge", "cuda-global", NULL, "cuda-global", 0,
             "the root: warp-aggregated region sums and fusion union-find in global memory, pruning rounds driven by the host",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift", "cuda-global", NULL, "cuda-global", 0,
             "the root: the cuda-global filter, flood and merge in turn, data resident",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
