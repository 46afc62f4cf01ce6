/* ms_device.cuh - what the CUDA mean-shift variants share: the buffers,
 * the steps around the filter (colour conversion, flood, merge), and the
 * filter's per-pixel loop, templated on how a window's pixels are read.
 *
 * The variants differ in one place each, so that a diff between their
 * files is the lesson:
 *   cuda-global   the filter reads the window straight from global memory
 *                 (through L1); flood and merge union-find in global memory;
 *   cuda-shared   the filter stages each block's tile and a halo of the
 *                 radius in shared memory; flood and merge union-find in
 *                 32x32 shared-memory tiles first (ccl_device.cuh);
 *   cuda-texture  the filter reads through a 2D texture object (a cache
 *                 laid out for 2D locality); flood and merge as cuda-shared
 *                 -- they read each pixel once or twice, in order, where a
 *                 texture has nothing to add.
 * Every integer rule is meanshift.h's, so the outputs are the reference's.
 *
 * A rung's state is an ms_device, or a struct of its own whose first
 * member is one.  Its prepare, one for each step it offers, opens the
 * device part (ms_device_open, which takes the step and the rung's
 * union-find scheme), then sets up what only it needs; its run hands its
 * filter launch to ms_run, the run every rung shares; its release frees
 * its own things, then calls ms_device_close.  Upload and fetch are
 * shared (ms_cuda_upload, ms_cuda_fetch).
 */
#ifndef SEGBENCH_MS_DEVICE_CUH
#define SEGBENCH_MS_DEVICE_CUH

#include <cstdint>

#include "segbench/meanshift.h"
#include "segbench/trace.h"
#include "segbench/variant.h"

#include "../cuda_check.cuh"
#include "../regions/ccl_device.cuh"

enum { MS_BLOCK_W = 32, MS_BLOCK_H = 8 };

struct ms_device {
    const char *who;
    int step;                      /* SB_MS_FILTER, _FLOOD, _MERGE or _PIPELINE */
    ccl_scheme scheme;             /* the union-find of flood and merge */
    sb_ms_params p;
    int width, height;
    unsigned n;
    cudaStream_t stream;
    const sb_image *host_in;       /* the frame upload() copies */
    void *host_out;
    /* filter and pipeline */
    uint8_t *rgb;                  /* the input, 3 bytes a pixel */
    float *linear;                 /* slic.h's sRGB table */
    uint32_t *luv;                 /* converted, rows `pitch` elements apart */
    size_t pitch;
    uint32_t *filtered;            /* the modes, rows packed */
    /* flood and merge */
    uint32_t *colour;              /* flood, merge: the uploaded filtered colours */
    int32_t *flood;                /* merge: the uploaded flood labels; pipeline: its own */
    int32_t *labels;               /* the output */
    uint8_t *join;
    int32_t *parent, *comp;         /* comp: the fusion components, pruned in place */
    int32_t *count;                /* by region */
    unsigned long long *sum;       /* by region, L u v */
    uint32_t *mean;
    unsigned long long *best;
    int32_t *target, *end, *first, *number;
    void *scan_temp;
    size_t scan_bytes;
    int *flags;                    /* device: [0] region count, [1] merged this round, [2] rounds */
    cudaGraphExec_t merge_graph;   /* the merge as one graph (4_graph.cu), or NULL */
    int *host_flags;               /* pinned copy */
};

/* The start of every rung's prepare: the input and parameters checked, a
 * zeroed state of `state_size` bytes (the rung's struct, an ms_device
 * first) in *state, and the buffers `step` needs in it.  On failure *state
 * may hold a part-built state; the harness hands it to the rung's
 * release. */
sb_status ms_device_open(void **state, size_t state_size, int step, ccl_scheme scheme, const sb_image *in,
                         const void *params, void *output, const sb_exec *exec, sb_error *err);
/* The end of every rung's release: the shared buffers, then the state. */
void ms_device_close(void *state);

/* A frame: the RGB pixels (filter, pipeline), or the filtered colours and,
 * for merge, the flood labels. */
sb_status ms_cuda_upload(void *state, sb_error *err);
/* The step's output back into the harness's, then wait. */
sb_status ms_cuda_fetch(void *state, sb_error *err);

/* The merge's steps, each enqueued on d->stream (ms_device.cu); the host
 * loop runs start, then rounds of mark and apply while a region merged,
 * then finish.  A rung that records them as a graph (4_graph.cu) puts the
 * instantiated graph in d->merge_graph: ms_segment then launches it
 * instead of the kernels one by one.
 *   start:  the flood regions' means, and fusion into d->comp;
 *   mark:   sizes and means, best neighbours, targets, pointer ends
 *           (flags[1] = 1 when some region merges);
 *   apply:  each region takes the smallest root whose pointers end where
 *           its own do, relabelled in place;
 *   finish: the regions numbered 0..count-1 in the order of their roots. */
