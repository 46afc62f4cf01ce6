/* ahead.c - a batch's cases opened in order, each once: by threads of
 * their own ahead of the caller, or by the caller at its turn.
 *
 * Opening a case computes its serial reference (seconds on one core for
 * mean-shift's filter or GrabCut at 1920x1080), and every row of the case
 * waits for it.  A GPU row keeps one host thread busy and the machine's
 * other cores idle, so while the caller measures the GPU rows of the cases
 * already open, the openers compute the next references beside them, each
 * on a core of its own: the run takes about the longer of the two, not
 * their sum.  No host row shares the CPUs with them -- host rows are
 * measured after the batch's last reference (case.c), the openers joined.
 * Two cases that need one pipeline step's output on one image share its
 * run: the second waits for the first (cases/cases.c). */
#include "run/state.h"

#include "machine/host_noise.h"

#include "segbench/clock.h"
#include "segbench/image_io.h"

#include <stdlib.h>
#include <string.h>

/* One case, opened: its image loaded at the first case that needs it (one
 * loader at a time: two stages of an image share it), then sb_case_open,
 * then its reference's pictures (pictures.c). */
static void open_case(case_opener *op, run_case *k)
{
    double t0 = sb_clock_ms();
    pthread_mutex_lock(&op->loading);
    if (!k->loaded->data)
        k->load = sb_image_load(k->im->path, op->algo->load_mode, k->loaded, &k->load_err);
    pthread_mutex_unlock(&op->loading);
    if (!k->load) {
        k->opened = sb_case_open(&k->cd, op->r->memo, op->algo, k->stage, k->params, k->loaded, &k->why_not);
        if (k->opened == SB_OK) {
            k->cd.c.image = k->im->name;
            run_case_pictures(op->r, op->algo, k);
        }
    }
    k->open_ms = sb_clock_ms() - t0;
}

/* An opener: the next case not yet taken, until none is left or the
 * batch is cut short. */
static void *opener_main(void *arg)
{
    case_opener *op = arg;
    sb_host_quiet_exempt_self(1);
    for (;;) {
        pthread_mutex_lock(&op->lock);
        int k = op->stop ? op->n : op->next++;
        pthread_mutex_unlock(&op->lock);
        if (k >= op->n)
            break;
        open_case(op, &op->cases[k]);
        pthread_mutex_lock(&op->lock);
        op->busy_ms += op->cases[k].open_ms;
        op->cases[k].ready = 1;
        pthread_cond_broadcast(&op->ready);
        pthread_mutex_unlock(&op->lock);
    }
    sb_host_quiet_exempt_self(0);
    return NULL;
}

void run_cases_begin(case_opener *op, const bench_run *r, const sb_algo *algo, run_case *cases, int n,
                     int openers)
{
    memset(op, 0, sizeof *op);
    op->r = r;
    op->algo = algo;
    op->cases = cases;
    op->n = n;
    pthread_mutex_init(&op->lock, NULL);
    pthread_mutex_init(&op->loading, NULL);
    pthread_cond_init(&op->ready, NULL);
    if (openers > n)
        openers = n;
    if (openers > RUN_OPENERS_MAX)
        openers = RUN_OPENERS_MAX;
    /* a thread that cannot be had: fewer openers, or the caller opens */
    while (op->nthreads < openers && pthread_create(&op->thread[op->nthreads], NULL, opener_main, op) == 0)
        op->nthreads++;
}

run_case *run_case_ready(bench_run *r, case_opener *op, int k)
{
    run_case *c = &op->cases[k];
    if (op->nthreads == 0) {
        open_case(op, c);
        run_spend(r, RUN_SPENT_REFERENCES, c->open_ms);
        return c;
    }
    double t0 = sb_clock_ms();
    pthread_mutex_lock(&op->lock);
    while (!c->ready)
        pthread_cond_wait(&op->ready, &op->lock);
    pthread_mutex_unlock(&op->lock);
    double waited = sb_clock_ms() - t0;
    op->waited_ms += waited;
    run_spend(r, RUN_SPENT_REFERENCES, waited);
    return c;
}

void run_cases_end(bench_run *r, case_opener *op)
{
    pthread_mutex_lock(&op->lock);
    op->stop = 1;                 /* a batch cut short by an error opens no more */
    pthread_mutex_unlock(&op->lock);
    for (int i = 0; i < op->nthreads; i++)
        pthread_join(op->thread[i], NULL);
    /* what the caller did not wait for ran beside its rows */
    if (op->nthreads && op->busy_ms > op->waited_ms)
        run_spend(r, RUN_SPENT_REFERENCES_BESIDE, op->busy_ms - op->waited_ms);
    pthread_cond_destroy(&op->ready);
    pthread_mutex_destroy(&op->loading);
    pthread_mutex_destroy(&op->lock);
}

/* One opener for every SB_AHEAD_CORES_EACH cores, at least one and at
 * most RUN_OPENERS_MAX: with the stream frames' references made beside
 * them as many again (streams.c), at most half the cores are busy beside
 * the GPU row's own thread. */
int run_cases_openers(const bench_run *r)
{
    int cores = sb_usable_cores(), n = cores / SB_AHEAD_CORES_EACH;
    n = n < 1 ? 1 : n > RUN_OPENERS_MAX ? RUN_OPENERS_MAX : n;
    switch (r->o->ahead) {
    case SB_AHEAD_ON: return n;
    case SB_AHEAD_OFF: return 0;
    default:
        /* a GPU to keep busy, and cores to spare beside its host thread */
        return r->stream == NULL || cores < SB_AHEAD_CORES_EACH ? 0 : n;
    }
}
