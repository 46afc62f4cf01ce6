/* 1_seed.cu - k-means with the source's scheme, kept faithfully (cuda-seed,
 * the root). */
#include "1_seed.cuh"

/* A pass: the pixels cross the bus again -- the round trip that is this
 * variant's lesson -- then cuda-seed's label pass. */
static sb_status seed_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                           long *changed, sb_error *err)
{
    sb_status st = seed_copy_pixels((seed_state *)ctx, err);
    return st ? st : seed_labels_pass(ctx, centres, first_pass, sums, changed, err);
}

/* A frame's initial centres, on the host; its pixels cross in every pass. */
static sb_status seed_upload(void *state, sb_error *err)
{
    seed_state *s = (seed_state *)state;
    return sb_kmeans_initial(s->in, &s->params, s->initial, err);
}

static sb_status seed_run(void *state, sb_error *err)
{
    return seed_run_with(state, seed_pass, err);
}

SB_CUDA_RUNG("kmeans", "cuda-seed", NULL, "cuda-global", SB_ONE_AT_A_TIME | SB_HOST_BOUND,
             "the root: the source's scheme, centres in __constant__, the update on the host, the image copied every pass",
             seed_prepare, seed_upload, seed_run, seed_fetch_nothing, seed_release)
