/* cmd_grade.c - `segbench grade ALGO/student-RUNG`: grade a student's copy
 * of a rung (segbench exercise wrote the stub) the way a course must, so
 * that a grade cannot be gamed and carries across machines:
 *
 *   1. exact: every stage it implements, on every image of the set and on
 *      images of awkward sizes drawn from a seed the student does not
 *      choose (--seed lets the teacher repeat a grade), each run with its
 *      outputs poisoned first;
 *   2. clean: on a GPU, compute-sanitizer memcheck and racecheck of the
 *      student's rung on a small image (racecheck not where the lesson is
 *      a loop of conditional graph nodes, SB_GRAPH_LOOP, which it cannot
 *      follow);
 *   3. fast: the student's rung, its parent and the reference solution
 *      timed interleaved (as compare does), the student's output poisoned
 *      and checked again after every timed run; speed is given as ratios
 *      (never absolute times) and as "x limit" against the stage's limit
 *      on this machine (the report's: its memory floor at this machine's
 *      copy rate, or, for a GPU rung, the issue floor of the stage's
 *      fastest rung in the reference machine's profile, if larger).
 *
 * The verdict: wrong output or a sanitizer finding fails (exit 1); exact
 * but not faster than the parent, or below 0.9x the reference solution's
 * speed (the lesson not learnt), exits 3; else 0.
 * For a lesson that loses (a branch whose reference solution is not
 * faster than the parent either) speed cannot tell a stub from a solution:
 * it passes when exact, no slower than the reference, and no TODO part of
 * the stub is left.  One summary line on stdout; --json and --class write
 * the record and a leaderboard line. */
#define _DEFAULT_SOURCE
#include "cli/commands.h"
#include "harness/select.h"
#include "harness/names.h"

#include "base/args.h"

#include "harness/cases.h"
#include "harness/device_status.h"
#include "harness/harness.h"
#include "harness/outputs.h"
#include "io/env.h"
#include "io/result_set.h"
#include "base/json_out.h"
#include "course/exercise.h"
#include "course/lessons.h"
#include "report/report_limits.h"

#include "segbench/atomic_file.h"
#include "segbench/device.h"
#include "segbench/image_io.h"
#include "segbench/rng.h"
#include "segbench/spawn.h"
#include "segbench/stats.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MAX_FILES = 64, MAX_GENERATED = 16 };

/* A lesson that wins is learnt when the student's rung is faster than its
 * parent and within a tenth of the reference solution's speed: "faster"
 * alone passed an unchanged stub that ran 5 % faster than its parent (the
 * same code, compiled apart) on the H100. */
#define GRADE_OF_REFERENCE 0.90

enum {
    OPT_SET, OPT_IMAGE, OPT_SPEED_SET, OPT_SEED, OPT_GENERATED, OPT_STAGE, OPT_SAMPLES, OPT_THREADS, OPT_NO_SANITIZER, OPT_JSON,
    OPT_CLASS, OPT_STUDENT, OPT_MIN_DIFF, OPT_ALPHA, OPT_COUNT
};

static const sb_option GRADE_OPTIONS[OPT_COUNT] = {
    [OPT_SET] = { "set", "NAME", "smoke", "the image set it must be exact on" },
    [OPT_IMAGE] = { "image", "FILE", NULL, "an image file instead of a set (repeat for more; the largest is timed)" },
    [OPT_SPEED_SET] = { "speed-set", "NAME", "default", "the set whose summary image (the report's) is timed" },
    [OPT_SEED] = { "seed", "N", "drawn at random, and printed", "the seed of the generated images (the teacher's)" },
    [OPT_GENERATED] = { "generated", "N", "4", "images of awkward sizes generated from the seed (0 to 16)" },
    [OPT_STAGE] = { "stage", "NAME", "the first it implements", "the stage timed (exactness: every stage)" },
    [OPT_SAMPLES] = { "samples", "N", "15", "interleaved timed runs of each of the three" },
    [OPT_THREADS] = { "threads", "N", "every core", "threads of a CPU rung and its reference solution" },
    [OPT_NO_SANITIZER] = { "no-sanitizer", NULL, NULL, "leave out compute-sanitizer (a GPU rung's memcheck, racecheck)" },
    [OPT_JSON] = { "json", "FILE", NULL, "the grade as a JSON record (- for stdout)" },
    [OPT_CLASS] = { "class", "FILE.csv", NULL, "append the grade to a class leaderboard" },
    [OPT_STUDENT] = { "student", "NAME", "$USER", "the name on the leaderboard" },
    [OPT_MIN_DIFF] = { "min-diff", "F", "0.03", "the smallest speed change that counts" },
    [OPT_ALPHA] = { "alpha", "P", "0.01", "significance level of the Mann-Whitney test" },
};

