/* gc_graph.cuh - recording a tiled cut's loop as one CUDA graph with
 * conditional WHILE nodes (CUDA 12.4+), as cuda-graph (5_graph.cu) began
 * and every rung after it keeps: record() captures what a body enqueues
 * into a graph, record_while() puts a WHILE node at a stream's place in
 * its capture and records the loop's body from another stream.
 *
 * A loop nested in another's body is entered many times a launch, but a
 * handle's default value is applied once a launch; so each loop is
 * entered through graph_enter, which sets its condition to 1. */
#ifndef SEGBENCH_GC_GRAPH_CUH
#define SEGBENCH_GC_GRAPH_CUH

#include "gc_device.cuh"

static __global__ void graph_enter(cudaGraphConditionalHandle loop) { cudaGraphSetConditional(loop, 1); }

/* Records what body() enqueues on stream s into graph g, ending the
 * capture whatever happens. */
template <class Body>
static sb_status record(gc_dev *d, cudaStream_t s, cudaGraph_t g, const Body &body, sb_error *err)
{
    SB_CUDA_TRY(cudaStreamBeginCaptureToGraph(s, g, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal), err,
                d->who);
    sb_status st = body();
    cudaGraph_t same = nullptr;
    cudaError_t e = cudaStreamEndCapture(s, &same);
    if (st)
        return st;
    SB_CUDA_TRY(e, err, d->who);
    return SB_OK;
}

/* At s's place in its capture: graph_enter, then a WHILE node; s goes on
 * after the loop, and the loop's body is recorded from `inner`. */
template <class Body>
static sb_status record_while(gc_dev *d, cudaStream_t s, cudaStream_t inner, const Body &body, sb_error *err)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t g;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    cudaGraphConditionalHandle loop;
    SB_CUDA_TRY(cudaStreamGetCaptureInfo(s, &status, nullptr, &g), err, d->who);
    SB_CUDA_TRY(cudaGraphConditionalHandleCreate(&loop, g, 0, 0), err, d->who);
    graph_enter<<<1, 1, 0, s>>>(loop);
    SB_CUDA_LAUNCHED(err, d->who);
    SB_CUDA_TRY(cudaStreamGetCaptureInfo(s, &status, nullptr, &g, &deps, nullptr, &ndeps), err, d->who);
    cudaGraphNodeParams cond = {};
    cond.type = cudaGraphNodeTypeConditional;
    cond.conditional.handle = loop;
    cond.conditional.type = cudaGraphCondTypeWhile;
    cond.conditional.size = 1;
    cudaGraphNode_t node;
    SB_CUDA_TRY(cudaGraphAddNode(&node, g, deps, nullptr, ndeps, &cond), err, d->who);
    SB_CUDA_TRY(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies), err,
                d->who);
    return record(d, inner, cond.conditional.phGraph_out[0], [&] { return body(loop); }, err);
}

#endif
