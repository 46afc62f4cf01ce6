/* regions_4_graph.cu - cuda-graph of meanshift-merge and the pipeline.  Grows
 * from cuda-blocksums.  The idea: the whole merge as one CUDA graph with a
 * conditional WHILE node, so the host waits once. */
#include "regions_2_tiles.cuh"
#include "regions_3_blocksums.cuh"
#include "regions_4_graph.cuh"
#include "filter_1_global.cuh"

/* ---- the merge as one CUDA graph ----------------------------------------------------------- *
 *
 * start -> while (loop) { mark; apply in place; ms_continue } -> finish.
 * The loop's condition lives on the device: ms_continue clears it when no
 * region merged or the rounds run out, so the host never waits inside the
 * merge.  The last round's apply finds nothing to move and leaves every
 * label as it is (each region's pointers end at itself). */

static __global__ void ms_continue(cudaGraphConditionalHandle loop, const int *merged, int *rounds)
{
    int done = ++*rounds;
    cudaGraphSetConditional(loop, *merged && done < SB_MS_MAX_PRUNE);
}

sb_status ms_merge_graph_build(ms_device *d, sb_error *err)
{
    const uint32_t *colour = d->step == SB_MS_PIPELINE ? d->filtered : d->colour;
    auto start = [&] {
        SB_CUDA_TRY(cudaMemsetAsync(d->flags + 2, 0, sizeof(int), d->stream), err, d->who);   /* rounds */
        return ms_merge_start(d, colour, d->flood, err);
    };
    auto round = [&](cudaGraphConditionalHandle loop) {
        sb_status s = ms_prune_mark(d, colour, d->comp, err);
        if (!s)
            s = ms_prune_apply(d, d->comp, err);
        if (s)
            return s;
        ms_continue<<<1, 1, 0, d->stream>>>(loop, d->flags + 1, d->flags + 2);
        SB_CUDA_LAUNCHED(err, d->who);
        return SB_OK;
    };
    auto finish = [&] { return ms_merge_finish(d, d->comp, d->labels, err); };
    return ms_while_graph(d, start, round, finish, err);
}

/* ---- the rung -------------------------------------------------------------------------- */

static const ms_regions rung_regions = { ms_tiles_components, ms_block_region_sums, nullptr, nullptr };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(ms_device), step, &rung_regions, in, params, output, exec, err);
    if (st)
        return st;
    return ms_merge_graph_build((ms_device *)*state, err);
}

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-merge", "cuda-graph", "cuda-blocksums", "cuda-shared", SB_GRAPH_LOOP,
             "the merge recorded as one CUDA graph: pruning rounds in a device-side WHILE loop, no host wait",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift", "cuda-graph", "cuda-blocksums", "cuda-shared", SB_GRAPH_LOOP,
             "the merge as one CUDA graph: no host wait between its rounds",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