const sb_command sb_cmd_grade = {
    "grade", "ALGO/student-RUNG [options]",
    "Grade a student's rung: exact on the set and on seeded images, sanitizer-clean, faster than its parent.",
    "  make exercise ALGO=integral RUNG=cuda-transposed && make && ./build/segbench grade integral/student-cuda-transposed\n"
    "Speed is the student's rung against its parent and the reference solution, interleaved on this\n"
    "machine, as ratios (a grade carries across GPUs), and as x limit (kernel median over the stage's\n"
    "limit: the bytes it must move at this machine's measured copy rate or, on a GPU, the warp\n"
    "instructions of the stage's fastest rung in the reference machine's profile, whichever is longer).\n",
    GRADE_OPTIONS, OPT_COUNT, 0,
    "0 pass; 1 wrong output or a sanitizer finding; 2 usage or input error (not built: run make);\n"
    "             3 correct but not faster than the parent (or, for a lesson that loses, TODO parts left); 130 interrupted",
    cmd_grade,
};

typedef struct grade_opts {
    const char *set, *speed_set;
    char *files[MAX_FILES];
    int nfiles;
    unsigned long long seed;
    int have_seed, generated, samples, threads, sanitizer;
    const char *stage, *json, *class_csv, *student;
    double min_diff, alpha;
} grade_opts;

typedef struct grade {
    const sb_variant *student, *reference, *parent;
    int checks, images;               /* checks run, on this many images */
    char wrong[600];                  /* the first broken check, "" when none */
    char memcheck[200], racecheck[200];
    int sanitizer_failed;
    char stage[32], image[128];
    int timed;                        /* the speed part ran */
    sb_summary s_student, s_parent, s_reference;
    sb_comparison vs_parent, vs_reference;   /* ratio: student / other */
    int ref_beats_parent;
    double bytes, x_limit;            /* the bytes the timed stage must move; the student over the stage's limit */
    const char *limit_floor;          /* which floor is the limit: "memory" or "issue" */
    int todo_left;
    const char *verdict;
    int exit_code;
    char machine[96], commit[48], date[40];
} grade;

/* ---- images of awkward sizes ---------------------------------------------------------------- */

/* Sizes that catch what tiles and warps forget: one pixel, odd primes,
 * one off a power of two, a thin strip.  Drawn from the seed. */
static void awkward_size(sb_rng *r, int *w, int *h)
{
    static const int sides[] = { 1, 2, 3, 7, 17, 31, 33, 63, 65, 97, 127, 129, 255, 257, 383, 511, 513 };
    int n = (int)(sizeof sides / sizeof sides[0]);
    *w = sides[sb_rng_below(r, (uint32_t)n)];
    *h = sides[sb_rng_below(r, (uint32_t)n)];
    if (sb_rng_below(r, 3) == 0)                  /* now and then a size off the list */
        *w = 1 + (int)sb_rng_below(r, 700);
}

/* A picture with edges, gradients and noise: flat regions of a few
 * colours (segmenters need them), a ramp, and per-pixel noise. */
