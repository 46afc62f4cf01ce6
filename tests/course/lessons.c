/* test_lessons.c - the ladders as trees (issue "Every ladder a declared
 * tree of one-idea lessons"): every CUDA variant names its parent and its
 * idea and every parent exists; list --json gives parent and source; an
 * SB_RUNG line is read out of its file; old names still choose and still
 * read; `segbench lesson` prints an edge with its gain and diff, or a
 * tree; the report writes a lessons page with the steps that lost. */
#define _DEFAULT_SOURCE
#include "cli_util.h"
#include "test_groups.h"

#include "base/files.h"
#include "course/lesson_headers.h"
#include "course/lessons.h"
#include "course/lesson_share.h"
#include "variants/registry.h"
#include "variants/renames.h"
#include "io/result_set.h"
#include "io/rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The table is sound and every CUDA (or library) variant is in a tree. */
static void test_ladders_declared(void)
{
    char why[4096];
    int problems = sb_ladder_problems(why, sizeof why);
    CHECKF(problems == 0, "%d ladder problems:\n%s", problems, why);
    int rungs = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        if (strcmp(v->needs, "CUDA") != 0 && strcmp(v->needs, "NPP") != 0)
            continue;
        rungs++;
        CHECKF(v->idea && v->idea[0], "%s has no SB_RUNG", v->who);
        CHECKF(!v->parent || sb_variant_find(v->algo, v->parent), "%s grows from a missing %s", v->who, v->parent);
        CHECKF(!v->parent || strcmp(v->parent, v->name) != 0, "%s grows from itself", v->who);
    }
    CHECKF(rungs >= 40, "only %d CUDA variants in the table", rungs);
    const sb_variant *pdl = sb_variant_find("integral", "cuda-pdl");
    CHECKF(pdl && pdl->parent && !strcmp(pdl->parent, "cuda-inflight") && pdl->formerly &&
               !strcmp(pdl->formerly, "cuda-shared"),
           "integral/cuda-pdl: parent %s, formerly %s", pdl && pdl->parent ? pdl->parent : "-",
           pdl && pdl->formerly ? pdl->formerly : "-");
    const sb_variant *naive = sb_variant_find("integral", "cuda-naive");
    CHECK(naive && !naive->parent && naive->idea[0]);

    cli_result *r = cli("list --json --algo integral");
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    CHECKF(strstr(r->out, "\"name\": \"cuda-pdl\"") &&
               strstr(r->out, "\"parent\": \"cuda-inflight\", \"source\": \"impl_cuda/integral/6_pdl.cu\"") &&
               strstr(r->out, "\"parent\": null, \"source\": \"impl_cuda/integral/1_naive.cu\"") &&
               strstr(r->out, "\"formerly\": \"cuda-shared\""),
           "list --json: %.1500s", r->out);
    /* make profile asks list --json which rungs ncu must take as whole graphs */
    r = cli("list --json --algo meanshift-merge --variant cuda-graph,cuda-blocksums");
    CHECKF(r->code == 0 && strstr(r->out, "\"graph_loop\": true") && strstr(r->out, "\"graph_loop\": false"),
           "list --json: %.1500s", r->out);
    r = cli("profile integral/cuda-copy --graph-loops maybe");
    CHECKF(r->code == 2 && strstr(r->err, "--graph-loops: 'maybe' is not all, only or none"), "exit %d: %s", r->code,
           r->err);
}

/* variant_table.sh reads an SB_RUNG line out of a file as it reads
 * SB_VARIANT, across lines and with parentheses inside its strings; an
 * SB_CUDA_RUNG too, and --files lists the file that holds one. */
static void test_rung_lines_read(void)
{
    const char *root = test_pathf("vt");
    test_sh("rm -rf %s && mkdir -p %s/impl_cpu %s/impl_pthread %s/impl_cuda/x", test_shq(root), test_shq(root),
            test_shq(root), test_shq(root));
    char path[1200];
    snprintf(path, sizeof path, "%s/impl_cuda/x/2_b.cu", root);
    CHECK(test_write_text(path, "static int a;\nSB_RUNG(\"x\", \"cuda-b\", \"cuda-a\",\n"
                                "        \"an idea (with parentheses)\")\n"
                                "  SB_RUNG(\"x\", \"indented\", NULL, \"not at a line's start: not read\")\n"));
    snprintf(path, sizeof path, "%s/impl_cuda/x/3_c.cu", root);
    CHECK(test_write_text(path, "SB_CUDA_RUNG(\"x\", \"cuda-c\", \"cuda-b\", \"cuda-shared\", 0,\n"
                                "             \"an idea (f(x))\",\n             p, u, r, f, c)\nstatic int after;\n"));
    test_sh("touch %s/impl_cpu/x.c %s/impl_pthread/x_pthread.c %s/impl_pthread/x_openmp.c", test_shq(root),
            test_shq(root), test_shq(root));
    char out[1200];
    snprintf(out, sizeof out, "%s/table.inc", root);
    test_sh("sh scripts/variant_table.sh %s > %s", test_shq(root), test_shq(out));
    static char text[4096];
    test_slurp(out, text, sizeof text);
    CHECKF(strstr(text, "#line 2 \"impl_cuda/x/2_b.cu\"\nSB_RUNG(\"x\", \"cuda-b\", \"cuda-a\",\n"
                        "        \"an idea (with parentheses)\")\n") && !strstr(text, "indented") &&
               strstr(text, "#line 1 \"impl_cuda/x/3_c.cu\"\n"
                            "SB_CUDA_RUNG(\"x\", \"cuda-c\", \"cuda-b\", \"cuda-shared\", 0,\n"
                            "             \"an idea (f(x))\",\n             p, u, r, f, c)\n") &&
               !strstr(text, "after"),
           "%s", text);
    test_sh("sh scripts/variant_table.sh --files %s > %s", test_shq(root), test_shq(out));
    test_slurp(out, text, sizeof text);
    CHECKF(!strcmp(text, "impl_cuda/x/3_c.cu\n"), "--files: %s", text);
}

