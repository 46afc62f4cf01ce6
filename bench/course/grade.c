/* grade.c - `segbench grade ALGO/student-RUNG`: grade a student's copy
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
 *      timed interleaved (as compare does) on an image and its mirror in
 *      turn, every output poisoned before and checked after every timed
 *      run (so an output kept from an earlier run is caught); speed is given as ratios
 *      (never absolute times) and as "x limit" against the stage's limit
 *      on this machine (the report's: its memory floor at this machine's
 *      copy rate, or, for a GPU rung, the issue floor of the stage's
 *      fastest rung in the reference machine's profile, if larger).
 *
 * The verdict: wrong output or a sanitizer finding fails (exit 1); exact
 * but not faster than the parent, or below 0.9x the reference solution's
 * speed (the lesson not learnt), or a TODO part of the stub left, exits 3;
 * else 0.
 * For a lesson that loses (a branch whose reference solution is not
 * faster than the parent either) speed cannot tell a stub from a solution:
 * it passes when exact, no slower than the reference, and no TODO part of
 * the stub is left.  One summary line on stdout; --json and --class write
 * the record and a leaderboard line. */
#define _DEFAULT_SOURCE
#include "course/grade.h"

#include "course/grade_class.h"

#include "base/csv.h"
#include "base/files.h"
#include "base/json_out.h"
#include "course/exercise.h"
#include "course/lessons.h"
#include "cases/cases.h"
#include "machine/device_status.h"
#include "measure/measure.h"
#include "variants/names.h"
#include "variants/outputs.h"
#include "machine/env.h"
#include "io/result_set.h"
#include "profile/limits.h"

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

/* A lesson that wins is learnt when the student's rung is faster than its
 * parent and within a tenth of the reference solution's speed: "faster"
 * alone passed an unchanged stub that ran 5 % faster than its parent (the
 * same code, compiled apart) on the H100.  Short of that only when the
 * rounds call it slower (grade_rounds): the reference solution graded
 * against itself on the 2-core cloud machine once measured 0.894x its own
 * speed, not significantly, and failed. */
#define GRADE_OF_REFERENCE 0.90

