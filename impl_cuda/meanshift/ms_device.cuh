/* ms_device.cuh - what the CUDA mean-shift rungs share: the buffers, the
 * steps around the filter and around the union-find (colour conversion,
 * join bits, means, pruning, numbering), and the filter's per-pixel loop,
 * templated on how a window's pixels are read.
 *
 * Mean-shift has two families of rungs, each a tree of files where a
 * diff between a rung and its parent is the lesson:
 *   filter_*.cu   the filter step: how a window's pixels are read
 *                 (global memory through L1, a staged shared-memory tile,
 *                 a texture);
 *   regions_*.cu  flood, merge and the whole pipeline: how components are
 *                 found from join bits and how region sums are added (an
 *                 ms_regions), and whether the host drives the merge.
 *                 Their pipelines run the fastest filter, cuda-global's
 *                 (ms_filter_global, filter_1_global.cuh).
 * Every integer rule is meanshift.h's, so the outputs are the reference's.
 *
 * A rung's state is an ms_device, or a struct of its own whose first
 * member is one.  Its prepare, one for each step it offers, opens the
 * device part (ms_device_open, which takes the step and the rung's
 * ms_regions), then sets up what only it needs; its run hands its filter
 * launch to ms_run, the run every rung shares; its release frees its own
 * things, then calls ms_device_close.  Upload and fetch are shared
 * (ms_cuda_upload, ms_cuda_fetch).
 */
#ifndef SEGBENCH_MS_DEVICE_CUH
#define SEGBENCH_MS_DEVICE_CUH

#include <cstdint>

#include "segbench/meanshift.h"
#include "segbench/trace.h"
#include "segbench/variant.h"

#include "../cuda_check.cuh"
#include "../regions/ccl_device.cuh"

enum { MS_BLOCK_W = 32, MS_BLOCK_H = 8, MS_THREADS = 256 };

struct ms_device;

/* What a regions rung supplies to flood and merge (regions_*.cu); each
 * enqueues on d->stream.
 *   components:  comp[i] = the smallest index of pixel i's component
 *                under the join bits (d->parent is scratch);
 *   region_sums: for every region of `label`, its pixel count and L, u,
 *                v sums added into d->count and d->sum at its root (they
 *                start at zero: see ms_device.cu, "sizes and means");
 *   flood:       optional, the whole flood step -- labels[i] the smallest
 *                index of pixel i's region of similar neighbours, the
 *                region count in d->flags[0] -- for a rung that does it
 *                in fewer passes; NULL: join bits, components and the
 *                count in turn (ms_device.cu, ms_flood);
 *   merge:       the merge driven from the host, labels[i] the final
 *                region of pixel i: the merge's steps (below) in a host
 *                loop; NULL in a rung that records the merge as a graph
 *                (d->merge_graph, regions_4_graph.cu and after).
 * A rung whose merge is its own (d->merge_graph) and whose flood is its
 * own leaves the members those never call NULL. */
struct ms_regions {
    sb_status (*components)(ms_device *d, const uint8_t *join, int32_t *comp, sb_error *err);
    sb_status (*region_sums)(ms_device *d, const int32_t *label, const uint32_t *colour, sb_error *err);
    sb_status (*flood)(ms_device *d, const uint32_t *colour, int32_t *labels, sb_error *err);
    sb_status (*merge)(ms_device *d, const uint32_t *colour, const int32_t *flood, int32_t *labels, sb_error *err);
};

struct ms_device {
    const char *who;
    int step;                      /* SB_MS_FILTER, _FLOOD, _MERGE or _PIPELINE */
    const ms_regions *regions;     /* flood and merge: the rung's (NULL in filter rungs) */
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
    cudaGraphExec_t merge_graph;   /* the merge as one graph (regions_4_graph.cu), or NULL */
    int *host_flags;               /* pinned copy */
};

/* The start of every rung's prepare: the input and parameters checked, a
 * zeroed state of `state_size` bytes (the rung's struct, an ms_device
 * first) in *state, and the buffers `step` needs in it.  On failure *state
 * may hold a part-built state; the harness hands it to the rung's
 * release. */
sb_status ms_device_open(void **state, size_t state_size, int step, const ms_regions *regions, const sb_image *in,
                         const void *params, void *output, const sb_exec *exec, sb_error *err);
/* The end of every rung's release: the shared buffers, then the state. */
void ms_device_close(void *state);

/* A frame: the RGB pixels (filter, pipeline), or the filtered colours and,
 * for merge, the flood labels. */
sb_status ms_cuda_upload(void *state, sb_error *err);
/* The step's output back into the harness's, then wait. */
sb_status ms_cuda_fetch(void *state, sb_error *err);

/* The merge's steps, each enqueued on d->stream (ms_device.cu).  A
 * rung's merge runs start, then rounds of mark and apply while a region
 * merged, then finish: from a host loop (the first rungs' `merge`), or
 * recorded as a graph (regions_4_graph.cu and after), whose instance in
 * d->merge_graph ms_segment launches instead.
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

/* A per-pixel kernel over d's n pixels, on d's stream. */
#define MS_LAUNCH(kernel, ...) kernel<<<sb_div_up(d->n, MS_THREADS), MS_THREADS, 0, d->stream>>>(__VA_ARGS__)

/* A region's sums added in global memory (the regions rungs' region_sums). */
__device__ __forceinline__ void ms_add_global(int32_t *count, unsigned long long *sum, int32_t r, unsigned k,
                                              unsigned L, unsigned u, unsigned v)
{
    atomicAdd(&count[r], (int32_t)k);
    atomicAdd(&sum[3 * (size_t)r], (unsigned long long)L);
    atomicAdd(&sum[3 * (size_t)r + 1], (unsigned long long)u);
    atomicAdd(&sum[3 * (size_t)r + 2], (unsigned long long)v);
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
