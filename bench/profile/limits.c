/* limits.c - how far each stage's fastest GPU rung is from what the
 * GPU allows, and what holds it back (limits.h).
 *
 * The limit of a stage is the larger of two floors:
 *   memory floor   the bytes the stage must move (algo->bytes: inputs read
 *                  once, outputs written once) over the device copy
 *                  bandwidth bench measured on the same GPU;
 *   issue floor    the warp instructions the rung executed (ncu, make
 *                  profile) at the SMs' full issue rate, 4 a cycle per SM
 *                  at the clock ncu saw: a floor for this code, not for
 *                  the algorithm (fewer instructions would lower it).
 * "x limit" is the rung's kernel median over the limit: 1.00x would be
 * the speed of light.  The sentence that names the bound reads the same
 * profile's counts over the timed median: DRAM traffic against the copy
 * rate, issue-slot use, how much of the run the kernels fill, and the
 * stall most warps wait on.
 */
#include "profile/limits.h"

#include "base/files.h"

#include "variants/renames.h"

#include "io/code_ids.h"
#include "io/stage_view.h"

#include "variants/registry.h"
#include "base/csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- <algo>.profile.csv ---- */

enum { PROFILE_FIELDS = 23, PROFILE_FIELDS_V1 = 22 };   /* V1: no code_id */

int profile_read(const char *results_dir, const char *algo, profile_set *p)
{
    memset(p, 0, sizeof *p);
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%.1000s/%.60s.profile.csv", results_dir, algo);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char *rec = NULL, *f[PROFILE_FIELDS + 1];
    size_t cap = 0;
    int lineno = 0, cap_lines = 0;
    while (sb_csv_read_record(fp, &rec, &cap) > 0) {
        rec[strcspn(rec, "\r\n")] = '\0';
        int nf = lineno++ == 0 ? 0 : sb_csv_split(rec, f, PROFILE_FIELDS + 1);
        if (nf != PROFILE_FIELDS && nf != PROFILE_FIELDS_V1)
            continue;
        if (p->count == cap_lines) {
            int grown_cap = cap_lines ? 2 * cap_lines : 64;
            profile_line *grown = realloc(p->line, (size_t)grown_cap * sizeof *grown);
            if (!grown)
                break;
            p->line = grown;
            cap_lines = grown_cap;
        }
        profile_line *l = &p->line[p->count++];
        memset(l, 0, sizeof *l);
        snprintf(l->stage, sizeof l->stage, "%s", f[1]);
        snprintf(l->variant, sizeof l->variant, "%s", sb_variant_current_name(algo, f[2]));   /* old runs' names */
        snprintf(l->image, sizeof l->image, "%s", f[4]);
        snprintf(l->kernel, sizeof l->kernel, "%s", f[5]);
        l->launches = atoi(f[6]);
        l->duration_ms = atof(f[7]);
        l->dram_bytes = atof(f[8]) + atof(f[9]);
        l->dram_fraction = atof(f[11]);
        l->l2_pct = atof(f[12]);
        l->issue_pct = atof(f[13]);
        l->occupancy_pct = atof(f[14]);
        l->warp_insts = atof(f[15]);
        l->sm_mhz = atof(f[16]);
        l->issue_floor_ms = atof(f[17]);
        snprintf(l->top_stall, sizeof l->top_stall, "%s", f[18]);
        l->top_stall_pct = atof(f[19]);
        snprintf(l->commit, sizeof l->commit, "%s", f[20]);
        snprintf(l->run_id, sizeof l->run_id, "%s", f[21]);
        snprintf(l->code_id, sizeof l->code_id, "%s", nf == PROFILE_FIELDS ? f[22] : "");
    }
    free(rec);
    fclose(fp);
    return p->count > 0;
}

void profile_free(profile_set *p)
{
    free(p->line);
    memset(p, 0, sizeof *p);
}

