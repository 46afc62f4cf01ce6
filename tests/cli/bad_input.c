/* test_hardening.c - hostile inputs, crashes and races, as an audit found
 * them (issue "Hardening, round 2"): each test reproduces one finding and
 * checks what segbench does now.  Nothing may be executed that came from
 * data, nothing lost or half-written, nothing left unchecked. */
#define _DEFAULT_SOURCE        /* wait4, utimes */
#include "cli_util.h"
#include "test_groups.h"

#include "io/rows.h"

#include "segbench/image_io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---- helpers ---- */

static void save_grey(const char *path, int w, int h, unsigned seed)
{
    sb_image img;
    test_random_grey(&img, w, h, seed);
    sb_error err;
    if (sb_image_save(path, &img, &err) != SB_OK)
        exit(2);
    sb_image_free(&img);
}

static void save_rgb(const char *path, int w, int h, unsigned seed)
{
    sb_image img;
    test_patchy_rgb(&img, w, h, seed);
    sb_error err;
    if (sb_image_save(path, &img, &err) != SB_OK)
        exit(2);
    sb_image_free(&img);
}

static const char *small_grey(void)
{
    const char *p = test_pathf("h-small.png");
    if (!test_exists(p))
        save_grey(p, 45, 31, 5);
    return p;
}

static const char *small_rgb(void)
{
    const char *p = test_pathf("h-small-rgb.png");
    if (!test_exists(p))
        save_rgb(p, 64, 48, 9);
    return p;
}

/* Run argv with cwd and stdin as given (NULL: unchanged), its output into
 * r; seconds and peak memory (KB) when asked. */
static void run_in(const char *cwd, const char *in, char *const argv[], cli_result *r, double *seconds, long *peak_kb)
{
    char out[1200], err[1200];                /* not tpath's: argv may point into its buffers */
    snprintf(out, sizeof out, "%s/run.out", sb_test_dir());
    snprintf(err, sizeof err, "%s/run.err", sb_test_dir());
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        if (in) {
            int i = open(in, O_RDONLY);
            dup2(i, 0);
        }
        if (cwd && chdir(cwd) != 0)
            _exit(126);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    wait4(pid, &status, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (seconds)
        *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (peak_kb)
        *peak_kb = ru.ru_maxrss;
    r->code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
    test_slurp(out, r->out, sizeof r->out);
    test_slurp(err, r->err, sizeof r->err);
}

static int count_temp_files(const char *dir) { return test_count_temp_files(dir); }

static int data_lines(const char *path)
{
    char text[1 << 16];
    test_slurp(path, text, sizeof text);
    int n = test_lines(text);
    return n > 0 ? n - 1 : 0;
}

/* ---- 1. no shell: a folder name is never shell text ---- */

/* report ran `cd '<dir>' && gnuplot ...` through system(): a results
 * folder called x';touch PWNED;' ran `touch PWNED` (with any gnuplot on
 * PATH).  gnuplot is now started with execvp in the plot folder. */
static void test_folder_name_is_not_shell(void)
{
    const char *root = test_pathf("inject");
    char cmd[4000];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/bin %s/R && printf '#!/bin/sh\\nexit 0\\n' > %s/bin/gnuplot && "
             "chmod +x %s/bin/gnuplot", test_shq(root), test_shq(root), test_shq(root), test_shq(root));
    CHECK(system(cmd) == 0);
    const char *evil = test_pathf("inject/R/x';touch PWNED;'");
    cli_result *r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 40 --quiet --results %s",
                        small_grey(), test_shq(evil));
    CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
    char path[1400];
    snprintf(path, sizeof path, "%s/bin:%s", root, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", path, 1);
    char *argv[] = { (char *)test_segbench_path(), "report", "--results-root", "R", "--out", "O", NULL };
    cli_result res;
    run_in(root, NULL, argv, &res, NULL, NULL);
    if (old_path) {
        setenv("PATH", old_path, 1);
        free(old_path);
    }
    CHECKF(res.code == 0, "report: exit %d: %s", res.code, res.err);
    CHECKF(!test_exists(test_pathf("inject/PWNED")), "a folder name ran as a shell command");
    CHECKF(strstr(res.out, "plots") != NULL, "%s", res.out);
}

