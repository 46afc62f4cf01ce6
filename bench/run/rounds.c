/* rounds.c - the host rows of one case, measured in interleaved rounds
 * (measure.h, sb_rounds_*): every row checked first, then round after
 * round each row takes its share of the timed runs in turn -- A B C,
 * C B A, A B C: the order reversed every other round, so no row always
 * follows the same one -- then each is closed and recorded in plan order.
 * A burst of noise (another program, a neighbour on the host) then lands
 * on a round of every row instead of on the whole of one, and shows as a
 * round that disagrees.  Steal time on each row's CPUs is read over the
 * whole block, which its rounds span. */
#define _GNU_SOURCE            /* CPU_SETSIZE */
#include "run/state.h"

#include "machine/host_noise.h"

#include "segbench/clock.h"
#include "segbench/placement.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

/* Steal is counted in clock ticks (10 ms): below this much CPU time in
 * the block, a tick or two would read as a large share. */
enum { STEAL_MIN_CPU_MS = 200 };

/* A row of the block: its rounds, and where its result goes. */
typedef struct host_slot {
    const planned_row *p;
    sb_rounds_row rr;
    host_result *out;          /* its measurement, and how it ended */
    double steal0;             /* ms of steal on its CPUs when the block began */
} host_slot;

static double row_steal_ms(int threads, int *ncpus)
{
    int cpus[CPU_SETSIZE];                 /* 4 KB: the stack (a static would be shared by every caller) */
    *ncpus = sb_rounds_cpus(threads, cpus, CPU_SETSIZE);
    return sb_host_steal_ms(cpus, *ncpus);
}

static void block_progress(bench_run *r, const sb_case *c, const host_slot *s, const sb_dataset_image *im,
                           const char *what)
{
    char label[300], row[256];
    run_row_label(c, s->p, im, row, sizeof row);
    snprintf(label, sizeof label, "%s (%s)", row, what);
    run_progress(r, label);
}

sb_status run_host_measure(bench_run *r, const sb_dataset_image *im, const sb_case *c, const planned_row *plan,
                           int n, host_result *out)
{
    host_slot *slot = calloc((size_t)n, sizeof *slot);
    if (!slot) {
        for (int k = 0; k < n; k++)
            out[k].st = sb_fail(&out[k].err, SB_ERR_NOMEM, "out of memory for %d host rows", n);
        return SB_ERR_NOMEM;
    }
    int rounds = r->o->rounds;
    double began = sb_clock_ms();
    for (int k = 0; k < n; k++) {
        host_slot *s = &slot[k];
        int ncpus;
        s->p = &plan[k];
        s->out = &out[k];
        s->steal0 = row_steal_ms(s->p->threads, &ncpus);
        block_progress(r, c, s, im, "check");
        s->out->st = sb_rounds_open(&s->rr, c, s->p->v, s->p->threads, rounds, &r->timing, &s->out->m, &s->out->err);
    }
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < n; i++) {
            host_slot *s = &slot[round % 2 ? n - 1 - i : i];
            if (s->out->st)
                continue;
            char what[32];
            snprintf(what, sizeof what, "round %d of %d", round + 1, rounds);
            block_progress(r, c, s, im, what);
            s->out->st = sb_rounds_next(&s->rr, &r->timing, &s->out->err);
        }
    double wall = sb_clock_ms() - began;
    int serial = -1;                  /* the serial reference's row, for slower_than_serial */
    for (int k = 0; k < n; k++) {
        host_slot *s = &slot[k];
        if (!s->out->st)
            s->out->st = sb_rounds_close(&s->rr, &s->out->err);
        else
            sb_rounds_release(&s->rr);
        int ncpus;
        double steal1 = row_steal_ms(s->p->threads, &ncpus);
        if (s->steal0 >= 0 && steal1 >= 0 && wall * ncpus >= STEAL_MIN_CPU_MS)
            s->out->m.steal = (steal1 - s->steal0) / (wall * ncpus);
        if (s->p->v == c->reference_variant && s->p->threads == 1 && s->out->st == SB_OK)
            serial = k;
    }
    for (int k = 0; k < n && serial >= 0; k++)
        out[k].m.serial_ms = out[serial].m.kernel.median;
    free(slot);
    return SB_OK;
}

sb_status run_host_rows(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c,
                        const planned_row *plan, int n, sb_error *fatal)
{
    host_result *res = calloc((size_t)n, sizeof *res);
    if (!res)
        return sb_fail(fatal, SB_ERR_NOMEM, "out of memory for %d host rows", n);
    run_host_measure(r, im, c, plan, n, res);
    sb_status st = SB_OK;
    for (int k = 0; k < n; k++)
        if (!st)
            st = run_row_record(r, rows, im, c, &plan[k], &res[k].m, res[k].st, &res[k].err, fatal);
        else
            sb_measurement_free(&res[k].m);
    free(res);
    return st;
}