/* Renamed variants: the old name still chooses them and older results
 * read under the new name. */
static void test_old_names(void)
{
    CHECK(!strcmp(sb_variant_current_name("integral", "cuda-shared"), "cuda-pdl"));
    CHECK(!strcmp(sb_variant_current_name("integral", "cuda-tiles"), "cuda-inflight") &&
          sb_variant_find("integral", "cuda-tiles") == sb_variant_find("integral", "cuda-inflight"));
    CHECK(!strcmp(sb_variant_current_name("meanshift-filter", "cuda-shared"), "cuda-shared"));
    /* mean-shift's cuda-shared split by idea: the same work under its new
     * names; the pipeline's cuda-shared did other work and maps to nothing */
    CHECK(!strcmp(sb_variant_current_name("meanshift-flood", "cuda-shared"), "cuda-tiles"));
    CHECK(!strcmp(sb_variant_current_name("meanshift-merge", "cuda-shared"), "cuda-blocksums"));
    CHECK(!strcmp(sb_variant_current_name("meanshift", "cuda-shared"), "cuda-shared") &&
          !sb_variant_find("meanshift", "cuda-shared"));
    CHECK(sb_variant_find("kmeans", "cuda-shared") == sb_variant_find("kmeans", "cuda-lastblock"));
    cli_result *r = cli("list --algo integral,kmeans,slic --variant cuda-shared");
    CHECKF(r->code == 0 && strstr(r->out, "cuda-pdl") && strstr(r->out, "cuda-lastblock") &&
               strstr(r->out, "cuda-warpagg") && !strstr(r->out, "\n  cuda-tiles "),
           "exit %d: %s%s", r->code, r->out, r->err);
    const char *csv = test_pathf("old-names.csv");
    test_sh("printf '%%s\\n' 'algo,stage,variant,backend,threads,image,width,height,n,median_ms,min_ms,p25_ms,"
            "p75_ms,max_ms,e2e_n,e2e_median_ms,e2e_min_ms,e2e_p25_ms,e2e_p75_ms,e2e_max_ms,bytes,gbps,"
            "peak_fraction,agreement,agreement_metric' "
            "'integral,sum,cuda-shared,cuda-shared,1,a,8,8,3,1,1,1,1,1,3,1,1,1,1,1,320,1,0.1,exact,ok' "
            "'meanshift-filter,r16,cuda-shared,cuda-shared,1,a,8,8,3,1,1,1,1,1,3,1,1,1,1,1,320,1,0.1,exact,ok' > %s",
            test_shq(csv));
    sb_rows rows;
    sb_error err;
    CHECKF(sb_rows_read_csv(csv, &rows, &err) == SB_OK, "%s", err.msg);
    CHECKF(rows.count == 2 && !strcmp(rows.row[0].variant, "cuda-pdl") && !strcmp(rows.row[1].variant, "cuda-shared"),
           "read as %s, %s", rows.count > 0 ? rows.row[0].variant : "-", rows.count > 1 ? rows.row[1].variant : "-");
    sb_rows_free(&rows);
}

/* A CPU result set with made-up rows for three integral rungs: cuda-inflight
 * 0.10 ms, cuda-pdl 0.05 ms (2x), cuda-texture 0.08 ms (a loss). */
static const char *rung_results(void)
{
    static char dir[1200];
    snprintf(dir, sizeof dir, "%s/lesson-results", sb_test_dir());
    if (test_exists(dir))
        return dir;
    cli_result *r = cli("bench --image %s --algo integral --variant cpu --threads 1 --budget 5 --min-reps 3 "
                        "--max-reps 20 --results %s --quiet",
                        test_grey_png("lesson.png", 64, 48, 3), dir);
    CHECKF(r->code == 0, "bench: exit %d: %s", r->code, r->err);
    test_sh("cd %s && awk -F, -v OFS=, 'NR == 2 { print; $4 = \"cuda-shared\"; $3 = \"cuda-inflight\"; $29 = \"\"; $10 = 0.10; "
            "$31 = 0.4; print; $3 = \"cuda-pdl\"; $10 = 0.05; $31 = 0.2; print; $3 = \"cuda-texture\"; "
            "$4 = \"cuda-texture\"; $10 = 0.08; $31 = 0.25; print; next } { print }' integral.csv > t && "
            "mv t integral.csv && printf '%%s\\n' "
            "'stage,variant,image,kernel,block,regs,static_smem,dynamic_smem,blocks_per_sm,occupancy' "
            "'sum,cuda-inflight,lesson,void tile_sat<SumOp>,128,40,0,0,16,1.000' "
            "'sum,cuda-pdl,lesson,void tile_sat<SumOp>,128,48,0,0,10,0.625' > integral.kernels.csv && "
            "sed -i '1s/^{/{ \"device_copy_gbps\": 1.0,/' env.json && "   /* 1 GB/s: 64x48 x 5 bytes in 0.05 ms is 31 % */
            /* each made-up row's rounds, 1 % apart, so that its edge is judged (the cpu row's line, renamed) */
            "awk -F, -v OFS=, '$6 == \"round\" { print; $3 = \"cuda-inflight\"; $7 = \"0.100 0.101 0.099\"; print; "
            "$3 = \"cuda-pdl\"; $7 = \"0.0500 0.0505 0.0495\"; print; $3 = \"cuda-texture\"; "
            "$7 = \"0.080 0.081 0.079\"; print; next } { print }' integral.samples.csv > t && mv t integral.samples.csv",
            test_shq(dir));
    return dir;
}