/* ---- 2. a pixel limit and a memory budget, from the header ---- */

/* A 16384x16384 RGB PNG of 783 KB took 5.0 GB and 18.7 s (integral), 10.6
 * GB (slic), 21 GB and more (grabcut).  Now refused from its header. */
static void test_bomb_refused_from_header(void)
{
    const char *bomb = test_pathf("bomb.png");
    test_write_png_header(bomb, 16384, 16384);
    /* the bound: 100 MB, or (sanitizer builds start with hundreds of MB of
     * shadow) 16 MB more than loading a valid tiny PNG takes */
    char *valid[] = { (char *)test_segbench_path(), "run", "integral", (char *)small_grey(),
                      (char *)test_pathf("bomb-base.png"), NULL };
    cli_result base;
    long base_kb;
    run_in(NULL, NULL, valid, &base, NULL, &base_kb);
    long bound_kb = base_kb + 16 * 1024 > 100 * 1024 ? base_kb + 16 * 1024 : 100 * 1024;
    static char *const algos[] = { "integral", "slic", "grabcut" };
    for (int a = 0; a < 3; a++) {
        char *argv[] = { (char *)test_segbench_path(), "run", algos[a], (char *)bomb, (char *)test_pathf("bomb-out.png"),
                         NULL };
        cli_result r;
        double seconds;
        long peak_kb;
        run_in(NULL, NULL, argv, &r, &seconds, &peak_kb);
        CHECKF(r.code == 2 && strstr(r.err, "above the limit of 179.0 Mpx") && test_lines(r.err) == 1,
               "%s: exit %d: %s", algos[a], r.code, r.err);
        CHECKF(seconds < 1.0 && peak_kb < bound_kb, "%s: %.2f s, %ld KB", algos[a], seconds, peak_kb);
    }
    /* the limit is the user's to move, both ways */
    cli_result *r = cli("run integral --max-pixels 1000 %s %s", small_grey(), test_pathf("lim.png"));
    CHECKF(r->code == 2 && strstr(r->err, "--max-pixels 1395 would take it"), "exit %d: %s", r->code, r->err);
    r = cli("run integral --max-pixels 1395 %s %s", small_grey(), test_pathf("lim.png"));
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    r = cli("run integral --max-pixels 0 %s %s", small_grey(), test_pathf("lim.png"));
    CHECKF(r->code == 2 && strstr(r->err, "--max-pixels"), "exit %d: %s", r->code, r->err);
}

/* The memory a case needs, against --max-memory: run refuses, bench skips
 * the image and goes on. */
static void test_memory_budget(void)
{
    cli_result *r = cli("run slic --max-memory 1M %s %s", small_rgb(), test_pathf("mem.png"));
    CHECKF(r->code == 2 && strstr(r->err, "slic on a 64x48 image needs about") && strstr(r->err, "--max-memory") &&
               test_lines(r->err) == 1,
           "exit %d: %s", r->code, r->err);
    CHECK(!test_exists(test_pathf("mem.png")));
    r = cli("run slic --max-memory 1G %s %s", small_rgb(), test_pathf("mem.png"));
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    /* 400x300: integral needs about 36.9 MB, slic 41.2 MB (algo.h's
     * host_bytes_per_px and 32 MiB for the process) */
    const char *mid = test_pathf("h-mid-rgb.png");
    save_rgb(mid, 400, 300, 8);
    r = cli("bench --image %s --algo slic,integral --variant cpu --threads 1 --budget 2 --max-memory 38M "
            "--results %s",
            mid, test_shq(test_pathf("mem-results")));
    CHECKF(r->code == 0 && strstr(r->out, "slic      skipped on h-mid-rgb") && strstr(r->out, "--max-memory"),
           "exit %d: %s%s", r->code, r->out, r->err);
    CHECKF(data_lines(test_pathf("mem-results/integral.csv")) >= 2, "integral was not measured");
    r = cli("run slic --max-memory lots %s %s", small_rgb(), test_pathf("mem.png"));
    CHECKF(r->code == 2 && strstr(r->err, "is not a size"), "exit %d: %s", r->code, r->err);
}

/* ---- 3. one bench at a time in a results folder ---- */