sb_status ms_merge_start(ms_device *d, const uint32_t *colour, const int32_t *flood, sb_error *err);
sb_status ms_prune_mark(ms_device *d, const uint32_t *colour, const int32_t *cur, sb_error *err);
sb_status ms_prune_apply(ms_device *d, int32_t *labels, sb_error *err);
sb_status ms_merge_finish(ms_device *d, const int32_t *cur, int32_t *labels, sb_error *err);

/* Does this step run the filter (the filter step and the pipeline)? */
static inline bool ms_filters(const ms_device *d) { return d->step == SB_MS_FILTER || d->step == SB_MS_PIPELINE; }
/* Before the filter: the RGB pixels to packed LUV in d->luv. */
sb_status ms_convert_input(ms_device *d, sb_error *err);
/* After it: flood, merge, or both, as the step asks (nothing for the filter). */
sb_status ms_segment(ms_device *d, sb_error *err);

/* A step on the device, the same for every rung: `filter(err)` enqueues
 * the rung's filter, d->luv -> d->filtered. */
template <class Filter>
sb_status ms_run(ms_device *d, const Filter &filter, sb_error *err)
{
    sb_status st = SB_OK;
    sb_trace_push("filter");
    if (ms_filters(d) && !(st = ms_convert_input(d, err)))
        st = filter(err);
    sb_trace_pop();
    return st ? st : ms_segment(d, err);
}

/* A rung's prepare for one step: `prepare(step, ...)` with the step bound. */
#define MS_STEP_PREPARE(fn, prepare, step)                                                                    \
    static sb_status fn(void **s, const sb_image *in, const void *p, void *o, const sb_exec *e, sb_error *err) \
    {                                                                                                         \
        return prepare(step, s, in, p, o, e, err);                                                            \
    }

/* ---- the filter's per-pixel loop ----------------------------------------------------- */

/* The window's sums (meanshift.h) from pixels read by fetch(x, y).  Per
 * pixel: |difference| per byte and the sum of squares in two SIMD
 * instructions (__vabsdiffu4, __dp4a: the fourth byte is 0 on both
 * sides); L and v are summed in one register as two 16-bit lanes (a row
 * of at most 129 pixels cannot carry past 65535), u beside it. */
template <class Fetch>
__device__ __forceinline__ void ms_window_sums(const Fetch &fetch, int x0, int x1, int y0, int y1, int cx, int cy,
                                               uint32_t m, unsigned range2, sb_ms_sums *s)
{
    for (int qy = y0; qy <= y1; qy++) {
        int n = 0, sx = 0;
        unsigned lv = 0, u = 0;
        for (int qx = x0; qx <= x1; qx++) {
            uint32_t c = fetch(qx, qy);
            unsigned d = __vabsdiffu4(c, m);
            if (__dp4a(d, d, 0u) <= range2) {
                n++;
                sx += qx;
                lv += c & 0x00ff00ffu;
                u += (c >> 8) & 255u;
            }
        }
        s->n += n;
        s->dx += sx - n * cx;
        s->dy += n * (qy - cy);
        s->L += (int)(lv & 0xffffu);
        s->v += (int)(lv >> 16);
        s->u += (int)u;
    }
}

/* The window of centre (cx, cy), clipped. */
struct ms_window {
    int x0, x1, y0, y1;
};

__device__ __forceinline__ ms_window ms_window_at(int cx, int cy, int r, int w, int h)
{
    ms_window win = { max(cx - r, 0), min(cx + r, w - 1), max(cy - r, 0), min(cy + r, h - 1) };
    return win;
}

/* One pixel's mode.  sums(win, cx, cy, m, &s) adds the window's sums --
 * where the variants differ. */
template <class Sums>
__device__ __forceinline__ uint32_t ms_mode(const Sums &sums, int x, int y, int w, int h, const sb_ms_params &p,
                                            uint32_t m)
{
    int cx = x, cy = y;
    for (int it = 0; it < p.max_iter; it++) {
        sb_ms_sums s = { 0, 0, 0, 0, 0, 0 };
        sums(ms_window_at(cx, cy, p.radius, w, h), cx, cy, m, &s);
        if (!sb_ms_step(&s, &cx, &cy, &m))
            break;
    }
    return m;
}

#endif
