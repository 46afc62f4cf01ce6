/* kmeans_device.cuh - what the device-resident CUDA k-means rungs
 * (cuda-global onwards) share: the buffers, the loop that drives the
 * passes from the host, and the device-side pieces every pass ends with
 * (the update rule and the convergence test).
 *
 * A rung's state is a struct of its own whose first member is a
 * km_device.  Its prepare opens the device part (km_device_open), then
 * sizes its grid and allocates what only it needs; its run hands its pass
 * to km_run_passes, the loop every rung shares; its release frees its own
 * things, then calls km_device_close.  Upload and fetch are shared
 * (km_cuda_upload, km_cuda_fetch).
 *
 * The whole loop stays on the device.  A pass is one or two kernels; the
 * last step of a pass turns the integer sums into centres (kmeans.h's
 * rule), zeroes the sums, counts the pass and -- when nothing changed and
 * the mode is "converge" -- raises km_control::done, after which further
 * passes return at once.  So the host can enqueue KM_BATCH passes, then
 * read back one 16-byte km_control, and still get the exact pass count:
 * a pass without change is a fixed point (kmeans.h), the extra launches
 * are no-ops.  In fixed mode nothing is read back at all.
 *
 * Layout.  The image is uploaded packed (3 bytes a pixel, rows joined)
 * and padded with zeros to a multiple of 4 pixels, so 4 pixels are
 * exactly 3 aligned 32-bit words (a "quad"); labels are bytes, 4 to a
 * word.  Pixels of the padding are labelled but never counted.
 */
#ifndef SEGBENCH_KMEANS_DEVICE_CUH
#define SEGBENCH_KMEANS_DEVICE_CUH

#include "../warp.cuh"
#include <cstdint>

#include "segbench/kmeans.h"
#include "segbench/variant.h"

#include "../cuda_check.cuh"

enum { KM_BATCH = 8, KM_FULL_MASK = 0xffffffffu };

/* Pass bookkeeping, on the device (and one pinned copy on the host). */
struct km_control {
    unsigned blocks_done;   /* blocks of the current kernel that have finished */
    unsigned changed;       /* pixels whose label changed in this pass */
    int passes;             /* passes made */
    int done;               /* converged: later passes return at once */
};

struct km_device {
    const char *who;              /* "kmeans/cuda-lastblock", for messages */
    sb_kmeans_params params;
    long n;                       /* pixels */
    unsigned quads;               /* ceil(n / 4) */
    cudaStream_t stream;
    const sb_image *host_in;      /* the frame upload() copies */
    sb_kmeans_out *host_out;
    int32_t host_initial[SB_KMEANS_MAX_K][3];         /* upload()'s sources */
    sb_kmeans_prepped host_prepped[SB_KMEANS_MAX_K];
    int sm_count;
    uint32_t *rgb;                /* 3 words a quad */
    uint32_t *labels;             /* 1 word a quad */
    int32_t *centres;             /* k x 3, the current centres */
    float4 *prepped;              /* k, the same as sb_kmeans_prepped */
    int32_t *initial;             /* k x 3, copied to `centres` at each run */
    float4 *initial_prepped;
    unsigned long long *sums;     /* k x 4, zero between passes */
    km_control *control;
    km_control *host_control;     /* pinned */
};

/* The start of every rung's prepare: a zeroed state of `state_size` bytes
 * (the rung's struct, a km_device first) in *state, and the buffers in it.
 * On failure *state may hold a part-built state; the harness hands it to
 * the rung's release. */
sb_status km_device_open(void **state, size_t state_size, const sb_image *in, const void *params, void *output,
                         const sb_exec *exec, sb_error *err);
/* The end of every rung's release: the shared buffers, then the state. */
void km_device_close(void *state);

/* A frame: its initial centres (seeded on the host), the pixels and those
 * centres onto the device. */
sb_status km_cuda_upload(void *state, sb_error *err);
/* The labels, centres and pass count back into the harness's output. */
sb_status km_cuda_fetch(void *state, sb_error *err);

/* Blocks for a pass over `items` work items (pixels or quads), `threads`
 * a block: enough to fill the GPU at `per_sm` blocks an SM, no more than
 * the items need, and enough that no block sees 2^24 pixels (its 32-bit
 * shared sums cannot overflow). */