static pid_t hold_lock(const char *dir, int seconds)
{
    int ready[2];
    if (pipe(ready) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char path[1200];
        snprintf(path, sizeof path, "%s/.lock", dir);
        int fd = open(path, O_RDWR | O_CREAT, 0644);
        flock(fd, LOCK_EX);
        if (ftruncate(fd, 0) == 0 && write(fd, "segbench bench (a test, pid 1 on here)\n", 39) < 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        sleep((unsigned)seconds);
        _exit(0);
    }
    char c;
    close(ready[1]);
    if (read(ready[0], &c, 1) != 1)
        pid = -1;
    close(ready[0]);
    return pid;
}

/* Two benches into one folder both exited 0 and the first one's rows
 * vanished.  Now the second says who holds the folder and exits 2, or
 * waits with --wait. */
static void test_results_folder_lock(void)
{
    const char *dir = test_pathf("locked");
    mkdir(dir, 0755);
    pid_t holder = hold_lock(dir, 60);
    CHECK(holder > 0);
    cli_result *r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 40 --quiet --results %s",
                        small_grey(), test_shq(dir));
    CHECKF(r->code == 2 && strstr(r->err, "is in use by segbench bench (a test") && strstr(r->err, "--wait") &&
               test_lines(r->err) == 1,
           "exit %d: %s", r->code, r->err);
    CHECK(!test_exists(test_pathf("locked/integral.csv")));
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);

    holder = hold_lock(dir, 1);
    r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 40 --quiet --wait --results %s",
            small_grey(), test_shq(dir));
    CHECKF(r->code == 0 && strstr(r->err, "waiting for"), "exit %d: %s", r->code, r->err);
    CHECK(data_lines(test_pathf("locked/integral.csv")) == 2);
    waitpid(holder, NULL, 0);
}

/* ---- 4. a row and its samples, written as one ---- */

