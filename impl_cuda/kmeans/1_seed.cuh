/* 1_seed.cuh - what cuda-seed (1_seed.cu) lends cuda-copyonce and
 * cuda-devsums: the prepare of a rung whose update runs on the host. */
#ifndef SEGBENCH_KM_1_SEED_CUH
#define SEGBENCH_KM_1_SEED_CUH

#include "kmeans_device.cuh"

#include <cstdlib>

/* A zeroed State (the rung's: in, params, out, stream, who, n and its
 * buffers) in *state, the frame's size noted, then the rung's seed_open;
 * on failure the rung's seed_release and no state. */
template <class State>
static sb_status seed_prepare_as(void **state, const sb_image *in, const void *params, void *output,
                                 const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs an RGB input, got %d channel(s)", exec->who, in->channels);
    State *s = (State *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", exec->who);
    s->in = in;
    s->params = *(const sb_kmeans_params *)params;
    s->out = (sb_kmeans_out *)output;
    s->stream = (cudaStream_t)exec->stream;
    s->who = exec->who;
    s->n = (long)in->width * in->height;
    sb_status st = seed_open(s, exec, err);
    if (st) {
        seed_release(s);
        return st;
    }
    *state = s;
    return SB_OK;
}

#endif