typedef struct grade {
    const sb_variant *student, *reference, *parent;
    int checks, images;               /* checks run, on this many images */
    char wrong[1200];                 /* the first broken check, "" when none */
    char memcheck[200], racecheck[200];
    int sanitizer_failed;
    char stage[32], image[128];
    int timed;                        /* the speed part ran */
    sb_summary s_student, s_parent, s_reference;
    sb_effect vs_parent, vs_reference;       /* ratio: student / other, from rounds (grade_rounds) */
    int ref_beats_parent;
    int nrounds;                      /* rounds of each side (grade_rounds): student, parent, reference */
    double rounds[3][GRADE_ROUNDS];
    int timing_reference;             /* the grader timing the reference for a class: "student" is the reference */
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
        if ((st = sb_case_open_image(&cd, NULL, algo, s, im, &loaded, &usable, why, sizeof why, err)) || !usable)
            continue;                          /* an error, or the stage cannot take this image */
        sb_agreement ag;
        void *strm = (g->student->flags & SB_DEVICE) ? stream : NULL;
        st = sb_check_only(&cd.c, g->student, o->threads, strm, &ag, err);
        if (st == SB_ERR_DEVICE) {             /* the student's kernels faulted: wrong, not ungradable */
            snprintf(g->wrong, sizeof g->wrong, "the GPU failed running it on %s (%dx%d), stage %s: %s", im->name,
                     im->width, im->height, algo->stages[s], err->msg);
            st = SB_OK;
        }
        if (!st && !g->wrong[0]) {
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

/* The timed image's twin: the same picture mirrored left to right (and
 * its foreground rectangle with it), so it costs about as much and gives
 * other outputs.  The timed runs alternate between the two, so a solution
 * that keeps an output from an earlier run (of the check, or of the last
 * timed run) instead of computing it is wrong on every other run. */
static sb_status mirrored(const sb_image *in, const sb_dataset_image *im, sb_image *out, sb_dataset_image *twin,
                          sb_error *err)
{
    sb_status st = sb_image_alloc(out, in->width, in->height, in->channels, err);
    if (st)
        return st;
    int c = in->channels;
    for (int y = 0; y < in->height; y++) {
        const uint8_t *src = in->data + (size_t)y * in->stride;
        uint8_t *dst = out->data + (size_t)y * out->stride;
        for (int x = 0; x < in->width; x++)
            memcpy(dst + (size_t)(in->width - 1 - x) * c, src + (size_t)x * c, (size_t)c);
    }
    *twin = *im;
    if (twin->rect[2] > 0)
        twin->rect[0] = in->width - im->rect[0] - im->rect[2];
    return SB_OK;
}

int grade_rounds(const double *ms, int n, double out[GRADE_ROUNDS])
{
    int rounds = n / 3 < GRADE_ROUNDS ? n / 3 : GRADE_ROUNDS;
    for (int r = 0; r < rounds; r++) {
        int from = r * n / rounds, to = (r + 1) * n / rounds;
        sb_summary s;
        sb_summarize(ms + from, to - from, &s);
        out[r] = s.median;
    }
    return rounds;
}

/* The student's rung, its parent and the reference solution, run i of
 * each on case i % 2 (the image, then its mirror). */
static sb_status time_three(const grade_opts *o, grade *g, const sb_case *cases[2], void *stream, sb_error *err)
{
    const sb_variant *v[3] = { g->student, g->parent, g->reference };
    int nv = g->reference ? 3 : 2;            /* a student's kit holds no reference solution */
    int threads[3] = { o->threads, (g->parent->flags & SB_THREADED) ? o->threads : 1, o->threads };
    sb_session s[3][2];
    memset(s, 0, sizeof s);
    double *ms[3];
    for (int k = 0; k < 3; k++)
        ms[k] = calloc((size_t)o->samples, sizeof(double));
    sb_status st = (!ms[0] || !ms[1] || !ms[2]) ? sb_fail(err, SB_ERR_NOMEM, "out of memory") : SB_OK;
    for (int k = 0; k < nv && !st; k++)
        for (int m = 0; m < 2 && !st; m++) {
            void *strm = (v[k]->flags & SB_DEVICE) ? stream : NULL;
            if ((st = sb_session_open(&s[k][m], cases[m], v[k], threads[k], strm, 1, err)))
                break;
            double warm;
            for (int w = 0; w < 2 && !st; w++)            /* warm-up */
                st = sb_session_sample(&s[k][m], 1, &warm, err);
        }
    /* Rotate who goes first, so none always follows the same one.  Every
     * timed run starts from poisoned outputs and is checked after; all
     * three sides alike, so the host's work between runs (which changes
     * what the GPU's clocks and queues see) is the same for each. */
    for (int i = 0; i < o->samples && !st && !g->wrong[0]; i++)
        for (int j = 0; j < nv && !st && !g->wrong[0]; j++) {
            int k = (i + j) % nv, m = i % 2;
            sb_output_poison(s[k][m].out);
            st = sb_session_sample(&s[k][m], 1, &ms[k][i], err);
            sb_agreement ag;
            if (!st)
                st = sb_session_check(&s[k][m], &ag, err);
            if (st == SB_ERR_DEVICE && k == 0) {   /* the student's kernels faulted */
                snprintf(g->wrong, sizeof g->wrong, "the GPU failed in timed run %d on %s%s, stage %s: %s", i + 1,
                         g->image, m ? " mirrored" : "", g->stage, err->msg);
                st = SB_OK;
                break;
            }
            if (!st && !ag.ok)
                snprintf(g->wrong, sizeof g->wrong, "%s: wrong output after timed run %d on %s%s, stage %s: %s",
                         v[k]->who, i + 1, g->image, m ? " mirrored" : "", g->stage, ag.metric);
        }
    if (!st && !g->wrong[0]) {
        g->timed = 1;
        sb_summarize(ms[0], o->samples, &g->s_student);
        sb_summarize(ms[1], o->samples, &g->s_parent);
        double (*rounds)[GRADE_ROUNDS] = g->rounds;
        int n = 0;
        for (int k = 0; k < nv; k++)
            n = grade_rounds(ms[k], o->samples, rounds[k]);
        g->nrounds = n;
        double level = 1.0 - o->alpha;
        sb_effect_judge_at(rounds[1], n, rounds[0], n, 0.0, o->min_diff, level, &g->vs_parent);
        if (g->reference) {
            sb_summarize(ms[2], o->samples, &g->s_reference);
            sb_effect_judge_at(rounds[2], n, rounds[0], n, 0.0, o->min_diff, level, &g->vs_reference);
            sb_effect ref_parent;
            sb_effect_judge_at(rounds[1], n, rounds[2], n, 0.0, o->min_diff, level, &ref_parent);
            g->ref_beats_parent = ref_parent.call == SB_CALL_FASTER;
        }
        const sb_case *c = cases[0];
        g->bytes = c->algo->bytes ? c->algo->bytes(c->input, c->params, c->reference) : 0;
    }
    for (int k = 0; k < 3; k++) {
        for (int m = 0; m < 2; m++)
            sb_session_close(&s[k][m]);
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
    if (!o->images.nfiles && sb_select_images(o->speed_set, NULL, 0, NULL, &speed, &quiet) == SB_OK)
        im = sb_summary_image(&speed, algo, 1);
    else if (!o->images.nfiles)
        printf("  note: %s; timing the largest image checked instead\n", quiet.msg);
    for (int i = 0; i < ds->count && (o->images.nfiles || !im); i++)
        if (sb_bench_takes_image(algo, &ds->images[i], 1) &&
            (!im || (long)ds->images[i].width * ds->images[i].height > (long)im->width * im->height))
            im = &ds->images[i];
    if (!im) {
        sb_dataset_free(&speed);
        return sb_fail(err, SB_ERR_USAGE, "no image can time %s", algo->name);
    }
    snprintf(g->image, sizeof g->image, "%s", im->name);
    printf("  timing %s at %s (%dx%d) and its mirror: %d interleaved runs each of the %s, the parent's%s\n",
           g->stage, im->name, im->width, im->height, o->samples,
           g->timing_reference ? "reference solution's" : "student's", g->reference ? " and the reference's" : "");
    fflush(stdout);
    sb_image loaded[2] = { { 0 } };
    sb_dataset_image twin;
    sb_status st = sb_image_load(im->path, algo->load_mode, &loaded[0], err);
    if (!st)
        st = mirrored(&loaded[0], im, &loaded[1], &twin, err);
    const sb_dataset_image *ims[2] = { im, &twin };
    sb_case_data cd[2];
    int opened = 0;
    for (int m = 0; m < 2 && !st; m++) {
        int usable = 0;
        char why[300];
        if (!(st = sb_case_open_image(&cd[m], NULL, algo, stage, ims[m], &loaded[m], &usable, why, sizeof why, err)) &&
            !usable)
            st = sb_fail(err, SB_ERR_USAGE, "%s cannot time %s%s: %s", algo->name, im->name, m ? " mirrored" : "",
                         why);
        opened += !st;
    }
    if (!st) {
        const sb_case *cases[2] = { &cd[0].c, &cd[1].c };
        st = time_three(o, g, cases, stream, err);
    }
    for (int m = 0; m < opened; m++)
        sb_case_close(&cd[m]);
    sb_image_free(&loaded[0]);
    sb_image_free(&loaded[1]);
    sb_dataset_free(&speed);
    return st;
}

/* ---- the record ---------------------------------------------------------------------------- */

static double speedup(const sb_effect *e) { return e->ratio > 0 ? 1.0 / e->ratio : 0; }

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
        fprintf(fp, "; %s at %s: %.2fx its parent %s (%s)", g->stage, g->image, speedup(&g->vs_parent),
                g->parent->name, sb_call_name(g->vs_parent.call));
        if (g->reference)
            fprintf(fp, ", %.2fx the reference %s (%s)", speedup(&g->vs_reference), g->reference->name,
                    sb_call_name(g->vs_reference.call));
        else
            fprintf(fp, ", no reference solution here (a student's kit)");
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
    sb_json_key_str(fp, "reference", g->reference ? g->reference->name : "");
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
    sb_json_key_str(fp, "vs_parent", g->timed ? sb_call_name(g->vs_parent.call) : "");
    fprintf(fp, ", ");
    int vs_ref = g->timed && g->reference;
    sb_json_key_num(fp, "speedup_vs_reference", vs_ref ? speedup(&g->vs_reference) : NAN);
    fprintf(fp, ", ");
    sb_json_key_str(fp, "vs_reference", vs_ref ? sb_call_name(g->vs_reference.call) : "");
    fprintf(fp, ", ");
    char rounds[2][GRADE_ROUNDS * 24];
    for (int k = 0; k < 2; k++) {
        int at = 0;
        rounds[k][0] = '\0';
        for (int i = 0; g->timed && i < g->nrounds; i++)
            at += snprintf(rounds[k] + at, sizeof rounds[k] - (size_t)at, "%s%.9g", i ? " " : "", g->rounds[k][i]);
    }
    sb_json_key_str(fp, "rounds_student_ms", rounds[0]);   /* a class's grader holds them to the reference */
    fprintf(fp, ", ");
    sb_json_key_str(fp, "rounds_parent_ms", rounds[1]);
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
    /* The reference solution is the rung itself; a student's kit
     * (segbench exercise --export) holds the student's copy without it. */
    g->reference = exercise_reference(algo, name);
    g->student = sb_variant_find(algo, name);
    const char *rung = name + strlen(SB_STUDENT_PREFIX);
    if (!g->reference && !g->student)
        return sb_fail(err, SB_ERR_USAGE, "'%s': %s has no rung '%s'", spec, algo, rung);
    if (!g->student)
        return sb_fail(err, SB_ERR_USAGE, "%s is not built: write it with make exercise ALGO=%s RUNG=%s, then run "
                       "make", spec, algo, rung);
    char why[400];
    if (!(g->parent = exercise_parent(g->reference ? g->reference : g->student, why, sizeof why)))
        return sb_fail(err, SB_ERR_USAGE, "%s", why);
    const sb_variant *need[3] = { g->student, g->parent, g->reference };
    for (int k = 0; k < 3 && need[k]; k++)
        if (sb_variant_availability(need[k], why, sizeof why) != SB_AVAILABLE)
            return sb_fail(err, SB_ERR_UNAVAILABLE, "%s cannot run here: %s", need[k]->who, why);
    return SB_OK;
}

static sb_status class_append(const grade *g, const grade_opts *o, sb_error *err)
{
    grade_class_row row = { g->date, o->student, g->student->who, g->verdict, g->exit_code, o->seed, g->checks,
                            g->timed ? speedup(&g->vs_parent) : 0, g->timed ? speedup(&g->vs_reference) : 0,
                            g->x_limit, g->machine, g->commit };
    return grade_class_append(o->class_csv, &row, err);
}

/* The images a grade checks beyond the set: o->generated of awkward sizes
 * drawn from the seed, and (first, gen[0]) a small one for the sanitizers,
 * written to the temporary folder tmp. */
static sb_status grade_generate(const grade_opts *o, const char *tmp, char **gen, int *ngen, sb_dataset *gds,
                                sb_error *err)
{
    sb_status st = SB_OK;
    sb_rng r;
    sb_rng_seed(&r, o->seed);
    for (int i = 0; i <= o->generated && !st; i++) {
        int w = 97, h = 61;                      /* i == 0: the sanitizers' small image */
        if (i > 0)
            awkward_size(&r, &w, &h);
        char name[SB_PATH_MAX];
        if ((st = sb_path(name, err, "%s/seed%llu-%d-%dx%d.png", tmp, o->seed, i, w, h)))
            break;
        if (!(gen[*ngen] = strdup(name)))
            st = sb_fail(err, SB_ERR_NOMEM, "out of memory");
        else if (!(st = generated_image(&r, w, h, gen[*ngen], err)))
            (*ngen)++;
        else
            free(gen[*ngen]);
    }
    return st ? st : sb_dataset_from_files(gen, *ngen, NULL, gds, err);
}

/* Clean: compute-sanitizer's memcheck and racecheck of a GPU rung on the
 * small image (racecheck not where the lesson is a graph loop). */
static void grade_sanitize(const grade_opts *o, grade *g, const char *tmp, const char *small_image)
{
    char sanitizer[SB_PATH_MAX], log[SB_PATH_MAX + 32];
    if (!(g->student->flags & SB_DEVICE) || !o->sanitizer)
        return;
    if (!find_sanitizer(sanitizer, sizeof sanitizer)) {
        snprintf(g->memcheck, sizeof g->memcheck, "not run: compute-sanitizer not found");
        snprintf(g->racecheck, sizeof g->racecheck, "not run: compute-sanitizer not found");
        return;
    }
    snprintf(log, sizeof log, "%s/memcheck.log", tmp);
    sanitize("memcheck", sanitizer, g->student, small_image, log, g->memcheck, sizeof g->memcheck,
             &g->sanitizer_failed);
    snprintf(log, sizeof log, "%s/racecheck.log", tmp);
    if (g->student->flags & SB_GRAPH_LOOP)       /* the lesson puts the kernels in a graph loop */
        snprintf(g->racecheck, sizeof g->racecheck, "not run (it cannot follow kernels launched from "
                 "conditional graph nodes; the kernels of %s are race-checked under %s)", g->student->who,
                 g->parent->name);
    else
        sanitize("racecheck", sanitizer, g->student, small_image, log, g->racecheck, sizeof g->racecheck,
                 &g->sanitizer_failed);
    printf("  compute-sanitizer: memcheck %s, racecheck %s\n", g->memcheck, g->racecheck);
}

/* The machine, and (when timed) the student's distance to the stage's
 * limit as the report has it: the memory floor at this machine's copy rate
 * and, for a GPU rung, the issue floor of the stage's fastest rung in the
 * reference machine's profile at this GPU's full issue rate (a
 * compute-bound stage is judged against its instructions, not its few
 * bytes). */
static void grade_machine(const grade_opts *o, grade *g, const sb_algo *algo)
{
    sb_env env;
    int threads = o->threads;
    sb_env_collect(&env, g->timed, &threads, 1);
    double gbps = (g->student->flags & SB_DEVICE) ? env.device_copy_gbps : sb_env_host_peak(&env, o->threads);
    if (g->timed && g->bytes > 0 && gbps > 0) {
        double limit_ms = g->bytes / (gbps * 1e6), issue_ms = 0.0;
        if (g->student->flags & SB_DEVICE) {
            char dir[600];
            sb_reference_results_dir("results", dir, sizeof dir);
            limit_ms = stage_limit_on(dir, algo, sb_stage_find(algo, g->stage), g->image, g->bytes, gbps,
                                         env.device.sm_count, env.device.sm_clock_mhz, &issue_ms);
        }
        g->x_limit = g->s_student.median / limit_ms;
        g->limit_floor = issue_ms >= limit_ms ? "issue" : "memory";
    }
    snprintf(g->machine, sizeof g->machine, "%s", env.machine_id);
    snprintf(g->commit, sizeof g->commit, "%s", sb_env_build_commit());
    snprintf(g->date, sizeof g->date, "%s", env.date);
}

/* The verdict from the checks, the sanitizers and the speeds. */
/* The rules of a verdict, for a grade here and for a class's grader
 * (grade_against_reference), from what the checks and the timing found. */
typedef enum grade_kind {
    GRADE_WRONG, GRADE_NOT_FASTER, GRADE_KIT_PASS, GRADE_KIT_TODO, GRADE_SHORT, GRADE_NOT_DONE, GRADE_PASSED
} grade_kind;
static const char *const GRADE_VERDICT[] = { "FAIL (wrong)", "FAIL (correct, not faster than its parent)",
                                             "PASS (here: faster than its parent)", "FAIL (correct, TODO parts left)",
                                             "FAIL (correct, short of the lesson's gain)",
                                             "FAIL (correct, lesson not done)", "PASS" };

/* doubt_passes: an undetermined call against the parent counts as faster
 * (a class, whose reference was timed in another process: only the
 * student's own rounds showing no gain fail them).  TODO parts of the stub
 * left always fail. */
static grade_kind grade_decide(int wrong, int has_reference, int todo_left, const sb_effect *vs_parent,
                               int ref_beats_parent, const sb_effect *vs_reference, int doubt_passes)
{
    int faster = vs_parent->call == SB_CALL_FASTER || (doubt_passes && vs_parent->call == SB_CALL_UNDETERMINED);
    if (wrong)
        return GRADE_WRONG;
    if (!has_reference)                                     /* a student's kit */
        return !faster ? GRADE_NOT_FASTER : todo_left ? GRADE_KIT_TODO : GRADE_KIT_PASS;
    if (ref_beats_parent && !faster)
        return GRADE_NOT_FASTER;
    /* A stub's TODO parts left fail whatever the timing said: where doubt
     * passes (a class) the stub itself can read undetermined and pass. */
    if (ref_beats_parent && todo_left)
        return GRADE_KIT_TODO;
    if (ref_beats_parent && vs_reference->call == SB_CALL_SLOWER && speedup(vs_reference) < GRADE_OF_REFERENCE)
        return GRADE_SHORT;
    if (!ref_beats_parent && (todo_left || vs_reference->call == SB_CALL_SLOWER))
        return GRADE_NOT_DONE;
    return GRADE_PASSED;
}

static sb_status grade_verdict(grade *g, sb_error *err)
{
    sb_status verdict = SB_OK;
    const char *todo = g->todo_left ? ": the stub's TODO parts are still there" : "";
    grade_kind kind = grade_decide(g->wrong[0] || g->sanitizer_failed, g->reference != NULL, g->todo_left,
                                   &g->vs_parent, g->ref_beats_parent, &g->vs_reference, 0);
    g->verdict = GRADE_VERDICT[kind];
    switch (kind) {
    case GRADE_WRONG:
        verdict = sb_fail(err, SB_ERR_AGREEMENT, "%s: %s", g->student->who,
                          g->wrong[0] ? g->wrong : "compute-sanitizer found errors");
        break;
    case GRADE_NOT_FASTER:
        verdict = sb_fail(err, SB_ERR_SLOWER, "%s is exact but not faster than its parent %s (%.2fx, %s)%s",
                          g->student->who, g->parent->name, speedup(&g->vs_parent), sb_call_name(g->vs_parent.call),
                          g->reference || g->todo_left ? todo
                                                       : " (a lesson that loses, a branch, passes the teacher's grade "
                                                         "when exact, done and as fast as the reference)");
        break;
    case GRADE_KIT_TODO:
        verdict = sb_fail(err, SB_ERR_SLOWER, "%s is exact and faster than its parent, but %s", g->student->who,
                          todo + 2);
        break;
    case GRADE_SHORT:
        verdict = sb_fail(err, SB_ERR_SLOWER, "%s is exact and %.2fx its parent, but %.2fx the reference "
                          "solution (at least %.2fx passes)%s", g->student->who, speedup(&g->vs_parent),
                          speedup(&g->vs_reference), GRADE_OF_REFERENCE, todo);
        break;
    case GRADE_NOT_DONE:
        verdict = sb_fail(err, SB_ERR_SLOWER, "%s is exact, but %s", g->student->who,
                          g->todo_left ? "the stub's TODO parts are still there" : "slower than the reference");
        break;
    case GRADE_KIT_PASS:
    case GRADE_PASSED:
        break;
    }
    g->exit_code = sb_exit_code(verdict);
    return verdict;
}

/* The summary line, --json and --class; a write error is the status only
 * when the verdict is a pass. */
static sb_status grade_write(const grade_opts *o, const grade *g, sb_status verdict, sb_error *err)
{
    summary_line(g, o, stdout);
    sb_error werr;
    if (o->json && strcmp(o->json, "-") == 0) {
        json_record(g, o, stdout);
    } else if (o->json) {
        sb_atomic_file af;
        if (sb_atomic_open(&af, o->json, &werr) == SB_OK) {
            json_record(g, o, af.fp);
            if (sb_atomic_commit(&af, &werr) != SB_OK)
                verdict = verdict ? verdict : sb_fail(err, werr.status, "%s", werr.msg);
        } else {
            verdict = verdict ? verdict : sb_fail(err, werr.status, "%s", werr.msg);
        }
    }
    if (o->class_csv && class_append(g, o, &werr) != SB_OK)
        verdict = verdict ? verdict : sb_fail(err, werr.status, "%s", werr.msg);
    return verdict;
}

/* The generated images and, unless a sanitizer found something (its logs
 * stay for the student), the temporary folder. */
static void grade_clean(const grade *g, const char *tmp, char **gen, int ngen)
{
    for (int i = 0; i < ngen; i++) {
        unlink(gen[i]);
        free(gen[i]);
    }
    if (g->sanitizer_failed)
        return;
    char log[SB_PATH_MAX + 32];
    snprintf(log, sizeof log, "%s/memcheck.log", tmp);
    unlink(log);
    snprintf(log, sizeof log, "%s/racecheck.log", tmp);
    unlink(log);
    rmdir(tmp);
}

/* The stream a grade's GPU rungs run on: one where the student or the
 * parent runs on a usable GPU, else none (*stream NULL). */
static sb_status grade_stream(const grade *g, void **stream, sb_error *err)
{
    char why[300];
    *stream = NULL;
    if (!((g->student->flags | g->parent->flags) & SB_DEVICE) || !sb_device_usable(why, sizeof why))
        return SB_OK;
    return sb_device_stream_create(stream, err);
}

static sb_status grade_run_with(grade *g, const grade_opts *o, const char *spec, sb_error *err)
{
    memset(g, 0, sizeof *g);
    sb_status st = grade_resolve(spec, g, err);
    if (st)
        return st;
    const sb_algo *algo = sb_algo_find(g->student->algo);
    if (o->stage && sb_stage_find(algo, o->stage) < 0)
        return sb_fail(err, SB_ERR_USAGE, "--stage: %s has no stage '%s'", algo->name, o->stage);
    char path[PATH_MAX];
    if (lesson_source_path(g->student->file, path, sizeof path))
        g->todo_left = exercise_todo_left(path);

    sb_dataset ds, gds = { 0 };
    if ((st = sb_image_choice_load(&o->images, o->set, &ds, err)))
        return st;
    char tmp[] = "/tmp/segbench-grade.XXXXXX", *gen[GRADE_MAX_GENERATED + 1];
    int ngen = 0;
    if (!mkdtemp(tmp)) {
        sb_dataset_free(&ds);
        return sb_fail(err, SB_ERR_IO, "cannot make a temporary folder: %s", strerror(errno));
    }
    st = grade_generate(o, tmp, gen, &ngen, &gds, err);
    void *stream = NULL;
    if (!st)
        st = grade_stream(g, &stream, err);

    if (g->reference)
        printf("grading %s against its parent %s and the reference %s (seed %llu)\n", g->student->who,
               g->parent->name, g->reference->name, o->seed);
    else
        printf("grading %s against its parent %s (seed %llu); the reference solution is not here (a student's "
               "kit): the teacher's grade also times it, and where it beats the parent this must too\n",
               g->student->who, g->parent->name, o->seed);
    for (int i = 0; i < ds.count && !st && !g->wrong[0]; i++)     /* 1. exact */
        st = check_image(o, g, algo, &ds.images[i], stream, err);
    for (int i = 0; i < gds.count && !st && !g->wrong[0]; i++)
        st = check_image(o, g, algo, &gds.images[i], stream, err);
    if (!st && !g->wrong[0])
        printf("  exact: %d checks on %d images (the set %s and %d generated)\n", g->checks, g->images,
               o->images.nfiles ? "files" : o->set, ngen - 1);
    if (!st && !g->wrong[0])                                         /* 2. clean */
        grade_sanitize(o, g, tmp, gen[0]);
    if (!st && !g->wrong[0] && !g->sanitizer_failed)                  /* 3. fast */
        st = grade_speed(o, g, algo, &ds, stream, err);
    sb_device_stream_destroy(stream);
    if (!st) {
        grade_machine(o, g, algo);
        st = grade_write(o, g, grade_verdict(g, err), err);
    }
    grade_clean(g, tmp, gen, ngen);
    sb_dataset_free(&gds);
    sb_dataset_free(&ds);
    return st;
}

/* ---- a class: the reference timed by the grader, each kit's grade held to it ------------------- */

sb_status grade_time_reference(const grade_opts *o, const sb_variant *rung, grade_reference *ref, sb_error *err)
{
    memset(ref, 0, sizeof *ref);
    char why[400];
    const sb_variant *parent = exercise_parent(rung, why, sizeof why);
    if (!parent)
        return sb_fail(err, SB_ERR_USAGE, "%s", why);
    grade *g = calloc(1, sizeof *g);
    if (!g)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    g->student = rung;                  /* timed as a kit's grade times a student: against the parent alone */
    g->parent = parent;
    g->timing_reference = 1;
    const sb_algo *algo = sb_algo_find(rung->algo);
    sb_dataset ds;
    sb_status st = sb_image_choice_load(&o->images, o->set, &ds, err);
    if (st) {
        free(g);
        return st;
    }
    void *stream = NULL;
    st = grade_stream(g, &stream, err);
    if (!st)
        st = grade_speed(o, g, algo, &ds, stream, err);
    sb_device_stream_destroy(stream);
    if (!st && g->wrong[0])
        st = sb_fail(err, SB_ERR_AGREEMENT, "the reference solution itself: %s", g->wrong);
    if (!st) {
        snprintf(ref->stage, sizeof ref->stage, "%s", g->stage);
        snprintf(ref->image, sizeof ref->image, "%s", g->image);
        ref->n = g->nrounds;
        memcpy(ref->reference, g->rounds[0], sizeof ref->reference);
        memcpy(ref->parent, g->rounds[1], sizeof ref->parent);
        ref->beats_parent = g->vs_parent.call == SB_CALL_FASTER;
        ref->speedup = speedup(&g->vs_parent);
    }
    sb_dataset_free(&ds);
    free(g);
    return st;
}

/* Rounds as a record writes them ("1.25 1.31 ..."): how many read. */
static int read_rounds(const char *text, double out[GRADE_ROUNDS])
{
    int n = 0;
    char *end;
    for (const char *p = text; n < GRADE_ROUNDS; p = end) {
        double v = strtod(p, &end);
        if (end == p || !(v > 0) || !isfinite(v))
            break;
        out[n++] = v;
    }
    return n;
}

const char *grade_against_reference(const grade_opts *o, const grade_kit_record *rec, const grade_reference *ref,
                                    sb_effect *vs_parent, sb_effect *vs_reference, int *code)
{
    double student[GRADE_ROUNDS], parent[GRADE_ROUNDS];
    int ns = read_rounds(rec->rounds_student, student), np = read_rounds(rec->rounds_parent, parent);
    memset(vs_parent, 0, sizeof *vs_parent);
    memset(vs_reference, 0, sizeof *vs_reference);
    if (ns != np || ns < 2 || ref->n < 2) {
        *code = GRADE_EXIT_USAGE;
        return NULL;                    /* no rounds to hold to the reference */
    }
    double level = 1.0 - o->alpha;
    sb_effect_judge_at(parent, np, student, ns, 0.0, o->min_diff, level, vs_parent);
    /* The student and the reference were timed in two processes, each
     * against the same parent: what compares them is each one's time over
     * the parent's in its own rounds.  That ratio is reported, never
     * called: two processes differ by more than the 10 % it would judge
     * (in CI the same solution read 1.32x and 1.90x its parent in two
     * grades a minute apart, each interval tight).  Only rounds of the two
     * processes in turn could judge it; the class holds a student to the
     * reference's direction (faster than the parent where the reference
     * is) and to the stub's TODO parts. */
    double s_over_p[GRADE_ROUNDS], r_over_p[GRADE_ROUNDS];
    for (int i = 0; i < ns; i++)
        s_over_p[i] = student[i] / parent[i];
    for (int i = 0; i < ref->n; i++)
        r_over_p[i] = ref->reference[i] / ref->parent[i];
    sb_effect_judge_at(r_over_p, ref->n, s_over_p, ns, 0.0, o->min_diff, level, vs_reference);
    vs_reference->call = SB_CALL_UNDETERMINED;
    /* The reference beat its parent in the grader's process, maybe at a
     * quieter moment than the student's grade (in CI the correct solution
     * read 1.12x its parent, undetermined, against the reference's 2x):
     * only the student's own rounds showing no gain fail them. */
    grade_kind kind = grade_decide(!strncmp(rec->verdict, "FAIL (wrong", 11), 1, rec->todo_left, vs_parent,
                                   ref->beats_parent, vs_reference, 1);
    *code = kind == GRADE_PASSED ? GRADE_EXIT_PASS : kind == GRADE_WRONG ? GRADE_EXIT_WRONG : GRADE_EXIT_SLOWER;
    return GRADE_VERDICT[kind];
}

sb_status sb_grade_run(const grade_opts *o, const char *spec, sb_error *err)
{
    grade *g = calloc(1, sizeof *g);       /* large: the heap, not a static */
    if (!g)
        return sb_fail(err, SB_ERR_NOMEM, "out of memory");
    sb_status st = grade_run_with(g, o, spec, err);
    free(g);
    return st;
}