const profile_line *profile_total(const profile_set *p, const char *stage, const char *variant,
                                  const char *image)
{
    for (int i = 0; p && i < p->count; i++) {
        const profile_line *l = &p->line[i];
        if (!strcmp(l->kernel, "(all)") && !strcmp(l->stage, stage) && !strcmp(l->variant, variant) &&
            !strcmp(l->image, image))
            return l;
    }
    return NULL;
}

/* ---- the limit ---- */

/* What a warp waiting on this stall reason waits for. */
static const char *stall_meaning(const char *reason)
{
    static const struct {
        const char *reason, *meaning;
    } MEANING[] = {
        { "long_scoreboard", "global or local memory (long scoreboard)" },
        { "short_scoreboard", "shared memory or special functions (short scoreboard)" },
        { "barrier", "the block's barriers (__syncthreads)" },
        { "membar", "memory fences" },
        { "lg_throttle", "a full global load/store queue (lg throttle)" },
        { "mio_throttle", "a full shared-memory / special-function queue (MIO throttle)" },
        { "tex_throttle", "a full texture queue (tex throttle)" },
        { "math_pipe_throttle", "a busy math pipe" },
        { "not_selected", "their turn: other warps were issuing (not selected)" },
        { "wait", "fixed-latency dependencies (wait)" },
        { "branch_resolving", "branch targets (branch resolving)" },
        { "no_instruction", "instruction fetch (no instruction)" },
        { "imc_miss", "constant-cache misses" },
        { "drain", "memory writes draining at exit" },
        { "dispatch_stall", "the dispatcher" },
        { "sleeping", "nanosleep or a yield" },
    };
    for (size_t i = 0; i < sizeof MEANING / sizeof MEANING[0]; i++)
        if (!strcmp(reason, MEANING[i].reason))
            return MEANING[i].meaning;
    return reason[0] ? reason : "nothing in particular";
}