static void test_lesson_command(void)
{
    const char *dir = rung_results();
    cli_result *r = cli("lesson integral/cuda-pdl --results %s --stage sum", dir);
    CHECKF(r->code == 0, "exit %d: %s", r->code, r->err);
    CHECKF(strstr(r->out, "integral/cuda-pdl  (impl_cuda/integral/6_pdl.cu)") &&
               strstr(r->out, "grows from: cuda-inflight  (impl_cuda/integral/5_inflight.cu)") &&
               strstr(r->out, "idea: programmatic dependent launch") &&
               strstr(r->out, "kernel 0.1 -> 0.05 ms (2.00x \xc2\xb1" "2 %), per frame 0.4 -> 0.2 ms (2.00x)") &&
               strstr(r->out, "tile_sat: regs 40 -> 48 occupancy 100 -> 62 %") &&
               strstr(r->out, "next: cuda-texture, cuda-lookback") &&
               strstr(r->out, "+++ ") && strstr(r->out, "+    asm volatile(\"griddepcontrol.wait;\""),
           "%.3000s", r->out);
    /* a kernel the rung moved into a header it lends (slic's cuda-warpagg:
     * 6_warpagg.cuh) shows only where it changed, each hunk naming its
     * file; before, the parent's kernel read as removed and the header's
     * as added, whole */
    r = cli("lesson slic/cuda-warpagg");
    CHECKF(r->code == 0 && strstr(r->out, "+// ==== 6_warpagg.cuh") &&
               strstr(r->out, "+        slic_warp_add(t.acc, local, v);") &&
               strstr(r->out, "\n     TileShared t = slic_tile_stage(g, centres);") &&
               !strstr(r->out, "-    TileShared t = slic_tile_stage(g, centres);"),
           "exit %d: %.4000s%s", r->code, r->out, r->err);
    r = cli("lesson integral --results %s --stage sum", dir);
    CHECKF(r->code == 0 && strstr(r->out, "cuda-naive") && strstr(r->out, "└─ cuda-pdl") &&
               strstr(r->out, "├─ cuda-texture") && strstr(r->out, "[branch] "),
           "exit %d: %.2000s%s", r->code, r->out, r->err);
    /* whose numbers: the set named, or the reference machine's run of record said to be so */
    CHECKF(strstr(r->out, "numbers from ") && !strstr(r->out, "the reference machine's run of record"), "%.300s",
           r->out);
    r = cli("lesson integral/cuda-pdl --no-diff");
    CHECKF(r->code == 0 && strstr(r->out, "numbers from results/") &&
               strstr(r->out, "(the reference machine's run of record, not this machine"),
           "exit %d: %.600s", r->code, r->out);
    r = cli("lesson integral/cuda-lookback --results %s --stage sum --no-diff", dir);   /* the parent alone */
    CHECKF(r->code == 0 && strstr(r->out, "this rung has no row here (its parent: kernel 0.05 ms") &&
               !strstr(r->out, "-> 0 ms"),
           "exit %d: %.600s", r->code, r->out);
    r = cli("lesson integral/cpu");
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "integral/cpu is not a rung"), "%d: %s", r->code,
           r->err);
    r = cli("lesson integral/cuda-nope");
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "has no variant 'cuda-nope'"), "%s", r->err);
    r = cli("lesson nosuch");
    CHECKF(r->code == 2 && strstr(r->err, "unknown algorithm 'nosuch'"), "%s", r->err);
    r = cli("lesson integral/cuda-pdl --results %s/none", dir);
    CHECKF(r->code == 2 && strstr(r->err, "no result rows"), "%d: %s", r->code, r->err);
    r = cli("lesson integral/cuda-shared --results %s --no-diff", dir);   /* the old name */
    CHECKF(r->code == 0 && strstr(r->out, "was called cuda-shared") && !strstr(r->out, "+++ "), "%s%s", r->out,
           r->err);
}

/* A per-frame time whose upload and download take far longer than the
 * stage's other rungs' at that image is an outlier, and an edge against it
 * shows no per-frame gain (at 4K, cuda-pdl's 1.79 ms against its
 * neighbours' 0.82 once gave its children a "2.16x"). */
static void test_frame_outliers(void)
{
    sb_rows rows = { 0 };
    /* kernel, per frame (ms): the bus takes 0.80 ms for every rung but cuda-pdl's 1.77 */
    const char *name[] = { "cuda-tilescan", "cuda-inflight", "cuda-pdl", "cuda-texture", "cuda-lookback" };
    const double kernel[] = { 0.040, 0.030, 0.024, 0.026, 0.031 }, frame[] = { 0.84, 0.83, 1.793, 0.826, 0.83 };
    for (int i = 0; i < 5; i++) {
        sb_row *r = test_row_add(&rows, "integral", "sum", name[i], "cuda-shared", 1, "synth-3840x2160", 3840, 2160);
        if (!r)
            return;
        snprintf(r->agreement, sizeof r->agreement, "exact");
        r->kernel.n = r->frame.n = 10;
        r->kernel.median = kernel[i];
        r->frame.median = frame[i];
    }
    lesson_edge e;
    char gain[64];
    lesson_edge_measure(&e, sb_variant_find("integral", "cuda-texture"), &rows, NULL, "sum");   /* pdl -> texture */
    lesson_frame_gain(&e, gain, sizeof gain);
    CHECKF(e.parent_frame_outlier && !e.frame_outlier && !strcmp(gain, "- (outlier)"), "pdl -> texture: %s", gain);
    lesson_edge_measure(&e, sb_variant_find("integral", "cuda-pdl"), &rows, NULL, "sum");       /* inflight -> pdl */
    lesson_frame_gain(&e, gain, sizeof gain);
    CHECKF(e.frame_outlier && !strcmp(gain, "- (outlier)"), "inflight -> pdl: %s", gain);
    lesson_edge_measure(&e, sb_variant_find("integral", "cuda-inflight"), &rows, NULL, "sum");  /* neither */
    lesson_frame_gain(&e, gain, sizeof gain);
    CHECKF(!e.frame_outlier && !e.parent_frame_outlier && strcmp(gain, "- (outlier)") != 0, "%s", gain);
    /* a long kernel's frame less kernel is the difference of two noisy medians: 1.3 ms against the
     * median 0.8 (1.6x) on a 38.3 ms frame moves its per-frame gain by 1 %: no outlier */
    rows.row[2].kernel.median = 37.0;
    rows.row[2].frame.median = 38.3;
    lesson_edge_measure(&e, sb_variant_find("integral", "cuda-pdl"), &rows, NULL, "sum");
    CHECKF(!e.frame_outlier, "a 0.5 ms excess on a 38.3 ms frame called an outlier");
    sb_rows_free(&rows);
}

