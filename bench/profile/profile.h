/* profile.h - `segbench profile ALGO/VARIANT`: one checked run of each
 * chosen variant, stage and image, each alone between cudaProfilerStart()
 * and cudaProfilerStop(), for ncu or nsys (profile.c says how); and
 * --import, ncu's CSV turned into <algo>.profile.csv (ncu_import.h). */
#ifndef SEGBENCH_PROFILE_H
#define SEGBENCH_PROFILE_H

#include "cases/select.h"

#include "segbench/error.h"

enum { PROFILE_MAX_SPECS = 16 };

typedef struct profile_spec {
    const sb_algo *algo;
    char pattern[64];         /* the variant pattern */
    int threads;              /* 0: the default */
} profile_spec;

/* --graph-loops: which of the chosen variants run (SB_GRAPH_LOOP: those
 * that launch from conditional graph nodes). */
enum { PROFILE_GRAPH_LOOPS_ONLY = 1, PROFILE_GRAPH_LOOPS_NONE = 2 };

typedef struct profile_opts {
    profile_spec spec[PROFILE_MAX_SPECS];
    int nspec;
    sb_image_choice images;   /* --set, --image, --rect */
    const char *stages, *regions, *import, *results, *edge;
    int threads, warmup, all_images, no_size_caps, top;
    int graph_loops;          /* 0 (all), PROFILE_GRAPH_LOOPS_ONLY or _NONE */
} profile_opts;

/* "slic/cuda-*", "grabcut/pthread-bk@8": one ALGO/VARIANT argument. */
sb_status profile_parse_spec(const char *arg, profile_spec *ps, sb_error *err);
/* The profiled runs (or the import); SB_ERR_AGREEMENT when one broke its
 * contract. */
sb_status sb_profile_run(const profile_opts *o, sb_error *err);

#endif
