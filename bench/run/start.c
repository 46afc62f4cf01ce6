/* start.c - a run takes its results folder: where it goes (a published
 * run of record is spared, and so are its rows a narrower --overwrite
 * would drop), the folder's lock, a new run id or the run
 * being resumed (same machine, commit and options), what killed runs left
 * half-written, and the machine's bandwidth ceilings. */
#include "run/state.h"

#include "base/patterns.h"
#include "variants/names.h"
#include "variants/registry.h"
#include "io/env_json.h"
#include "io/result_set.h"
#include "io/rows.h"

#include "segbench/atomic_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether dir is a published result set (listed in the published.txt of
 * the folder above it); root gets that folder. */
static int published(const char *dir, char *root, sb_error *err)
{
    const char *slash = strrchr(dir, '/');
    return !sb_path(root, err, "%.*s", slash ? (int)(slash - dir) : 1, slash ? dir : ".") &&
           sb_published_index(root, slash ? slash + 1 : dir) >= 0;
}

/* A published result set (results/published.txt) is a run of record: a
 * run goes there only with --overwrite or --resume.  Otherwise, given by
 * --results, it is refused; by default, the run goes to <dir>-local. */
static sb_status spare_published(const sb_bench_opts *o, char *dir, size_t size, sb_error *err)
{
    char root[SB_PATH_MAX], env[SB_PATH_MAX];
    sb_status bad = sb_path(env, err, "%s/env.json", dir);
    if (bad)
        return bad;
    struct stat st;
    if (o->overwrite || o->resume || !published(dir, root, err) || stat(env, &st) != 0)
        return SB_OK;
    if (o->results_dir)
        return sb_fail(err, SB_ERR_USAGE, "%s/ is a published run of record (%s/published.txt): --overwrite replaces "
                       "it, --resume finishes its run, or choose another --results", dir, root);
    size_t len = strlen(dir);
    if (len + sizeof "-local" > size)
        return sb_fail(err, SB_ERR_LIMIT, "%s: too long a path to add -local", dir);
    fprintf(stderr, "%s/ is a published run of record (%s/published.txt): this run goes to %s-local/ "
                    "(--overwrite replaces the published one)\n", dir, root, dir);
    snprintf(dir + len, size - len, "-local");
    return SB_OK;
}

/* --overwrite replaces a benched algorithm's rows in a published set,
 * every one: a run that picks some of its variants or stages would leave
 * the set without the rest (a k-means bench of its CPU variants alone dropped
 * every CUDA row of the run of record).  Refused, naming what would go. */
static sb_status spare_unselected(const sb_bench_opts *o, const char *dir, sb_error *err)
{
    char root[SB_PATH_MAX];
    if ((!o->variants && !o->stages) || !published(dir, root, err))
        return SB_OK;
    for (int a = 0; a < sb_algo_count(); a++) {
        const sb_algo *algo = sb_algo_at(a);
        char csv[SB_PATH_MAX];
        sb_rows rows;
        sb_error ignored;
        if (!sb_pattern_match(o->algos, algo->name) || sb_path(csv, &ignored, "%s/%s.csv", dir, algo->name) ||
            sb_rows_read_csv(csv, &rows, &ignored) != SB_OK)
            continue;
        int left = 0;
        const char *example = NULL;
        for (int i = 0; i < rows.count; i++) {
            const sb_row *row = &rows.row[i];
            if (!sb_variant_pick(o->variants, algo->name, row->variant) || !sb_pattern_match(o->stages, row->stage)) {
                if (!left++)
                    example = row->variant;
            }
        }
        char first[64];
        snprintf(first, sizeof first, "%s", example ? example : "");
        sb_rows_free(&rows);
        if (left)
            return sb_fail(err, SB_ERR_USAGE, "%s/%s.csv holds %d row%s this run's --variant/--stage leave%s out "
                           "(%s, ...), and --overwrite would drop them: bench the whole algorithm into a published "
                           "set, or choose another --results", dir, algo->name, left, left == 1 ? "" : "s",
                           left == 1 ? "s" : "", first);
    }
    return SB_OK;
}

