/* registry.h - the algorithms and variants this build knows, and whether
 * each variant can run here. */
#ifndef SEGBENCH_REGISTRY_H
#define SEGBENCH_REGISTRY_H

#include <stddef.h>
#include <string.h>

#include "variants/algo.h"
#include "segbench/warm_chain.h"

int sb_algo_count(void);
const sb_algo *sb_algo_at(int i);
const sb_algo *sb_algo_find(const char *name);

int sb_variant_count(void);
const sb_variant *sb_variant_at(int i);
/* By name; an old name of a renamed variant finds it too. */
const sb_variant *sb_variant_find(const char *algo, const char *name);
/* (sb_variant_current_name, io/renames.h: the name now of a renamed one.) */
const sb_variant *sb_reference_variant(const sb_algo *algo);
/* The code identity of the variant's source as this program was built
 * from it (base/code_id.h: 16 hex digits); "" when the build has none. */
const char *sb_variant_code_id(const sb_variant *v);

/* The variant's warm-chain op (segbench/warm_chain.h), or NULL: its warm
 * frames take their start from a host record only. */
sb_warm_chain sb_variant_warm_chain(const sb_variant *v);

/* Registrations that matched no row of the table, or a row already
 * taken (each also warned about on stderr); 0 in a sound build. */
int sb_registry_strays(void);

/* The ladders' soundness: SB_RUNG lines naming no variant or a missing
 * parent, CUDA variants with no SB_RUNG, cycles, renames to nothing.  The
 * count, and one line each in why. */
int sb_ladder_problems(char *why, size_t size);

/* A student's copy of a rung (segbench exercise, built from exercises/)
 * registers as SB_STUDENT_PREFIX + the rung's name.  It is graded on its
 * own (segbench grade) and is never a rung of the ladders: bench and check
 * leave it out unless --variant names it (sb_variant_pick, cli/patterns.h),
 * and the report leaves its rows out. */
#define SB_STUDENT_PREFIX "student-"
/* (inline: the results readers, linked without the registry into the fuzz
 * targets, ask it too) */
static inline int sb_is_student_variant(const char *name)
{
    return strncmp(name, SB_STUDENT_PREFIX, sizeof SB_STUDENT_PREFIX - 1) == 0;
}

/* The index of a stage by name, or -1. */
int sb_stage_find(const sb_algo *algo, const char *stage);

typedef enum sb_availability {
    SB_AVAILABLE,
    SB_NOT_BUILT,     /* the build lacked what it requires */
    SB_SKIPPED        /* built, but no GPU here, or one this binary has no code for */
} sb_availability;

/* Whether v can run here; why (one phrase, the same for every variant that
 * cannot run for the same reason) when it cannot. */
sb_availability sb_variant_availability(const sb_variant *v, char *why, size_t why_size);

#endif
