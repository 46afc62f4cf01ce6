/* 12_longer.cu - GrabCut's tiled cut with longer launches (variant
 * "cuda-longer" of grabcut-maxflow and the pipeline).
 *
 * Grows from cuda-tally.  The idea: more rounds inside a tile before its
 * borders are exchanged, now that a round is cheap.  A launch pays a
 * fixed price -- starting, loading the tile and its halo, writing back,
 * settling the halo -- and then its rounds.  When a round took
 * a dozen trips to shared memory and one to L2 (cuda-graph), 8 rounds were
 * the best trade: longer launches made every colour wait for the slowest
 * tile (NOTES.md, "Tuned and not kept").  Since cuda-ilp, cuda-halo and
 * cuda-inplace a round is a few shared loads and two barriers, and the
 * fixed price is most of a launch.  Here a launch runs up to 16 rounds,
 * so excess crosses a 16-pixel tile in one launch, and the global relabel
 * comes every 4 sweeps, so the rounds between two relabels stay 64 as
 * before.  Half the launches for the same rounds; the sweeps and
 * relabels differ from cuda-tally's, the flow and the cut do not.
 *
 */
#include "5_graph.cuh"
#include "10_settled.cuh"
#include "11_tally.cuh"
#include "12_longer.cuh"

/* cuda-tally's kernels with 16 rounds a launch and 4 sweeps a relabel
 * (8 and 8 in cuda-tally): the branches after this rung keep them. */
const gc_tile_kernels gc_longer_kernels = { gc_settled_bfs_start, gc_settled_bfs, gc_tally_sweep<16>, nullptr, 4 };

GC_GRAPH_CUT(graph_cut, gc_longer_kernels)

GC_CUDA_OPS(maxflow_longer, GC_MAXFLOW, graph_cut, gc_block_sums)
GC_CUDA_OPS(pipeline_longer, GC_PIPELINE, graph_cut, gc_block_sums)

SB_VARIANT("grabcut-maxflow", "cuda-longer", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP | SB_LADDER_TOP, ALL_STAGES,
           "cuda-tally's cut with 16 rounds a launch and a global relabel every 4 sweeps",
           maxflow_longer_prepare, maxflow_longer_upload, maxflow_longer_run, maxflow_longer_fetch, maxflow_longer_release)
SB_VARIANT("grabcut", "cuda-longer", "cuda-shared", CUDA, SB_DEVICE | SB_GRAPH_LOOP, ALL_STAGES,
           "cuda-tally with 16 rounds a launch and a global relabel every 4 sweeps",
           pipeline_longer_prepare, pipeline_longer_upload, pipeline_longer_run, pipeline_longer_fetch, pipeline_longer_release)
SB_RUNG("grabcut-maxflow", "cuda-longer", "cuda-tally", "longer launches: 16 rounds inside a tile before its borders are exchanged")
SB_RUNG("grabcut", "cuda-longer", "cuda-tally", "longer launches: 16 rounds inside a tile before its borders are exchanged")
