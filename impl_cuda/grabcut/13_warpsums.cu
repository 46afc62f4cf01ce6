/* 13_warpsums.cu - GrabCut with its k-means and GMM sums gathered a warp
 * at a time (variant "cuda-warpsums" of the pipeline: the steps' own
 * sums, grabcut-models/3_warpsums.cu's gc_warp_sums, in the pipeline), and of
 * grabcut-maxflow.  In grabcut-maxflow it is
 * A branch of cuda-longer that changes nothing: a single cut runs no
 * k-means or GMM sums, so it is cuda-longer's cut, carried so that the
 * branches after it (cuda-keep, cuda-bfs32) show one idea each in both
 * ladders.
 *
 * Grows from cuda-longer, whose cut it keeps.  The idea: aggregate in
 * the warp before touching shared memory.  Once the rungs before had
 * made the cut faster, the per-pixel steps were a fifth to two fifths of
 * the pipeline (at 1920x1080 k-means alone 2.4 ms of cuda-longer's 20.6),
 * and their time is not their bytes: block_kmeans_pass has
 * every thread add 4 values, block_learn_sums 10, each a 64-bit atomic on the
 * block's shared totals, and a block's 256 pixels fall on a handful of the 10
 * (side, component) totals, so the atomics on one address queue up.
 * Neighbouring pixels mostly share their component: here each warp takes
 * its lanes one distinct component at a time (the lowest waiting lane's,
 * __shfl_sync; the lanes that share it, __ballot_sync), sums each value
 * over those lanes (sb_warp_sum, one instruction from sm_80: a pixel's
 * moments are below 2^16, so 32 of them fit in 32 bits), and the lowest
 * of them adds the group's totals to shared memory: one atomic per
 * distinct component and value a warp, instead of one per pixel.  The
 * changed-label count is a ballot.  The sums are integers, so the totals,
 * centres and mixtures are equal to the bit.
 *
 */
#include "../grabcut-models/3_warpsums.cuh"
#include "5_graph.cuh"
#include "12_longer.cuh"

GC_GRAPH_CUT(graph_cut, gc_longer_kernels)

GC_CUDA_OPS(maxflow_warpsums, GC_MAXFLOW, graph_cut, gc_warp_sums)
GC_CUDA_OPS(pipeline_warpsums, GC_PIPELINE, graph_cut, gc_warp_sums)

SB_VARIANT("grabcut", "cuda-warpsums", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP | SB_LADDER_TOP, ALL_STAGES,
           "cuda-longer with the k-means and GMM sums gathered a warp at a time",
           pipeline_warpsums_prepare, pipeline_warpsums_upload, pipeline_warpsums_run, pipeline_warpsums_fetch,
           pipeline_warpsums_release)
SB_VARIANT("grabcut-maxflow", "cuda-warpsums", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-longer's cut, carrying the pipeline's warp sums (a single cut runs none)",
           maxflow_warpsums_prepare, maxflow_warpsums_upload, maxflow_warpsums_run, maxflow_warpsums_fetch,
           maxflow_warpsums_release)
SB_RUNG("grabcut-maxflow", "cuda-warpsums", "cuda-longer",
        "the pipeline's warp sums carried along: a single cut runs no k-means or GMM step (a step for cuda-keep)")
SB_RUNG("grabcut", "cuda-warpsums", "cuda-longer", "the k-means and GMM sums gathered a warp at a time: one shared atomic per distinct component")