static void append(const char *path, const char *text)
{
    FILE *fp = fopen(path, "a");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

/* A full disk or a kill left a row without its samples (JSON: n = 10 and
 * none), duplicate sample lines, and another run's samples beside this
 * one's; sample lines named no run.  Now samples go first, each naming its
 * run, and --resume drops what a row lacks, and lines of no row. */
static void test_resume_repairs_samples(void)
{
    const char *dir = test_pathf("repair");
    /* a 40 ms budget writes more samples than 64 KiB on most machines: the
     * file is read whole below, whatever its size */
    const char *opts = "--algo integral --variant cpu,pthread --threads 1 --budget 40 --quiet";
    cli_result *r = cli("bench --image %s %s --results %s", small_grey(), opts, test_shq(dir));
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    const char *rows = test_pathf("repair/integral.csv"), *samples = test_pathf("repair/integral.samples.csv");
    int nrows = data_lines(rows);
    CHECK(nrows == 4);
    /* the whole file: a fast machine fills more than any fixed buffer in a
     * 2 s budget (a 64 KiB one cut a sample line in CI and wrote the cut back) */
    char *text = test_read_all(samples);
    CHECK(text != NULL);
    if (!text)
        return;
    char *second = strstr(text, ",pthread,");          /* drop one row's kernel samples */
    char *line = second ? second : text;
    while (line > text && line[-1] != '\n')
        line--;
    char *end = strchr(line, '\n');
    if (second && end)
        memmove(line, end + 1, strlen(end + 1) + 1);
    FILE *fp = fopen(samples, "w");
    fputs(text, fp);
    fclose(fp);
    free(text);
    append(samples, "integral,sum,openmp,9,h-small,kernel,1.0 2.0,OTHER-RUN\n");   /* another run's */
    append(samples, "integral,sum,cuda-x,1,ghost,kernel,1.0,");                     /* a row that never came */
    char run_id[64] = "";
    sb_rows got;
    sb_error err;
    CHECK(sb_rows_read_csv(rows, &got, &err) == SB_OK);
    snprintf(run_id, sizeof run_id, "%s", got.count ? got.row[0].run_id : "");
    sb_rows_free(&got);
    append(samples, run_id);
    append(samples, "\n");

    r = cli("bench --image %s %s --results %s --resume", small_grey(), opts, test_shq(dir));
    CHECKF(r->code == 0 && strstr(r->err, "1 row(s) without all their samples and 2 sample line(s) of no row dropped"),
           "exit %d: %s", r->code, r->err);
    CHECK(data_lines(rows) == nrows);
    CHECK(sb_rows_read_csv(rows, &got, &err) == SB_OK);
    CHECK(sb_rows_read_samples(samples, &got, &err) == SB_OK);
    for (int i = 0; i < got.count; i++) {
        const sb_row *row = &got.row[i];
        CHECKF(row->kernel_ms && row->e2e_ms && row->frame_ms && row->setup_ms, "%s@%d lacks samples", row->variant,
               row->threads);
        CHECK(strcmp(row->run_id, run_id) == 0);
    }
    sb_rows_free(&got);
    text = test_read_all(samples);
    CHECK(text != NULL);
    if (!text)
        return;
    CHECKF(!strstr(text, "OTHER-RUN") && !strstr(text, "ghost"), "%s", text);
    int probes = 0;                               /* a CPU row's cache probes (machine/cache_probe.h) */
    for (const char *p = text; (p = strstr(p, ",probe,")); p++)
        probes++;
    /* the header, five kinds a row (kernel, e2e, frame, setup, round) and a CPU row's probes, no duplicates */
    CHECKF(test_lines(text) == 1 + 5 * nrows + probes && probes <= nrows, "%d lines, %d rows, %d probe lines",
           test_lines(text), nrows, probes);
    free(text);

    /* readers take a sample line only for the row of its run */
    CHECK(sb_rows_read_csv(rows, &got, &err) == SB_OK);
    append(samples, "integral,sum,cpu,1,h-small,kernel,99.0,OTHER-RUN\n");
    CHECK(sb_rows_read_samples(samples, &got, &err) == SB_OK);
    for (int i = 0; i < got.count; i++)
        if (!strcmp(got.row[i].variant, "cpu") && got.row[i].kernel_ms)
            CHECKF(got.row[i].kernel_ms[0] != 99.0, "another run's samples were read as this row's");
    sb_rows_free(&got);
}

/* ---- 5. names: every file and table holds them ---- */

/* A name with '\r' aborted bench --json ("expected 41 fields"); quality.c
 * wrote names unquoted; '|' broke the Markdown tables; two --image files of
 * one name shared their rows. */
static void test_hostile_names(void)
{
    const char *dir = test_pathf("names");
    mkdir(dir, 0755);
    const char *name = "a,b|c'd\"e\r";
    char file[1200];
    snprintf(file, sizeof file, "%s/%s.png", dir, name);
    save_rgb(file, 40, 30, 3);
    const char *results = test_pathf("names/R");
    cli_result *r = cli("bench --image %s --algo slic,integral --variant cpu --threads 1 --budget 2 --json --quiet "
                        "--results %s",
                        test_shq(file), test_shq(results));
    CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
    sb_rows rows;
    sb_error err;
    CHECK(sb_rows_read_csv(test_pathf("names/R/integral.csv"), &rows, &err) == SB_OK);
    CHECKF(rows.count == 2 && !strcmp(rows.row[0].image, name), "%d rows, image '%s'", rows.count,
           rows.count ? rows.row[0].image : "");
    sb_rows_free(&rows);
    FILE *q = fopen(test_pathf("names/R/slic.quality.csv"), "r");
    CHECK(q != NULL);
    if (q) {
        char *rec = NULL;
        size_t cap = 0;
        int n = 0, good = 0;
        while (sb_csv_read_record(q, &rec, &cap) > 0) {
            char *f[8];
            if (n++ && sb_csv_split(rec, f, 8) == 7)
                good += !strcmp(f[2], name);
        }
        free(rec);
        fclose(q);
        CHECKF(good > 0 && good == n - 1, "%d of %d quality records name the image", good, n - 1);
    }
    r = cli("report --results %s --out %s", test_shq(results), test_shq(test_pathf("names/O")));
    CHECKF(r->code == 0, "report: exit %d: %s", r->code, r->err);
    static char md[1 << 17];
    test_slurp(test_pathf("names/O/slic.md"), md, sizeof md);
    CHECKF(strstr(md, "| a,b\\|c'd\"e  |") != NULL, "the quality table's cell is not escaped");

    char d1[600], d2[600], cmd[2000];
    snprintf(d1, sizeof d1, "%s/d1/img.png", dir);
    snprintf(d2, sizeof d2, "%s/d2/img.png", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s/d1 %s/d2", test_shq(dir), test_shq(dir));
    CHECK(system(cmd) == 0);
    save_grey(d1, 20, 10, 1);
    save_grey(d2, 30, 20, 2);
    r = cli("bench --image %s --image %s --algo integral --results %s", test_shq(d1), test_shq(d2), test_shq(test_pathf("names/R2")));
    CHECKF(r->code == 2 && strstr(r->err, "two images are named 'img'") && test_lines(r->err) == 1, "exit %d: %s",
           r->code, r->err);
}

/* ---- 6. the commit is the binary's ---- */

/* The commit came from git in the current directory: a binary run from
 * another checkout named that one's, and from outside any, "unknown". */
static void test_commit_from_binary(void)
{
    cli_result *r = cli("--version");
    char commit[64] = "";
    const char *at = strstr(r->out, "commit:");
    if (at)
        sscanf(at + 7, " %63s", commit);
    commit[strcspn(commit, "-")] = '\0';
    CHECKF(strlen(commit) == 40 || strcmp(commit, "unknown") == 0, "--version: %s", r->out);
    char *argv[] = { (char *)test_segbench_path(), "env", "--no-measure", NULL };
    cli_result e;
    run_in("/", NULL, argv, &e, NULL, NULL);        /* no repository here */
    char want[100];
    snprintf(want, sizeof want, "\"commit\": \"%s\"", commit);
    CHECKF(e.code == 0 && strstr(e.out, want), "run from /: %s", e.out);
}

/* ---- 7. nothing left behind ---- */

static pid_t dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return pid;
}

static void make_old_file(const char *path)
{
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs("half", fp);
        fclose(fp);
    }
    struct timeval tv[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };
    utimes(path, tv);
}