static void test_lessons_page(void)
{
    const char *dir = rung_results(), *out = test_pathf("lesson-report");
    cli_result *r = cli("report --results %s --out %s", dir, out);
    CHECKF(r->code == 0, "report: exit %d: %s", r->code, r->err);
    static char md[1 << 16];
    char path[1200];
    snprintf(path, sizeof path, "%s/lessons-integral.md", out);
    test_slurp(path, md, sizeof md);
    CHECKF(strstr(md, "# integral: the lessons") && strstr(md, "```text\n") && strstr(md, "\ncuda-naive ") &&
               strstr(md, "| `cuda-inflight` → `cuda-pdl` | programmatic dependent launch") &&
               strstr(md, "| 0.05 | 2.00x \xc2\xb1" "2 % | 31 % | 0.2 | 2.00x | tile_sat: regs 40 -> 48 occupancy 100 -> 62 % | main |") &&
               strstr(md, "| kernel ms | gain | % of limit |") && strstr(md, "| line | idea | source |") &&
               strstr(md, " % | [impl_cuda/integral/6_pdl.cu](../../impl_cuda/integral/6_pdl.cu) |") &&
               strstr(md, "**Tried and lost**") && strstr(md, "- `cuda-texture` from `cuda-pdl`: 1.60x slower"),
           "%.600s", strstr(md, "`cuda-inflight` → `cuda-pdl`") ? strstr(md, "`cuda-inflight` → `cuda-pdl`") : md);
    snprintf(path, sizeof path, "%s/REPORT.md", out);
    test_slurp(path, md, sizeof md);
    CHECKF(strstr(md, "([lessons](lessons-integral.md))"), "REPORT.md links no lessons page");
    snprintf(path, sizeof path, "%s/integral.md", out);
    test_slurp(path, md, sizeof md);
    /* cuda-texture's step is against cuda-pdl, its parent (0.05 / 0.08), whatever comes before it */
    CHECKF(strstr(md, "| 2 | cuda-pdl | 0.0500 | 2.00x \xc2\xb1" "2 % |") &&
               strstr(md, "| 3 | cuda-texture | 0.0800 | 0.62x \xc2\xb1"),
           "integral.md's ladder: not against the parent: %.2500s",
           strstr(md, "#### The ladder") ? strstr(md, "#### The ladder") : md);
}

/* Rungs copy kernels from their parents, often with the same name.  A
 * kernel with external linkage in two rung files would share one host
 * stub after linking, and the runtime could launch one rung's device code
 * for the other: every kernel in a rung file has internal linkage.  Two
 * strong definitions fail the link; weak ones do not: template kernels'
 * stubs are weak under nvcc before 12.8 (Ubuntu's 12.0, as in CI; later
 * ones make them local).  nm on the built objects: no kernel stub is
 * defined, weak or strong, in two of them. */
static void test_kernels_private(void)
{
    /* in the source: every __global__ of a rung file is declared static */
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        size_t len = strlen(v->file);
        if (len < 3 || strcmp(v->file + len - 3, ".cu") != 0)
            continue;
        FILE *fp = fopen(v->file, "r");
        CHECKF(fp != NULL, "cannot open %s", v->file);
        if (!fp)
            continue;
        char line[1024];
        for (int no = 1; fgets(line, sizeof line, fp); no++) {
            const char *code = line + strspn(line, " \t");
            if (*code != '*' && *code != '/')     /* not a comment's line */
                CHECKF(!strstr(code, "__global__") || strstr(code, "static __global__"),
                       "%s:%d: a kernel that is not static: %s", v->file, no, code);
        }
        fclose(fp);
    }

    char list[8192] = "";
    size_t n = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *v = sb_variant_at(i);
        size_t len = strlen(v->file);
        if (len < 3 || strcmp(v->file + len - 3, ".cu") != 0)
            continue;
        char obj[400], word[404];
        snprintf(obj, sizeof obj, "build/%.*s.o", (int)(len - 3), v->file);
        snprintf(word, sizeof word, " %s ", obj);
        char padded[8200];
        snprintf(padded, sizeof padded, "%s ", list);
        if (!strstr(padded, word) && test_exists(obj) && n + strlen(obj) + 2 < sizeof list)
            n += (size_t)snprintf(list + n, sizeof list - n, " %s", obj);
    }
    if (!n) {
        printf("     (no CUDA objects built here: nothing to look at)\n");
        return;
    }
    const char *out = test_pathf("stubs.txt");
    test_sh("for o in %s; do nm \"$o\" | awk -v f=\"$o\" '$2 ~ /^[TWV]$/ && $3 ~ /__device_stub__/ "
            "{ print $3, f }'; done | sort | awk '{ n[$1]++; f[$1] = f[$1] \" \" $2 } "
            "END { for (k in n) if (n[k] > 1) print k f[k] }' > %s",
            list, test_shq(out));
    static char text[8192];
    test_slurp(out, text, sizeof text);
    CHECKF(text[0] == '\0', "kernels defined in two rung files (make them static):\n%.2000s", text);
}

