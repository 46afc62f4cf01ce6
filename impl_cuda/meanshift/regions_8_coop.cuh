/* regions_8_coop.cuh - what cuda-coop (regions_8_coop.cu) lends the merges
 * after it: the pruning rounds in one cooperative kernel.
 *   coop_launch   a cooperative launch's configuration (every block
 *                 resident, so grid.sync is allowed);
 *   coop_grid     the rounds' grid, one block an SM;
 *   rag_record    the merge recorded as one plain graph, no WHILE node;
 *   coop_rounds, coop_merge_prepare, coop_open  cuda-coop's own rounds
 *                 kernel launched, its whole merge prepared, a rung with
 *                 that merge opened (kept by cuda-fused, cuda-seams and
 *                 cuda-warproots).
 * cuda-ranks and cuda-active bring rounds kernels of their own and use
 * the rest. */
#ifndef SEGBENCH_MS_REGIONS_8_COOP_CUH
#define SEGBENCH_MS_REGIONS_8_COOP_CUH

#include "regions_4_graph.cuh"
#include "regions_7_rag.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

struct coop_launch {
    cudaLaunchAttribute together;
    cudaLaunchConfig_t cfg;
};

/* s->resident_blocks blocks of LIST_THREADS on d's stream, launched
 * together: cudaLaunchKernelEx(&l.cfg, kernel, ...). */
static inline void coop_launch_init(coop_launch *l, const rag_state *s)
{
    *l = coop_launch{};
    l->together.id = cudaLaunchAttributeCooperative;     /* all blocks resident: grid.sync is allowed */
    l->together.val.cooperative = 1;
    l->cfg.stream = s->dev.stream;
    l->cfg.attrs = &l->together;
    l->cfg.numAttrs = 1;
    l->cfg.gridDim = dim3(s->resident_blocks);
    l->cfg.blockDim = dim3(LIST_THREADS);
}

/* s->resident_blocks: one block an SM, once a block of the rounds kernel
 * is known to fit one. */
sb_status coop_grid(rag_state *s, const void *rounds, sb_error *err);

/* Record what merge() enqueues -- start, rounds, finish -- as one graph,
 * instantiated at d->merge_graph. */
template <class Enqueue>
static sb_status rag_record(rag_state *s, const Enqueue &merge, sb_error *err)
{
    ms_device *d = &s->dev;
    cudaGraph_t whole = nullptr;
    sb_status st = ms_capture(d, nullptr, &whole, merge, err);
    cudaError_t e = cudaSuccess;
    if (!st)
        e = cudaGraphInstantiate(&d->merge_graph, whole, 0);
    if (whole)
        cudaGraphDestroy(whole);
    if (e && !st)
        st = sb_cuda_fail(err, e, d->who, "building the merge graph");
    return st;
}

/* Enqueue cuda-coop's rounds: one cooperative kernel. */
sb_status coop_rounds(rag_state *s, sb_error *err);

/* cuda-coop's merge after rag_open: the rounds' grid, then rag_start,
 * coop_rounds and rag_finish recorded as the merge graph. */
sb_status coop_merge_prepare(rag_state *s, sb_error *err);

/* A prepare of a rung whose merge is cuda-coop's: rag_open with a
 * rag_state, then, for a step with a merge, coop_merge_prepare. */
sb_status coop_open(int step, void **state, const ms_regions *regions, const sb_image *in, const void *params,
                    void *output, const sb_exec *exec, sb_error *err);

#endif