/* SIGXFSZ (ulimit -f) killed run with its temporary output in place; bench
 * and report never removed what a SIGKILL left; env.json said
 * rows_measured: 0 beside rows on disk. */
static void test_no_leftovers(void)
{
    const char *big = test_pathf("leftover-big.png"), *out = test_pathf("leftover/out.png");
    save_grey(big, 300, 300, 11);
    mkdir(test_pathf("leftover"), 0755);
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "ulimit -f 1; exec %s run integral %s %s 2>/dev/null", test_segbench_path(), test_shq(big),
             test_shq(out));
    int status = system(cmd);
    CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ, "status %d", status);
    CHECKF(count_temp_files(test_pathf("leftover")) == 0 && !test_exists(out), "SIGXFSZ left files");
    /* with SIGXFSZ ignored, the write fails: one line naming the output and the reason */
    snprintf(cmd, sizeof cmd, "trap '' XFSZ; ulimit -f 1; exec %s run integral %s %s 2>%s", test_segbench_path(),
             test_shq(big), test_shq(out), test_shq(test_pathf("leftover.err")));
    status = system(cmd);
    char msg[2000];
    test_slurp(test_pathf("leftover.err"), msg, sizeof msg);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 2 && strstr(msg, "out.png: write failed (File too large)") &&
               !strstr(msg, ".tmp."),
           "status %d: %s", status, msg);
    CHECK(count_temp_files(test_pathf("leftover")) == 0);

    /* what a SIGKILL left is swept when its writer is dead */
    const char *dir = test_pathf("swept");
    cli_result *r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 40 --quiet --results %s",
                        small_grey(), test_shq(dir));
    CHECK(r->code == 0);
    char dead[600], live[600], gdead[600];
    snprintf(dead, sizeof dead, "%s/.integral.csv.tmp.%d.AbC123", dir, (int)dead_pid());
    snprintf(live, sizeof live, "%s/.integral.csv.tmp.%d.AbC123", dir, (int)getpid());
    snprintf(gdead, sizeof gdead, "%s/gallery/.x.png.tmp.%d.XyZ789", dir, (int)dead_pid());
    make_old_file(dead);
    make_old_file(live);
    make_old_file(gdead);
    r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 40 --quiet --results %s", small_grey(),
            test_shq(dir));
    CHECKF(r->code == 0 && strstr(r->err, "removed 2 temporary file(s)"), "exit %d: %s", r->code, r->err);
    CHECK(!test_exists(dead) && !test_exists(gdead) && test_exists(live));
    remove(live);

    /* rows_measured is true while the run goes on: kill it after two rows */
    const char *killed = test_pathf("killed");
    char *argv[] = { (char *)test_segbench_path(), "bench", "--image", (char *)small_grey(), "--algo", "integral",
                     "--threads", "1,2", "--budget", "150", "--quiet", "--results", (char *)killed, NULL };
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    char csv[700];
    snprintf(csv, sizeof csv, "%s/integral.csv", killed);
    for (int i = 0; i < 600 && data_lines(csv) < 2; i++)
        usleep(50 * 1000);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    char env[1 << 14], want[64];
    snprintf(env, sizeof env, "%s/env.json", killed);
    test_slurp(env, env, sizeof env);
    /* a kill between a row and env.json's update leaves it one behind, never more */
    char behind[64];
    snprintf(want, sizeof want, "\"rows_measured\": %d,", data_lines(csv));
    snprintf(behind, sizeof behind, "\"rows_measured\": %d,", data_lines(csv) - 1);
    CHECKF(data_lines(csv) >= 2 && (strstr(env, want) || strstr(env, behind)), "%d rows on disk; env.json: %s", data_lines(csv),
           strstr(env, "rows_measured") ? strstr(env, "rows_measured") : "-");
}