static sb_status generated_image(sb_rng *r, int w, int h, const char *path, sb_error *err)
{
    sb_image img;
    sb_status st = sb_image_alloc(&img, w, h, 3, err);
    if (st)
        return st;
    uint8_t palette[6][3];
    for (int c = 0; c < 6; c++)
        for (int k = 0; k < 3; k++)
            palette[c][k] = (uint8_t)sb_rng_below(r, 256);
    int cx = (int)sb_rng_below(r, (uint32_t)w), cy = (int)sb_rng_below(r, (uint32_t)h);
    int noise = 1 + (int)sb_rng_below(r, 24);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int region = ((x < cx) + 2 * (y < cy) + ((x + y) % 97 < 11 ? 4 : 0)) % 6;
            for (int k = 0; k < 3; k++) {
                int v = palette[region][k] + (x * (k + 1)) % 29 - 14 + (int)sb_rng_below(r, (uint32_t)noise) -
                        noise / 2;
                img.data[((size_t)y * w + x) * 3 + k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
        }
    st = sb_image_save(path, &img, err);
    sb_image_free(&img);
    return st;
}

/* ---- 1. exact ------------------------------------------------------------------------------ */

static sb_status check_image(const grade_opts *o, grade *g, const sb_algo *algo, const sb_dataset_image *im,
                             void *stream, sb_error *err)
{
    char why[300];
    if (!sb_case_fits(algo, im->width, im->height, why, sizeof why))
        return SB_OK;                          /* over the memory budget: not this image */
    sb_image loaded;
    sb_status st = sb_image_load(im->path, algo->load_mode, &loaded, err);
    if (st)
        return st;
    int counted = 0;
    for (int s = 0; s < algo->stage_count && !st && !g->wrong[0]; s++) {
        if (!(g->student->stages & (1u << s)))
            continue;
        sb_case_data cd;
        int usable = 0;
        if ((st = sb_case_open_image(&cd, algo, s, im, &loaded, &usable, why, sizeof why, err)) || !usable)
            continue;                          /* an error, or the stage cannot take this image */
        sb_agreement ag;
        void *strm = (g->student->flags & SB_DEVICE) ? stream : NULL;
        st = sb_check_only(&cd.c, g->student, o->threads, strm, &ag, err);
        if (!st) {
            g->checks++;
            counted = 1;
            if (!ag.ok)
                snprintf(g->wrong, sizeof g->wrong, "wrong output on %s (%dx%d), stage %s: %s", im->name, im->width,
                         im->height, algo->stages[s], ag.metric);
        }
        sb_case_close(&cd);
    }
    g->images += counted;
    sb_image_free(&loaded);
    return st;
}

/* ---- 2. clean ------------------------------------------------------------------------------ */

/* compute-sanitizer: in $CUDA_HOME/bin, /usr/local/cuda/bin, else on PATH. */
static int find_sanitizer(char *out, size_t size)
{
    const char *dirs[] = { getenv("CUDA_HOME"), "/usr/local/cuda" };
    for (int i = 0; i < 2; i++)
        if (dirs[i] && snprintf(out, size, "%s/bin/compute-sanitizer", dirs[i]) < (int)size && access(out, X_OK) == 0)
            return 1;
    return sb_find_program("compute-sanitizer", out, size);
}

/* compute-sanitizer --tool TOOL on `segbench check` of the student's rung
 * (no shell), its output to log. */
static void sanitize(const char *tool, const char *sanitizer, const sb_variant *v, const char *image, const char *log,
                     char *result, size_t size, int *failed)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(result, size, "not run: cannot find this program");
        return;
    }
    exe[n] = '\0';
    char *const argv[] = { (char *)sanitizer, "--tool", (char *)tool, "--error-exitcode", "9", "--print-limit", "5",
                           exe, "check", "--algo", (char *)v->algo, "--variant", (char *)v->name, "--image",
                           (char *)image, NULL };
    int code = sb_spawn(argv, NULL, log);
    if (code == 0) {
        snprintf(result, size, "clean");
        return;
    }
    *failed = 1;
    if (code == 9)
        snprintf(result, size, "errors (see %s)", log);
    else if (code == 1)
        snprintf(result, size, "wrong output under the sanitizer (see %s)", log);
    else
        snprintf(result, size, "could not run (exit %d; see %s)", code, log);
}

/* ---- 3. fast ------------------------------------------------------------------------------- */

static sb_status time_three(const grade_opts *o, grade *g, const sb_case *c, void *stream, sb_error *err)
{
    const sb_variant *v[3] = { g->student, g->parent, g->reference };
    int threads[3] = { o->threads, (g->parent->flags & SB_THREADED) ? o->threads : 1, o->threads };
    sb_session s[3];
    memset(s, 0, sizeof s);
    double *ms[3];
    for (int k = 0; k < 3; k++)
        ms[k] = calloc((size_t)o->samples, sizeof(double));
    sb_status st = (!ms[0] || !ms[1] || !ms[2]) ? sb_fail(err, SB_ERR_NOMEM, "out of memory") : SB_OK;
    for (int k = 0; k < 3 && !st; k++) {
        void *strm = (v[k]->flags & SB_DEVICE) ? stream : NULL;
        if ((st = sb_session_open(&s[k], c, v[k], threads[k], strm, 1, err)))
            break;
        double warm;
        for (int w = 0; w < 3 && !st; w++)                /* warm-up */
            st = sb_session_sample(&s[k], 1, &warm, err);
    }
    /* Rotate who goes first, so none always follows the same one.  Every
     * timed run starts from poisoned outputs and is checked after; all
     * three sides alike, so the host's work between runs (which changes
     * what the GPU's clocks and queues see) is the same for each. */
    for (int i = 0; i < o->samples && !st && !g->wrong[0]; i++)
        for (int j = 0; j < 3 && !st && !g->wrong[0]; j++) {
            int k = (i + j) % 3;
            sb_output_poison(s[k].out);
            st = sb_session_sample(&s[k], 1, &ms[k][i], err);
            sb_agreement ag;
            if (!st)
                st = sb_session_check(&s[k], &ag, err);
            if (!st && !ag.ok)
                snprintf(g->wrong, sizeof g->wrong, "%s: wrong output after timed run %d on %s, stage %s: %s",
                         v[k]->who, i + 1, g->image, g->stage, ag.metric);
        }
    if (!st && !g->wrong[0]) {
        g->timed = 1;
        sb_summarize(ms[0], o->samples, &g->s_student);
        sb_summarize(ms[1], o->samples, &g->s_parent);
        sb_summarize(ms[2], o->samples, &g->s_reference);
        sb_compare_samples(ms[1], o->samples, ms[0], o->samples, o->alpha, o->min_diff, &g->vs_parent);
        sb_compare_samples(ms[2], o->samples, ms[0], o->samples, o->alpha, o->min_diff, &g->vs_reference);
        sb_comparison ref_parent;
        sb_compare_samples(ms[1], o->samples, ms[2], o->samples, o->alpha, o->min_diff, &ref_parent);
        g->ref_beats_parent = ref_parent.verdict == SB_FASTER;
        g->bytes = c->algo->bytes ? c->algo->bytes(c->input, c->params, c->reference) : 0;
    }
    for (int k = 0; k < 3; k++) {
        sb_session_close(&s[k]);
        free(ms[k]);
    }
    return st;
}

