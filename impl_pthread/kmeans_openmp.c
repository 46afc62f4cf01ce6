/* kmeans_openmp.c - k-means with OpenMP (variant "openmp").
 *
 * One parallel region per pass.  Rows are shared out statically; each
 * thread keeps its own sums (on its stack, so no two threads write one
 * cache line) and adds them into the pass's sums under a critical
 * section once, at the end.  Integer sums make that order irrelevant.
 */
#include "segbench/kmeans.h"
#include "segbench/variant.h"

#include "kmeans_host.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static sb_status openmp_pass(void *ctx, const sb_kmeans_prepped *centres, int first_pass, sb_kmeans_sums *sums,
                             long *changed, sb_error *err)
{
    (void)err;
    sb_kmeans_host *s = ctx;
    int k = s->params.k, height = s->in->height;
    long total_changed = 0;
#pragma omp parallel num_threads(s->threads) reduction(+ : total_changed)
    {
        sb_kmeans_sums mine[SB_KMEANS_MAX_K];
        memset(mine, 0, (size_t)k * sizeof mine[0]);
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        int y0 = (int)((long)height * t / n), y1 = (int)((long)height * (t + 1) / n);
        total_changed += sb_kmeans_assign_rows(s->in, y0, y1, centres, k, first_pass, s->out->labels, mine);
#pragma omp critical(kmeans_merge)
        for (int c = 0; c < k; c++)
            for (int j = 0; j < 4; j++)
                sums[c][j] += mine[c][j];
    }
    *changed = total_changed;
    return SB_OK;
}

static sb_status openmp_prepare(void **state, const sb_image *in, const void *params, void *output,
                                const sb_exec *exec, sb_error *err)
{
    return sb_kmeans_host_open(sizeof(sb_kmeans_host), state, in, params, output, exec->threads, exec->who,
                               err);
}

static sb_status openmp_run(void *state, sb_error *err) { return sb_kmeans_host_run(state, openmp_pass, err); }

SB_VARIANT("kmeans", "openmp", "openmp", OPENMP, SB_THREADED, ALL_STAGES,
           "one parallel region a pass, per-thread sums merged in a critical section",
           openmp_prepare, NULL, openmp_run, sb_kmeans_host_fetch, free)