/* ---- 8. check checks every image ---- */

/* check stopped the whole algorithm (exit 2) at an image one stage cannot
 * take (1000 superpixels of a 1x1 image), and skipped large images for a
 * time budget it does not have; compare --image skipped GrabCut ("no
 * rectangle in the manifest"). */
static void test_check_takes_every_image(void)
{
    const char *one = test_pathf("one-pixel.png");
    save_rgb(one, 1, 1, 4);
    cli_result *r = cli("check --algo slic --variant cpu --image %s --image %s", one, small_rgb());
    CHECKF(r->code == 0, "exit %d: %s%s", r->code, r->out, r->err);
    CHECKF(strstr(r->out, "skipped on one-pixel (1x1)") && strstr(r->out, "h-small-rgb") &&
               strstr(r->err, "pair(s) skipped"),
           "%s%s", r->out, r->err);
    int rows = 0;
    for (const char *p = r->out; (p = strstr(p, "h-small-rgb")); p++)
        rows += strncmp(p + strcspn(p, " "), "          exact", 15) == 0 || strstr(p, " exact ") < strchr(p, '\n');
    CHECKF(rows == 3, "%d exact rows on the 64x48 image (want its three stages)", rows);

    const char *big = test_pathf("over-cap.png");            /* 2.1 Mpx: above GrabCut's bench size */
    save_rgb(big, 1500, 1400, 6);
    r = cli("check --algo grabcut-kmeans --variant cpu --image %s", big);
    CHECKF(r->code == 0 && strstr(r->out, "exact") && !strstr(r->out, "skipped"), "%s%s", r->out, r->err);
    r = cli("bench --algo grabcut-kmeans --variant cpu --budget 2 --image %s --results %s", big,
            test_shq(test_pathf("over-cap-results")));
    CHECKF(r->code == 0 && strstr(r->out, "above its bench size") && strstr(r->out, "--no-size-caps"), "%s%s", r->out,
           r->err);

    r = cli("check --algo grabcut --variant cpu --rect 2,2,30,20 --image %s", small_rgb());
    CHECKF(r->code == 0 && strstr(r->out, "exact"), "%s%s", r->out, r->err);
}

/* GrabCut compared on an --image of no rectangle of its own: the row is
 * judged, and a variant against itself is never called faster or slower.
 * "same" needs an idle machine: on a 2-core box beside other tests its
 * rounds spread 30-50 % and the interval straddles the floor, which is
 * "undetermined", as it should be (in CI's test-asan a round read 1.4x
 * its twin; on 2026-11-30 `make test` read 1.21x [0.895, 1.635]). */