static sb_status grade_speed(const grade_opts *o, grade *g, const sb_algo *algo, const sb_dataset *ds, void *stream,
                             sb_error *err)
{
    int stage = -1;
    for (int s = 0; s < algo->stage_count && stage < 0; s++)
        if ((g->student->stages & (1u << s)) && (!o->stage || strcmp(o->stage, algo->stages[s]) == 0))
            stage = s;
    if (stage < 0)
        return sb_fail(err, SB_ERR_USAGE, "--stage: %s has no stage '%s' that %s implements", algo->name, o->stage,
                       g->student->who);
    snprintf(g->stage, sizeof g->stage, "%s", algo->stages[stage]);
    /* The image timed: the summary image of --speed-set (the report's,
     * large enough that the kernels, not launches, are timed), else the
     * largest image checked. */
    sb_dataset speed = { 0 };
    sb_error quiet;
    const sb_dataset_image *im = NULL;
    if (!o->nfiles && sb_select_images(o->speed_set, NULL, 0, NULL, &speed, &quiet) == SB_OK)
        im = sb_summary_image(&speed, algo, 1);
    else if (!o->nfiles)
        printf("  note: %s; timing the largest image checked instead\n", quiet.msg);
    for (int i = 0; i < ds->count && (o->nfiles || !im); i++)
        if (sb_bench_takes_image(algo, &ds->images[i], 1) &&
            (!im || (long)ds->images[i].width * ds->images[i].height > (long)im->width * im->height))
            im = &ds->images[i];
    if (!im) {
        sb_dataset_free(&speed);
        return sb_fail(err, SB_ERR_USAGE, "no image can time %s", algo->name);
    }
    snprintf(g->image, sizeof g->image, "%s", im->name);
    printf("  timing %s at %s (%dx%d): %d interleaved runs each of the student's, the parent's and the reference's\n",
           g->stage, im->name, im->width, im->height, o->samples);
    fflush(stdout);
    sb_image loaded;
    sb_status st = sb_image_load(im->path, algo->load_mode, &loaded, err);
    if (st) {
        sb_dataset_free(&speed);
        return st;
    }
    int usable = 0;
    char why[300];
    sb_case_data cd;
    if (!(st = sb_case_open_image(&cd, algo, stage, im, &loaded, &usable, why, sizeof why, err)) && !usable)
        st = sb_fail(err, SB_ERR_USAGE, "%s cannot time %s: %s", algo->name, im->name, why);
    if (!st) {
        st = time_three(o, g, &cd.c, stream, err);
        sb_case_close(&cd);
    }
    sb_image_free(&loaded);
    sb_dataset_free(&speed);
    return st;
}

/* ---- the record ---------------------------------------------------------------------------- */

static double speedup(const sb_comparison *c) { return c->ratio > 0 ? 1.0 / c->ratio : 0; }

static void summary_line(const grade *g, const grade_opts *o, FILE *fp)
{
    fprintf(fp, "grade %s: %s", g->student->who, g->verdict);
    fprintf(fp, "  exact: %d check%s on %d image%s (seed %llu)", g->checks, g->checks == 1 ? "" : "s", g->images,
            g->images == 1 ? "" : "s", o->seed);
    if (g->wrong[0])
        fprintf(fp, ", %s", g->wrong);
    if (g->memcheck[0])
        fprintf(fp, "; memcheck %s, racecheck %s", g->memcheck, g->racecheck);
    if (g->timed) {
        fprintf(fp, "; %s at %s: %.2fx its parent %s (%s), %.2fx the reference %s (%s)", g->stage, g->image,
                speedup(&g->vs_parent), g->parent->name, sb_verdict_name(g->vs_parent.verdict),
                speedup(&g->vs_reference), g->reference->name, sb_verdict_name(g->vs_reference.verdict));
        if (g->x_limit > 0)
            fprintf(fp, ", %.2fx limit (%s)", g->x_limit, g->limit_floor);
    }
    if (g->todo_left)
        fprintf(fp, "; %d TODO part%s left", g->todo_left, g->todo_left == 1 ? "" : "s");
    fprintf(fp, "\n");
}

