/* cmd_grade.c - `segbench grade`: its options.  The grader is
 * bench/course/grade.c. */
#define _DEFAULT_SOURCE
#include "cli/commands.h"

#include "base/args.h"
#include "base/files.h"
#include "course/grade_class.h"
#include "pages/report.h"

#include "segbench/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
    OPT_SET, OPT_IMAGE, OPT_SPEED_SET, OPT_SEED, OPT_GENERATED, OPT_STAGE, OPT_SAMPLES, OPT_THREADS, OPT_NO_SANITIZER, OPT_JSON,
    OPT_CLASS, OPT_STUDENT, OPT_MIN_DIFF, OPT_ALPHA, OPT_SUBMISSIONS, OPT_WORK, OPT_TIMEOUT, OPT_LIMIT_MEMORY,
    OPT_LIMIT_CPU, OPT_LIMIT_PROCESSES, OPT_LEADERBOARD, OPT_NO_SANDBOX, OPT_COUNT
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
    [OPT_CLASS] = { "class", "FILE.csv", "none (--submissions: WORK/class.csv)", "append the grade to a class leaderboard" },
    [OPT_STUDENT] = { "student", "NAME", "$USER", "the name on the leaderboard" },
    [OPT_MIN_DIFF] = { "min-diff", "F", "0.03", "the smallest speed change that counts" },
    [OPT_ALPHA] = { "alpha", "P", "0.05",
                    "1 - the level of the interval a speed is judged by (the rounds' ratio, as compare's)" },
    [OPT_SUBMISSIONS] = { "submissions", "DIR", NULL,
                          "grade a whole class: DIR/<student>/<the exercise's file> or DIR/<student>.c|.cu, each built "
                          "and graded apart" },
    [OPT_WORK] = { "work", "DIR", "build-class", "with --submissions: where each student's tree is built (DIR/NNN)" },
    [OPT_TIMEOUT] = { "timeout", "S", "900", "with --submissions: the longest a student's build, or grade, may take" },
    [OPT_LIMIT_MEMORY] = { "limit-memory", "SIZE", "8G, or half the memory where less",
                           "with --submissions: the most memory a student's build, or grade, may hold, all its "
                           "processes together (per process where no control group can be made; 0: no limit)" },
    [OPT_LIMIT_CPU] = { "limit-cpu", "S", "--timeout times the cores",
                        "with --submissions: the most CPU time a student's build, or grade, may take, all its "
                        "processes together (per process where no control group can be made; 0: no limit)" },
    [OPT_LIMIT_PROCESSES] = { "limit-processes", "N", "512",
                              "with --submissions: the most processes a student's code may hold at once (0: no "
                              "limit; where no control group can be made, per user, and not for root)" },
    [OPT_NO_SANDBOX] = { "no-sandbox", NULL, NULL,
                         "with --submissions: run each student's code as you, with no sandbox (bubblewrap): your "
                         "files, the other hand-ins and the network in its reach (docs/course-plan.md)" },
    [OPT_LEADERBOARD] = { "leaderboard", "FILE.md", "leaderboard-ALGO-RUNG.md beside the --class file",
                          "with --submissions: the class's page (and its plot beside it)" },
};

const sb_command sb_cmd_grade = {
    "grade", "ALGO/student-RUNG [options]  |  ALGO/RUNG --submissions DIR [options]",
    "Grade a student's rung: exact on the set and on seeded images, sanitizer-clean, faster than its parent.",
    "  make exercise ALGO=integral RUNG=cuda-transposed && make && ./build/segbench grade integral/student-cuda-transposed\n"
    "Speed is the student's rung against its parent and the reference solution, interleaved on this\n"
    "machine, as ratios (a grade carries across GPUs), and as x limit (kernel median over the stage's\n"
    "limit: the bytes it must move at this machine's measured copy rate or, on a GPU, the warp\n"
    "instructions of the stage's fastest rung in the reference machine's profile, whichever is longer).\n"
    "A class: segbench grade kmeans/openmp --submissions hand-ins/ --seed 4711 --class class.csv\n"
    "grades every student's file in a tree of its own (build-class/NNN), one after another, with the\n"
    "teacher's seed and images, and writes every row to --class and the class's page to --leaderboard.\n",
    GRADE_OPTIONS, OPT_COUNT, 0,
    "0 pass; 1 wrong output or a sanitizer finding; 2 usage or input error (not built: run make);\n"
    "             3 correct but not faster than the parent (or, for a lesson that loses, TODO parts left); 130 interrupted\n"
    "             (--submissions: 0 when every student was graded, whatever their verdicts)",
    cmd_grade,
};

/* --limit-memory's default: 8 GiB, or half the machine's memory where
 * that is less. */
static size_t grade_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    size_t most = (size_t)8 << 30, half = pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 2 : most;
    return half < most ? half : most;
}

