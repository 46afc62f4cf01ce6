/* ab.c - two builds round by round, each round a fresh process (ab.h). */
#define _GNU_SOURCE                   /* environ */
#include "compare/ab.h"

#include "base/files.h"
#include "base/grow.h"
#include "compare/compare.h"
#include "compare/compare_table.h"
#include "compare/spells.h"
#include "io/env_json.h"
#include "io/noise_floor.h"
#include "io/rows.h"
#include "io/stage_view.h"
#include "measure/evidence.h"
#include "measure/paired.h"
#include "variants/outputs.h"
#include "variants/registry.h"

#include "segbench/atomic_file.h"
#include "segbench/clock.h"
#include "segbench/stats.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the two programs ---- */

static sb_status self_exe(char *out, size_t size, sb_error *err)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0)
        return sb_fail(err, SB_ERR_IO, "cannot find this program's own path (/proc/self/exe)");
    out[n] = '\0';
    return SB_OK;
}

static int executable(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0;
}

/* The baseline's segbench: the file named, or <dir>/build/segbench, or
 * <dir>/segbench. */
static sb_status baseline_exe(const char *given, char *out, size_t size, sb_error *err)
{
    struct stat sb;
    if (stat(given, &sb) != 0)
        return sb_fail(err, SB_ERR_USAGE, "--baseline-build %s: no such file or folder", given);
    if (!S_ISDIR(sb.st_mode)) {
        if (!executable(given))
            return sb_fail(err, SB_ERR_USAGE, "--baseline-build %s: not an executable segbench", given);
        snprintf(out, size, "%s", given);
        return SB_OK;
    }
    const char *const inside[] = { "build/segbench", "segbench" };
    for (size_t i = 0; i < sizeof inside / sizeof inside[0]; i++)
        if (snprintf(out, size, "%s/%s", given, inside[i]) < (int)size && executable(out))
            return SB_OK;
    return sb_fail(err, SB_ERR_USAGE, "--baseline-build %s: holds no build/segbench (build it there: make -C %s)",
                   given, given);
}

/* ---- the work folder ---- */

/* Is name one of ours: a round's folder or log ("r03-a", "r03-a.log"),
 * the table, the floors? */
static int ours(const char *name)
{
    int round;
    char side, rest[8] = "";
    if (sscanf(name, "r%2d-%c%7s", &round, &side, rest) >= 2 && (side == 'a' || side == 'b') &&
        (!rest[0] || !strcmp(rest, ".log")))
        return 1;
    return !strcmp(name, "ab.csv") || !strcmp(name, "noise.csv") || !strcmp(name, "ab.args") || !strcmp(name, ".") ||
           !strcmp(name, "..");
}

/* What every round's bench is given, one line: a resumed comparison must
 * give the same (<work>/ab.args). */
static void args_line(const ab_opts *o, char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "%s", o->noise ? "noise" : "ab");
    if (o->paired)
        n += (size_t)snprintf(out + n, size - n, " --paired --paired-samples %d", o->paired_samples);
    for (int i = 0; i < o->nbench_args && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, " %s", o->bench_args[i]);
}

/* Is <work>/rNN-x a finished round (its env.json says its run ended)? */
static int round_done(const char *work, int round, int side)
{
    char dir[SB_PATH_MAX];
    sb_run_info ri;
    return snprintf(dir, sizeof dir, "%s/r%02d-%c", work, round, "ab"[side]) < (int)sizeof dir &&
           sb_run_info_read(dir, &ri) && !strcmp(ri.finished, "true");
}

/* The work folder made, or an earlier ab's emptied of its rounds (with
 * --resume: of its unfinished ones, when it was given the same options);
 * one holding anything else is refused (it is not ours to empty). */
static sb_status work_begin(const ab_opts *o, sb_error *err)
{
    const char *work = o->work;
    char args[2048], path[SB_PATH_MAX];
    args_line(o, args, sizeof args);
    sb_status st = sb_path(path, err, "%s/ab.args", work);
    DIR *d = st ? NULL : opendir(work);
    if (!st && !d && errno != ENOENT)
        return sb_fail(err, SB_ERR_IO, "--work %s: cannot open (%s)", work, strerror(errno));
    if (!st && !d && !(st = sb_mkdirs(work, err)))
        return sb_atomic_write_text(path, args, err);
    if (st)
        return st;
    for (struct dirent *e; !st && (e = readdir(d));)
        if (!ours(e->d_name))
            st = sb_fail(err, SB_ERR_USAGE, "--work %s holds %s, which no ab wrote: give an empty or new folder",
                         work, e->d_name);
    char *before = st || !o->resume ? NULL : sb_read_text(path);
    if (!st && o->resume && (!before || strcmp(before, args) != 0))
        st = sb_fail(err, SB_ERR_USAGE, "--resume: %s was not begun with these options (%s: '%s')", work, path,
                     before ? before : "missing");
    free(before);
    rewinddir(d);
    for (struct dirent *e; !st && (e = readdir(d));) {
        int round;
        char side;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (o->resume && (sscanf(e->d_name, "r%2d-%c", &round, &side) != 2 ||
                          round_done(work, round, side == 'b')))
            continue;                   /* a finished round, its log, ab.args: kept */
        char entry[SB_PATH_MAX];
        if (!(st = sb_path(entry, err, "%s/%s", work, e->d_name)))
            st = sb_remove_tree(entry, err);
    }
    closedir(d);
    return st ? st : sb_atomic_write_text(path, args, err);
}

