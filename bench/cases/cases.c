/* cases.c - image -> sb_case (see cases.h). */
#include "cases/cases.h"

#include "machine/host_noise.h"
#include "variants/outputs.h"
#include "variants/registry.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the steps before a pipeline step ----
 *
 * A step's input is made from the reference outputs of the steps before
 * it (algo->after, algo->feed).  Those outputs are kept in a small memo,
 * keyed by the step, its parameters and its input's pixels: the steps of
 * one pipeline start from the same costly first step on the same images
 * (mean-shift's serial filter takes seconds an image), which then runs
 * once.  A case of an algorithm that a pipeline starts from (the filter,
 * the flood, GrabCut's k-means, GMM and graph) computes its own reference
 * through the memo too, so the steps after it reuse that run rather than
 * make it again (bench measures the filter on every image before the
 * flood and the merge start from it), at the stage a pipeline starts
 * from.  A case holds the entries it uses; only free ones are replaced,
 * the least recently used first. */
typedef struct sb_step_memo {
    const sb_algo *algo;
    void *params;                 /* the step's parameters, compared as bytes */
    sb_image in;                  /* the image it ran on (a copy) */
    void *out;                    /* its reference output */
    sb_run_times times;           /* the reference run's parts (host clock) */
    int holders;
    int making;                   /* its reference is being run (outside the lock) */
    unsigned long used;           /* when last taken (memo_clock) */
} sb_step_memo;

/* Room for every image of a set at once: bench takes an algorithm over
 * all its images before the next starts from it (the default set: 11
 * images, five steps a pipeline starts from, some hundreds of MB). */
enum { MEMO_SLOTS = 64 };
struct sb_case_memo {
    sb_step_memo slot[MEMO_SLOTS];
    long runs;                    /* step references run through it */
    unsigned long clock;
    /* Held while the entries are found, reserved, taken or let go -- not
     * while an entry's reference runs: bench opens the next cases on
     * threads of their own (run/ahead.c), and the filter's reference of
     * one image takes seconds that another's need not wait for.  An entry
     * being made is held by its maker (never replaced); a case that wants
     * the same one waits for it on `made`. */
    pthread_mutex_t lock;
    pthread_cond_t made;
    sb_host_probes *probes;       /* the owner's, read after a long reference run (NULL: not) */
};

sb_case_memo *sb_case_memo_new(sb_host_probes *probes)
{
    sb_case_memo *memo = calloc(1, sizeof *memo);
    if (memo) {
        memo->probes = probes;
        pthread_mutex_init(&memo->lock, NULL);
        pthread_cond_init(&memo->made, NULL);
    }
    return memo;
}

long sb_case_memo_steps_run(sb_case_memo *memo)
{
    pthread_mutex_lock(&memo->lock);
    long runs = memo->runs;
    pthread_mutex_unlock(&memo->lock);
    return runs;
}

/* The serial reference's run, and after a long one the host's memory speed
 * (host_noise.h) and the cache probe around it (machine/cache_probe.h): a
 * slow reference row's run is its first sample. */
static sb_status run_reference(sb_case_memo *memo, const sb_case *c, const sb_variant *ref, void *out,
                               sb_run_times *t, sb_error *err)
{
    sb_host_probes *probes = memo ? memo->probes : NULL;
    double before = sb_host_cache_probe_ms(probes);
    sb_status st = sb_run_once(c, ref, 1, NULL, out, 1, t, err);
    int long_run = !st && t->run_ms >= SB_MEMORY_PROBE_MIN_MS;
    t->mem_slowdown = long_run ? sb_host_memory_slowdown(probes) : 0.0;
    t->cache_probe_ms = long_run && before > 0 ? fmax(before, sb_host_cache_probe_ms(probes)) : 0.0;
    return st;
}

static int same_image(const sb_image *a, const sb_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels)
        return 0;
    for (int y = 0; y < a->height; y++)
        if (memcmp(sb_image_row(a, y), sb_image_row(b, y), (size_t)a->width * a->channels) != 0)
            return 0;
    return 1;
}

static void memo_clear(sb_step_memo *m)
{
    sb_output_free(m->out);
    sb_image_free(&m->in);
    free(m->params);
    memset(m, 0, sizeof *m);
}

/* Every entry freed (no case may hold one any more). */
void sb_case_memo_free(sb_case_memo *memo)
{
    if (!memo)
        return;
    for (int i = 0; i < MEMO_SLOTS; i++)
        memo_clear(&memo->slot[i]);
    pthread_cond_destroy(&memo->made);
    pthread_mutex_destroy(&memo->lock);
    free(memo);
}

/* The entry holding `algo`'s output on `in` with `params` (one being made
 * waited for), or NULL; under the lock. */
static sb_step_memo *memo_find(sb_case_memo *memo, const sb_algo *algo, const sb_image *in, const void *params)
{
    for (int i = 0; i < MEMO_SLOTS; i++) {
        sb_step_memo *m = &memo->slot[i];
        if (m->algo == algo && !memcmp(m->params, params, algo->params_size) && same_image(&m->in, in)) {
            if (!m->making)
                return m;
            pthread_cond_wait(&memo->made, &memo->lock);   /* its maker lets go of the lock while it runs */
            i = -1;                                  /* and may have failed and cleared it: look again */
        }
    }
    return NULL;
}

/* A free entry reserved for `algo` on a copy of `in` with `params`, held
 * by the caller and marked as being made; under the lock. */
static sb_status memo_reserve(sb_case_memo *memo, const sb_algo *algo, const sb_image *in, const void *params,
                              sb_step_memo **out, sb_error *err)
{
    sb_step_memo *m = NULL;                  /* an empty one, else the least recently used */
    for (int i = 0; i < MEMO_SLOTS; i++)
        if (!memo->slot[i].holders && (!m || memo->slot[i].used < m->used))
            m = &memo->slot[i];
    if (!m)
        return sb_fail(err, SB_ERR_NOMEM, "%s: too many pipeline steps held at once", algo->name);
    memo_clear(m);
    sb_status st = (m->params = malloc(algo->params_size)) ? SB_OK : sb_fail(err, SB_ERR_NOMEM, "out of memory");
    if (!st) {
        memcpy(m->params, params, algo->params_size);
        st = sb_image_convert(in, in->channels, &m->in, err);
    }
    if (!st)
        st = sb_output_alloc(algo, &m->out, in, params, err);
    if (st) {
        memo_clear(m);
        return st;
    }
    m->algo = algo;
    m->holders = 1;
    m->making = 1;
    m->used = ++memo->clock;
    *out = m;
    return SB_OK;
}

/* The reference output of `algo` on `in` with `params`, held for the
 * caller: found, or reserved and run here with the lock let go. */
static sb_status step_output(sb_case_memo *memo, const sb_algo *algo, const sb_image *in, const void *params,
                             sb_step_memo **held, sb_error *err)
{
    pthread_mutex_lock(&memo->lock);
    sb_step_memo *m = memo_find(memo, algo, in, params);
    if (m) {
        m->holders++;
        m->used = ++memo->clock;
        *held = m;
        pthread_mutex_unlock(&memo->lock);
        return SB_OK;
    }
    sb_status st = memo_reserve(memo, algo, in, params, &m, err);
    pthread_mutex_unlock(&memo->lock);
    if (st)
        return st;
    sb_case c = { 0 };
    c.algo = algo;
    c.params = m->params;
    c.input = &m->in;
    sb_output_poison(m->out);             /* as a case's reference: what it leaves unwritten shows */
    st = run_reference(memo, &c, sb_reference_variant(algo), m->out, &m->times, err);
    pthread_mutex_lock(&memo->lock);
    memo->runs++;
    m->making = 0;
    if (st)
        memo_clear(m);
    else
        *held = m;
    pthread_cond_broadcast(&memo->made);
    pthread_mutex_unlock(&memo->lock);
    return st;
}

/* Does a pipeline start from this algorithm's output at this stage: is it
 * some algorithm's step before (algo->after), at a stage of that one whose
 * default parameters are this stage's?  (Mean-shift's flood starts from
 * the filter at r16, not r8.)  Defaults are zeroed first, so bytes compare. */
static int feeds_a_pipeline(const sb_algo *algo, int stage)
{
    int found = 0;
    unsigned char *mine = calloc(2, algo->params_size);
    if (!mine)
        return 0;
    unsigned char *theirs = mine + algo->params_size;
    algo->params_default(mine, stage);
    for (int i = 0; i < sb_algo_count() && !found; i++) {
        const sb_algo *d = sb_algo_at(i);
        for (int s = 0; d->after == algo && d->params_size == algo->params_size && s < d->stage_count && !found;
             s++) {
            d->params_default(theirs, s);
            found = !memcmp(mine, theirs, algo->params_size);
        }
    }
    free(mine);
    return found;
}

/* Run the steps before cd's algorithm and make its input from the last
 * one's output (feed); the first step takes the loaded image as it is. */
static sb_status steps_before(sb_case_data *cd, const sb_image *loaded, sb_image *input, sb_error *err)
{
    const sb_algo *chain[SB_STEPS_MAX];
    int n = 0;
    for (const sb_algo *a = cd->c.algo->after; a; a = a->after) {
        if (n == SB_STEPS_MAX || a->params_size != cd->c.algo->params_size)
            return sb_fail(err, SB_ERR_USAGE, "%s: its pipeline is longer than %d steps or mixes parameters",
                           cd->c.algo->name, SB_STEPS_MAX);
        chain[n++] = a;
    }
    void *params = malloc(cd->c.algo->params_size);
    if (!params)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    memcpy(params, cd->params, cd->c.algo->params_size);
    const sb_image *in = loaded;
    sb_image made = { 0 };
    sb_status st = SB_OK;
    for (int i = n - 1; i >= 0 && !st; i--) {
        sb_step_memo *m = NULL;
        if (!(st = step_output(cd->memo, chain[i], in, params, &m, err))) {
            cd->step[cd->steps++] = m;
            sb_image_free(&made);
            const sb_algo *next = i ? chain[i - 1] : cd->c.algo;
            st = next->feed(loaded, &m->in, m->out, i ? params : cd->params, &made, err);
            in = &made;
        }
    }
    free(params);
    if (st)
        sb_image_free(&made);
    else
        *input = made;
    return st;
}

int sb_case_uses_memo(const sb_algo *algo, int stage) { return algo->after || feeds_a_pipeline(algo, stage); }

/* dst = a copy of src in pinned memory (variants upload from it). */
static sb_status pinned_copy(const sb_image *src, sb_image *dst, sb_error *err)
{
    size_t bytes = src->stride * (size_t)src->height;
    *dst = *src;
    dst->data = sb_host_alloc(bytes);
    if (!dst->data)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory preparing a %dx%d image", src->width, src->height);
    memcpy(dst->data, src->data, bytes);
    return SB_OK;
}

/* algo->luma_input: the colour image, pinned, and its luma as the input.
 * A grey image's colour repeats it (sb_luma_u8 of (v, v, v) is v). */
static sb_status colour_and_luma(sb_case_data *cd, const sb_image *loaded, sb_error *err)
{
    if (loaded->channels != 1 && loaded->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s takes a grey or colour image, not %d channels", cd->c.algo->name,
                       loaded->channels);
    sb_image repeated = { 0 };
    sb_status st = loaded->channels == 1 ? sb_image_convert(loaded, 3, &repeated, err) : SB_OK;
    if (!st)
        st = pinned_copy(loaded->channels == 1 ? &repeated : loaded, &cd->colour, err);
    sb_image_free(&repeated);
    if (st)
        return st;
    sb_image grey = { loaded->width, loaded->height, 1, (size_t)loaded->width, NULL };
    grey.data = sb_host_alloc(grey.stride * (size_t)grey.height);
    if (!grey.data)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory preparing a %dx%d image", grey.width, grey.height);
    sb_case_luma(&cd->colour, &grey);
    cd->input = grey;
    cd->c.colour = &cd->colour;
    return SB_OK;
}

/* The case's holds on the memo let go and its memory freed. */
static void case_release(sb_case_data *cd)
{
    if (cd->reference_memo || cd->steps) {
        pthread_mutex_lock(&cd->memo->lock);
        if (cd->reference_memo)
            cd->reference_memo->holders--;
        for (int i = 0; i < cd->steps; i++)
            cd->step[i]->holders--;
        pthread_mutex_unlock(&cd->memo->lock);
    }
    if (!cd->reference_memo && cd->reference)    /* its own, not the memo's: a pipeline step's last */
        sb_output_free(cd->reference);
    sb_host_free(cd->input.data);
    sb_host_free(cd->colour.data);
    free(cd->params);
    if (cd->own_memo)                            /* the case's alone: its entries go with it */
        sb_case_memo_free(cd->memo);
    memset(cd, 0, sizeof *cd);
}

sb_status sb_case_open(sb_case_data *cd, sb_case_memo *memo, const sb_algo *algo, int stage, const void *params,
                       const sb_image *loaded, sb_error *err)
{
    memset(cd, 0, sizeof *cd);
    cd->memo = memo;
    if (!memo && sb_case_uses_memo(algo, stage)) {   /* the case's own: its steps run for it alone */
        if (!(cd->memo = sb_case_memo_new(NULL)))
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        cd->own_memo = 1;
    }
    cd->c.algo = algo;
    cd->params = calloc(1, algo->params_size);
    if (!cd->params) {
        case_release(cd);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    if (params)
        memcpy(cd->params, params, algo->params_size);
    else
        algo->params_default(cd->params, stage);

    /* a pipeline step's input comes from the reference of the steps before */
    sb_image derived = { 0 };
    if (algo->after) {
        sb_status st = steps_before(cd, loaded, &derived, err);
        if (st) {
            case_release(cd);
            return st;
        }
        loaded = &derived;
    }
    sb_status made = algo->luma_input ? colour_and_luma(cd, loaded, err) : pinned_copy(loaded, &cd->input, err);
    sb_image_free(&derived);
    if (made) {
        case_release(cd);
        return made;
    }

    cd->c.stage = stage;
    cd->c.params = cd->params;
    cd->c.input = &cd->input;

    const sb_variant *ref = sb_reference_variant(algo);
    cd->c.reference_variant = ref;
    sb_status st;
    if (feeds_a_pipeline(algo, stage)) {      /* through the memo, for the steps after it */
        if (!(st = step_output(cd->memo, algo, &cd->input, cd->params, &cd->reference_memo, err))) {
            cd->reference = cd->reference_memo->out;
            cd->c.ref_times = cd->reference_memo->times;
        }
    } else if (!(st = sb_output_alloc(algo, &cd->reference, &cd->input, cd->params, err))) {
        sb_output_poison(cd->reference);
        st = run_reference(cd->memo, &cd->c, ref, cd->reference, &cd->c.ref_times, err);
    }
    if (st) {
        case_release(cd);
        return st;
    }
    cd->c.reference = cd->reference;
    return SB_OK;
}

void sb_case_close(sb_case_data *cd) { case_release(cd); }

/* ---- the memory budget ---- */

enum { PROCESS_BYTES = 32 << 20 };    /* the program, its libraries and its small buffers */
static size_t budget;                 /* 0: not set, the default */

void sb_set_memory_budget(size_t bytes) { budget = bytes; }

size_t sb_memory_budget(void)
{
    if (!budget) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        budget = pages > 0 && page > 0 ? (size_t)pages / 4 * 3 * (size_t)page : (size_t)4 << 30;
    }
    return budget;
}

size_t sb_case_peak_bytes(const sb_algo *algo, int width, int height)
{
    return (size_t)width * (size_t)height * (size_t)algo->host_bytes_per_px + PROCESS_BYTES;
}

int sb_case_fits(const sb_algo *algo, int width, int height, char *why, size_t why_size)
{
    size_t need = sb_case_peak_bytes(algo, width, height), have = sb_memory_budget();
    if (need <= have)
        return 1;
    snprintf(why, why_size, "%s on a %dx%d image needs about %.1f GB of memory (estimated), above the budget of "
             "%.1f GB (raise it with --max-memory)", algo->name, width, height, need / 1e9, have / 1e9);
    return 0;
}

sb_status sb_case_params(const sb_algo *algo, int stage, const int rect[4], void **params, int *usable, char *why,
                         size_t why_size, sb_error *err)
{
    *usable = 1;
    *params = calloc(1, algo->params_size);
    if (!*params)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    algo->params_default(*params, stage);
    if (algo->image_params)
        *usable = algo->image_params(*params, rect, why, why_size);
    return SB_OK;
}

sb_status sb_case_open_image(sb_case_data *cd, sb_case_memo *memo, const sb_algo *algo, int stage,
                             const sb_dataset_image *im, const sb_image *loaded, int *usable, char *why,
                             size_t why_size, sb_error *err)
{
    void *params = NULL;
    sb_status st = sb_case_params(algo, stage, im->rect, &params, usable, why, why_size, err);
    if (!st && *usable) {
        sb_error why_not = { SB_OK, "" };
        sb_status opened = sb_case_open(cd, memo, algo, stage, params, loaded, &why_not);
        if (opened == SB_ERR_USAGE || opened == SB_ERR_LIMIT || opened == SB_ERR_NOMEM) {
            *usable = 0;
            snprintf(why, why_size, "%s", why_not.msg);
        } else if (opened) {
            st = sb_fail(err, opened, "%s", why_not.msg);
        } else {
            cd->c.image = im->name;
        }
    }
    free(params);
    return st;
}