static void json_record(const grade *g, const grade_opts *o, FILE *fp)
{
    fprintf(fp, "{");
    sb_json_key_str(fp, "student", o->student);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "variant", g->student->who);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "reference", g->reference->name);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "parent", g->parent->name);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "verdict", g->verdict);
    fprintf(fp, ", \"exit\": %d, \"seed\": %llu, \"checks\": %d, \"images\": %d, ", g->exit_code, o->seed, g->checks,
            g->images);
    sb_json_key_str(fp, "wrong", g->wrong);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "memcheck", g->memcheck[0] ? g->memcheck : "not run");
    fprintf(fp, ", ");
    sb_json_key_str(fp, "racecheck", g->racecheck[0] ? g->racecheck : "not run");
    fprintf(fp, ", ");
    sb_json_key_str(fp, "stage", g->stage);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "image", g->image);
    fprintf(fp, ", \"samples\": %d, ", g->timed ? o->samples : 0);
    sb_json_key_num(fp, "speedup_vs_parent", g->timed ? speedup(&g->vs_parent) : NAN);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "vs_parent", g->timed ? sb_verdict_name(g->vs_parent.verdict) : "");
    fprintf(fp, ", ");
    sb_json_key_num(fp, "speedup_vs_reference", g->timed ? speedup(&g->vs_reference) : NAN);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "vs_reference", g->timed ? sb_verdict_name(g->vs_reference.verdict) : "");
    fprintf(fp, ", ");
    sb_json_key_num(fp, "x_limit", g->x_limit > 0 ? g->x_limit : NAN);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "limit_floor", g->x_limit > 0 ? g->limit_floor : "");
    fprintf(fp, ", \"todo_left\": %d, ", g->todo_left);
    sb_json_key_str(fp, "machine", g->machine);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "commit", g->commit);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "date", g->date);
    fprintf(fp, "}\n");
}

#define CLASS_HEADER "date,student,variant,verdict,exit,seed,checks,speedup_vs_parent,speedup_vs_reference,x_limit,machine,commit\n"

/* A field of the leaderboard: a name with a comma or quote is quoted. */
static void csv_field(char *out, size_t size, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        snprintf(out, size, "%s", s);
        return;
    }
    size_t n = 0;
    out[n++] = '"';
    for (; *s && n + 3 < size; s++) {
        if (*s == '"')
            out[n++] = '"';
        out[n++] = (*s == '\n' || *s == '\r') ? ' ' : *s;
    }
    out[n++] = '"';
    out[n] = '\0';
}

/* The leaderboard gets one more line: the old file and the line, written
 * whole to a temporary file and renamed over it. */
static sb_status class_append(const grade *g, const grade_opts *o, sb_error *err)
{
    size_t cap = 1 << 16, len = 0;
    char *text = NULL;
    FILE *fp = fopen(o->class_csv, "rb");
    if (fp) {
        fseek(fp, 0, SEEK_END);
        long size = ftell(fp);
        rewind(fp);
        if (size < 0 || size > (64L << 20)) {
            fclose(fp);
            return sb_fail(err, SB_ERR_LIMIT, "%s: unreadable or over 64 MB", o->class_csv);
        }
        cap = (size_t)size + 1024;
        text = malloc(cap);
        len = text ? fread(text, 1, (size_t)size, fp) : 0;
        fclose(fp);
        if (!text)
            return sb_fail(err, SB_ERR_NOMEM, "out of memory");
        text[len] = '\0';
        if (len && strncmp(text, CLASS_HEADER, strlen(CLASS_HEADER)) != 0) {
            free(text);
            return sb_fail(err, SB_ERR_FORMAT, "%s is not a segbench class leaderboard (its first line differs)",
                           o->class_csv);
        }
    } else if (errno != ENOENT) {
        return sb_fail(err, SB_ERR_IO, "%s: %s", o->class_csv, strerror(errno));
    } else if (!(text = malloc(cap))) {
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    }
    if (len == 0)
        len = (size_t)snprintf(text, cap, "%s", CLASS_HEADER);
    else if (text[len - 1] != '\n')
        text[len++] = '\n';
    char who[300];
    csv_field(who, sizeof who, o->student);
    snprintf(text + len, cap - len, "%s,%s,%s,%s,%d,%llu,%d,%.3f,%.3f,%.2f,%s,%s\n", g->date, who, g->student->who,
             g->verdict, g->exit_code, o->seed, g->checks, g->timed ? speedup(&g->vs_parent) : 0,
             g->timed ? speedup(&g->vs_reference) : 0, g->x_limit, g->machine, g->commit);
    sb_status st = sb_atomic_write_text(o->class_csv, text, err);
    free(text);
    return st;
}

/* ---- the command --------------------------------------------------------------------------- */

