/* tests/pages/docs.c - numbers in prose come from a run: the figures of
 * README.md and docs/ are what the results say (segbench docs), and the
 * committed report pages are what segbench report and segbench history
 * write now from the committed results. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "test_groups.h"

#include "io/result_set.h"
#include "io/stream_rows.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A results root of one machine, m, with its A/A of record: 3 rows, one
 * called. */
static void aa_results(const char *root)
{
    test_sh("mkdir -p %s/m", test_shq(root));
    char path[800];
    snprintf(path, sizeof path, "%s/m/aa-ab.csv", root);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs("algo,stage,row,verdict\nintegral,sum,a,same\nintegral,sum,b,slower\nkmeans,fixed10,c,undetermined\n",
              fp);
        fclose(fp);
    }
    snprintf(path, sizeof path, "%s/m/noise.csv", root);
    fp = fopen(path, "w");
    if (fp) {
        fputs("class,algo,stage,variant,threads,image,rows,pairs,floor,quantile,machine,commit,date,aa_dir\n"
              "gpu,,,,,,3,18,0.05,0.99,m,0123456789abcdef,2026-11-20T10:00:00Z,aa\n",
              fp);
        fclose(fp);
    }
}

/* A figure the results no longer say: --check names it and exits 1;
 * docs writes it; then --check passes.  Unknown kinds and arguments are
 * errors naming the line. */
static void test_figures(void)
{
    char root[700], page[700];
    snprintf(root, sizeof root, "%s", test_path("docs-results"));
    snprintf(page, sizeof page, "%s", test_path("docs-page.md"));
    aa_results(root);
    test_sh("printf '# A page\\n\\nAn A/A of <!-- sb:aa m -->9 rows calls none of them<!-- /sb -->, said.\\n"
            "Shown in code, no figure: `<!-- sb:KIND ARGS -->`, `<!-- /sb -->`.\\n' > %s",
            test_shq(page));
    cli_result *r = cli("docs --check --results-root %s %s", test_shq(root), test_shq(page));
    CHECKF(r->code == 1 && strstr(r->out, "docs-page.md:3: sb:aa m : the page says '9 rows calls none of them', the "
                                          "results '3 rows calls 1 of them (the A/A of 2026-11-20 at 0123456789ab)'") &&
               strstr(r->err, "1 of 1 figures in 1 files differ"),
           "exit %d: %s%s", r->code, r->out, r->err);
    r = cli("docs --results-root %s %s", test_shq(root), test_shq(page));
    static char text[4096];
    test_slurp(page, text, sizeof text);
    CHECKF(r->code == 0 && strstr(text, "An A/A of <!-- sb:aa m -->3 rows calls 1 of them (the A/A of 2026-11-20 at "
                                        "0123456789ab)<!-- /sb -->, said.\n"),
           "%s%s", r->err, text);
    r = cli("docs --check --results-root %s %s", test_shq(root), test_shq(page));
    CHECKF(r->code == 0 && strstr(r->out, "1 figures in 1 files checked"), "%s%s", r->out, r->err);
    test_sh("printf 'x\\n<!-- sb:median m -->1<!-- /sb -->\\n<!-- sb:aa -->2<!-- /sb -->\\n' > %s", test_shq(page));
    r = cli("docs --check --results-root %s %s", test_shq(root), test_shq(page));
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "docs-page.md:2: no figure of kind 'median'"),
           "%s", r->err);
    test_sh("printf '<!-- sb:aa -->2<!-- /sb -->\\n' > %s", test_shq(page));
    r = cli("docs --check --results-root %s %s", test_shq(root), test_shq(page));
    CHECKF(r->code == 2 && strstr(r->err, "docs-page.md:1: sb:aa takes MACHINE"), "%s", r->err);
}

/* A stream row of kmeans on results root/m: a GPU row at `share` of its
 * bound (bound by `by`), or a CPU row (share 0: its model). */
