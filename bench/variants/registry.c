/* registry.c - the tables behind registry.h.  Variants come from their
 * own files' SB_VARIANT lines (variant.h); algorithms are listed here. */
#include "variants/registry.h"

#include "machine/device_status.h"
#include "variants/renames.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The table, from every SB_VARIANT(...) and SB_CUDA_RUNG(...) line of the variants' files
 * (gen/variants.inc, scripts/variant_table.sh, whose #line directives make
 * __FILE__ the variant's own file), with no ops yet: a variant
 * whose file was compiled into this program fills them in when it starts
 * (sb_variant_register); one whose file was not stays NULL, "not built". */
#define ALL_STAGES 0xffffu
#undef SB_VARIANT              /* variant.h's registers ops; this one makes a row */
#undef SB_RUNG
#undef SB_CUDA_RUNG
#define SB_RUNG(algo, name, parent, idea)
#define SB_VARIANT(algo, name, backend, needs, flags, stages, summary, prepare, upload, run, fetch, release) \
    { algo, name, backend, #needs, flags, stages, NULL, summary, algo "/" name, __FILE__, NULL, "", NULL },
#define SB_CUDA_RUNG(algo, name, parent, backend, flags, idea, prepare, upload, run, fetch, release) \
    SB_VARIANT(algo, name, backend, CUDA, SB_DEVICE | (flags), ALL_STAGES, idea, prepare, upload, run, fetch, release)
static sb_variant registry_variants[] = {
#include "variants.inc"
};
#undef SB_VARIANT
#undef SB_RUNG
#undef SB_CUDA_RUNG
enum { REGISTRY_SIZE = sizeof registry_variants / sizeof registry_variants[0] };

/* The ladders: every SB_RUNG(...) and SB_CUDA_RUNG(...) line of the same files (variant.h). */
typedef struct registry_rung {
    const char *algo, *name, *parent, *idea, *file;
    int line;
} registry_rung;
#define SB_VARIANT(algo, name, backend, needs, flags, stages, summary, prepare, upload, run, fetch, release)
#define SB_RUNG(algo, name, parent, idea) { algo, name, parent, idea, __FILE__, __LINE__ },
#define SB_CUDA_RUNG(algo, name, parent, backend, flags, idea, prepare, upload, run, fetch, release) \
    SB_RUNG(algo, name, parent, idea)
static const registry_rung registry_rungs[] = {
#include "variants.inc"
};
#undef SB_VARIANT
#undef SB_RUNG
#undef SB_CUDA_RUNG
enum { RUNG_COUNT = sizeof registry_rungs / sizeof registry_rungs[0] };

/* Each variant file's code identity (base/code_id.h), hashed by the
 * build (build/code_ids, the Makefile) from the sources it compiled. */
typedef struct registry_code {
    const char *file, *id;
} registry_code;
static const registry_code registry_codes[] = {
#include "code_ids.inc"
    { NULL, NULL }
};

const char *sb_variant_code_id(const sb_variant *v)
{
    for (int i = 0; v && registry_codes[i].file; i++)
        if (strcmp(registry_codes[i].file, v->file) == 0)
            return registry_codes[i].id;
    return "";
}

/* The ops themselves, one slot a row, which the rows point at. */
static sb_variant_ops registry_ops[REGISTRY_SIZE];
static int registry_strays;

void sb_variant_register(const sb_registration *r)
{
    for (int i = 0; i < REGISTRY_SIZE; i++) {
        sb_variant *v = &registry_variants[i];
        if (strcmp(v->algo, r->algo) != 0 || strcmp(v->name, r->name) != 0)
            continue;
        if (v->ops) {
            fprintf(stderr, "segbench: warning: %s/%s is registered twice; the second is ignored\n", r->algo, r->name);
            registry_strays++;
            return;
        }
        registry_ops[i] = r->ops;
        v->ops = &registry_ops[i];
        return;
    }
    /* only a stale gen/variants.inc gets here: make rebuilds it */
    fprintf(stderr, "segbench: warning: %s/%s is not in the variant table; run make\n", r->algo, r->name);
    registry_strays++;
}

int sb_registry_strays(void) { return registry_strays; }

/* The warm-chain ops (segbench/warm_chain.h), one slot a row: registered
 * apart from the ops, by constructors that may run before or after them. */
static sb_warm_chain registry_chains[REGISTRY_SIZE];

void sb_warm_chain_register(const char *algo, const char *name, sb_warm_chain chain)
{
    for (int i = 0; i < REGISTRY_SIZE; i++)
        if (strcmp(registry_variants[i].algo, algo) == 0 && strcmp(registry_variants[i].name, name) == 0) {
            registry_chains[i] = chain;
            return;
        }
    fprintf(stderr, "segbench: warning: a warm chain for %s/%s, which is not in the variant table\n", algo, name);
    registry_strays++;
}

sb_warm_chain sb_variant_warm_chain(const sb_variant *v)
{
    for (int i = 0; v && i < REGISTRY_SIZE; i++)
        if (&registry_variants[i] == v)
            return registry_chains[i];
    return NULL;
}

/* The algorithms, by their place (SB_ALGO in algo.h). */
enum { ALGOS_MAX = 32 };
static struct {
    const sb_algo *algo;
    int place;
} registry_algos[ALGOS_MAX];
static int registry_nalgos;

void sb_algo_register(const sb_algo *algo, int place)
{
    if (registry_nalgos == ALGOS_MAX) {
        fprintf(stderr, "segbench: warning: more than %d algorithms; %s is left out\n", ALGOS_MAX, algo->name);
        return;
    }
    int at = registry_nalgos++;
    for (; at > 0 && registry_algos[at - 1].place > place; at--)
        registry_algos[at] = registry_algos[at - 1];
    registry_algos[at].algo = algo;
    registry_algos[at].place = place;
}

int sb_algo_count(void) { return registry_nalgos; }
const sb_algo *sb_algo_at(int i) { return registry_algos[i].algo; }

const sb_algo *sb_algo_find(const char *name)
{
    for (int i = 0; i < sb_algo_count(); i++)
        if (strcmp(registry_algos[i].algo->name, name) == 0)
            return registry_algos[i].algo;
    return NULL;
}

/* The variants as callers see them: grouped by algorithm, in the order of
 * registry_algos, each algorithm's in the table's (file) order. */
static const sb_variant *registry_order[REGISTRY_SIZE];

static int algo_rank(const char *name)
{
    for (int a = 0; a < sb_algo_count(); a++)
        if (strcmp(registry_algos[a].algo->name, name) == 0)
            return a;
    return sb_algo_count();            /* a row for no known algorithm: last */
}

static sb_variant *registry_lookup(const char *algo, const char *name)
{
    for (int i = 0; i < REGISTRY_SIZE; i++)
        if (strcmp(registry_variants[i].algo, algo) == 0 && strcmp(registry_variants[i].name, name) == 0)
            return &registry_variants[i];
    return NULL;
}

static void order_table(void)
{
    int n = 0;
    for (int a = 0; a <= sb_algo_count(); a++)
        for (int i = 0; i < REGISTRY_SIZE; i++)
            if (algo_rank(registry_variants[i].algo) == a)
                registry_order[n++] = &registry_variants[i];
    for (int i = 0; i < RUNG_COUNT; i++) {       /* the tree: sb_ladder_problems() says what does not join */
        sb_variant *v = registry_lookup(registry_rungs[i].algo, registry_rungs[i].name);
        if (v && !v->parent) {
            v->parent = registry_rungs[i].parent;
            v->idea = registry_rungs[i].idea;
        }
    }
    for (int i = 0; i < sb_rename_count(); i++) {
        const sb_rename *rn = sb_rename_at(i);
        sb_variant *v = registry_lookup(rn->algo, rn->now);
        if (v)
            v->formerly = rn->before;
    }
}

/* The order and the tree, made once, on the first thread that asks
 * (bench's case openers may be the first): every algorithm and variant
 * registered itself before main began. */
static void order_once(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, order_table);
}

/* Append one problem line to why (while it has room); count it. */
static int ladder_problem(char *why, size_t size, const char *fmt, const char *a, const char *b, const char *c)
{
    size_t len = strlen(why);
    if (len + 1 < size) {
        snprintf(why + len, size - len, fmt, a, b, c);
        len = strlen(why);
        if (len + 1 < size)
            strcat(why, "\n");
    }
    return 1;
}

int sb_ladder_problems(char *why, size_t size)
{
    order_once();
    int problems = 0;
    why[0] = '\0';
    for (int i = 0; i < RUNG_COUNT; i++) {
        const registry_rung *r = &registry_rungs[i];
        const sb_variant *v = registry_lookup(r->algo, r->name);
        if (!v) {
            problems += ladder_problem(why, size, "%s: SB_RUNG for %s/%s, which no SB_VARIANT declares", r->file,
                                       r->algo, r->name);
            continue;
        }
        if (strcmp(v->file, r->file) != 0)
            problems += ladder_problem(why, size, "%s: SB_RUNG for %s, whose SB_VARIANT is in %s", r->file, v->who,
                                       v->file);
        for (int j = 0; j < i; j++)
            if (strcmp(registry_rungs[j].algo, r->algo) == 0 && strcmp(registry_rungs[j].name, r->name) == 0)
                problems += ladder_problem(why, size, "%s: %s has a second SB_RUNG%s", r->file, v->who, "");
        if (r->parent && !registry_lookup(r->algo, r->parent))
            problems += ladder_problem(why, size, "%s: %s grows from %s, which is not a variant of it", r->file, v->who,
                                       r->parent);
        if (!r->idea || !r->idea[0])
            problems += ladder_problem(why, size, "%s: %s's SB_RUNG gives no idea%s", r->file, v->who, "");
    }
    for (int i = 0; i < REGISTRY_SIZE; i++) {
        const sb_variant *v = &registry_variants[i];
        if ((strcmp(v->needs, "CUDA") == 0 || strcmp(v->needs, "NPP") == 0) && !v->idea[0])
            problems += ladder_problem(why, size, "%s: %s has no SB_RUNG line (its parent, or none)%s", v->file,
                                       v->who, "");
        /* a parent chain must end at a root: no cycles */
        const sb_variant *p = v;
        int steps = 0;
        while (p && p->parent && steps <= REGISTRY_SIZE) {
            p = registry_lookup(p->algo, p->parent);
            steps++;
        }
        if (steps > REGISTRY_SIZE)
            problems += ladder_problem(why, size, "%s: %s's parents go round in a circle%s", v->file, v->who, "");
    }
    for (int i = 0; i < sb_rename_count(); i++) {
        const sb_rename *rn = sb_rename_at(i);
        if (!registry_lookup(rn->algo, rn->now))
            problems += ladder_problem(why, size, "renames.c: %s/%s renamed to %s, which does not exist", rn->algo,
                                       rn->before, rn->now);
        if (registry_lookup(rn->algo, rn->before))
            problems += ladder_problem(why, size, "renames.c: %s/%s is an old name but a variant still has it%s",
                                       rn->algo, rn->before, "");
    }
    return problems;
}

int sb_variant_count(void) { return REGISTRY_SIZE; }

const sb_variant *sb_variant_at(int i)
{
    order_once();
    return registry_order[i];
}

const sb_variant *sb_variant_find(const char *algo, const char *name)
{
    name = sb_variant_current_name(algo, name);
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, algo) == 0 && strcmp(v->name, name) == 0)
            return v;
    }
    return NULL;
}

const sb_variant *sb_reference_variant(const sb_algo *algo)
{
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->algo, algo->name) == 0 && strcmp(v->backend, "cpu") == 0)
            return v;
    }
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
        const char *need = strcmp(v->needs, "CUDA") == 0     ? sb_device_missing_why()
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