static sb_status grade_parse(int argc, char **argv, grade_opts *o, const char **spec, sb_error *err)
{
    memset(o, 0, sizeof *o);
    o->set = "smoke";
    o->speed_set = "default";
    o->generated = 4;
    o->samples = 15;
    o->sanitizer = 1;
    o->min_diff = 0.03;
    o->alpha = 0.01;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cores > 0 ? (int)cores : 1;
    o->student = getenv("USER") && getenv("USER")[0] ? getenv("USER") : "student";
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_grade, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_SET: o->set = p.value; break;
        case OPT_SPEED_SET: o->speed_set = p.value; break;
        case OPT_IMAGE:
            if (o->nfiles == MAX_FILES)
                return sb_fail(err, SB_ERR_USAGE, "--image: at most %d files", MAX_FILES);
            o->files[o->nfiles++] = (char *)p.value;
            break;
        case OPT_SEED: {
            char *end;
            errno = 0;
            o->seed = strtoull(p.value, &end, 10);
            if (errno || end == p.value || *end || p.value[0] == '-')
                return sb_fail(err, SB_ERR_USAGE, "--seed: '%s' is not a whole number", p.value);
            o->have_seed = 1;
            break;
        }
        case OPT_GENERATED: st = sb_parse_int(p.value, 0, MAX_GENERATED, "--generated", &o->generated, err); break;
        case OPT_STAGE: o->stage = p.value; break;
        case OPT_SAMPLES: st = sb_parse_int(p.value, 9, 1000, "--samples", &o->samples, err); break;
        case OPT_THREADS: st = sb_parse_int(p.value, 1, 1024, "--threads", &o->threads, err); break;
        case OPT_NO_SANITIZER: o->sanitizer = 0; break;
        case OPT_JSON: o->json = p.value; break;
        case OPT_CLASS: o->class_csv = p.value; break;
        case OPT_STUDENT: o->student = p.value; break;
        case OPT_MIN_DIFF: st = sb_parse_double(p.value, 0, 1, "--min-diff", &o->min_diff, err); break;
        case OPT_ALPHA: st = sb_parse_double(p.value, 1e-9, 0.5, "--alpha", &o->alpha, err); break;
        case SB_OPT_ARG:
            if (*spec)
                return sb_fail(err, SB_ERR_USAGE, "one ALGO/student-RUNG at a time (got '%s' and '%s')", *spec,
                               p.value);
            *spec = p.value;
            break;
        default: return sb_optparse_unexpected(&p);
        }
    if (st)
        return st;
    if (p.status)
        return p.status;
    if (!*spec)
        return sb_fail(err, SB_ERR_USAGE, "whose work? give ALGO/student-RUNG (segbench grade integral/student-cuda-pdl)");
    if (!o->have_seed) {                         /* a seed the student does not choose */
        FILE *fp = fopen("/dev/urandom", "rb");
        if (!fp || fread(&o->seed, sizeof o->seed, 1, fp) != 1)
            o->seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
        if (fp)
            fclose(fp);
        o->seed %= 1000000000ull;                /* short enough to read out and type back */
    }
    return SB_OK;
}

static sb_status grade_resolve(const char *spec, grade *g, sb_error *err)
{
    char algo[64];
    const char *slash = strchr(spec, '/');
    if (!slash || (size_t)(slash - spec) >= sizeof algo)
        return sb_fail(err, SB_ERR_USAGE, "'%s': name the work as ALGO/student-RUNG", spec);
    snprintf(algo, sizeof algo, "%.*s", (int)(slash - spec), spec);
    if (!sb_algo_find(algo))
        return sb_fail(err, SB_ERR_USAGE, "'%s': unknown algorithm '%s' (see 'segbench list')", spec, algo);
    const char *name = slash + 1;
    if (strncmp(name, SB_STUDENT_PREFIX, strlen(SB_STUDENT_PREFIX)) != 0)
        return sb_fail(err, SB_ERR_USAGE, "'%s' is not a student's rung: grade ALGO/student-RUNG (segbench exercise "
                       "ALGO/RUNG writes one)", spec);
    g->reference = exercise_reference(algo, name);
    if (!g->reference)
        return sb_fail(err, SB_ERR_USAGE, "'%s': %s has no rung '%s'", spec, algo, name + strlen(SB_STUDENT_PREFIX));
    g->student = sb_variant_find(algo, name);
    if (!g->student)
        return sb_fail(err, SB_ERR_USAGE, "%s is not built: write it with make exercise ALGO=%s RUNG=%s, then run "
                       "make", spec, algo, g->reference->name);
    char why[400];
    if (!(g->parent = exercise_parent(g->reference, why, sizeof why)))
        return sb_fail(err, SB_ERR_USAGE, "%s", why);
    const sb_variant *need[3] = { g->student, g->parent, g->reference };
    for (int k = 0; k < 3; k++)
        if (sb_variant_availability(need[k], why, sizeof why) != SB_AVAILABLE)
            return sb_fail(err, SB_ERR_UNAVAILABLE, "%s cannot run here: %s", need[k]->who, why);
    return SB_OK;
}