/* ---- one round of one side ---- */

/* The last lines of a failed bench's log, for the error. */
static void log_tail(const char *log, char *out, size_t size)
{
    char *text = sb_read_text(log);
    out[0] = '\0';
    if (!text)
        return;
    size_t len = strlen(text);
    const char *start = text + len;
    for (int lines = 0; start > text && lines < 4; start--)
        lines += start[-1] == '\n' && start != text + len;
    snprintf(out, size, "%s", start);
    free(text);
}

/* exe bench --results dir --rounds 1 ... : one process, one round, begun.
 * Its output goes to dir.log.  Paired (pair >= 0: its end of the
 * socket, kept open in it; other: the partner's end, closed in it) it
 * takes its samples in turns with the partner's (measure/paired.h). */
static sb_status bench_start(const ab_opts *o, const char *exe, const char *dir, int pair, int other, int first,
                             pid_t *pid, sb_error *err)
{
    const char *argv[SB_AB_ARGS_MAX + 16];
    int n = 0;
    argv[n++] = exe;
    argv[n++] = "bench";
    argv[n++] = "--results";
    argv[n++] = dir;
    argv[n++] = "--rounds";
    argv[n++] = "1";
    argv[n++] = "--stream";
    argv[n++] = "off";
    argv[n++] = "--repeat";
    argv[n++] = "off";
    argv[n++] = "--quiet";
    for (int i = 0; i < o->nbench_args; i++)
        argv[n++] = o->bench_args[i];
    argv[n] = NULL;
    char log[SB_PATH_MAX], part[64];
    sb_status st = sb_path(log, err, "%s.log", dir);
    if (st)
        return st;
    int nenv = 0;
    while (environ[nenv])
        nenv++;
    char **env = calloc((size_t)nenv + 2, sizeof *env);
    if (!env)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    for (int i = 0, k = 0; i < nenv; i++)         /* an SB_PAIRED of ab's own is not passed on */
        if (strncmp(environ[i], SB_PAIRED_ENV "=", strlen(SB_PAIRED_ENV) + 1) != 0)
            env[k++] = environ[i];
    if (pair >= 0) {
        snprintf(part, sizeof part, "%s=%d,%s,%d", SB_PAIRED_ENV, pair, first ? "first" : "second",
                 o->paired_samples);
        int k = 0;
        while (env[k])
            k++;
        env[k] = part;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (other >= 0)
        posix_spawn_file_actions_addclose(&fa, other);
    int e = posix_spawn(pid, exe, &fa, NULL, (char *const *)argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    if (e)
        return sb_fail(err, SB_ERR_IO, "%s: cannot run (%s)", exe, strerror(e));
    return SB_OK;
}

/* Its end: exit 1 (a row broke its contract) is the rows' to report, any
 * other failure stops the comparison. */
static sb_status bench_wait(const char *exe, const char *dir, pid_t pid, sb_error *err)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == sb_exit_code(SB_ERR_AGREEMENT)))
        return SB_OK;
    char log[SB_PATH_MAX], tail[600];
    snprintf(log, sizeof log, "%s.log", dir);
    log_tail(log, tail, sizeof tail);
    if (WIFSIGNALED(status))
        return sb_fail(err, SB_ERR_IO, "%s bench stopped by signal %d (log: %s): %s", exe, WTERMSIG(status), log,
                       tail);
    return sb_fail(err, SB_ERR_IO, "%s bench exited %d (log: %s): %s", exe, WEXITSTATUS(status), log, tail);
}

static sb_status bench_once(const ab_opts *o, const char *exe, const char *dir, sb_error *err)
{
    pid_t pid;
    sb_status st = bench_start(o, exe, dir, -1, -1, 0, &pid, err);
    return st ? st : bench_wait(exe, dir, pid, err);
}