static sb_stream_row stream_row(const char *backend, double share, const char *by, const char *run)
{
    sb_stream_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.algo, sizeof r.algo, "kmeans");
    snprintf(r.stage, sizeof r.stage, "fixed10");
    snprintf(r.variant, sizeof r.variant, "%s", strcmp(backend, "cpu") ? "cuda-lastblock" : "cpu");
    snprintf(r.backend, sizeof r.backend, "%s", backend);
    snprintf(r.sequence, sizeof r.sequence, "scene-64x48");
    snprintf(r.agreement, sizeof r.agreement, "exact");
    snprintf(r.run_id, sizeof r.run_id, "%s", run);
    snprintf(r.date, sizeof r.date, "2026-11-20T10:00:00Z");
    snprintf(r.bound_by, sizeof r.bound_by, "%s", by);
    r.threads = r.in_flight = 1;
    r.width = 64, r.height = 48;
    r.frames = r.distinct = r.checked = 4;
    r.fps = 1000, r.seconds = 1;
    r.bound_fps = share > 0 ? 1000 / share : 1000;
    r.bound_fraction = share > 0 ? share : 0.5;
    r.gpu_j = r.gpu_idle_w = r.cpu_j = r.cpu_idle_w = -1;
    return r;
}

/* A page of `figures` made by `segbench docs` from root's results; its
 * text after, in text. */
static cli_result *docs_page(const char *root, const char *page, const char *figures, char *text, size_t size)
{
    FILE *fp = fopen(page, "w");
    if (fp) {
        fputs(figures, fp);
        fclose(fp);
    }
    cli_result *r = cli("docs --results-root %s %s", test_shq(root), test_shq(page));
    test_slurp(page, text, size);
    return r;
}

/* The stream rows' bound as the prose gives it (bounds, bound-share): a
 * row that beats its bound is said to, by how much and bound by what; a
 * CPU row's model is no bound; all within theirs reads "every one". */
static void test_stream_bounds(void)
{
    char root[700], path[800], page[700];
    snprintf(root, sizeof root, "%s", test_path("docs-bounds"));
    snprintf(page, sizeof page, "%s", test_path("docs-bounds.md"));
    test_sh("mkdir -p %s/m", test_shq(root));
    snprintf(path, sizeof path, "%s/m/kmeans.stream.csv", root);
    sb_stream_row rows[3] = { stream_row("cuda-shared", 0.95, "kernels", "r1"),
                              stream_row("cuda-shared", 1.05, "host", "r1"), stream_row("cpu", 0, "cpus", "r1") };
    sb_error err;
    CHECKF(sb_stream_rows_write(path, rows, 3, &err) == SB_OK, "%s", err.msg);
    static char text[4096];
    cli_result *r = docs_page(root, page,
                              "<!-- sb:bounds m -->x<!-- /sb -->\n<!-- sb:bound-share m kmeans -->x<!-- /sb -->\n", text,
                              sizeof text);
    CHECKF(r->code == 0 && strstr(text, "1 of the 2 GPU rows lie within their bound and 1 beat it, by at most 5.0 % "
                                        "(a row bound by its host) (`results/m/*.stream.csv`, run r1, 2026-11-20)") &&
               strstr(text, "95-105 % of their bound over 2 rows, bound by *kernels* or *host*"),
           "exit %d: %s%s", r->code, r->err, text);
    rows[1].bound_fraction = 0.999;
    CHECKF(sb_stream_rows_write(path, rows, 3, &err) == SB_OK, "%s", err.msg);
    r = cli("docs --check --results-root %s %s", test_shq(root), test_shq(page));
    CHECKF(r->code == 1, "a bound no longer beaten passed the check: %s%s", r->out, r->err);
    r = cli("docs --results-root %s %s", test_shq(root), test_shq(page));
    test_slurp(page, text, sizeof text);
    CHECKF(strstr(text, "every one of the 2 GPU rows lies within its bound, the highest at 99.9 %"), "%s", text);
    test_sh("printf '<!-- sb:bound-share m slic -->x<!-- /sb -->\\n' > %s", test_shq(page));
    r = cli("docs --check --results-root %s %s", test_shq(root), test_shq(page));
    CHECKF(r->code == 2 && strstr(r->err, "no GPU stream row of slic"), "exit %d: %s", r->code, r->err);
}

/* The warm table (warm-table): each K's cold and warm blocks of `stream
 * --warm` output give a row -- the runs (overlapping or in turn), where a
 * warm frame began (K frames back, or chained on the GPU), the
 * algorithm's own work count (GrabCut's iterations, not passes),
 * frames/s, p99 and the gain. */