static void test_compare_grabcut_on_image(void)
{
    cli_result *r = cli("compare grabcut-kmeans/cpu grabcut-kmeans/cpu --samples 9 --min-diff 0.5 --image %s",
                        small_rgb());
    CHECKF(r->code == 0 && (strstr(r->out, "same on 1") || strstr(r->out, "undetermined on 1")) &&
               strstr(r->out, "faster on 0, slower on 0") && !strstr(r->out, "no rectangle"),
           "%s%s", r->out, r->err);
    r = cli("compare grabcut-kmeans/cpu grabcut-kmeans/cpu --samples 9 --min-diff 0.5 --rect 100,1,5,5 --image %s",
            small_rgb());
    CHECKF(r->code == 0 && strstr(r->out, "skipped"), "a rectangle outside the image: %s%s", r->out, r->err);
}

/* ---- 9. the smaller ones ---- */

/* A PNG with 2 MB of compressed data after its last row (200 MB was
 * accepted silently). */
static void write_png_with_trailing_idat(const char *path)
{
    save_grey(path, 8, 8, 1);
    static unsigned char png[1 << 16];
    FILE *fp = fopen(path, "rb");
    size_t n = fread(png, 1, sizeof png, fp);
    fclose(fp);
    static unsigned char zeros[2 << 20], packed[1 << 16];
    uLongf packed_len = sizeof packed;
    compress(packed, &packed_len, zeros, sizeof zeros);
    fp = fopen(path, "wb");
    fwrite(png, 1, n - 12, fp);                      /* all but IEND */
    unsigned char len[4] = { (unsigned char)(packed_len >> 24), (unsigned char)(packed_len >> 16),
                             (unsigned char)(packed_len >> 8), (unsigned char)packed_len };
    fwrite(len, 1, 4, fp);
    fwrite("IDAT", 1, 4, fp);
    fwrite(packed, 1, packed_len, fp);
    uLong crc = crc32(crc32(0, (const Bytef *)"IDAT", 4), packed, (uInt)packed_len);
    unsigned char c[4] = { (unsigned char)(crc >> 24), (unsigned char)(crc >> 16), (unsigned char)(crc >> 8),
                           (unsigned char)crc };
    fwrite(c, 1, 4, fp);
    fwrite(png + n - 12, 1, 12, fp);                 /* IEND */
    fclose(fp);
}

static void test_smaller_findings(void)
{
    /* a .ppm for a grey picture: refused before any work */
    cli_result *r = cli("run integral %s %s", small_grey(), test_pathf("grey.ppm"));
    CHECKF(r->code == 2 && strstr(r->err, "a .ppm file holds colour, and the output picture is grey"), "%s", r->err);
    CHECK(!test_exists(test_pathf("grey.ppm")));

    /* a valid 254-character output name */
    char longname[300];
    memset(longname, 'x', 250);
    strcpy(longname + 250, ".png");
    r = cli("run integral %s %s", small_grey(), test_pathf("%s", longname));
    CHECKF(r->code == 0 && test_exists(test_pathf("%s", longname)), "exit %d: %s", r->code, r->err);

    /* Netpbm comments inside a header token, as libnetpbm reads them */
    const char *pgm = test_pathf("comment.pgm");
    FILE *fp = fopen(pgm, "wb");
    fputs("P5\n4#width\n3 #height\n255\n", fp);
    fwrite("abcdefghijkl", 1, 12, fp);
    fclose(fp);
    sb_image img;
    sb_error err;
    CHECKF(sb_image_load(pgm, SB_LOAD_NATIVE, &img, &err) == SB_OK, "%s", err.msg);
    if (img.data) {
        CHECK(img.width == 4 && img.height == 3 && img.data[11] == 'l');
        sb_image_free(&img);
    }

    /* a PNG through a pipe */
    char *argv[] = { (char *)test_segbench_path(), "run", "integral", "/dev/stdin", (char *)test_pathf("piped.png"), NULL };
    cli_result piped;
    run_in(NULL, small_grey(), argv, &piped, NULL, NULL);
    CHECKF(piped.code == 0 && test_exists(test_pathf("piped.png")), "exit %d: %s", piped.code, piped.err);
    const char *fifo = test_pathf("a-fifo.png");
    CHECK(mkfifo(fifo, 0644) == 0);
    r = cli("bench --image %s --algo integral", fifo);
    CHECKF(r->code == 2 && strstr(r->err, "not a regular file"), "exit %d: %s", r->code, r->err);

    /* compressed data after the image */
    const char *trailing = test_pathf("trailing.png");
    write_png_with_trailing_idat(trailing);
    r = cli("run integral %s %s", trailing, test_pathf("trailing-out.png"));
    CHECKF(r->code == 2 && strstr(r->err, "image data after the last row") && test_lines(r->err) == 1, "exit %d: %s",
           r->code, r->err);

    /* an empty item in a list */
    r = cli("bench --threads 1,2,,3 --image %s", small_grey());
    CHECKF(r->code == 2 && strstr(r->err, "'1,2,,3' has an empty item"), "exit %d: %s", r->code, r->err);

    /* --resume on an empty env.json */
    const char *dir = test_pathf("empty-env");
    mkdir(dir, 0755);
    fp = fopen(test_pathf("empty-env/env.json"), "w");
    fclose(fp);
    r = cli("bench --image %s --algo integral --resume --results %s", small_grey(), test_shq(dir));
    CHECKF(r->code == 2 && strstr(r->err, "is empty or not a segbench env.json"), "exit %d: %s", r->code, r->err);
}

