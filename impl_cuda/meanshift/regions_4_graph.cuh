/* regions_4_graph.cuh - what cuda-graph (regions_4_graph.cu) lends the
 * regions rungs after it: recording the merge as one CUDA graph.
 *   ms_capture      what a function enqueues, recorded into a graph;
 *   ms_while_graph  start -> WHILE (the device says so) { a round } -> finish,
 *                   instantiated at d->merge_graph (cuda-graph's shape,
 *                   kept by cuda-rag around its own kernels);
 *   ms_merge_graph_build  the shared merge's rounds in that shape, kept by
 *                   cuda-blocks and cuda-roots. */
#ifndef SEGBENCH_MS_REGIONS_4_GRAPH_CUH
#define SEGBENCH_MS_REGIONS_4_GRAPH_CUH

#include "ms_device.cuh"

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

/* The merge as one graph: start(), then a WHILE node whose body is
 * round(loop) -- a round ends with a kernel that sets `loop` for the next
 * test; the first is whether pruning runs at all -- then finish(). */
template <class Start, class Round, class Finish>
static sb_status ms_while_graph(ms_device *d, const Start &start_fn, const Round &round_fn, const Finish &finish_fn,
                                sb_error *err)
{
    cudaGraph_t whole = nullptr, start = nullptr, finish = nullptr;
    sb_status st = SB_OK;
    cudaGraphNode_t start_node, loop_node, finish_node;
    cudaGraphConditionalHandle loop;
    cudaGraphNodeParams cond = {};
    cudaError_t e = cudaGraphCreate(&whole, 0);
    if (!e)
        st = ms_capture(d, nullptr, &start, start_fn, err);
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
        st = ms_capture(d, cond.conditional.phGraph_out[0], nullptr, [&] { return round_fn(loop); }, err);
    if (!e && !st)
        st = ms_capture(d, nullptr, &finish, finish_fn, err);
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

/* The shared merge (ms_device.cu) recorded as one graph, its pruning
 * rounds in a WHILE loop, at d->merge_graph. */
sb_status ms_merge_graph_build(ms_device *d, sb_error *err);

#endif
