/* 12_longer.cu - cuda-longer of the pipeline and grabcut-maxflow.  Grows from
 * cuda-tally.  The idea: now that a round is cheap, a launch runs 16 rounds
 * inside a tile, not 8, and the global relabel comes every 4 sweeps. */
#include "5_graph.cuh"
#include "10_settled.cuh"
#include "11_tally.cuh"
#include "12_longer.cuh"

/* cuda-tally's kernels with 16 rounds a launch and 4 sweeps a relabel
 * (8 and 8 in cuda-tally): the branches after this rung keep them. */
const gc_tile_kernels gc_longer_kernels = { gc_settled_bfs_start, gc_settled_bfs, gc_tally_sweep<16>, nullptr, 4 };

GC_GRAPH_CUT(graph_cut, gc_longer_kernels)

GC_CUDA_OPS(maxflow, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline, GC_PIPELINE, graph_cut, gc_block_sums)

SB_CUDA_RUNG("grabcut-maxflow", "cuda-longer", "cuda-tally", "cuda-shared", SB_GRAPH_LOOP | SB_LADDER_TOP,
             "longer launches: 16 rounds inside a tile before its borders are exchanged",
             maxflow_prepare, maxflow_upload, maxflow_run, maxflow_fetch, maxflow_release)
SB_CUDA_RUNG("grabcut", "cuda-longer", "cuda-tally", "cuda-shared", SB_GRAPH_LOOP,
             "longer launches: 16 rounds inside a tile before its borders are exchanged",
             pipeline_prepare, pipeline_upload, pipeline_run, pipeline_fetch, pipeline_release)