static sb_status grade_parse(int argc, char **argv, grade_opts *o, grade_class_opts *c, const char **leaderboard,
                             const char **spec, sb_error *err)
{
    memset(o, 0, sizeof *o);
    memset(c, 0, sizeof *c);
    c->work = "build-class";
    c->root = ".";
    c->timeout_s = 900;
    o->set = "smoke";
    o->speed_set = "default";
    o->generated = 4;
    o->samples = 15;
    o->sanitizer = 1;
    o->min_diff = 0.03;
    o->alpha = 0.05;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cores > 0 ? (int)cores : 1;
    o->student = getenv("USER") && getenv("USER")[0] ? getenv("USER") : "student";
    double cpu_s = -1;
    int procs = 512;
    c->memory_bytes = grade_default_memory();
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_grade, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;)
        switch (opt) {
        case OPT_SET: o->set = p.value; break;
        case OPT_SPEED_SET: o->speed_set = p.value; break;
        case OPT_IMAGE: st = sb_image_choice_take(&o->images, SB_IMAGE_OPT_IMAGE, p.value, err); break;
        case OPT_SEED: {
            char *end;
            errno = 0;
            o->seed = strtoull(p.value, &end, 10);
            if (errno || end == p.value || *end || p.value[0] == '-')
                return sb_fail(err, SB_ERR_USAGE, "--seed: '%s' is not a whole number", p.value);
            o->have_seed = 1;
            break;
        }
        case OPT_GENERATED: st = sb_parse_int(p.value, 0, GRADE_MAX_GENERATED, "--generated", &o->generated, err); break;
        case OPT_STAGE: o->stage = p.value; break;
        case OPT_SAMPLES: st = sb_parse_int(p.value, 9, 1000, "--samples", &o->samples, err); break;
        case OPT_THREADS: st = sb_parse_int(p.value, 1, 1024, "--threads", &o->threads, err); break;
        case OPT_NO_SANITIZER: o->sanitizer = 0; break;
        case OPT_JSON: o->json = p.value; break;
        case OPT_CLASS: o->class_csv = p.value; break;
        case OPT_STUDENT: o->student = p.value; break;
        case OPT_MIN_DIFF: st = sb_parse_double(p.value, 0, 1, "--min-diff", &o->min_diff, err); break;
        case OPT_ALPHA: st = sb_parse_double(p.value, 1e-9, 0.5, "--alpha", &o->alpha, err); break;
        case OPT_SUBMISSIONS: c->submissions = p.value; break;
        case OPT_WORK: st = sb_dir_arg(p.value, "--work", err); c->work = p.value; break;
        case OPT_TIMEOUT: st = sb_parse_double(p.value, 1, 86400, "--timeout", &c->timeout_s, err); break;
        case OPT_LIMIT_MEMORY:
            c->memory_bytes = 0;
            st = strcmp(p.value, "0") ? sb_parse_bytes(p.value, "--limit-memory", &c->memory_bytes, err) : SB_OK;
            break;
        case OPT_LIMIT_CPU: st = sb_parse_double(p.value, 0, 1e7, "--limit-cpu", &cpu_s, err); break;
        case OPT_LIMIT_PROCESSES: st = sb_parse_int(p.value, 0, 1 << 22, "--limit-processes", &procs, err); break;
        case OPT_LEADERBOARD: *leaderboard = p.value; break;
        case OPT_NO_SANDBOX: c->no_sandbox = 1; break;
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
    /* by default CPU time binds no sooner than the time limit with every core busy */
    c->cpu_s = cpu_s >= 0 ? cpu_s : c->timeout_s * (double)(cores > 0 ? cores : 1);
    c->processes = procs;
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

/* --submissions: the class, then its page. */
static sb_status grade_class(const grade_opts *o, const grade_class_opts *c, const char *leaderboard,
                             const char *spec, sb_error *err)
{
    grade_class_result res;
    sb_status st = grade_class_run(o, c, spec, &res, err);
    if (st)
        return st;
    char page[SB_PATH_MAX];
    if (!leaderboard) {                           /* beside the class CSV, named after the exercise */
        const char *slash = strrchr(o->class_csv, '/');
        char exercise[200];
        snprintf(exercise, sizeof exercise, "%s", res.variant);
        for (char *q = exercise; *q; q++)
            if (*q == '/')
                *q = '-';
        if ((st = sb_path(page, err, "%.*sleaderboard-%s.md", slash ? (int)(slash - o->class_csv + 1) : 0,
                          o->class_csv, exercise)))
            return st;
        leaderboard = page;
    }
    if ((st = report_leaderboard(o->class_csv, res.variant, o->seed, leaderboard, err)))
        return st;
    printf("graded %d student%s of %s: %d passed, %d correct but not fast enough, %d wrong, %d not graded\n"
           "class: %s; page: %s\n", res.students, res.students == 1 ? "" : "s", res.variant, res.passed,
           res.slower, res.wrong, res.failed, o->class_csv, leaderboard);
    return SB_OK;
}

sb_status cmd_grade(int argc, char **argv, sb_error *err)
{
    grade_opts o;
    grade_class_opts c;
    const char *spec = NULL, *leaderboard = NULL;
    sb_status st = grade_parse(argc, argv, &o, &c, &leaderboard, &spec, err);
    if (st)
        return st;
    if (!c.submissions && leaderboard)
        return sb_fail(err, SB_ERR_USAGE, "--leaderboard goes with --submissions (a class's page)");
    char csv[SB_PATH_MAX];
    sb_dir_lock work_lock = { -1 };                /* held until the process ends */
    if (c.submissions && (st = grade_class_claim_work(c.work, &work_lock, err)))
        return st;
    if (c.submissions && !o.class_csv) {          /* every student's row goes somewhere */
        if ((st = sb_path(csv, err, "%s/class.csv", c.work)))
            return st;
        o.class_csv = csv;
    }
    return c.submissions ? grade_class(&o, &c, leaderboard, spec, err) : sb_grade_run(&o, spec, err);
}