/* make bench-slurm split SBATCH_FLAGS='--comment="a b"' at the space and
 * took PARTITIONS='a100,h 100' as three names. */
static void test_slurm_values_stay_whole(void)
{
    const char *out = test_pathf("slurm.out");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "make -s --no-print-directory bench-slurm PARTITIONS=a100 "
             "SBATCH_FLAGS='--comment=\"a b\" --qos=short' DRY_RUN=1 >%s 2>&1", test_shq(out));
    int status = system(cmd);
    static char text[1 << 16];
    test_slurp(out, text, sizeof text);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strstr(text, "--comment=a\\ b --qos=short"), "%s", text);
    snprintf(cmd, sizeof cmd, "make -s --no-print-directory bench-slurm PARTITIONS='a100,h 100' DRY_RUN=1 >%s 2>&1",
             test_shq(out));
    status = system(cmd);
    test_slurp(out, text, sizeof text);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(text, "'h 100' is not a partition or GRES name"),
           "%s", text);
    snprintf(cmd, sizeof cmd, "make -s --no-print-directory bench-slurm PARTITIONS=a100 SBATCH_FLAGS='--x=\"a' "
             "DRY_RUN=1 >%s 2>&1", test_shq(out));
    status = system(cmd);
    test_slurp(out, text, sizeof text);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(text, "an unmatched quote"), "%s", text);
}

const sb_test tests_hardening[] = {
    { "hardening: a results folder's name never runs as a shell command", test_folder_name_is_not_shell },
    { "hardening: a 16384x16384 PNG bomb is refused from its header in < 1 s, < 100 MB", test_bomb_refused_from_header },
    { "hardening: --max-memory: run refuses, bench skips and goes on", test_memory_budget },
    { "hardening: one bench at a time in a results folder (--wait waits)", test_results_folder_lock },
    { "hardening: --resume drops rows without samples and samples of no row or another run", test_resume_repairs_samples },
    { "hardening: names with , | ' \" and CR survive CSV, quality and Markdown; two images of one name refused",
      test_hostile_names },
    { "hardening: the commit is the binary's, wherever it runs", test_commit_from_binary },
    { "hardening: SIGXFSZ, SIGKILL's temp files, rows_measured after a kill", test_no_leftovers },
    { "hardening: check takes every image at every stage; size caps are bench's; GrabCut on --image", test_check_takes_every_image },
    { "hardening: compare of GrabCut with itself on an --image is judged, never faster or slower; a rectangle "
      "outside it is skipped",
      test_compare_grabcut_on_image, SB_TEST_ALONE },
    { "hardening: .ppm of grey, long names, Netpbm comments, pipes, trailing data, list items, empty env.json",
      test_smaller_findings },
    { "hardening: make bench-slurm keeps quoted flags and refuses names with spaces", test_slurm_values_stay_whole },
};
const int tests_hardening_count = sizeof tests_hardening / sizeof tests_hardening[0];
