/* variant.h - what one implementation of one algorithm provides.
 *
 * A variant is five functions.  The harness calls them in this order and
 * times them as shown:
 *
 *     prepare(&state, input, params, output, exec)  allocate          <- setup (once)
 *     upload(state)   copy the input into the buffers prepare made   \
 *     run(state)      compute; data resident, no host copies  <- kernel  > per frame
 *     fetch(state)    make `output` hold the result (copy back, wait) /
 *     release(state)
 *
 * End to end is setup + one frame: what a program that processes one
 * image pays.  A program that streams frames allocates once and then pays
 * the per-frame time for each, so the two are reported apart.
 *
 * A prepare that fails may leave a part-built state in *state: the
 * harness still hands it to release(), so release() must accept one
 * (zeroed fields it never reached), and prepare need not undo its own
 * steps.  A prepare that leaves *state NULL is not released.
 *
 * `output` is the algorithm's output struct, allocated by the harness
 * (pinned host memory when a GPU is present).  CPU variants may compute
 * straight into it, so their fetch() does nothing, and they read the
 * host input where it is, so they have no upload (NULL).  A device
 * variant's upload() copies from the `input` it was prepared with, which
 * the caller keeps alive and may refill with the next frame between
 * calls; every SB_DEVICE variant has one (a variant whose run() moves
 * the pixels itself does the rest of a frame's set-up there).  CUDA variants' upload()
 * and run() only enqueue work on exec->stream; the harness brackets run()
 * with CUDA events.  A variant knows nothing of files, timing or the
 * harness.
 *
 * A variant registers itself with one SB_VARIANT(...) in its own file
 * (below); its name is written there and nowhere else.
 */
#ifndef SEGBENCH_VARIANT_H
#define SEGBENCH_VARIANT_H

#include "segbench/error.h"
#include "segbench/image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the harness asks a variant to execute. */
typedef struct sb_exec {
    int threads;       /* CPU variants: worker threads, >= 1 */
    void *stream;      /* CUDA variants: the cudaStream_t to enqueue on */
    int poison;        /* fill outputs with a pattern in prepare, so unwritten
                          elements cannot pass the agreement check */
    const char *who;   /* "integral/cuda-shared": the variant, for its messages */
} sb_exec;

typedef struct sb_variant_ops {
    sb_status (*prepare)(void **state, const sb_image *input, const void *params,
                         void *output, const sb_exec *exec, sb_error *err);
    sb_status (*upload)(void *state, sb_error *err);   /* NULL: a host variant */
    sb_status (*run)(void *state, sb_error *err);
    sb_status (*fetch)(void *state, sb_error *err);
    void (*release)(void *state);
} sb_variant_ops;

/* Variant flags. */
enum {
    SB_THREADED = 1 << 0,  /* CPU variant whose thread count is swept */
    SB_DEVICE   = 1 << 1,  /* needs a CUDA device at run time */
    SB_FLOOR    = 1 << 2,  /* speed-of-light row (a copy over the same bytes);
                              checked against its own rule, not the reference */
    SB_INT32    = 1 << 3,  /* output is signed 32-bit (a library that cannot
                              represent sums above INT32_MAX) */
    SB_GRAPH_LOOP = 1 << 4, /* launches its kernels from conditional nodes of a
                              CUDA graph, which compute-sanitizer's racecheck
                              and synccheck cannot follow: its kernels are
                              race-checked where its parent launches them */
    SB_LADDER_TOP = 1 << 5, /* the top of its tree's main line, declared: the
                              main line is the path from the root to this
                              rung, whatever a run's near-ties say; the
                              rest of the tree is branches */
    SB_ONE_AT_A_TIME = 1 << 6, /* keeps state every instance in the process
                              shares (a __constant__ array): two instances
                              running at once would overwrite each other's,
                              so a stream takes it one frame in flight */
    SB_HOST_BOUND = 1 << 7, /* a device variant whose every pass waits on the
                              host's own computing (k-means' update on the
                              CPU): its time moves with the host's noise, so
                              its rows run on a pinned host thread and get
                              the host rows' probes and unstable flag */
    SB_NARROW = 1 << 8,     /* writes its output in the algorithm's narrow
                              layout (sb_algo.narrow_layout: SLIC's labels
                              in 16 bits), so fewer bytes cross the bus;
                              checked against the reference by value.  A
                              case whose values do not fit, it refuses
                              with SB_ERR_LIMIT, and bench skips the row */
    SB_COLOUR_IN = 1 << 9   /* takes each frame in colour where its algorithm
                              takes grey (sb_algo.luma_input: the integral
                              image) and makes the grey itself, exactly as
                              sb_luma_u8 does: the frame crosses the bus in
                              colour and the host converts nothing */
};

typedef struct sb_variant {
    const char *algo;       /* "integral" */
    const char *name;       /* unique within the algorithm: "cuda-shared" */
    const char *backend;    /* cpu, pthread, openmp, cuda-global, cuda-shared,
                               cuda-texture, lib */
    const char *needs;      /* what the build must have: "NONE", "OPENMP", "CUDA", "NPP" */
    unsigned flags;
    unsigned stages;        /* bit i set: supports the algorithm's stage i */
    const sb_variant_ops *ops; /* NULL when not built */
    const char *summary;
    const char *who;        /* "integral/cuda-shared", what sb_exec.who gets */
    const char *file;       /* the source file that registers it */
    const char *parent;     /* the rung it grows from (its SB_RUNG line); NULL: a root */
    const char *idea;       /* the one idea of that edge, or what a root is; "" when undeclared */
    const char *formerly;   /* the name it had before (results of older runs use it), or NULL */
} sb_variant;