/* Both sides' round at once, in turns: first's process holds the token
 * first.  Neither side always goes first (the caller alternates). */
static sb_status bench_pair(const ab_opts *o, const char *exe[2], const char *dir[2], int first, sb_error *err)
{
    int fd[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd) != 0)
        return sb_fail(err, SB_ERR_IO, "--paired: cannot make a socket pair (%s)", strerror(errno));
    pid_t pid[2] = { -1, -1 };
    sb_status st = SB_OK;
    for (int side = 0; side < 2 && !st; side++)
        st = bench_start(o, exe[side], dir[side], fd[side], fd[1 - side], side == first, &pid[side], err);
    close(fd[0]);                         /* the children hold theirs: a side that exits closes its end */
    close(fd[1]);
    for (int side = 0; side < 2; side++) {
        sb_error mine;
        sb_status wst = pid[side] > 0 ? bench_wait(exe[side], dir[side], pid[side], &mine) : SB_OK;
        if (wst && !st) {
            st = wst;
            *err = mine;
        }
    }
    return st;
}

static void progress(const ab_opts *o, int done, int total, double started, const char *what)
{
    if (o->quiet)
        return;
    double spent = (sb_clock_ms() - started) / 1e3, left = done ? spent * (total - done) / done : 0;
    fprintf(stderr, "\r\033[K[%d/%d] %s", done + 1, total, what);
    if (done)
        fprintf(stderr, "; %.0f s so far, about %.0f s left", spent, left);
    fflush(stderr);
}

/* Rounds first..last-1, each A B then B A: neither side always runs
 * second.  Rounds from o->rounds on are run again for spells. */
static sb_status run_rounds(const ab_opts *o, const char *exe[2], int first, int last, sb_error *err)
{
    sb_status st = SB_OK;
    double started = sb_clock_ms();
    int total = 2 * (last - first);
    for (int r = first; r < last && !st && o->paired; r++) {
        char dir[2][SB_PATH_MAX], what[160];
        if ((st = sb_path(dir[0], err, "%s/r%02d-a", o->work, r)) || (st = sb_path(dir[1], err, "%s/r%02d-b", o->work, r)))
            break;
        if (o->resume && round_done(o->work, r, 0) && round_done(o->work, r, 1))
            continue;
        snprintf(what, sizeof what, "round %d of %d, A and B in turns", r + 1, o->rounds);
        progress(o, 2 * (r - first), total, started, what);
        const char *dirs[2] = { dir[0], dir[1] };
        st = bench_pair(o, exe, dirs, r & 1, err);
    }
    for (int r = first; r < last && !st && !o->paired; r++)
        for (int j = 0; j < 2 && !st; j++) {
            int side = (r & 1) ? 1 - j : j;
            char dir[SB_PATH_MAX], what[160];
            if ((st = sb_path(dir, err, "%s/r%02d-%c", o->work, r, "ab"[side])))
                break;
            if (o->resume && round_done(o->work, r, side))
                continue;                       /* measured before this --resume */
            const char *who = o->noise ? (side ? "B (the same build)" : "A") : (side ? "B (this build)" : "A (the baseline)");
            if (r < o->rounds)
                snprintf(what, sizeof what, "round %d of %d, %s", r + 1, o->rounds, who);
            else
                snprintf(what, sizeof what, "round %d (host rounds in a spell, run again), %s", r + 1, who);
            progress(o, 2 * (r - first) + j, total, started, what);
            st = bench_once(o, exe[side], dir, err);
        }
    return st;
}

/* ---- the rows, gathered over the rounds ---- */

typedef struct ab_row {
    sb_row key;                   /* algo, stage, variant, threads, image, backend */
    double *ms[2];                /* each round's median, a side */
    double *probe[2];             /* host rows: each round's cache probe, ms (0: none) */
    int n[2];
    int spelled[2];               /* host rounds left out: run in a spell (spell_gate) */
    int failed[2];                /* a round of that side broke its contract */
    char metric[240];
    char work[2][64];             /* each side's work in its first round (io/rows.h) */
    int work_varies[2];           /* it varied within a round, or between rounds */
    double *pair;                 /* paired: each round's median log(B/A) over its pairs of samples */
    int npair;
    int unpaired;                 /* paired: some round's samples did not pair (paired.h) */
} ab_row;

typedef struct ab_rows {
    ab_row *row;
    int count, cap, rounds;       /* rounds: the most a side may have */
    double probe_quiet;           /* the quiet host's cache probe (sb_spell_quiet), ms (0: none) */
    int spelled, probed;          /* host rounds left out for a spell; host rounds probed */
    int again;                    /* rounds a side run again for spells */
} ab_rows;