void stage_limit_compute(const sb_row *top, double copy_gbps, const profile_set *p, stage_limit *out)
{
    memset(out, 0, sizeof *out);
    out->top = top;
    if (!top || top->kernel.median <= 0)
        return;
    out->mem_ms = copy_gbps > 0 ? top->bytes / (copy_gbps * 1e9) * 1e3 : 0.0;
    out->prof = profile_total(p, top->stage, top->variant, top->image);
    out->issue_ms = out->prof ? out->prof->issue_floor_ms : 0.0;
    out->limit_ms = out->mem_ms > out->issue_ms ? out->mem_ms : out->issue_ms;
    out->x = out->limit_ms > 0 ? top->kernel.median / out->limit_ms : 0.0;
    snprintf(out->floor, sizeof out->floor, "%s", out->issue_ms > out->mem_ms ? "issue" : "memory");

    const profile_line *l = out->prof;
    if (!l) {
        snprintf(out->kind, sizeof out->kind, "no profile");
        snprintf(out->bound, sizeof out->bound,
                 "not profiled (make profile): the limit is the memory floor alone, %.4g ms for %.3g MB", out->mem_ms,
                 top->bytes / 1e6);
        return;
    }
    /* a profile of the same code as the timed row is its profile, whatever
     * the commits (io/code_ids.h); of other code, or unknown, it says so */
    char note[160] = "", profiled[SB_CODE_ID_LEN + 1], timed[SB_CODE_ID_LEN + 1];
    if (l->code_id[0])
        snprintf(profiled, sizeof profiled, "%.16s", l->code_id);
    else
        sb_code_id_at(NULL, top->algo, top->variant, l->commit, profiled);
    sb_row_code_id(NULL, top, timed);
    size_t cl = strcspn(l->commit, "-");
    if (profiled[0] && timed[0] && strcmp(profiled, timed) != 0)
        snprintf(note, sizeof note, " (profiled at other code: commit %.10s, timed at %.10s)", l->commit, top->commit);
    else if ((!profiled[0] || !timed[0]) && strncmp(l->commit, top->commit, cl) != 0)
        snprintf(note, sizeof note, " (profiled at commit %.10s, timed at %.10s)", l->commit, top->commit);
    /* Rates over the timed run: the profile's counts (bytes, instructions)
     * are the run's own, while its durations are of kernels ncu replayed
     * one by one (caches flushed, clocks as found; a CUDA graph replayed
     * whole) and can be far longer.  Their sum over the kernel median says
     * how much of the run the kernels fill, where it is not above it. */
    double median_s = top->kernel.median * 1e-3;
    double dram = copy_gbps > 0 ? 100.0 * l->dram_bytes / median_s / (copy_gbps * 1e9) : 0.0;
    double issue = 100.0 * out->issue_ms / top->kernel.median;
    double busy = l->duration_ms / top->kernel.median;
    if (dram >= 60.0) {
        snprintf(out->kind, sizeof out->kind, "memory");
        snprintf(out->bound, sizeof out->bound,
                 "memory bandwidth: its DRAM traffic (%.3g MB, %.2fx the stage's byte floor) over the run is %.0f %% "
                 "of the measured copy rate",
                 l->dram_bytes / 1e6, top->bytes > 0 ? l->dram_bytes / top->bytes : 0.0, dram);
    } else if (issue >= 60.0) {
        snprintf(out->kind, sizeof out->kind, "issue");
        snprintf(out->bound, sizeof out->bound,
                 "instruction issue: its %.3g G warp instructions fill %.0f %% of the SMs' issue slots over the run; "
                 "fewer instructions, not faster memory, would help",
                 l->warp_insts / 1e9, issue);
    } else if (busy < 0.6) {
        snprintf(out->kind, sizeof out->kind, "launches");
        snprintf(out->bound, sizeof out->bound,
                 "launches and host waits: its %d kernel launches fill %.0f %% of the run, the rest is gaps between "
                 "them; DRAM traffic is %.0f %% of the copy rate and issue %.0f %% of the slots",
                 l->launches, 100.0 * busy, dram, issue);
    } else {
        snprintf(out->kind, sizeof out->kind, "latency");
        snprintf(out->bound, sizeof out->bound,
                 "latency: neither DRAM (%.0f %% of the copy rate) nor issue slots (%.0f %%) are busy over the run; "
                 "at %.0f %% achieved occupancy most waiting warps wait for %s (%.0f %% of stalls)",
                 dram, issue, l->occupancy_pct, stall_meaning(l->top_stall), l->top_stall_pct);
    }
    size_t n = strlen(out->bound);
    snprintf(out->bound + n, sizeof out->bound - n, "%s", note);
}

double stage_limit_on(const char *results_dir, const sb_algo *algo, int stage, const char *image,
                      double bytes, double copy_gbps, int sm_count, double sm_mhz, double *issue_ms)
{
    *issue_ms = 0.0;
    double mem_ms = copy_gbps > 0 ? bytes / (copy_gbps * 1e9) * 1e3 : 0.0;
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%.1000s/%.60s.csv", results_dir, algo->name);
    sb_rows rows = { 0 };
    profile_set prof = { 0 };
    sb_error quiet;
    if (sm_count > 0 && sm_mhz > 0 && sb_rows_read_ladders(path, &rows, NULL, &quiet) == SB_OK &&
        profile_read(results_dir, algo->name, &prof)) {
        stage_limit lim;
        stage_limit_of(&rows, algo, stage, copy_gbps, &prof, &lim);
        if (lim.top && lim.prof && !strcmp(lim.top->image, image))
            *issue_ms = lim.prof->warp_insts / (4.0 * sm_count * sm_mhz * 1e6) * 1e3;
    }
    profile_free(&prof);
    sb_rows_free(&rows);
    return mem_ms > *issue_ms ? mem_ms : *issue_ms;
}

void stage_limit_of(const sb_rows *rows, const sb_algo *algo, int stage, double copy_gbps,
                    const profile_set *p, stage_limit *lim)
{
    stage_view sv;
    view_build(&sv, rows, algo->name, algo->stages[stage]);
    stage_limit_compute(sv.nimg ? view_fastest(&sv, sv.img[sv.largest], view_is_gpu_rung, 0) : NULL, copy_gbps, p, lim);
}