/* Every rung file's opening comment names its file and what it grows
 * from ("Grows from P" on the main line, "A branch of P" for a clear loss
 * off it; no "Against P", which ten headers said), and holds no numbers:
 * what an edge bought lives in the generated lessons pages, with the run
 * that measured it (the headers' "Measured" blocks went stale with every
 * run of record, and a new one committed without rewriting them failed
 * here). */
static void test_rung_headers(void)
{
    char dir[1024];
    sb_reference_results_dir("results", dir, sizeof dir);
    char *problems = NULL;
    size_t len = 0;
    lesson_header_report r = { .fp = open_memstream(&problems, &len) };
    sb_error err;
    sb_status st = lesson_headers(dir, &r, &err);
    fclose(r.fp);
    CHECKF(st == SB_OK, "%s", err.msg);
    CHECKF(r.files >= 30 && !r.numbers && !r.wrong_words && !r.no_comment && !r.long_header && !r.no_lesson,
           "%d files, %d holding numbers, %d words, %d long, %d without a lesson:\n%.3000s", r.files, r.numbers,
           r.wrong_words, r.long_header, r.no_lesson,
           problems ? problems : "");
    free(problems);
    /* and the check can fail: numbers, a header naming another file, no comment */
    static char text[1 << 16], changed[(1 << 16) + 256];
    test_slurp("impl_cuda/kmeans/4_warpsums.cu", text, sizeof text);
    const char *file = "impl_cuda/kmeans/4_warpsums.cu";
    lesson_header_report clean = { 0 }, numbers = { 0 }, named = { 0 }, none = { 0 };
    CHECK(lesson_header_check(file, text, dir, &clean, &err) == SB_OK && clean.files == 1 && !clean.numbers &&
          !clean.wrong_words && strstr(text, "Grows from cuda-blocksums"));
    const char *end = strstr(text, " */");
    CHECK(end != NULL);
    if (end) {
        snprintf(changed, sizeof changed, "%.*s\n * Measured (the run of record: h200, run x, commit y;\n"
                 " *   kmeans converge: kernel 1.38 ms%s", (int)(end - text), text, end);
        CHECK(lesson_header_check(file, changed, dir, &numbers, &err) == SB_OK && numbers.numbers == 1);
        /* a header grown past its few lines: the lesson belongs in LESSONS.md */
        lesson_header_report longer = { 0 };
        snprintf(changed, sizeof changed, "%.*s\n * one\n * two\n * three\n * four\n * five\n * six%s",
                 (int)(end - text), text, end);
        CHECK(lesson_header_check(file, changed, dir, &longer, &err) == SB_OK && longer.long_header == 1 &&
              !clean.long_header);
    }
    /* a rung whose LESSONS.md has no section for it */
    lesson_header_report unlessoned = { 0 };
    CHECK(lesson_header_check("impl_cuda/kmeans/99_unlessoned.cu", text, dir, &unlessoned, &err) == SB_OK &&
          unlessoned.no_lesson == 1 && !clean.no_lesson);
    char *section = lesson_long_text("impl_cuda/kmeans/4_warpsums.cu");
    CHECK(section && strncmp(section, "4_warpsums.cu - ", 16) == 0 && !strstr(section, "\n## "));
    free(section);
    /* a heading with nothing under it is no lesson, not the next one's
     * (it was read as the next section: "## b.cu ...") */
    char dir_lessons[1024], notes[1100], a[1100], b[1100];
    snprintf(dir_lessons, sizeof dir_lessons, "%s", test_pathf("lessons-md"));
    mkdir(dir_lessons, 0755);
    snprintf(notes, sizeof notes, "%s/LESSONS.md", dir_lessons);
    FILE *fp = fopen(notes, "w");
    if (fp) {
        fputs("# t\n\n## a.cu\n\n\n## b.cu\n\ntext b\n\n", fp);
        fclose(fp);
    }
    snprintf(a, sizeof a, "%s/a.cu", dir_lessons);
    snprintf(b, sizeof b, "%s/b.cu", dir_lessons);
    char *empty = lesson_long_text(a), *text_b = lesson_long_text(b);
    CHECKF(!empty && text_b && strcmp(text_b, "text b") == 0, "a.cu: '%s', b.cu: '%s'", empty ? empty : "(none)",
           text_b ? text_b : "(none)");
    free(empty);
    free(text_b);
    snprintf(changed, sizeof changed, "/* 3_blocksums.cu - %s", text + strlen("/* 4_warpsums.cu - "));
    CHECK(lesson_header_check(file, changed, dir, &named, &err) == SB_OK && named.wrong_words == 1);
    CHECK(lesson_header_check(file, "#include <x.h>\n", dir, &none, &err) == SB_OK && none.no_comment == 1);
}

static const sb_variant *root_of(const sb_variant *v)
{
    while (v->parent && sb_variant_find(v->algo, v->parent))
        v = sb_variant_find(v->algo, v->parent);
    return v;
}

/* Each tree of more than one rung declares its main line's top once
 * (SB_LADDER_TOP): a main line re-derived from the fastest rung flipped
 * with near-ties between stages and runs (SLIC's cuda-rows was main at
 * s16 and a branch at n1000); the rungs above it are the main line. */