static ab_row *find_or_add(ab_rows *t, const sb_row *r)
{
    for (int i = 0; i < t->count; i++)
        if (sb_row_same_key(&t->row[i].key, r))
            return &t->row[i];
    ab_row *grown = sb_grow(t->row, &t->cap, t->count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    t->row = grown;
    ab_row *a = &t->row[t->count];
    memset(a, 0, sizeof *a);
    a->key = *r;
    a->key.kernel_ms = a->key.e2e_ms = a->key.frame_ms = a->key.setup_ms = a->key.round_ms = a->key.round_work =
        a->key.round_probe = NULL;
    for (int side = 0; side < 2; side++) {
        a->ms[side] = calloc((size_t)t->rounds, sizeof(double));
        a->probe[side] = calloc((size_t)t->rounds, sizeof(double));
    }
    a->pair = calloc((size_t)t->rounds, sizeof(double));
    if (!a->ms[0] || !a->ms[1] || !a->probe[0] || !a->probe[1] || !a->pair) {
        for (int side = 0; side < 2; side++) {
            free(a->ms[side]);
            free(a->probe[side]);
        }
        free(a->pair);
        return NULL;
    }
    t->count++;
    return a;
}

static void rows_free(ab_rows *t)
{
    for (int i = 0; i < t->count; i++)
        for (int side = 0; side < 2; side++) {
            free(t->row[i].ms[side]);
            free(t->row[i].probe[side]);
        }
    for (int i = 0; i < t->count; i++)
        free(t->row[i].pair);
    free(t->row);
    memset(t, 0, sizeof *t);
}

/* A round's work for one side: its first round's, and whether any round's
 * differs from it or varied within itself. */
static void note_work(ab_row *a, int side, const char *work)
{
    if (a->n[side] == 1)
        snprintf(a->work[side], sizeof a->work[side], "%s", work);
    else if (strcmp(a->work[side], work) != 0)
        a->work_varies[side] = 1;
    a->work_varies[side] |= sb_work_text_varies(work);
}

/* A host row's cache probe in its one round (the slowest of its parts':
 * a slow row's runs each have theirs); 0: not probed. */
static double round_probe(const sb_row *row)
{
    double most = 0.0;
    for (int i = 0; row->round_probe && i < row->nprobe; i++)
        most = fmax(most, row->round_probe[i]);
    return most;
}

/* One round's rows of one algorithm, a side ("" when that side wrote none). */
static sb_status read_round(const ab_opts *o, int r, int side, const char *algo, sb_rows *rows, sb_error *err)
{
    char csv[SB_PATH_MAX], samples[SB_PATH_MAX];
    memset(rows, 0, sizeof *rows);
    sb_status st;
    if ((st = sb_path(csv, err, "%s/r%02d-%c/%s.csv", o->work, r, "ab"[side], algo)) ||
        (st = sb_path(samples, err, "%s/r%02d-%c/%s.samples.csv", o->work, r, "ab"[side], algo)))
        return st;
    if (access(csv, F_OK) != 0)
        return SB_OK;
    if ((st = sb_rows_read_csv(csv, rows, err)))
        return st;
    if (access(samples, F_OK) == 0 && (st = sb_rows_read_samples(samples, rows, err)))
        sb_rows_free(rows);
    return st;
}

/* A round's median log(B/A) over its pairs of samples (sample k of each
 * side, timed next to each other in turns); NAN when they do not pair, or
 * a sample is not a time. */
static double pair_ratio(const sb_row *a, const sb_row *b)
{
    int n = a->kernel.n;
    if (!a->kernel_ms || !b->kernel_ms || n < 1 || b->kernel.n != n || strstr(a->flags, "unpaired") ||
        strstr(b->flags, "unpaired"))
        return NAN;
    double *lr = malloc((size_t)n * sizeof *lr);
    if (!lr)
        return NAN;
    int timed = 1;
    for (int k = 0; k < n && timed; k++) {
        timed = a->kernel_ms[k] > 0 && b->kernel_ms[k] > 0 && isfinite(a->kernel_ms[k]) && isfinite(b->kernel_ms[k]);
        lr[k] = timed ? log(b->kernel_ms[k] / a->kernel_ms[k]) : 0.0;
    }
    sb_summary s;
    sb_summarize(lr, n, &s);
    free(lr);
    return timed ? s.median : NAN;
}

/* One side's row of one round into the table. */
static sb_status take_row(ab_rows *t, int side, int most, const sb_row *row, sb_error *err)
{
    ab_row *a = find_or_add(t, row);
    if (!a)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    if (!strcmp(row->agreement, "FAIL")) {
        a->failed[side] = 1;
        snprintf(a->metric, sizeof a->metric, "%s", row->metric);
    } else if (row->kernel.median > 0 && a->n[side] < most) {
        a->probe[side][a->n[side]] = round_probe(row);
        a->ms[side][a->n[side]++] = row->kernel.median;
        note_work(a, side, row->work);
    }
    return SB_OK;
}

static const sb_row *has_row(const sb_rows *rows, const sb_row *key)
{
    for (int k = 0; k < rows->count; k++)
        if (sb_row_same_key(&rows->row[k], key))
            return &rows->row[k];
    return NULL;
}

/* Paired: a round's pair of a host row, or the row marked unpaired. */
static void take_pair(ab_rows *t, const sb_rows *other, const sb_row *row)
{
    ab_row *a = find_or_add(t, row);
    if (!a || !view_is_cpu_backend(row->backend))
        return;
    const sb_row *mate = has_row(other, row);
    double lr = mate ? pair_ratio(mate, row) : NAN;
    if (isnan(lr) || a->npair >= t->rounds)
        a->unpaired = 1;
    else
        a->pair[a->npair++] = lr;
}

/* Every algorithm's rows of the result sets of rounds 0..rounds-1, each
 * side's rounds up to `most`; paired, each host row's pairs too. */
static sb_status gather(const ab_opts *o, int rounds, int most, ab_rows *t, sb_error *err)
{
    t->rounds = most;
    sb_status st = SB_OK;
    for (int r = 0; r < rounds && !st; r++)
        for (int i = 0; i < sb_algo_count() && !st; i++) {
            sb_rows rows[2];
            if ((st = read_round(o, r, 0, sb_algo_at(i)->name, &rows[0], err)))
                break;
            if ((st = read_round(o, r, 1, sb_algo_at(i)->name, &rows[1], err))) {
                sb_rows_free(&rows[0]);
                break;
            }
            for (int side = 0; side < 2; side++)
                for (int k = 0; k < rows[side].count && !st; k++)
                    st = take_row(t, side, most, &rows[side].row[k], err);
            for (int k = 0; o->paired && k < rows[1].count; k++)
                take_pair(t, &rows[0], &rows[1].row[k]);
            for (int k = 0; o->paired && k < rows[0].count; k++)
                if (!has_row(&rows[1], &rows[0].row[k]))
                    take_pair(t, &rows[1], &rows[0].row[k]);   /* only A has it: unpaired */
            sb_rows_free(&rows[0]);
            sb_rows_free(&rows[1]);
        }
    return st;
}

/* ---- spells: host rounds that ran slow for a neighbour's doing (spells.h) ---- */

/* Leave out every host round in a spell; t->spelled counts them. */
static sb_status spell_gate(ab_rows *t, sb_error *err)
{
    t->probe_quiet = 0.0;
    t->spelled = t->probed = 0;
    int n = 0, cap = 0;
    double *all = NULL;
    for (int i = 0; i < t->count; i++)
        for (int side = 0; side < 2; side++)
            for (int r = 0; r < t->row[i].n[side]; r++)
                if (t->row[i].probe[side][r] > 0) {
                    double *grown = sb_grow(all, &cap, n + 1, sizeof *all);
                    if (!grown) {
                        free(all);
                        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
                    }
                    all = grown;
                    all[n++] = t->row[i].probe[side][r];
                }
    t->probe_quiet = sb_spell_quiet(all, n);
    free(all);
    for (int i = 0; i < t->count; i++)
        for (int side = 0; side < 2; side++) {
            ab_row *a = &t->row[i];
            for (int r = 0; r < a->n[side]; r++)
                t->probed += a->probe[side][r] > 0;
            int kept = sb_spell_keep(a->ms[side], a->probe[side], a->n[side], t->probe_quiet);
            a->spelled[side] = a->n[side] - kept;
            t->spelled += a->spelled[side];
            a->n[side] = kept;
        }
    return SB_OK;
}

/* Does a host row lack rounds outside spells (fewer than `want` a side)? */
static int spells_short(const ab_rows *t, int want)
{
    for (int i = 0; i < t->count; i++)
        if ((t->row[i].spelled[0] || t->row[i].spelled[1]) && (t->row[i].n[0] < want || t->row[i].n[1] < want))
            return 1;
    return 0;
}

static void spells_line(const ab_rows *t, FILE *fp)
{
    if (!t->probed)
        return;
    fprintf(fp, "spells: %d of %d host rounds ran in one (their cache probe over %.0f %% above the quiet host's "
            "%.3f ms), left out", t->spelled, t->probed, 100.0 * SB_SPELL_MARGIN, t->probe_quiet);
    if (t->again)
        fprintf(fp, "; %d round%s a side run again for them", t->again, t->again == 1 ? "" : "s");
    fputs("\n", fp);
}

/* ---- paired samples ---- */

/* Is a row judged by its paired rounds (--paired, a host row whose every
 * round paired)? */
static int paired_row(const ab_opts *o, const ab_row *row)
{
    return o->paired && view_is_cpu_backend(row->key.backend) && !row->unpaired && row->npair == row->n[0] &&
           row->npair == row->n[1] && row->npair > 0;
}

/* A row's pairs of rounds as two sides' times: round r of A against round
 * r of B, or paired, 1 against its paired ratio.  Returns how many. */
static int row_pairs(const ab_opts *o, const ab_row *row, double *a, double *b)
{
    if (paired_row(o, row)) {
        for (int r = 0; r < row->npair; r++) {
            a[r] = 1.0;
            b[r] = exp(row->pair[r]);
        }
        return row->npair;
    }
    int n = row->n[0] < row->n[1] ? row->n[0] : row->n[1];
    for (int r = 0; r < n; r++) {
        a[r] = row->ms[0][r];
        b[r] = row->ms[1][r];
    }
    return n;
}

/* ---- ab: the table ---- */

static sb_status judge(const ab_opts *o, const ab_rows *t, const sb_noise_floor *floors, sb_compare_table *tab,
                       sb_error *err)
{
    sb_status st = SB_OK;
    sb_compare_table_print_header(tab, stdout);
    for (int i = 0; i < t->count && !st; i++) {
        const ab_row *a = &t->row[i];
        char label[300];
        snprintf(label, sizeof label, "%s t%d %s", a->key.variant, a->key.threads, a->key.image);
        sb_compare_line *line = sb_compare_table_add(tab, a->key.algo, a->key.stage, label);
        if (!line)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        int device = !view_is_cpu_backend(a->key.backend);
        if (a->failed[1]) {
            line->kind = SB_LINE_FAILED;
            snprintf(line->note, sizeof line->note, "this build's row broke its contract: %s", a->metric);
        } else if (a->failed[0]) {
            line->kind = SB_LINE_FAILED;
            snprintf(line->note, sizeof line->note, "the baseline's row broke its contract: %s", a->metric);
        } else if ((!a->n[0] && !a->spelled[0]) || (!a->n[1] && !a->spelled[1])) {
            line->kind = a->n[0] ? SB_LINE_ONLY_BASELINE : SB_LINE_ONLY_CURRENT;
            sb_summarize(a->n[0] ? a->ms[0] : a->ms[1], a->n[0] ? a->n[0] : a->n[1], a->n[0] ? &line->a : &line->b);
        } else {
            double floor = sb_floor_for_row(floors, &a->key);
            int paired = paired_row(o, a);
            if (paired)
                st = sb_compare_line_judge_paired(line, a->ms[0], a->ms[1], a->pair, a->npair, floor, o->min_diff,
                                                  err);
            else
                st = sb_compare_line_judge(line, a->ms[0], a->n[0], a->ms[1], a->n[1], floor, o->min_diff, err);
            if (!st && o->paired && !device && !paired)
                snprintf(line->note, sizeof line->note, "its samples did not pair: judged by its rounds");
            if (!st)
                sb_compare_line_work(line, a->work[0], a->work_varies[0], a->work[1], a->work_varies[1]);
            /* spells left fewer quiet rounds than asked for, the extra
             * rounds run out: the rest are a chosen few of a busy host's
             * rounds (a state the probe missed may hold all of one side's),
             * so they settle nothing */
            if (!st && !paired && (a->spelled[0] || a->spelled[1]) &&
                (a->n[0] < o->rounds || a->n[1] < o->rounds)) {
                line->eff.call = line->first_call = SB_CALL_UNDETERMINED;
                line->eff.p = 1.0;
                line->eff.rounds_needed = o->rounds;
                snprintf(line->note, sizeof line->note, "A %d, B %d of its rounds in spells",
                         a->spelled[0], a->spelled[1]);
            }
            line->kind_of_row = device ? SB_ROW_GPU : SB_ROW_CPU;
        }
        sb_compare_table_print_line(tab, line, stdout);
    }
    return st;
}

/* CPU rows left undetermined by rounds of whole processes: say what
 * would likely settle them. */
static void paired_hint(const ab_opts *o, const sb_compare_table *tab)
{
    int cpu = 0, open = 0;
    for (int i = 0; !o->paired && i < tab->count; i++)
        if (tab->line[i].kind == SB_LINE_JUDGED && tab->line[i].kind_of_row == SB_ROW_CPU) {
            cpu++;
            open += tab->line[i].eff.call == SB_CALL_UNDETERMINED;
        }
    if (open)
        printf("hint: %d of %d CPU rows undetermined: --paired runs A and B at once, a sample each in turns, so "
               "that a busy host slows both samples of a pair alike (docs/measuring.md, \"Paired samples\")\n",
               open, cpu);
}

/* The floors' file: an A/A of paired rounds gives floors of its own. */
static const char *floor_name(const ab_opts *o) { return o->paired ? "noise-paired.csv" : "noise.csv"; }

static sb_status ab_verdict(const ab_opts *o, const char *exe[2], const ab_rows *t, sb_error *err)
{
    sb_noise_floor floors;
    sb_status st = sb_compare_floors_named(o->floor_file, floor_name(o), NULL, 0, &floors, err);
    if (st)
        return st;
    sb_compare_table tab;
    if ((st = sb_compare_table_open(&tab, "ab", exe[0], exe[1], o->fdr, o->export_json, o->export_csv, err)))
        return st;
    sb_floor_describe(&floors, tab.floor_source, sizeof tab.floor_source);
    if (o->paired)
        printf("ab: %d rounds, each A and B at once, %d samples a CPU row in turns (A B A B ...), "
               "each CPU row judged by its rounds' paired ratios\nA = %s\nB = %s\n", o->rounds,
               o->paired_samples, exe[0], exe[1]);
    else
        printf("ab: %d rounds a side, each a fresh process, interleaved (A B, B A, ...)\nA = %s\nB = %s\n",
               o->rounds, exe[0], exe[1]);
    spells_line(t, stdout);
    putchar('\n');
    st = judge(o, t, &floors, &tab, err);
    if (!st) {
        sb_compare_table_finish(&tab, stdout);
        sb_compare_table_print_verdict(&tab, stdout);
        paired_hint(o, &tab);
    }
    st = sb_compare_table_close(&tab, st, err);
    sb_floor_free(&floors);
    if (!st && tab.tally.failed)
        st = sb_fail(err, SB_ERR_AGREEMENT, "%d row(s) broke the agreement contract", tab.tally.failed);
    if (!st && o->fail_on_slower && tab.tally.slower)
        st = sb_fail(err, SB_ERR_SLOWER, "B is slower on %d row(s) (--fail-on-slower)", tab.tally.slower);
    return st;
}

/* ---- noise: the floors ---- */

/* Each class's floor from the pairs of rounds (round r of A against
 * round r of B) of its rows; the false calls the interval alone would
 * make, for the record. */
static sb_status noise_floors(const ab_opts *o, const ab_rows *t, sb_error *err)
{
    sb_noise_floor f;
    sb_floor_defaults(&f);
    sb_run_info first;                      /* the machine and build the rounds ran on: the floor is theirs */
    char first_dir[SB_PATH_MAX];
    snprintf(first_dir, sizeof first_dir, "%s/r00-a", o->work);
    sb_run_info_read(first_dir, &first);
    snprintf(f.machine, sizeof f.machine, "%s", first.machine_id);
    snprintf(f.commit, sizeof f.commit, "%s", first.commit);
    time_t now = time(NULL);
    strftime(f.date, sizeof f.date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(f.aa_dir, sizeof f.aa_dir, "%s", o->work);
    double *a = malloc((size_t)(t->count * t->rounds + 1) * sizeof *a);
    double *b = malloc((size_t)(t->count * t->rounds + 1) * sizeof *b);
    int *cls = malloc((size_t)(t->count + 1) * sizeof *cls);     /* each row's class, an index into f.cls */
    if (!a || !b || !cls) {
        free(a);
        free(b);
        free(cls);
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    int called = 0, judged = 0;
    for (int i = 0; i < t->count; i++) {             /* each row: its class, its own floor */
        const ab_row *row = &t->row[i];
        char name[24];
        sb_floor_class_name(sb_floor_kind_of(&row->key), row->key.threads, name, sizeof name);
        for (cls[i] = 0; cls[i] < f.n && strcmp(f.cls[cls[i]].name, name);)
            cls[i]++;
        if (cls[i] == f.n && f.n < SB_FLOOR_CLASSES)
            snprintf(f.cls[f.n++].name, sizeof f.cls[0].name, "%s", name);
        int pairs = row_pairs(o, row, a, b);
        if (cls[i] < f.n && pairs)
            f.cls[cls[i]].rows++;
        sb_floor_row *own = pairs ? sb_floor_add_row(&f, &row->key, name) : NULL;
        if (own) {
            own->pairs = pairs;
            own->floor = sb_floor_from_pairs(a, b, pairs, 1.0);   /* its largest */
        }
        sb_effect e;
        if (paired_row(o, row))
            sb_effect_judge_paired(row->pair, row->npair, 0.0, 0.0, SB_EVIDENCE_LEVEL, &e);
        else
            sb_effect_judge(row->ms[0], row->n[0], row->ms[1], row->n[1], 0.0, &e);
        judged += row->n[0] > 1 && row->n[1] > 1;
        called += e.call == SB_CALL_FASTER || e.call == SB_CALL_SLOWER;
    }
    for (int c = 0; c < f.n; c++) {                  /* each class: the pairs of its rows' rounds */
        int n = 0;
        for (int i = 0; i < t->count; i++)
            if (cls[i] == c)
                n += row_pairs(o, &t->row[i], a + n, b + n);
        f.cls[c].pairs = n;
        f.cls[c].floor = sb_floor_from_pairs(a, b, n, SB_FLOOR_QUANTILE);
    }
    free(a);
    free(b);
    free(cls);
    f.measured = 1;
    char path[SB_PATH_MAX];
    sb_status st = o->floor_out ? sb_path(path, err, "%s", o->floor_out)
                                : sb_path(path, err, "results/%s/%s", first.machine_id, floor_name(o));
    char dir[SB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!st && slash && (st = sb_mkdirs(dir, err))) {
        sb_floor_free(&f);
        return st;
    }
    if (!st)
        st = sb_floor_write(path, &f, err);
    sb_floor_free(&f);
    if (st)
        return st;
    printf("noise: this build against itself, %d rounds a side, %s, on %s\n", o->rounds,
           o->paired ? "each both sides at once in turns (a CPU row's pairs of samples)" : "each a fresh process",
           f.machine);
    spells_line(t, stdout);
    printf("%-10s %6s %6s  %s\n", "class", "rows", "pairs", "floor (99th percentile of |log B/A| between rounds)");
    for (int c = 0; c < f.n; c++)
        printf("%-10s %6d %6d  %.1f %%\n", f.cls[c].name, f.cls[c].rows, f.cls[c].pairs, 100.0 * f.cls[c].floor);
    printf("and each of the %d rows its own: the largest |log B/A| of its pairs\n", t->count);
    printf("without a floor, the rounds' intervals alone would call %d of %d rows faster or slower: what the floor "
           "is for\nwritten: %s\n", called, judged, path);
    return SB_OK;
}

sb_status sb_ab_run(const ab_opts *o, sb_error *err)
{
    char self[SB_PATH_MAX], base[SB_PATH_MAX];
    sb_status st = self_exe(self, sizeof self, err);
    if (!st && !o->noise)
        st = baseline_exe(o->baseline_build, base, sizeof base, err);
    if (st || (st = work_begin(o, err)))
        return st;
    const char *exe[2] = { o->noise ? self : base, self };
    double started = sb_clock_ms();
    if ((st = run_rounds(o, exe, 0, o->rounds, err)))
        return st;
    /* host rounds in spells run again, a round a side at a time, until
     * each host row has --rounds outside them or the extra rounds run out */
    int most = o->rounds + (o->spell_rounds < 0 ? o->rounds : o->spell_rounds);
    most = most > SB_AB_ROUNDS_MAX ? SB_AB_ROUNDS_MAX : most;
    ab_rows t = { 0 };
    for (int rounds = o->rounds; !st; rounds++) {
        rows_free(&t);
        if ((st = gather(o, rounds, most, &t, err)))
            break;
        if (!o->keep_spells && !o->paired && (st = spell_gate(&t, err)))
            break;
        t.again = rounds - o->rounds;
        /* paired, a spell slows both samples of a pair alike: no round is left out */
        if (rounds >= most || o->keep_spells || o->paired || !spells_short(&t, o->rounds))
            break;
        st = run_rounds(o, exe, rounds, rounds + 1, err);
    }
    if (!o->quiet)
        fprintf(stderr, "\r\033[K%d benches in %.0f s\n", 2 * (o->rounds + t.again), (sb_clock_ms() - started) / 1e3);
    if (!st && !t.count)
        st = sb_fail(err, SB_ERR_USAGE, "no rows were measured: the selection (%s) chose none", o->work);
    if (!st)
        st = o->noise ? noise_floors(o, &t, err) : ab_verdict(o, exe, &t, err);
    rows_free(&t);
    return st;
}