sb_status cmd_grade(int argc, char **argv, sb_error *err)
{
    grade_opts o;
    const char *spec = NULL;
    sb_status st = grade_parse(argc, argv, &o, &spec, err);
    if (st)
        return st;
    grade g;
    memset(&g, 0, sizeof g);
    if ((st = grade_resolve(spec, &g, err)))
        return st;
    const sb_algo *algo = sb_algo_find(g.student->algo);
    if (o.stage && sb_stage_find(algo, o.stage) < 0)
        return sb_fail(err, SB_ERR_USAGE, "--stage: %s has no stage '%s'", algo->name, o.stage);
    char path[PATH_MAX];
    if (lesson_source_path(g.student->file, path, sizeof path))
        g.todo_left = exercise_todo_left(path);

    sb_dataset ds;
    if ((st = sb_select_images(o.set, o.files, o.nfiles, NULL, &ds, err)))
        return st;
    /* the generated images, and a small one for the sanitizers */
    char tmp[] = "/tmp/segbench-grade.XXXXXX", *gen[MAX_GENERATED + 1];
    int ngen = 0;
    if (!mkdtemp(tmp)) {
        sb_dataset_free(&ds);
        return sb_fail(err, SB_ERR_IO, "cannot make a temporary folder: %s", strerror(errno));
    }
    sb_rng r;
    sb_rng_seed(&r, o.seed);
    for (int i = 0; i <= o.generated && !st; i++) {
        int w = 97, h = 61;                      /* i == 0: the sanitizers' small image */
        if (i > 0)
            awkward_size(&r, &w, &h);
        char name[PATH_MAX];
        snprintf(name, sizeof name, "%s/seed%llu-%d-%dx%d.png", tmp, o.seed, i, w, h);
        if (!(gen[ngen] = strdup(name)))
            st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
        else if (!(st = generated_image(&r, w, h, gen[ngen], err)))
            ngen++;
        else
            free(gen[ngen]);
    }
    sb_dataset gds = { 0 };
    if (!st)
        st = sb_dataset_from_files(gen, ngen, NULL, &gds, err);

    void *stream = NULL;
    char gpu_why[300];
    int device = (g.student->flags | g.parent->flags | g.reference->flags) & SB_DEVICE;
    if (!st && device && sb_device_usable(gpu_why, sizeof gpu_why))
        st = sb_device_stream_create(&stream, err);

    printf("grading %s against its parent %s and the reference %s (seed %llu)\n", g.student->who, g.parent->name,
           g.reference->name, o.seed);
    for (int i = 0; i < ds.count && !st && !g.wrong[0]; i++)
        st = check_image(&o, &g, algo, &ds.images[i], stream, err);
    for (int i = 0; i < gds.count && !st && !g.wrong[0]; i++)
        st = check_image(&o, &g, algo, &gds.images[i], stream, err);
    if (!st && !g.wrong[0])
        printf("  exact: %d checks on %d images (the set %s and %d generated)\n", g.checks, g.images,
               o.nfiles ? "files" : o.set, ngen - 1);

    char sanitizer[PATH_MAX];
    if (!st && !g.wrong[0] && (g.student->flags & SB_DEVICE) && o.sanitizer) {
        if (!find_sanitizer(sanitizer, sizeof sanitizer)) {
            snprintf(g.memcheck, sizeof g.memcheck, "not run: compute-sanitizer not found");
            snprintf(g.racecheck, sizeof g.racecheck, "not run: compute-sanitizer not found");
        } else {
            char log[PATH_MAX + 32];
            snprintf(log, sizeof log, "%s/memcheck.log", tmp);
            sanitize("memcheck", sanitizer, g.student, gen[0], log, g.memcheck, sizeof g.memcheck,
                     &g.sanitizer_failed);
            snprintf(log, sizeof log, "%s/racecheck.log", tmp);
            if (g.reference->flags & SB_GRAPH_LOOP)  /* the lesson puts the kernels in a graph loop */
                snprintf(g.racecheck, sizeof g.racecheck, "not run (it cannot follow kernels launched from "
                         "conditional graph nodes; %s's kernels are race-checked under %s)", g.reference->name,
                         g.parent->name);
            else
                sanitize("racecheck", sanitizer, g.student, gen[0], log, g.racecheck, sizeof g.racecheck,
                         &g.sanitizer_failed);
            printf("  compute-sanitizer: memcheck %s, racecheck %s\n", g.memcheck, g.racecheck);
        }
    }
    if (!st && !g.wrong[0] && !g.sanitizer_failed)
        st = grade_speed(&o, &g, algo, &ds, stream, err);
    sb_device_stream_destroy(stream);

    if (!st) {
        /* the machine, and (when timed) its copy rate: the stage's memory floor */
        sb_env env;
        sb_env_collect(&env, g.timed, &o.threads, 1);
        double gbps = (g.student->flags & SB_DEVICE) ? env.device_copy_gbps : sb_env_host_peak(&env, o.threads);
        if (g.timed && g.bytes > 0 && gbps > 0) {
            /* The stage's limit, as the report has it: the memory floor at this machine's copy rate
             * and, for a GPU rung, the issue floor of the stage's fastest rung in the reference
             * machine's profile, at this GPU's full issue rate (a compute-bound stage is judged
             * against its instructions, not its few bytes). */
            double limit_ms = g.bytes / (gbps * 1e6), issue_ms = 0.0;
            if (g.student->flags & SB_DEVICE) {
                char dir[600];
                sb_reference_results_dir("results", dir, sizeof dir);
                limit_ms = report_stage_limit_on(dir, algo, sb_stage_find(algo, g.stage), g.image, g.bytes, gbps,
                                                 env.device.sm_count, env.device.sm_clock_mhz, &issue_ms);
            }
            g.x_limit = g.s_student.median / limit_ms;
            g.limit_floor = issue_ms >= limit_ms ? "issue" : "memory";
        }
        snprintf(g.machine, sizeof g.machine, "%s", env.machine_id);
        snprintf(g.commit, sizeof g.commit, "%s", sb_env_build_commit());
        snprintf(g.date, sizeof g.date, "%s", env.date);
        sb_status verdict = SB_OK;
        if (g.wrong[0] || g.sanitizer_failed) {
            g.verdict = "FAIL (wrong)";
            verdict = sb_fail(err, SB_ERR_AGREEMENT, "%s: %s", g.student->who,
                              g.wrong[0] ? g.wrong : "compute-sanitizer found errors");
        } else if (g.ref_beats_parent && g.vs_parent.verdict != SB_FASTER) {
            g.verdict = "FAIL (correct, not faster than its parent)";
            verdict = sb_fail(err, SB_ERR_SLOWER, "%s is exact but not faster than its parent %s (%.2fx, %s)%s",
                              g.student->who, g.parent->name, speedup(&g.vs_parent),
                              sb_verdict_name(g.vs_parent.verdict),
                              g.todo_left ? ": the stub's TODO parts are still there" : "");
        } else if (g.ref_beats_parent && speedup(&g.vs_reference) < GRADE_OF_REFERENCE) {
            g.verdict = "FAIL (correct, short of the lesson's gain)";
            verdict = sb_fail(err, SB_ERR_SLOWER, "%s is exact and %.2fx its parent, but %.2fx the reference "
                              "solution (at least %.2fx passes)%s", g.student->who, speedup(&g.vs_parent),
                              speedup(&g.vs_reference), GRADE_OF_REFERENCE,
                              g.todo_left ? ": the stub's TODO parts are still there" : "");
        } else if (!g.ref_beats_parent && (g.todo_left || g.vs_reference.verdict == SB_SLOWER)) {
            g.verdict = "FAIL (correct, lesson not done)";
            verdict = sb_fail(err, SB_ERR_SLOWER, "%s is exact, but %s", g.student->who,
                              g.todo_left ? "the stub's TODO parts are still there" : "slower than the reference");
        } else {
            g.verdict = "PASS";
        }
        g.exit_code = sb_exit_code(verdict);
        summary_line(&g, &o, stdout);
        sb_error werr;
        if (o.json && strcmp(o.json, "-") == 0) {
            json_record(&g, &o, stdout);
        } else if (o.json) {
            sb_atomic_file af;
            if (sb_atomic_open(&af, o.json, &werr) == SB_OK) {
                json_record(&g, &o, af.fp);
                if (sb_atomic_commit(&af, &werr) != SB_OK)
                    verdict = verdict ? verdict : sb_fail(err, werr.status, "%s", werr.msg);
            } else {
                verdict = verdict ? verdict : sb_fail(err, werr.status, "%s", werr.msg);
            }
        }
        if (o.class_csv && class_append(&g, &o, &werr) != SB_OK)
            verdict = verdict ? verdict : sb_fail(err, werr.status, "%s", werr.msg);
        st = verdict;
    }

    for (int i = 0; i < ngen; i++) {
        unlink(gen[i]);
        free(gen[i]);
    }
    if (!g.sanitizer_failed) {                   /* a finding's logs stay for the student */
        char log[PATH_MAX + 32];
        snprintf(log, sizeof log, "%s/memcheck.log", tmp);
        unlink(log);
        snprintf(log, sizeof log, "%s/racecheck.log", tmp);
        unlink(log);
        rmdir(tmp);
    }
    sb_dataset_free(&gds);
    sb_dataset_free(&ds);
    return st;
}