static void test_declared_main_line(void)
{
    int trees = 0;
    for (int i = 0; i < sb_variant_count(); i++) {
        const sb_variant *root = sb_variant_at(i);
        if (root->parent || !root->idea[0] || sb_is_student_variant(root->name))
            continue;
        int members = 0, tops = 0;
        const sb_variant *top = NULL;
        for (int k = 0; k < sb_variant_count(); k++) {
            const sb_variant *v = sb_variant_at(k);
            if (strcmp(v->algo, root->algo) || sb_is_student_variant(v->name) || root_of(v) != root)
                continue;
            members++;
            if (v->flags & SB_LADDER_TOP) {
                tops++;
                top = v;
            }
        }
        if (members < 2)
            continue;
        trees++;
        CHECKF(tops == 1, "%s's tree from %s (%d rungs) declares %d tops (SB_LADDER_TOP)", root->algo, root->name,
               members, tops);
        if (top)
            CHECK(lesson_on_main_line(top, NULL, "any") && lesson_on_main_line(root, NULL, "any"));
    }
    CHECKF(trees >= 10, "%d trees of more than one rung", trees);
    const sb_variant *rows = sb_variant_find("slic", "cuda-rows"), *warpagg = sb_variant_find("slic", "cuda-warpagg");
    CHECK(rows && warpagg && lesson_on_main_line(rows, NULL, "n1000") && !lesson_on_main_line(warpagg, NULL, "s16"));
}

/* An edge's gain is judged as compare judges two rows: from their rounds,
 * held to the machine's noise floor (here the defaults: 5 % for GPU rows).
 * A tie is "same", never "tried and lost" (the lessons page once listed
 * SLIC's cuda-rows, 2.439 against 2.437 ms, as lost); a gain of 19.6x is
 * never "same" (the report once read "same (19.6x)"); an interval across
 * the floor is undetermined; one round a side calls nothing and loses
 * nothing (the report once read "lost" from one sample against one). */
static void test_gain_judged(void)
{
    sb_rows rows = { 0 };
    const char *name[] = { "cuda-inflight", "cuda-pdl", "cuda-texture", "cuda-lookback" };
    const double rounds[4][3] = { { 0.98, 0.99, 0.97 },            /* inflight -> pdl: 19.6x */
                                  { 0.050, 0.0505, 0.0495 },
                                  { 0.080, 0.081, 0.079 },         /* pdl -> texture: 1.6x slower */
                                  { 0.0502, 0.0500, 0.0504 } };    /* pdl -> lookback: a tie */
    for (int i = 0; i < 4; i++) {
        sb_row *r = test_row_add(&rows, "integral", "sum", name[i], "cuda-shared", 1, "synth-3840x2160", 3840, 2160);
        if (!r || !(r->round_ms = malloc(sizeof rounds[i])))
            return;
        memcpy(r->round_ms, rounds[i], sizeof rounds[i]);
        r->nround = r->kernel.n = 3;
        r->kernel.median = rounds[i][0];
        snprintf(r->agreement, sizeof r->agreement, "exact");
    }
    struct {
        const char *rung, *says;
        int lost;
    } want[] = { { "cuda-pdl", "19.6x \xc2\xb1", 0 }, { "cuda-texture", "0.62x \xc2\xb1", 1 },
                 { "cuda-lookback", "same (1.00x)", 0 } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        lesson_edge e;
        char gain[64];
        lesson_edge_measure(&e, sb_variant_find("integral", want[i].rung), &rows, NULL, "sum");
        lesson_gain_judged(&e, gain, sizeof gain);
        CHECKF(!strncmp(gain, want[i].says, strlen(want[i].says)) && lesson_edge_lost(&e) == want[i].lost,
               "%s: '%s', lost %d", want[i].rung, gain, lesson_edge_lost(&e));
    }
    /* the tie's rounds spread across the floor: undetermined; then one round: no call */
    const double wide[3] = { 0.050, 0.056, 0.046 };
    memcpy(rows.row[3].round_ms, wide, sizeof wide);
    rows.row[3].kernel.median = 0.050;
    for (int k = 0; k < 2; k++) {
        lesson_edge e;
        char gain[64];
        lesson_edge_measure(&e, sb_variant_find("integral", "cuda-lookback"), &rows, NULL, "sum");
        lesson_gain_judged(&e, gain, sizeof gain);
        CHECKF(strstr(gain, k ? "(one round)" : "(undetermined)") && !lesson_edge_lost(&e), "'%s'", gain);
        rows.row[3].kernel.median = 0.09;     /* slower by its median, but one round: not lost */
        rows.row[3].nround = 1;
    }
    sb_rows_free(&rows);
}

/* make check-copies (scripts/rung_copies.c): a rung that copies 40 lines
 * of another file fails it unless the pair is listed; a listed pair may
 * not grow (a comment's blank lines aside), and one that shares no run any
 * more must leave the list. */