/* ---- registration ------------------------------------------------------------
 *
 * One line in the variant's own file, at the start of a line, declares it:
 *
 *   SB_VARIANT("integral", "cuda-shared", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
 *              "128x32 tiles: totals, carry scan in shared memory, one write per sum",
 *              shared_prepare, shared_upload, shared_run, shared_fetch, shared_release)
 *
 *   algo, name  the algorithm (algo.h) and the variant's name, unique in it
 *   backend     cpu, pthread, openmp, cuda-global, cuda-shared, cuda-texture, lib
 *   needs       NONE, OPENMP, CUDA or NPP: what the build must have had
 *   flags       SB_THREADED, SB_DEVICE, SB_FLOOR, SB_INT32, SB_GRAPH_LOOP, SB_LADDER_TOP,
 *               SB_ONE_AT_A_TIME, SB_HOST_BOUND, SB_NARROW, SB_COLOUR_IN (above), or 0
 *   stages      ALL_STAGES, or a mask: bit i = the algorithm's stage i
 *   the ops     the five functions, in call order (upload NULL on the host)
 *
 * The build reads these lines out of every impl_* source file
 * (scripts/variant_table.sh makes gen/variants.inc), so `segbench list`
 * knows a variant even where its file could not be compiled ("not
 * built"), in the order of the files: impl_cpu/, impl_pthread/ (pthread,
 * then OpenMP), then each impl_cuda/<algo>/ by the number that opens its
 * file names (1_naive.cu, 2_blocked6.cu, ...).  A compiled file hands its
 * ops to the registry when the program starts, through a constructor, so
 * no symbol has to be named anywhere else (nor be extern "C").
 *
 * A CUDA rung also says where it sits in its algorithm's ladder, with one
 * more line beside its SB_VARIANT (read by the same script):
 *
 *   SB_RUNG("integral", "cuda-pdl", "cuda-tiles",
 *           "programmatic dependent launch: each kernel starts while the one before drains")
 *
 *   parent   the rung it grows from: `diff -u` of the parent's file against
 *            this one shows the idea.  NULL for a root (the first rung, a
 *            library, a floor).  A texture or any other alternative is a
 *            branch of the rung it varies.
 *   idea     that one idea, in one line (a root: what it starts from)
 *
 * A CUDA rung -- every variant under impl_cuda/ but a library's -- says
 * both in one statement, since the facts they share (algorithm, name,
 * and what the edge teaches) are then written once:
 *
 *   SB_CUDA_RUNG("kmeans", "cuda-lastblock", "cuda-blockcount", "cuda-shared", SB_LADDER_TOP,
 *                "the update in the block that finishes last (a fence, then a ticket): one launch a pass",
 *                rung_prepare, km_cuda_upload, rung_run, km_cuda_fetch, km_device_close)
 *
 * is SB_VARIANT(algo, name, backend, CUDA, SB_DEVICE | flags, ALL_STAGES,
 * idea, the ops) with SB_RUNG(algo, name, parent, idea): flags 0 when it
 * has none beyond SB_DEVICE, and the idea is its summary in `segbench list`.
 *
 * The ladders are trees: `segbench list --json` gives each variant's
 * parent and source, `segbench lesson ALGO/RUNG` prints an edge, and the
 * report draws each algorithm's tree.  A renamed variant keeps its old
 * name in registry.c's table of renames, so --variant and older result
 * sets still know it.
 */
typedef struct sb_registration {
    const char *algo, *name;
    sb_variant_ops ops;
} sb_registration;

/* Called by SB_VARIANT's constructor (registry.c). */
void sb_variant_register(const sb_registration *r);

/* In a variant's own file an SB_RUNG line is only read (registry.c builds the tree from it). */
#define SB_RUNG(algo, name, parent, idea)

/* A CUDA rung's variant and ladder line at once (above). */
#define SB_CUDA_RUNG(algo, name, parent, backend, flags, idea, prepare, upload, run, fetch, release) \
    SB_REGISTER_AT_(__COUNTER__, algo, name, prepare, upload, run, fetch, release)

#define SB_CAT_(a, b) a##b
#define SB_CAT(a, b) SB_CAT_(a, b)
#define SB_VARIANT(algo, name, backend, needs, flags, stages, summary, prepare, upload, run, fetch, release) \
    SB_REGISTER_AT_(__COUNTER__, algo, name, prepare, upload, run, fetch, release)
#define SB_REGISTER_AT_(id, algo, name, prepare, upload, run, fetch, release)                            \
    static const sb_registration SB_CAT(sb_registration_, id) = { algo, name,                        \
                                                                   { prepare, upload, run, fetch, release } }; \
    __attribute__((constructor)) static void SB_CAT(sb_register_, id)(void)                              \
    {                                                                                                     \
        sb_variant_register(&SB_CAT(sb_registration_, id));                                               \
    }

#ifdef __cplusplus
}
#endif
#endif