static void test_warm_table(void)
{
    char root[700], page[700];
    snprintf(root, sizeof root, "%s", test_path("docs-warm"));
    snprintf(page, sizeof page, "%s", test_path("docs-warm.md"));
    test_sh("mkdir -p %s/m && printf '%%s\\n' "
            "'grabcut/cuda-x rect, scene-64x40 (64x40, 12 distinct frames), 3 in flight:' "
            "'        94.3 frames/s   (97 frames in 1.03 s)   latency p50 28.566 ms, p99 48.188 ms' "
            "'  bound   94.1 frames/s   (kernels: ...): 100 %% (kernels)' "
            "'  cold: each frame from the algorithm own init; iterations a frame 3.00' "
            "'grabcut/cuda-x rect, scene-64x40 (64x40, 12 distinct frames), 3 in flight:' "
            "'      1177.5 frames/s   (179 frames in 1.01 s)   latency p50 15.141 ms, p99 24.899 ms' "
            "'  warm: each frame from the result of the frame 3 before it; iterations a frame 2.25' "
            "'  warm against cold, 3 in flight: 12.49x the frames/s, p99 24.899 against 48.188 ms, iterations a frame "
            "2.25 against 3.00' "
            "'grabcut/cuda-x rect, scene-64x40 (64x40, 12 distinct frames), 2 in flight, runs in turn:' "
            "'       100.0 frames/s   (100 frames in 1.00 s)   latency p50 20.000 ms, p99 40.000 ms' "
            "'  cold: each frame from the algorithm own init; iterations a frame 3.00' "
            "'grabcut/cuda-x rect, scene-64x40 (64x40, 12 distinct frames), 2 in flight, runs in turn:' "
            "'       200.0 frames/s   (200 frames in 1.00 s)   latency p50 10.000 ms, p99 20.000 ms' "
            "'  warm: each frame from the result of the frame 1 before it, taken on the device after its run (the "
            "clip first cold); iterations a frame 1.50' "
            "'  warm against cold, 2 in flight: 2.00x the frames/s, p99 20.000 against 40.000 ms, iterations a frame "
            "1.50 against 3.00' > %s/m/warm-x.txt",
            test_shq(root), test_shq(root));
    static char text[4096];
    cli_result *r = docs_page(root, page, "<!-- sb:warm-table m warm-x.txt -->x<!-- /sb -->\n", text, sizeof text);
    CHECKF(r->code == 0 &&
               strstr(text, "| scene | K | runs | a warm frame begins from | iterations a frame, cold / warm | "
                            "frames/s, cold / warm | p99 ms, cold / warm | gain |") &&
               strstr(text, "| 64x40 | 3 | overlap | the frame 3 before | 3.00 / 2.25 | 94 / 1,178 | 48.2 / 24.9 | "
                            "12.49x |") &&
               strstr(text, "| 64x40 | 2 | in turn | the frame before, on the GPU | 3.00 / 1.50 | 100 / 200 | "
                            "40.0 / 20.0 | 2.00x |"),
           "exit %d: %s%s", r->code, r->err, text);
}

/* Text of a report page with what depends on the plots left out: a
 * report drawn without gnuplot lists its plots as missing, one drawn
 * with it does not. */
static void without_plot_notes(char *text)
{
    static const char *const NOTES[] = { "\n## Missing plots", "\n## Plots not redrawn", "\nplots not drawn" };
    for (size_t i = 0; i < sizeof NOTES / sizeof NOTES[0]; i++) {
        char *at = strstr(text, NOTES[i]);
        if (!at)
            continue;
        char *next = strstr(at + 1, "\n## ");    /* the section, to the next or the end; the line end before it kept */
        memmove(at + 1, next ? next + 1 : at + strlen(at), strlen(next ? next + 1 : at + strlen(at)) + 1);
    }
    for (char *at = strstr(text, " plots not drawn (gnuplot "); at;) {   /* history.md's line */
        char *line = at;
        while (line > text && line[-1] != '\n')
            line--;
        char *end = strchr(at, '\n');
        memmove(line, end ? end + 1 : at + strlen(at), strlen(end ? end + 1 : at + strlen(at)) + 1);
        at = strstr(line, " plots not drawn (gnuplot ");
    }
}

/* Does the committed page equal the one written now (both without their
 * plot notes)?  Counts it; says the first line that differs. */