static void test_copies_ratchet(void)
{
    char tool[SB_PATH_MAX];
    if (!realpath("build/rung_copies", tool) && !realpath("build-asan/rung_copies", tool)) {
        CHECKF(0, "no build/rung_copies (make build/rung_copies)");
        return;
    }
    const char *dir = test_path("copies");
    /* a parent of 60 distinct lines, a rung that copies 45 of them and adds its own */
    test_sh("rm -rf %s && mkdir -p %s/ladder && cd %s/ladder && for i in $(seq 60); do echo \"int p$i = $i;\"; "
            "done > 1_parent.cu && { echo '// the rung'; head -45 1_parent.cu; echo 'int idea = 1;'; } > 2_rung.cu",
            test_shq(dir), test_shq(dir), test_shq(dir));
    char list[SB_PATH_MAX + 16];
    snprintf(list, sizeof list, "%s/COPIES.txt", dir);
    test_sh("printf '# none\n' > %s", test_shq(list));
    cli_result *r = cli_exe(tool, "%s %s", test_shq(dir), test_shq(list));
    CHECKF(r->code == 1 && strstr(r->out, "copy: ladder/1_parent.cu:1 and ladder/2_rung.cu:2 share 45 lines"),
           "a new copy: exit %d: %s", r->code, r->out);
    r = cli_exe(tool, "--write %s %s", test_shq(dir), test_shq(list));
    CHECK(r->code == 0);
    r = cli_exe(tool, "%s %s", test_shq(dir), test_shq(list));
    CHECKF(r->code == 0 && strstr(r->out, "1 pairs sharing") && strstr(r->out, "no new copy"), "listed: %s", r->out);
    /* a comment's blank line before the run, as a rung header ends, is no line of it (the headers' numbers
       left them on 2026-11-29, and each pair grew by the " *" both now end with) */
    test_sh("cd %s/ladder && { echo ' *'; cat 1_parent.cu; } > p && mv p 1_parent.cu && { echo '// the rung'; "
            "echo ' *'; sed -n 2,46p 1_parent.cu; echo 'int idea = 1;'; } > 2_rung.cu", test_shq(dir));
    r = cli_exe(tool, "%s %s", test_shq(dir), test_shq(list));
    CHECKF(r->code == 0 && strstr(r->out, "no new copy"), "a blank comment line counted: exit %d: %s", r->code, r->out);
    test_sh("cd %s/ladder && head -55 1_parent.cu >> 2_rung.cu", test_shq(dir));   /* the copy grows */
    r = cli_exe(tool, "%s %s", test_shq(dir), test_shq(list));
    CHECKF(r->code == 1 && strstr(r->out, "copy grown:"), "grown: exit %d: %s", r->code, r->out);
    test_sh("cd %s/ladder && { echo '// the rung'; echo 'int idea = 1;'; } > 2_rung.cu", test_shq(dir));
    r = cli_exe(tool, "%s %s", test_shq(dir), test_shq(list));
    CHECKF(r->code == 1 && strstr(r->out, "stale: ladder/1_parent.cu and ladder/2_rung.cu"), "stale: exit %d: %s",
           r->code, r->out);
}

/* scripts/ptx_same.sh, the check of a refactor that moves kernels between
 * rung files and headers: the same kernel written another way (a stage
 * moved into a device function, a local renamed) reads "the same", and
 * made a template's instance "renamed"; a changed constant reads
 * "differs" and exits 1.  In a git repository of
 * its own; needs nvcc (CI has it). */
static void test_ptx_same(void)
{
    if (system("command -v nvcc >/dev/null 2>&1") != 0) {
        printf("    (no nvcc here: scripts/ptx_same.sh not tried)\n");
        return;
    }
    char tool[SB_PATH_MAX];
    CHECKF(realpath("scripts/ptx_same.sh", tool) != NULL, "no scripts/ptx_same.sh");
    const char *dir = test_path("ptx-same");
    test_sh("rm -rf %s && mkdir -p %s/include %s/k && cd %s && git init -q . && "
            "printf '__global__ void k(int *o, int n) { int i = threadIdx.x; if (i < n) o[i] = 3 * i; }\\n' > k/k.cu && "
            "git add k && git -c user.name=t -c user.email=t@t commit -qm k",
            test_shq(dir), test_shq(dir), test_shq(dir), test_shq(dir));
    test_sh("cd %s && printf '__device__ int three(int x) { return 3 * x; }\\n"
            "__global__ void k(int *o, int n) { int t = threadIdx.x; if (t < n) o[t] = three(t); }\\n' > k/k.cu",
            test_shq(dir));
    char cmd[SB_PATH_MAX * 2 + 64];
    snprintf(cmd, sizeof cmd, "cd %s && %s HEAD k/k.cu", test_shq(dir), test_shq(tool));
    cli_result *r = cli_exe("sh", "-c %s", test_shq(cmd));
    CHECKF(r->code == 0 && strstr(r->out, "k/k.cu: 1 kernels the same, 0 renamed, 0 different"),
           "rewritten: exit %d: %s%s", r->code, r->out, r->err);
    /* the kernel made a template's instance: the same body under a new name */
    test_sh("cd %s && printf 'template <int M> __global__ void k(int *o, int n) "
            "{ int i = threadIdx.x; if (i < n) o[i] = M * i; }\ntemplate __global__ void k<3>(int *, int);\n' > k/k.cu",
            test_shq(dir));
    r = cli_exe("sh", "-c %s", test_shq(cmd));
    CHECKF(r->code == 0 && strstr(r->out, "(renamed)") && strstr(r->out, "0 kernels the same, 1 renamed, 0 different, 0 new"),
           "a template's instance: exit %d: %s%s", r->code, r->out, r->err);
    test_sh("cd %s && printf '__device__ int three(int x) { return 3 * x; }\n"
            "__global__ void k(int *o, int n) { int t = threadIdx.x; if (t < n) o[t] = three(t); }\n' > k/k.cu",
            test_shq(dir));
    test_sh("cd %s && sed -i 's/3 \\* x/4 * x/' k/k.cu", test_shq(dir));
    r = cli_exe("sh", "-c %s", test_shq(cmd));
    CHECKF(r->code == 1 && strstr(r->out, "differs") && strstr(r->out, "0 kernels the same, 0 renamed, 1 different"),
           "changed: exit %d: %s%s", r->code, r->out, r->err);
}

/* The idea's share of a lesson's diff (issue 78): a changed opening
 * comment, a changed include and a changed registration count as changed
 * but not as idea; a changed kernel line does; blank lines do not count. */
