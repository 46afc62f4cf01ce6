/* 2_copyonce.cuh - what cuda-copyonce (2_copyonce.cu) lends cuda-devsums:
 * the upload that copies a frame's pixels once. */
#ifndef SEGBENCH_KM_2_COPYONCE_CUH
#define SEGBENCH_KM_2_COPYONCE_CUH

#include "1_seed.cuh"

/* A frame: its initial centres, on the host, and its pixels onto the
 * device, once for every pass of every run. */
static sb_status copyonce_upload(void *state, sb_error *err)
{
    seed_state *s = (seed_state *)state;
    sb_status st = seed_copy_pixels(s, err);
    return st ? st : sb_kmeans_initial(s->in, &s->params, s->initial, err);
}

#endif