/* A new run id, or (--resume) the one in env.json after checking that the
 * run being resumed was made by this machine, commit and options. */
static sb_status start_run(bench_run *r, sb_error *err)
{
    char path[SB_PATH_MAX];
    sb_status bad = sb_path(path, err, "%s/env.json", r->results_dir);
    if (bad)
        return bad;
    if (!r->o->resume) {
        char stamp[32], id[48];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
        snprintf(id, sizeof id, "%s-%04x", stamp, (unsigned)(getpid() ^ (unsigned)now) & 0xffff);
        run_record_identity(r, id, NULL);
        return SB_OK;
    }
    sb_run_info old;
    if (!sb_run_info_read(r->results_dir, &old))
        return sb_fail(err, SB_ERR_USAGE, "--resume: %s not found; nothing to resume (run without --resume)", path);
    sb_status st = SB_OK;
    if (strcmp(old.machine_id, "?") == 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: %s is empty or not a segbench env.json (a run killed as it "
                     "began?); run without --resume to start afresh", path);
    else if (strcmp(old.run_id, "?") == 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: %s has no run id (made by an older segbench); run without --resume",
                     path);
    else if (strcmp(old.machine_id, r->env.machine_id) != 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: %s was measured on %s, this machine is %s", path, old.machine_id,
                     r->env.machine_id);
    else if (strcmp(old.commit, r->row_commit) != 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: run %s was made at commit %s, this build is %s; "
                     "run without --resume to start a new run", old.run_id, old.commit, r->row_commit);
    else if (strcmp(old.options, r->env.run_options) != 0)
        st = sb_fail(err, SB_ERR_USAGE, "--resume: run %s used '%s', this one asks for '%s'", old.run_id, old.options,
                     r->env.run_options);
    if (st)
        return st;
    run_record_identity(r, old.run_id, strcmp(old.algos, "?") ? old.algos : "");
    char text_seconds[32];
    char *env_text = sb_read_text(path);
    sb_json_get(env_text, "run_seconds", text_seconds, sizeof text_seconds);
    free(env_text);
    r->seconds_before = strcmp(text_seconds, "?") ? atof(text_seconds) : 0.0;
    fprintf(stderr, "resuming run %s (%s of %s rows measured before)\n", old.run_id, old.measured, old.planned);
    return SB_OK;
}

sb_status run_start(bench_run *r, sb_error *err)
{
    const sb_bench_opts *o = r->o;
    sb_status st;
    if (o->results_dir)
        st = sb_path(r->results_dir, err, "%s", o->results_dir);
    else
        st = sb_path(r->results_dir, err, "results/%s", r->env.machine_id);
    if (st || (st = spare_published(o, r->results_dir, sizeof r->results_dir, err)))
        return st;
    if (o->overwrite && !o->resume && (st = spare_unselected(o, r->results_dir, err)))
        return st;
    char what[200];
    snprintf(what, sizeof what, "bench (dataset %s)", r->ds.name);
    static const char busy[] = ", or use --wait (or --results DIR for another folder)";
    if ((st = sb_mkdirs(r->results_dir, err)) ||
        (st = sb_dir_lock_take(&r->lock, r->results_dir, what, o->wait, busy, err)) ||
        (st = start_run(r, err)))
        return st;
    /* what runs killed before this one left half-written (the lock says
     * no other bench writes here now) */
    char gallery[SB_PATH_MAX];
    if ((st = sb_path(gallery, err, "%s/gallery", r->results_dir)))
        return st;
    int swept = sb_temp_sweep(r->results_dir, time(NULL)) + sb_temp_sweep(gallery, time(NULL));
    if (swept)
        fprintf(stderr, "removed %d temporary file(s) left by an earlier run that was killed\n", swept);
    /* the ceilings, once the folder is this run's */
    fprintf(stderr, "measuring bandwidth ceilings (device copy, host memcpy per thread count)...\n");
    run_record_ceilings(r);
    return SB_OK;
}

void run_hold_no_folder(bench_run *r)
{
    r->lock.fd = -1;
}

void run_release_folder(bench_run *r)
{
    sb_dir_lock_release(&r->lock);
}
