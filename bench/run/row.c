/* row.c - one row: a variant at a thread count, checked against the
 * case's reference and (bench) timed by the harness, its noise flagged,
 * its samples and row appended to the files, one line printed. */
#include "run/state.h"

#include "run/census.h"
#include "compare/noise.h"
#include "machine/host_noise.h"

#include "segbench/clock.h"
#include "segbench/placement.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fill_row(const bench_run *r, sb_row *row, const sb_dataset_image *im, const sb_case *c,
                     const sb_variant *v, int threads, sb_measurement *m)
{
    const sb_algo *algo = c->algo;
    snprintf(row->algo, sizeof row->algo, "%s", algo->name);
    snprintf(row->stage, sizeof row->stage, "%s", algo->stages[c->stage]);
    snprintf(row->variant, sizeof row->variant, "%s", v->name);
    snprintf(row->backend, sizeof row->backend, "%s", v->backend);
    row->threads = threads;
    snprintf(row->image, sizeof row->image, "%s", im->name);
    row->width = c->input->width;
    row->height = c->input->height;
    row->kernel = m->kernel;
    row->e2e = m->e2e;
    row->frame = m->frame;
    row->setup = m->setup;
    row->bytes = algo->bytes(c->input, c->params, c->reference);
    row->gbps = m->kernel.median > 0 ? row->bytes / (m->kernel.median * 1e-3) / 1e9 : 0.0;
    double peak = (v->flags & SB_DEVICE) ? r->env.device_copy_gbps : sb_env_host_peak(&r->env, threads);
    row->peak_fraction = peak > 0 ? row->gbps / peak : 0.0;
    snprintf(row->agreement, sizeof row->agreement, "%s", m->agreement.verdict);
    snprintf(row->metric, sizeof row->metric, "%s", m->agreement.metric);
    snprintf(row->commit, sizeof row->commit, "%s", r->row_commit);
    time_t now = time(NULL);
    strftime(row->date, sizeof row->date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(row->run_id, sizeof row->run_id, "%s", r->env.run_id);
    row->sm_mhz[0] = m->clocks_start.ok ? m->clocks_start.sm_mhz : 0;
    row->sm_mhz[1] = m->clocks_end.ok ? m->clocks_end.sm_mhz : 0;
    row->mem_mhz[0] = m->clocks_start.ok ? m->clocks_start.mem_mhz : 0;
    row->mem_mhz[1] = m->clocks_end.ok ? m->clocks_end.mem_mhz : 0;
    sb_gpu_clocks_reasons_text((m->clocks_start.reasons | m->clocks_end.reasons) & SB_CLOCKS_THROTTLE_MASK,
                               row->clock_reasons, sizeof row->clock_reasons);
    row->rounds = m->rounds;
    row->round_spread = m->round_spread;
    row->steal = m->steal;
    row->cpu_slowdown = m->slowdown;
    row->mem_slowdown = m->mem_slowdown;
    snprintf(row->code_id, sizeof row->code_id, "%s", sb_variant_code_id(v));
    snprintf(row->stopped, sizeof row->stopped, "%s", sb_stop_name(m->stopped));
    row->kernel_ms = m->kernel_ms;
    row->e2e_ms = m->e2e_ms;
    row->frame_ms = m->frame_ms;
    row->setup_ms = m->setup_ms;
    row->nround = 0;
    if (m->rounds > 0 && (row->round_ms = malloc((size_t)m->rounds * sizeof *row->round_ms))) {
        memcpy(row->round_ms, m->round_ms, (size_t)m->rounds * sizeof *row->round_ms);
        row->nround = m->rounds;
    }
    row->nprobe = 0;
    int probed = 0;
    for (int i = 0; i < m->rounds; i++)
        probed |= m->round_probe[i] > 0;
    if (probed &&
        (row->round_probe = malloc((size_t)m->rounds * sizeof *row->round_probe))) {
        memcpy(row->round_probe, m->round_probe, (size_t)m->rounds * sizeof *row->round_probe);
        row->nprobe = m->rounds;
    }
    sb_work_text(&m->work_lo, &m->work_hi, row->work, sizeof row->work);
    row->nwork = 0;
    if (m->works > 0 && (row->round_work = malloc((size_t)m->works * sizeof *row->round_work))) {
        memcpy(row->round_work, m->round_work, (size_t)m->works * sizeof *row->round_work);
        row->nwork = m->works;
    }
}

void run_row_label(const sb_case *c, const planned_row *p, const sb_dataset_image *im, char *out, size_t size)
{
    snprintf(out, size, "%s %s %s t%d %s", c->algo->name, c->algo->stages[c->stage], p->v->name, p->threads,
             im->name);
}

/* the kernel census: a measured row's check run takes it (measure.h); a
 * row whose check took none runs once for it (census.h) */
static int row_takes_census(const bench_run *r, const sb_variant *v)
{
    return (v->flags & SB_DEVICE) && sb_reporters_take_census(&r->out) && !r->census_off;
}

/* A host-bound device row (SB_HOST_BOUND: every pass waits on the host's
 * own computing) moves with the host's noise, as a CPU row does: its host
 * thread runs pinned to the first CPU, and the CPU and memory probes
 * before and after its timed runs give it the host rows' slowdowns
 * (host_noise.h), so the unstable flag can say when the host was slow.
 * On the H100 host its rows moved up to 1.9x between two runs of record
 * with nothing flagged, 20 of the 22 GPU rows beyond 1.25x. */
static void host_bound_probe(sb_host_probes *probes, sb_measurement *m, int first)
{
    int cpu = sb_placement_cpu(0);
    if (first) {
        sb_host_wait_quiet(SB_QUIET_MAX_MS);
        sb_placement_hold(1, 0);
    }
    double slow = cpu >= 0 ? sb_host_slowdown(probes, &cpu, 1) : 0.0, mem = sb_host_memory_slowdown(probes);
    m->slowdown = fmax(m->slowdown, slow);
    m->mem_slowdown = fmax(m->mem_slowdown, mem);
    if (!first)
        sb_placement_release();
}

sb_timing_opts run_row_timing(const bench_run *r, const sb_variant *v)
{
    sb_timing_opts t = r->timing;
    t.gpu_warm = (v->flags & SB_DEVICE) && r->device_row_ended > 0 &&
                 sb_clock_ms() - r->device_row_ended < SB_GPU_STILL_BUSY_MS;
    return t;
}

void run_device_row_done(bench_run *r)
{
    r->device_row_ended = sb_clock_ms();
}

/* Measure (or check) one variant at one thread count; append its row. */
sb_status run_row(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c,
                  const planned_row *p, sb_error *fatal)
{
    const sb_variant *v = p->v;
    char label[256];
    run_row_label(c, p, im, label, sizeof label);
    run_progress(r, label);
    void *stream = (v->flags & SB_DEVICE) ? r->stream : NULL;

    sb_error err = { SB_OK, "" };
    sb_timing_opts timing = run_row_timing(r, v);
    timing.census = row_takes_census(r, v) && r->pipe->times;
    sb_measurement m;
    memset(&m, 0, sizeof m);
    int host_bound = (v->flags & SB_HOST_BOUND) && r->pipe->times;
    sb_measurement probes = { 0 };
    if (host_bound)
        host_bound_probe(r->probes, &probes, 1);
    sb_status st = !r->pipe->times ? sb_check_only(c, v, p->threads, stream, &m.agreement, &err)
                                    : sb_measure(c, v, p->threads, stream, &timing, &m, &err);
    if ((v->flags & SB_DEVICE) && r->pipe->times)
        run_device_row_done(r);
    if (host_bound) {
        host_bound_probe(r->probes, &probes, 0);
        m.slowdown = fmax(m.slowdown, probes.slowdown);
        m.mem_slowdown = fmax(m.mem_slowdown, probes.mem_slowdown);
    }
    return run_row_record(r, rows, im, c, p, &m, st, &err, fatal);
}

sb_status run_row_record(bench_run *r, sb_rows *rows, const sb_dataset_image *im, const sb_case *c,
                         const planned_row *p, sb_measurement *mp, sb_status st, const sb_error *errp,
                         sb_error *fatal)
{
    const sb_algo *algo = c->algo;
    const sb_variant *v = p->v;
    char label[256];
    run_row_label(c, p, im, label, sizeof label);
    void *stream = (v->flags & SB_DEVICE) ? r->stream : NULL;
    sb_measurement m = *mp;
    sb_error err = *errp;
    int census = 0;                            /* kernels in m.census to report */
    if (row_takes_census(r, v) && !st) {
        sb_error cerr = { SB_OK, "" };
        double t0 = sb_clock_ms();
        sb_status cs = m.census_n >= 0 ? SB_OK : run_census_take(c, v, p->threads, stream, m.census, &m.census_n, &cerr);
        run_spend(r, RUN_SPENT_CENSUS, sb_clock_ms() - t0);
        if (cs == SB_ERR_UNAVAILABLE) {
            run_progress_clear(r);
            fprintf(stderr, "note: %s; no kernel census in this run\n", cerr.msg);
            r->census_off = 1;
        } else if (cs) {
            sb_measurement_free(&m);
            return sb_fail(fatal, cs, "%s", cerr.msg);
        }
        census = m.census_n >= 0;
    }
    sb_row_report rr = { .algo = algo, .stage = algo->stages[c->stage], .v = v, .threads = p->threads,
                         .image = im->name, .label = label, .census = census ? m.census : NULL,
                         .census_n = census ? m.census_n : 0 };
    r->done++;
    r->weight_done += run_row_weight(p, im);
    run_account_row(r, v, p->threads, &m);
    run_progress_clear(r);
    if (st == SB_ERR_DEVICE_MEMORY || st == SB_ERR_LIMIT) {
        /* the GPU cannot hold this image, or the variant cannot take this
         * case by design (an SB_NARROW variant's values do not fit): say
         * so, go on */
        rr.kind = SB_ROW_SKIPPED;
        rr.why = st == SB_ERR_LIMIT ? "the variant cannot take it" : "too little free GPU memory";
        rr.detail = err.msg;
        r->skipped++;
        sb_status wst = sb_reporters_row(&r->out, &rr, fatal);
        sb_measurement_free(&m);
        return wst;
    }
    if (st) {                                  /* could not run at all: a failure too */
        m.agreement.ok = 0;
        snprintf(m.agreement.verdict, sizeof m.agreement.verdict, "FAIL");
        snprintf(m.agreement.metric, sizeof m.agreement.metric, "error: %.200s", err.msg);
        run_note_error(r);
    }
    if (!m.agreement.ok)
        run_note_failure(r, label, m.agreement.metric);

    if (!r->pipe->times) {
        rr.kind = SB_ROW_CHECKED;
        rr.verdict = m.agreement.verdict;
        rr.metric = m.agreement.metric;
        sb_status wst = sb_reporters_row(&r->out, &rr, fatal);
        sb_measurement_free(&m);
        return wst;
    }

    sb_row *row = sb_rows_add(rows);
    if (!row) {
        sb_measurement_free(&m);
        return sb_fail(fatal, SB_ERR_NOMEM, "out of memory for the results rows");
    }
    fill_row(r, row, im, c, v, p->threads, &m);
    m.kernel_ms = m.e2e_ms = m.frame_ms = m.setup_ms = NULL;   /* the row owns the samples now */
    int noise = sb_noise_row_flags(row, sb_noise_host_row(v->flags)) | sb_noise_clock_flags(row, r->env.device.sm_clock_mhz);
    noise = sb_noise_cache_resident(noise, row, r->env.cpu_llc_bytes);
    if ((v->flags & SB_THREADED) && p->threads > 1 && m.serial_ms > 0 && row->kernel.median > m.serial_ms)
        noise |= SB_NOISE_FLAG_SLOWER_THAN_SERIAL;
    if (m.unpaired)
        noise |= SB_NOISE_FLAG_UNPAIRED;
    sb_noise_flag_text(noise, row->flags, sizeof row->flags);
    if (noise & ~(SB_NOISE_FLAG_GOVERNOR | SB_NOISE_FLAG_SLOWER_THAN_SERIAL | SB_NOISE_FLAG_CACHE_RESIDENT |
                  SB_NOISE_FLAG_UNPAIRED))
        run_note_noisy(r);
    rr.kind = SB_ROW_MEASURED;
    rr.row = row;
    rr.noise = noise;
    rr.serial_ms = m.serial_ms;
    rr.host_peak_1 = sb_env_host_peak(&r->env, 1);
    rr.host_peak = sb_env_host_peak(&r->env, p->threads);
    /* the reporters (the files first, then the console), then env.json
     * counts the row */
    sb_status wst = sb_reporters_row(&r->out, &rr, fatal);
    if (!wst)
        wst = run_record_row(r, fatal);
    sb_measurement_free(&m);
    return wst;
}
