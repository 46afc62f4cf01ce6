/* warm_chain.h - a video's warm start taken on the device.
 *
 * A warm frame begins from an earlier frame's result (algo.h: warm_from,
 * warm_attach).  The harness hands that start to a variant as a host
 * record, read at upload: so with K frames in flight a frame can begin
 * only from the frame K before it, whose result is back on the host.  A
 * variant that keeps its result on the device can do better when the
 * frames' runs take turns (stream --runs in-turn): each run waits for the
 * run of the frame just before it, and can take its start straight from
 * that run's device memory -- the copy ordered on the GPU by the same
 * wait, with no trip through the host.
 *
 * A chain op does that one copy.  Called on the frame's own host thread
 * after its upload and before its run, once its stream waits for the
 * previous frame's run (`before`: that run's instance state, of the same
 * variant and parameters; it may be `state` itself, one frame in flight):
 * it enqueues on its own stream whatever makes the coming run begin from
 * `before`'s result exactly as it would from a start record holding it,
 * and nothing that waits for the host.  The harness then gives the
 * upload no start of its own (a cold record), so a chain that does not
 * take the start fails the frame's exact check.
 *
 * A ladder whose rungs share one device state registers its op for each
 * of them in a file of its own (impl_cuda/kmeans/km_chain.cu), which no
 * rung includes: a rung's code identity (bench/base/code_id.h) is its
 * kernels', and a stream's way of starting it is not one of them.
 */
#ifndef SEGBENCH_WARM_CHAIN_H
#define SEGBENCH_WARM_CHAIN_H

#include "segbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef sb_status (*sb_warm_chain)(void *state, const void *before, sb_error *err);

/* Called by SB_WARM_CHAIN's constructor (bench/variants/registry.c). */
void sb_warm_chain_register(const char *algo, const char *name, sb_warm_chain chain);

/* SB_WARM_CHAIN("kmeans", "cuda-lastblock", km_chain): the variant's chain
 * op, handed to the registry when the program starts. */
#define SB_WARM_CHAIN(algo, name, chain) SB_WARM_CHAIN_AT_(__COUNTER__, algo, name, chain)
#define SB_WARM_CHAIN_CAT_(a, b) a##b
#define SB_WARM_CHAIN_CAT(a, b) SB_WARM_CHAIN_CAT_(a, b)
#define SB_WARM_CHAIN_AT_(id, algo, name, chain)                                                        \
    __attribute__((constructor)) static void SB_WARM_CHAIN_CAT(sb_warm_chain_, id)(void)              \
    {                                                                                                 \
        sb_warm_chain_register(algo, name, chain);                                                    \
    }

#ifdef __cplusplus
}
#endif
#endif
