/* registry.c - the tables behind registry.h.  Variants come from
 * variants.def; algorithms are listed here. */
#include "registry.h"

#include "device_status.h"

#include <stdio.h>
#include <string.h>

#ifndef SB_HAVE_OPENMP
#define SB_HAVE_OPENMP 0
#endif
#ifndef SB_HAVE_CUDA
#define SB_HAVE_CUDA 0
#endif
#ifndef SB_HAVE_NPP
#define SB_HAVE_NPP 0
#endif

/* Declare every ops record, built or not (an unused extern costs nothing). */
#define SB_VARIANT(algo, name, backend, req, flags, stages, ops, summary) extern const sb_variant_ops ops;
#include "variants.def"
#undef SB_VARIANT

/* A requirement the build lacks turns the ops pointer into NULL. */
#define SB_OPS_NONE(ops) &ops
#if SB_HAVE_OPENMP
#define SB_OPS_OPENMP(ops) &ops
#else
#define SB_OPS_OPENMP(ops) NULL
#endif
#if SB_HAVE_CUDA
#define SB_OPS_CUDA(ops) &ops
#else
#define SB_OPS_CUDA(ops) NULL
#endif
#if SB_HAVE_NPP
#define SB_OPS_NPP(ops) &ops
#else
#define SB_OPS_NPP(ops) NULL
#endif

#define ALL_STAGES 0xffffu
#define SB_VARIANT(algo, name, backend, req, flags, stages, ops, summary) \
    { #algo, name, backend, #req, flags, stages, SB_OPS_##req(ops), summary },
static const sb_variant registry_variants[] = {
#include "variants.def"
};
#undef SB_VARIANT

static const sb_algo *const registry_algos[] = {
    &sb_algo_integral,
    &sb_algo_kmeans,
    &sb_algo_slic,
    &sb_algo_meanshift_filter,
    &sb_algo_meanshift_flood,
    &sb_algo_meanshift_merge,
    &sb_algo_meanshift,
    &sb_algo_grabcut_kmeans,
    &sb_algo_grabcut_gmm,
    &sb_algo_grabcut_graph,
    &sb_algo_grabcut_maxflow,
    &sb_algo_grabcut,
};

int sb_algo_count(void) { return (int)(sizeof registry_algos / sizeof registry_algos[0]); }
const sb_algo *sb_algo_at(int i) { return registry_algos[i]; }

const sb_algo *sb_algo_find(const char *name)
{
    for (int i = 0; i < sb_algo_count(); i++)
        if (strcmp(registry_algos[i]->name, name) == 0)
            return registry_algos[i];
    return NULL;
}

int sb_variant_count(void) { return (int)(sizeof registry_variants / sizeof registry_variants[0]); }
const sb_variant *sb_variant_at(int i) { return &registry_variants[i]; }

const sb_variant *sb_variant_find(const char *algo, const char *name)
{
    for (int i = 0; i < sb_variant_count(); i++)
        if (strcmp(registry_variants[i].algo, algo) == 0 && strcmp(registry_variants[i].name, name) == 0)
            return &registry_variants[i];
    return NULL;
}

const sb_variant *sb_reference_variant(const sb_algo *algo)
{
    for (int i = 0; i < sb_variant_count(); i++)
        if (strcmp(registry_variants[i].algo, algo->name) == 0 &&
            strcmp(registry_variants[i].backend, "cpu") == 0)
            return &registry_variants[i];
    return NULL;
}

int sb_stage_find(const sb_algo *algo, const char *stage)
{
    for (int i = 0; i < algo->stage_count; i++)
        if (strcmp(algo->stages[i], stage) == 0)
            return i;
    return -1;
}

sb_availability sb_variant_availability(const sb_variant *v, char *why, size_t why_size)
{
    if (!v->ops) {
        const char *need = strcmp(v->needs, "CUDA") == 0     ? "nvcc was not found at build time"
                           : strcmp(v->needs, "NPP") == 0    ? "NPP was not found at build time"
                           : strcmp(v->needs, "OPENMP") == 0 ? "the compiler has no OpenMP"
                                                                : "not compiled in";
        snprintf(why, why_size, "not built: %s", need);
        return SB_NOT_BUILT;
    }
    if ((v->flags & SB_DEVICE) && !sb_device_usable(why, why_size))
        return SB_SKIPPED;
    snprintf(why, why_size, "available");
    return SB_AVAILABLE;
}