static void test_idea_share(void)
{
    const char *old_text = "/* a.cu - the parent\n * its idea\n */\n#include \"x.cuh\"\n\nint k(void) { return 1; }\n"
                           "SB_VARIANT(\"a\", \"b\",\n           \"c\")\n";
    const char *new_text = "/* b.cu - the rung\n * its idea\n */\n#include \"y.cuh\"\n\nint k(void) { return 2; }\n\n"
                           "SB_VARIANT(\"a\", \"d\",\n           \"e\")\n";
    enum lesson_line_kind ok[16], nk[16];
    int on = lesson_line_kinds(old_text, ok, 16), nn = lesson_line_kinds(new_text, nk, 16);
    CHECKF(on == 8 && nn == 9 && ok[0] == LESSON_HEADER && ok[2] == LESSON_HEADER && ok[3] == LESSON_BOILERPLATE &&
               ok[4] == LESSON_BLANK && ok[5] == LESSON_IDEA && ok[6] == LESSON_REGISTRATION &&
               ok[7] == LESSON_REGISTRATION && nk[6] == LESSON_BLANK,
           "%d and %d lines; kinds %d %d %d %d %d %d %d", on, nn, ok[0], ok[2], ok[3], ok[4], ok[5], ok[6], ok[7]);
    const char *diff = "--- a.cu\n+++ b.cu\n@@ -1,8 +1,9 @@\n-/* a.cu - the parent\n+/* b.cu - the rung\n  * its idea\n  */\n"
                       "-#include \"x.cuh\"\n+#include \"y.cuh\"\n \n-int k(void) { return 1; }\n+int k(void) { return 2; }\n+\n"
                       "-SB_VARIANT(\"a\", \"b\",\n-           \"c\")\n+SB_VARIANT(\"a\", \"d\",\n+           \"e\")\n";
    lesson_share s = { 0, 0 };
    lesson_share_of_diff(diff, ok, on, nk, nn, &s);
    CHECKF(s.changed == 10 && s.idea == 2 && s.header == 2 && s.boilerplate == 2 && s.registration == 4,
           "%d changed, %d idea, %d header, %d includes, %d registration (want 10, 2, 2, 2, 4)", s.changed, s.idea,
           s.header, s.boilerplate, s.registration);
    /* a kernel the rung moved into the header it lends, one line changed:
     * two lines of idea, not the kernel twice (removed from the parent's
     * file, added in the header) as the first measure counted it */
    const char *dir = test_path("share");
    test_sh("rm -rf %s && mkdir -p %s", test_shq(dir), test_shq(dir));
    const char *files[][2] = {
        { "3_a.cu", "/* 3_a.cu - the parent */\n#include \"x.cuh\"\nint k(int v)\n{\n    int w = v + 1;\n"
                    "    return w * 2;\n}\nSB_CUDA_RUNG(\"x\", \"a\", NULL, \"cuda-shared\", 0,\n"
                    "             \"the parent\",\n"
                    "             p, u, r, f, c)\n" },
        { "4_b.cu", "/* 4_b.cu - the rung */\n#include \"4_b.cuh\"\n"
                    "SB_CUDA_RUNG(\"x\", \"b\", \"a\", \"cuda-shared\", 0,\n"
                    "             \"the idea\",\n             p, u, r, f, c)\n" },
        { "4_b.cuh", "/* 4_b.cuh - what 4_b.cu lends */\n#include \"x.cuh\"\nint k(int v)\n{\n    int w = v + 2;\n"
                     "    return w * 2;\n}\n" },
    };
    char a[1200], b[1200];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(a, sizeof a, "%s/%s", dir, files[i][0]);
        CHECK(test_write_text(a, files[i][1]));
    }
    snprintf(a, sizeof a, "%s/3_a.cu", dir);
    snprintf(b, sizeof b, "%s/4_b.cu", dir);
    sb_error err = { 0 };
    s = (lesson_share){ 0, 0, 0, 0, 0 };
    CHECKF(lesson_files_share(a, b, &s, &err) == SB_OK && s.idea == 2 && s.header == 3,
           "%s: %d changed, %d idea, %d header, %d includes, %d registration (want 2 idea, 3 header)",
           err.msg, s.changed, s.idea, s.header, s.boilerplate, s.registration);
    cli_result *r = cli("lesson --share integral");
    CHECKF(r->code == 0 && strstr(r->out, "integral/cuda-pdl") && strstr(r->out, "edges at 70 % or more of idea") && strstr(r->out, "the rest: header ") &&
               !strstr(r->out, "kmeans/"),
           "exit %d: %s%s", r->code, r->out, r->err);
    r = cli("lesson --share nope");
    CHECKF(r->code == 2 && test_lines(r->err) == 1 && strstr(r->err, "--share takes an algorithm"), "%d: %s", r->code,
           r->err);
}

const sb_test tests_lessons[] = {
    { "lessons: the idea's share of an edge's diff: header, includes and registration apart; "
      "code moved into a lent header counts where it differs",
      test_idea_share },
    { "lessons: scripts/ptx_same.sh tells a kernel written another way from a changed one", test_ptx_same },
    { "lessons: make check-copies fails a new copy between ladder files, a grown one and a stale entry",
      test_copies_ratchet },
    { "lessons: an edge is judged from its rounds: ties are 'same', never lost; one round calls nothing",
      test_gain_judged },
    { "lessons: every tree of rungs declares its main line's top once (SB_LADDER_TOP)", test_declared_main_line },
    { "lessons: every rung file's header names its file and parent as its place says, holds no numbers, keeps to a "
      "few lines, and its whole lesson is in LESSONS.md beside it",
      test_rung_headers },
    { "lessons: every CUDA variant declares its parent and idea; list --json gives parent and source",
      test_ladders_declared },
    { "lessons: an SB_RUNG line is read out of its file", test_rung_lines_read },
    { "lessons: old names still choose a renamed variant and read in old results", test_old_names },
    { "lessons: segbench lesson prints an edge (gain, census, diff) or a tree; refuses what is not a rung",
      test_lesson_command },
    { "lessons: the report's lessons page: tree, edges, tried and lost; the ladder against the parent",
      test_lessons_page },
    { "lessons: an edge against a per-frame outlier shows no per-frame gain", test_frame_outliers },
    { "lessons: no kernel is defined in two rung files (a copied kernel keeps internal linkage)", test_kernels_private },
};
const int tests_lessons_count = sizeof tests_lessons / sizeof tests_lessons[0];
