/* 2_copyonce.cu - cuda-copyonce.  Grows from cuda-seed.  The idea: the pixels
 * do not change between passes, so they cross the bus once, in upload. */
#include "2_copyonce.cuh"

static sb_status copyonce_run(void *state, sb_error *err)
{
    return seed_run_with(state, seed_labels_pass, err);
}

SB_CUDA_RUNG("kmeans", "cuda-copyonce", "cuda-seed", "cuda-global", SB_ONE_AT_A_TIME | SB_HOST_BOUND,
             "the image copied to the device once, in upload: a pass moves the centres up and the labels down",
             seed_prepare, copyonce_upload, copyonce_run, seed_fetch_nothing, seed_release)