unsigned km_grid_blocks(const km_device *d, unsigned long long items, unsigned threads, unsigned per_sm);
/* The same for a rung without a km_device: the GPU's SM count, n pixels. */
unsigned km_blocks_for(int sm_count, long n, unsigned long long items, unsigned threads, unsigned per_sm);

/* One block: the end of a pass whose sums the pass kernel added, for the
 * rungs that update in a second launch (kmeans_device.cu). */
__global__ void km_finish_kernel(int k, int converge, unsigned long long *sums, int32_t *centres, float4 *prepped,
                                 km_control *control);

/* The start of a run: the initial centres into place, the counters zeroed. */
sb_status km_restart(km_device *d, sb_error *err);
/* Read km_control back (a stream synchronisation): has the loop converged? */
sb_status km_converged(km_device *d, int *done, sb_error *err);

/* The loop of kmeans.h, the same for every rung: from the initial
 * centres, `pass(first_pass, err)` enqueues one pass, KM_BATCH at a time,
 * until the device says done or max_iter passes are made.  In fixed mode
 * all of them are enqueued with nothing read back. */
template <class Pass>
sb_status km_run_passes(km_device *d, const Pass &pass, sb_error *err)
{
    const sb_kmeans_params *p = &d->params;
    sb_status st = km_restart(d, err);
    int launched = 0, done = 0;
    while (!st && !done && launched < p->max_iter) {
        int left = p->max_iter - launched, batch = p->fixed || left < (int)KM_BATCH ? left : (int)KM_BATCH;
        for (int i = 0; !st && i < batch; i++)
            st = pass(launched + i == 0, err);
        launched += batch;
        if (!st && !p->fixed)
            st = km_converged(d, &done, err);
    }
    return st;
}

/* ---- device pieces ----------------------------------------------------- */

__device__ __forceinline__ float4 km_prep(const int32_t c[3])
{
    sb_kmeans_prepped p = sb_kmeans_prep(c);
    return make_float4(p.r, p.g, p.b, p.cc);
}

/* The nearest centre to pixel (r, g, b): kmeans.h's exact score, strict <
 * so ties keep the lower index.  `centres` may be in any memory space. */
__device__ __forceinline__ unsigned km_nearest(const float4 *centres, int k, unsigned r, unsigned g, unsigned b)
{
    float mr = sb_kmeans_pixel_weight(r), mg = sb_kmeans_pixel_weight(g), mb = sb_kmeans_pixel_weight(b);
    unsigned best_c = 0;
    float4 c = centres[0];
    float best = sb_kmeans_score({ c.x, c.y, c.z, c.w }, mr, mg, mb);
    for (int j = 1; j < k; j++) {
        c = centres[j];
        float s = sb_kmeans_score({ c.x, c.y, c.z, c.w }, mr, mg, mb);
        if (s < best) {
            best = s;
            best_c = (unsigned)j;
        }
    }
    return best_c;
}

/* The end of a pass, run by one block: the update rule, zeroed sums, the
 * pass counted and the convergence test.  The sums were written by other
 * blocks' atomics, so they are read past L1 (__ldcg). */
__device__ __forceinline__ void km_finish_pass(int k, int converge, unsigned long long *sums, int32_t *centres,
                                               float4 *prepped, km_control *control)
{
    for (int c = threadIdx.x; c < k; c += blockDim.x) {
        unsigned long long count = __ldcg(&sums[4 * c + 3]);
        int32_t centre[3] = { centres[3 * c], centres[3 * c + 1], centres[3 * c + 2] };
        if (count)                       /* an empty cluster keeps its centre */
            for (int ch = 0; ch < 3; ch++)
                centre[ch] = sb_kmeans_mean(__ldcg(&sums[4 * c + ch]), count);
        for (int ch = 0; ch < 3; ch++) {
            centres[3 * c + ch] = centre[ch];
            sums[4 * c + ch] = 0;
        }
        sums[4 * c + 3] = 0;
        prepped[c] = km_prep(centre);
    }
    if (threadIdx.x == 0) {
        control->passes++;
        if (converge && __ldcg(&control->changed) == 0)
            control->done = 1;
        control->changed = 0;
        control->blocks_done = 0;
    }
}

/* The sum over the whole warp (warp.cuh's, one instruction from sm_80). */
__device__ __forceinline__ unsigned km_warp_sum(unsigned v) { return sb_warp_sum(KM_FULL_MASK, v); }

#endif