/* history.md, REPORT.md's line on a peers.csv of before its provenance,
 * and the history figures of docs/ read git's history: a shallow clone
 * has little of it, and they are not compared there (said). */
static int shallow_clone(void)
{
    static int shallow = -1;
    if (shallow < 0) {
        cli_result *g = cli_exe("git", "rev-parse --is-shallow-repository");
        shallow = g->code == 0 && strstr(g->out, "true") != NULL;
        if (shallow)
            printf("    (a shallow clone: docs/' figures, history.md and REPORT.md, which read git's history, not "
                   "compared)\n");
    }
    return shallow;
}

static void same_page(const char *committed, const char *now, int *pages)
{
    if (shallow_clone() && (strstr(committed, "history.md") || strstr(committed, "REPORT.md")))
        return;
    char *a = test_read_all(committed), *b = test_read_all(now);
    CHECKF(a && b, "%s or %s cannot be read", committed, now);
    if (a && b) {
        without_plot_notes(a);
        without_plot_notes(b);
        (*pages)++;
        size_t k = 0;
        while (a[k] && a[k] == b[k])
            k++;
        size_t line = 1;
        for (size_t i = 0; i < k; i++)
            line += a[i] == '\n';
        CHECKF(!a[k] && !b[k], "%s differs from what the generator writes now, at line %zu: '%.160s' against '%.160s' "
               "(make report, make docs)", committed, line, a + k, b + k);
    }
    free(a);
    free(b);
}

/* The committed pages are what the generators write now: README.md's and
 * docs/'s figures (docs --check), and every report page of every
 * published machine (report and history into a scratch folder). */
static void test_committed_pages(void)
{
    cli_result *r = shallow_clone() ? NULL : cli("docs --check");
    CHECKF(!r || (r->code == 0 && strstr(r->out, " figures in ") && strstr(r->out, "checked, each as the results say")),
           "docs --check: exit %d: %s%s", r ? r->code : 0, r ? r->out : "", r ? r->err : "");
    char out[700];
    snprintf(out, sizeof out, "%s", test_path("docs-report"));
    /* as make report: each machine's history first (REPORT.md links it where it is), then the reports */
    char machine[128];
    for (int i = 0; sb_published_at("results", i, machine, sizeof machine); i++) {
        r = cli("history --machine %s --quiet --out %s", test_shq(machine), test_shq(out));
        CHECKF(r->code == 0, "history of %s: %s", machine, r->err);
    }
    r = cli("report --out %s", test_shq(out));
    CHECKF(r->code == 0, "report: %s", r->err);
    int pages = 0;
    DIR *top = opendir("report");
    for (struct dirent *m; top && (m = readdir(top));) {
        if (m->d_name[0] == '.')
            continue;
        char dir[600], committed[900], now[1500];
        snprintf(dir, sizeof dir, "report/%s", m->d_name);
        DIR *d = opendir(dir);
        if (!d) {                                     /* MACHINES.md */
            snprintf(now, sizeof now, "%s/%s", out, m->d_name);
            same_page(dir, now, &pages);
            continue;
        }
        for (struct dirent *f; (f = readdir(d));) {
            size_t len = strlen(f->d_name);
            if (len < 4 || strcmp(f->d_name + len - 3, ".md"))
                continue;
            snprintf(committed, sizeof committed, "%s/%s", dir, f->d_name);
            snprintf(now, sizeof now, "%s/%s/%s", out, m->d_name, f->d_name);
            same_page(committed, now, &pages);
        }
        closedir(d);
    }
    if (top)
        closedir(top);
    CHECKF(pages > 20, "only %d report pages compared", pages);
    printf("    (%d report pages as written now)\n", pages);
}

const sb_test tests_docs[] = {
    { "docs: a figure the results no longer say is named by --check (exit 1) and written by docs; kinds and "
      "arguments checked",
      test_figures },
    { "docs: stream rows against their bound as the prose says it -- a bound beaten is said beaten, by how much "
      "and bound by what; a CPU row's model is no bound",
      test_stream_bounds },
    { "docs: the warm table gives each K's work a frame in the algorithm's own unit, frames/s, p99 and the gain",
      test_warm_table },
    { "docs: the committed pages are what the generators write now -- README.md's and docs/'s figures, every "
      "report page, history.md",
      test_committed_pages },
};
const int tests_docs_count = sizeof tests_docs / sizeof tests_docs[0];
