/* 4_graph.cu - mean-shift's region merge as one CUDA graph (variant
 * "cuda-graph" of the merge step).
 *
 * Against cuda-shared: the same kernels, but the host no longer drives
 * them.  cuda-shared launches some 25 kernels one by one and, in every
 * pruning round, copies a 4-byte "did anything merge?" flag back and
 * waits for it, because the number of rounds depends on the image.  Here
 * the whole merge is recorded once, at prepare, as a graph whose rounds
 * sit in a conditional WHILE node (CUDA 12.4+): a one-thread kernel at the
 * end of each round sets the loop's condition from the flag on the
 * device (cudaGraphSetConditional).  A run is one cudaGraphLaunch, and the
 * host waits once, in fetch.  The price: the last round's relabel runs
 * although nothing moves (it leaves every label as it is).  What it
 * bought on the H100 (r16, run 20261123T053911Z-da92): 1080p 0.263 ->
 * 0.242 ms; the photos, which take more rounds, 1.1-1.6x (fruits 0.248 ->
 * 0.159 ms).
 *
 * Filter, flood and pipeline: cuda-shared's rows are the ones to read;
 * this rung offers only the step whose lesson it is.  Its parent's merge
 * is the host loop of ms_device.cu (ms_merge): the same four steps
 * (ms_device.cuh), with a flag read back every round.
 */
#include "ms_device.cuh"

/* ---- the merge as one CUDA graph ----------------------------------------------------------- *
 *
 * start -> while (loop) { mark; apply in place; ms_continue } -> finish.
 * The loop's condition lives on the device: ms_continue clears it when no
 * region merged or the rounds run out, so the host never waits inside the
 * merge.  The last round's apply finds nothing to move and leaves every
 * label as it is (each region's pointers end at itself). */

__global__ void ms_continue(cudaGraphConditionalHandle loop, const int *merged, int *rounds)
{
    int done = ++*rounds;
    cudaGraphSetConditional(loop, *merged && done < SB_MS_MAX_PRUNE);
}

/* Record what fn() enqueues on d->stream into `graph` (NULL: a new one in
 * *made), ending the capture whatever happens. */
template <class Enqueue>
static sb_status ms_capture(ms_device *d, cudaGraph_t graph, cudaGraph_t *made, const Enqueue &fn, sb_error *err)
{
    cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal;
    if (graph)
        SB_CUDA_TRY(cudaStreamBeginCaptureToGraph(d->stream, graph, nullptr, nullptr, 0, mode), err, d->who);
    else
        SB_CUDA_TRY(cudaStreamBeginCapture(d->stream, mode), err, d->who);
    sb_status st = fn();
    cudaGraph_t out = nullptr;
    cudaError_t e = cudaStreamEndCapture(d->stream, &out);
    if (made)
        *made = out;
    else if (out && out != graph)
        cudaGraphDestroy(out);
    if (st)
        return st;
    SB_CUDA_TRY(e, err, d->who);
    return SB_OK;
}

static sb_status ms_merge_graph_build(ms_device *d, sb_error *err)
{
    const uint32_t *colour = d->step == SB_MS_PIPELINE ? d->filtered : d->colour;
    cudaGraph_t whole = nullptr, start = nullptr, finish = nullptr;
    sb_status st = SB_OK;
    cudaGraphNode_t start_node, loop_node, finish_node;
    cudaGraphConditionalHandle loop;
    cudaGraphNodeParams cond = {};
    cudaError_t e = cudaGraphCreate(&whole, 0);
    if (!e) {
        st = ms_capture(d, nullptr, &start, [&] {
            SB_CUDA_TRY(cudaMemsetAsync(d->flags + 2, 0, sizeof(int), d->stream), err, d->who);   /* rounds */
            return ms_merge_start(d, colour, d->flood, err);
        }, err);
    }
    if (!e && !st)
        e = cudaGraphAddChildGraphNode(&start_node, whole, nullptr, 0, start);
    if (!e && !st)
        e = cudaGraphConditionalHandleCreate(&loop, whole, d->p.min_area > 1, cudaGraphCondAssignDefault);
    if (!e && !st) {
        cond.type = cudaGraphNodeTypeConditional;
        cond.conditional.handle = loop;
        cond.conditional.type = cudaGraphCondTypeWhile;
        cond.conditional.size = 1;
        e = cudaGraphAddNode(&loop_node, whole, &start_node, nullptr, 1, &cond);
    }
    if (!e && !st)
        st = ms_capture(d, cond.conditional.phGraph_out[0], nullptr, [&] {
            sb_status s = ms_prune_mark(d, colour, d->comp, err);
            if (!s)
                s = ms_prune_apply(d, d->comp, err);
            if (s)
                return s;
            ms_continue<<<1, 1, 0, d->stream>>>(loop, d->flags + 1, d->flags + 2);
            SB_CUDA_LAUNCHED(err, d->who);
            return SB_OK;
        }, err);
    if (!e && !st)
        st = ms_capture(d, nullptr, &finish, [&] { return ms_merge_finish(d, d->comp, d->labels, err); }, err);
    if (!e && !st)
        e = cudaGraphAddChildGraphNode(&finish_node, whole, &loop_node, 1, finish);
    if (!e && !st)
        e = cudaGraphInstantiate(&d->merge_graph, whole, 0);
    if (start)
        cudaGraphDestroy(start);
    if (finish)
        cudaGraphDestroy(finish);
    if (whole)
        cudaGraphDestroy(whole);
    if (e && !st)
        st = sb_cuda_fail(err, e, d->who, "building the merge graph");
    return st;
}


static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(ms_device), SB_MS_MERGE, CCL_TILED, in, params, output, exec, err);
    if (st)
        return st;
    return ms_merge_graph_build((ms_device *)*state, err);
}

static sb_status rung_run(void *state, sb_error *err) { return ms_segment((ms_device *)state, err); }

SB_VARIANT("meanshift-merge", "cuda-graph", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-shared's merge recorded as one CUDA graph: the pruning rounds in a device-side WHILE loop",
           rung_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, ms_device_close)
SB_RUNG("meanshift-merge", "cuda-graph", "cuda-shared",
        "the merge recorded as one CUDA graph: pruning rounds in a device-side WHILE loop, no host wait")
