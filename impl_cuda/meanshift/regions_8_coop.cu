/* regions_8_coop.cu - cuda-coop of meanshift-merge and the pipeline.  Grows
 * from cuda-rag.  The idea: the pruning rounds in one cooperative kernel,
 * grid barriers where kernel boundaries stood. */
#include "regions_5_blocks.cuh"
#include "regions_7_rag.cuh"
#include "regions_8_coop.cuh"
#include "filter_1_global.cuh"

/* The rounds, each phase over the list or the edges, a grid-wide barrier
 * where cuda-rag ended a kernel.  merged[round % 2] is this round's flag:
 * the other is cleared for the next round while nobody reads it. */
static __global__ void __launch_bounds__(LIST_THREADS)
    rounds(const unsigned *counts, const int32_t *regions, const int2 *edges, int32_t *cur, const int32_t *count,
           const unsigned long long *sum, int32_t *round_count, unsigned long long *round_sum, uint32_t *mean,
           unsigned long long *best, int32_t *end, int32_t *first, int *merged, int min_area)
{
    cg::grid_group grid = cg::this_grid();
    if (min_area <= 1)
        return;
    for (int round = 0; round < SB_MS_MAX_PRUNE; round++) {
        int *flag = &merged[round % 2];
        rag_means(counts, regions, cur, round_count, round_sum, mean, best);
        if (grid.thread_rank() == 0)
            merged[(round + 1) % 2] = 0;
        grid.sync();
        rag_best(counts, edges, cur, round_count, mean, best, min_area);
        grid.sync();
        rag_end(counts, regions, cur, best, end, first, round_count, round_sum, flag);
        grid.sync();
        if (!*(volatile int *)flag)
            break;
        rag_first(counts, regions, cur, end, first);
        grid.sync();
        rag_relabel(counts, regions, end, first, cur, count, sum, round_count, round_sum);
        grid.sync();
    }
}

sb_status coop_rounds(rag_state *s, sb_error *err)
{
    ms_device *d = &s->dev;
    coop_launch l;
    coop_launch_init(&l, s);
    SB_CUDA_TRY(cudaLaunchKernelEx(&l.cfg, rounds, (const unsigned *)s->counts, (const int32_t *)s->regions,
                                   (const int2 *)s->edges, d->comp, (const int32_t *)d->count,
                                   (const unsigned long long *)d->sum, s->round_count, s->round_sum, d->mean,
                                   d->best, d->end, d->first, d->flags + 1, d->p.min_area),
                err, d->who);
    return SB_OK;
}

sb_status coop_grid(rag_state *s, const void *rounds, sb_error *err)
{
    ms_device *d = &s->dev;
    int dev, sms, per_sm;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err, d->who);
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, LIST_THREADS, 0), err, d->who);
    if (per_sm < 1)
        return sb_fail(err, SB_ERR_DEVICE, "%s: the rounds kernel cannot run on this GPU (no block fits an SM)",
                       d->who);
    s->resident_blocks = sms;
    return SB_OK;
}

sb_status coop_merge_prepare(rag_state *s, sb_error *err)
{
    sb_status st = coop_grid(s, (const void *)rounds, err);
    if (st)
        return st;
    return rag_record(s, [&] {
        sb_status t = rag_start(s, err);
        if (!t)
            t = coop_rounds(s, err);
        return t ? t : rag_finish(s, err);
    }, err);
}

sb_status coop_open(int step, void **state, const ms_regions *regions, const sb_image *in, const void *params,
                    void *output, const sb_exec *exec, sb_error *err)
{
    sb_status st = rag_open(step, state, sizeof(rag_state), regions, in, params, output, exec, err);
    if (st || step == SB_MS_FLOOD)      /* the flood has no merge */
        return st;
    return coop_merge_prepare((rag_state *)*state, err);
}

/* ---- the rung -------------------------------------------------------------------------- */

/* The merge is this file's own, so no shared step asks for region sums;
 * the components are cuda-blocks'. */
static const ms_regions rung_regions = { ms_blocks_components, nullptr, nullptr, nullptr };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return coop_open(step, state, &rung_regions, in, params, output, exec, err);
}

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-merge", "cuda-coop", "cuda-rag", "cuda-shared", SB_LADDER_TOP,
             "the pruning rounds in one cooperative kernel: grid barriers instead of kernel boundaries and a graph loop",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
SB_CUDA_RUNG("meanshift", "cuda-coop", "cuda-rag", "cuda-shared", 0,
             "the merge's rounds in one cooperative kernel",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, rag_release)
