/* ms_device.cu - the CUDA mean-shift rungs' common part (ms_device.cuh):
 * buffers, colour conversion, and flood and merge around the rung's
 * union-find and region sums (its ms_regions). */
#include "ms_device.cuh"

#include "segbench/ccl.h"

#include <cub/device/device_scan.cuh>

#include <climits>
#include <cstdlib>
#include <cstring>

/* ---- conversion ----------------------------------------------------------------------- */

__global__ void ms_convert(int width, unsigned n, const uint8_t *rgb, const float *linear, uint32_t *luv, size_t pitch)
{
    __shared__ float table[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        table[i] = linear[i];
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint8_t *px = rgb + 3 * (size_t)i;
    luv[(i / width) * pitch + i % width] = sb_ms_luv_of(table, px[0], px[1], px[2]);
}

/* A region's sums back to zero (see "sizes and means"). */
__device__ __forceinline__ void ms_clear_root(int32_t *count, unsigned long long *sum, unsigned r)
{
    count[r] = 0;
    sum[3 * (size_t)r] = sum[3 * (size_t)r + 1] = sum[3 * (size_t)r + 2] = 0;
}

/* ---- join bits ------------------------------------------------------------------------ */

__global__ void ms_join_colour(int width, unsigned n, const uint32_t *colour, int join2, uint8_t *join)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t c = colour[i];
    uint8_t bits = 0;
    if (i % width && sb_ms_d2(c, colour[i - 1]) <= join2)
        bits |= SB_CCL_LEFT;
    if (i >= (unsigned)width && sb_ms_d2(c, colour[i - width]) <= join2)
        bits |= SB_CCL_UP;
    join[i] = bits;
}

__device__ __forceinline__ bool ms_fuse(const uint32_t *mean, int32_t a, int32_t b, int join2)
{
    return a == b || sb_ms_d2(mean[a], mean[b]) <= join2;
}

/* Also the flood regions' sums, read for the last time (their means are
 * all fusion needs), cleared at their roots. */
__global__ void ms_join_fusion(int width, unsigned n, const int32_t *label, const uint32_t *mean, int join2,
                               uint8_t *join, int32_t *count, unsigned long long *sum)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t a = label[i];
    if (a == (int32_t)i)
        ms_clear_root(count, sum, i);
    uint8_t bits = 0;
    if (i % width && ms_fuse(mean, a, label[i - 1], join2))
        bits |= SB_CCL_LEFT;
    if (i >= (unsigned)width && ms_fuse(mean, a, label[i - width], join2))
        bits |= SB_CCL_UP;
    join[i] = bits;
}

/* ---- sizes and means --------------------------------------------------------------------- *
 *
 * The region sums live in count[] and sum[], indexed by a region's root
 * pixel.  They start at zero (ms_allocate) and every run leaves them at
 * zero again: whoever last reads a region's sums clears them at its root
 * (ms_join_fusion for the flood regions, ms_target for a round's regions).
 * Clearing all W*H entries before each stats pass wrote 28 bytes a pixel,
 * 35 us a pass at 1080p under ncu, for the few thousand roots that are
 * ever touched.  The sums themselves are the rung's (ms_regions). */

__device__ __forceinline__ unsigned ms_mean_byte(unsigned long long s, int n)
{
    return (unsigned)((2 * s + n) / (2 * (unsigned long long)n));
}

/* Every region's mean, and its best neighbour reset (roots only: nothing
 * reads either at other pixels). */
__global__ void ms_means(unsigned n, const int32_t *count, const unsigned long long *sum, uint32_t *mean,
                         unsigned long long *best)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    int k = count[r];
    if (k) {
        best[r] = ~0ull;
        mean[r] = sb_ms_pack(ms_mean_byte(sum[3 * (size_t)r], k), ms_mean_byte(sum[3 * (size_t)r + 1], k),
                             ms_mean_byte(sum[3 * (size_t)r + 2], k));
    }
}

/* ---- pruning ------------------------------------------------------------------------------- */

__device__ __forceinline__ void ms_note(unsigned long long *best, const int32_t *count, const uint32_t *mean,
                                        int32_t small, int32_t other, int min_area)
{
    if (count[small] < min_area)
        atomicMin(&best[small], (unsigned long long)sb_ms_prune_key(sb_ms_d2(mean[small], mean[other]), other));
}

__global__ void ms_best(int width, unsigned n, const int32_t *label, const int32_t *count, const uint32_t *mean,
                        unsigned long long *best, int min_area)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int32_t a = label[i];
    int32_t nb[2] = { (i + 1) % width ? label[i + 1] : a, i + width < n ? label[i + width] : a };
    for (int d = 0; d < 2; d++)
        if (nb[d] != a) {
            ms_note(best, count, mean, a, nb[d], min_area);
            ms_note(best, count, mean, nb[d], a, min_area);
        }
}

/* Each region's target; its sums are read for the last time this round. */
__global__ void ms_target(unsigned n, const int32_t *label, const unsigned long long *best, int32_t *target,
                          int32_t *count, unsigned long long *sum)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n && label[r] == (int32_t)r) {
        target[r] = best[r] == ~0ull ? (int32_t)r : (int32_t)(uint32_t)best[r];
        ms_clear_root(count, sum, r);
    }
}

/* Two regions pointing at each other: the smaller keeps itself. */
__device__ __forceinline__ int32_t ms_pointer(const int32_t *target, int32_t r)
{
    int32_t t = target[r];
    return target[t] == r && r < t ? r : t;
}

__global__ void ms_end(unsigned n, const int32_t *label, const int32_t *target, int32_t *end, int32_t *first,
                       int *merged)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n || label[r] != (int32_t)r)
        return;
    int32_t e = (int32_t)r, next;
    while ((next = ms_pointer(target, e)) != e)
        e = next;
    end[r] = e;
    first[r] = INT_MAX;
    if (e != (int32_t)r)
        *merged = 1;
}

__global__ void ms_first(unsigned n, const int32_t *label, const int32_t *end, int32_t *first)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n && label[r] == (int32_t)r)
        atomicMin(&first[end[r]], (int32_t)r);
}

__global__ void ms_relabel(unsigned n, const int32_t *label, const int32_t *end, const int32_t *first, int32_t *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = first[end[label[i]]];
}

/* ---- numbering --------------------------------------------------------------------------- */

__global__ void ms_root_flags(unsigned n, const int32_t *label, int32_t *flag)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flag[i] = label[i] == (int32_t)i;
}

__global__ void ms_number(unsigned n, const int32_t *label, const int32_t *number, const int32_t *flag, int32_t *out,
                          int *count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    out[i] = number[label[i]];
    if (i == n - 1)
        *count = number[i] + flag[i];
}

/* Flood's count: the roots, a ballot a warp. */
__global__ void ms_count_roots(unsigned n, const int32_t *label, int *count)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned roots = __ballot_sync(__activemask(), i < n && label[i] == (int32_t)i);
    if ((threadIdx.x & 31) == 0 && roots)
        atomicAdd(count, __popc(roots));
}

/* ---- the steps ---------------------------------------------------------------------------- */

static sb_status ms_flood(ms_device *d, const uint32_t *colour, int32_t *labels, sb_error *err)
{
    if (d->regions->flood)
        return d->regions->flood(d, colour, labels, err);
    MS_LAUNCH(ms_join_colour, d->width, d->n, colour, sb_ms_join2(d->p.range), d->join);
    SB_CUDA_LAUNCHED(err, d->who);
    sb_status st = d->regions->components(d, d->join, labels, err);
    if (st)
        return st;
    SB_CUDA_TRY(cudaMemsetAsync(d->flags, 0, sizeof(int), d->stream), err, d->who);
    MS_LAUNCH(ms_count_roots, d->n, labels, d->flags);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status ms_stats(ms_device *d, const int32_t *label, const uint32_t *colour, sb_error *err)
{
    sb_status st = d->regions->region_sums(d, label, colour, err);
    if (st)
        return st;
    MS_LAUNCH(ms_means, d->n, d->count, d->sum, d->mean, d->best);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* The round's first half, the same in both loops: sizes and means, best
 * neighbours, targets, and the ends of the pointers (flags[1] = 1 when
 * some region merges). */
sb_status ms_prune_mark(ms_device *d, const uint32_t *colour, const int32_t *cur, sb_error *err)
{
    sb_status st = ms_stats(d, cur, colour, err);
    if (st)
        return st;
    MS_LAUNCH(ms_best, d->width, d->n, cur, d->count, d->mean, d->best, d->p.min_area);
    MS_LAUNCH(ms_target, d->n, cur, d->best, d->target, d->count, d->sum);
    SB_CUDA_TRY(cudaMemsetAsync(d->flags + 1, 0, sizeof(int), d->stream), err, d->who);
    MS_LAUNCH(ms_end, d->n, cur, d->target, d->end, d->first, d->flags + 1);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* Its second half: each region takes the smallest root among those whose
 * pointers end where its own does, relabelled in place (a pixel reads
 * only its own label). */
sb_status ms_prune_apply(ms_device *d, int32_t *labels, sb_error *err)
{
    MS_LAUNCH(ms_first, d->n, labels, d->end, d->first);
    MS_LAUNCH(ms_relabel, d->n, labels, d->end, d->first, labels);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* Before the rounds: the flood regions' means, and fusion into d->comp. */
sb_status ms_merge_start(ms_device *d, const uint32_t *colour, const int32_t *flood, sb_error *err)
{
    sb_status st = ms_stats(d, flood, colour, err);
    if (st)
        return st;
    MS_LAUNCH(ms_join_fusion, d->width, d->n, flood, d->mean, sb_ms_join2(d->p.range), d->join, d->count,
              d->sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return d->regions->components(d, d->join, d->comp, err);
}

/* After them: the regions numbered 0..count-1 in the order of their roots. */
sb_status ms_merge_finish(ms_device *d, const int32_t *cur, int32_t *labels, sb_error *err)
{
    int32_t *flag = d->target;     /* free after the pruning */
    MS_LAUNCH(ms_root_flags, d->n, cur, flag);
    SB_CUDA_LAUNCHED(err, d->who);
    SB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(d->scan_temp, d->scan_bytes, flag, d->number, (int)d->n, d->stream), err,
                d->who);
    MS_LAUNCH(ms_number, d->n, cur, d->number, flag, labels, d->flags);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status ms_merge(ms_device *d, const uint32_t *colour, const int32_t *flood, int32_t *labels, sb_error *err)
{
    if (d->merge_graph) {          /* the whole merge, rounds included, is one graph */
        SB_CUDA_TRY(cudaGraphLaunch(d->merge_graph, d->stream), err, d->who);
        return SB_OK;
    }
    if (!d->regions->merge)
        return sb_fail(err, SB_ERR_UNAVAILABLE, "%s: this rung has no merge", d->who);
    return d->regions->merge(d, colour, flood, labels, err);
}

/* ---- the variant functions --------------------------------------------------------------------- */

void ms_device_close(void *state)
{
    ms_device *d = (ms_device *)state;
    if (!d)
        return;
    if (d->merge_graph)
        cudaGraphExecDestroy(d->merge_graph);
    void *buffers[] = { d->rgb, d->linear, d->luv, d->filtered, d->colour, d->flood, d->labels, d->join,
                        d->parent, d->comp, d->count, d->sum, d->mean, d->best, d->target,
                        d->end, d->first, d->number, d->scan_temp, d->flags };
    for (void *b : buffers)
        cudaFree(b);
    cudaFreeHost(d->host_flags);
    free(d);
}

template <class T>
static cudaError_t ms_alloc(T **p, size_t count)
{
    return cudaMalloc(p, count * sizeof(T));
}

static sb_status ms_allocate(ms_device *d, sb_error *err)
{
    size_t n = d->n;
    bool rgb = ms_filters(d);
    SB_CUDA_TRY(cudaMallocHost(&d->host_flags, 2 * sizeof(int)), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->flags, 3), err, d->who);
    if (rgb) {
        SB_CUDA_TRY(ms_alloc(&d->rgb, 3 * n), err, d->who);
        SB_CUDA_TRY(ms_alloc(&d->linear, 256), err, d->who);
        size_t bytes;
        SB_CUDA_TRY(cudaMallocPitch(&d->luv, &bytes, (size_t)d->width * sizeof(uint32_t), d->height), err, d->who);
        d->pitch = bytes / sizeof(uint32_t);
        SB_CUDA_TRY(ms_alloc(&d->filtered, n), err, d->who);
    } else {
        SB_CUDA_TRY(ms_alloc(&d->colour, n), err, d->who);
    }
    if (d->step == SB_MS_FILTER)
        return SB_OK;
    if (d->step != SB_MS_FLOOD)
        SB_CUDA_TRY(ms_alloc(&d->flood, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->labels, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->join, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->parent, n), err, d->who);
    if (d->step == SB_MS_FLOOD)
        return SB_OK;
    SB_CUDA_TRY(ms_alloc(&d->comp, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->count, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->sum, 3 * n), err, d->who);
    /* zero once: every run leaves them zero (see "sizes and means") */
    SB_CUDA_TRY(cudaMemsetAsync(d->count, 0, n * sizeof *d->count, d->stream), err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(d->sum, 0, 3 * n * sizeof *d->sum, d->stream), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->mean, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->best, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->target, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->end, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->first, n), err, d->who);
    SB_CUDA_TRY(ms_alloc(&d->number, n), err, d->who);
    SB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, d->scan_bytes, d->target, d->number, (int)n), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&d->scan_temp, d->scan_bytes), err, d->who);
    return SB_OK;
}

sb_status ms_device_open(void **state, size_t state_size, int step, const ms_regions *regions, const sb_image *in,
                         const void *params, void *output, const sb_exec *exec, sb_error *err)
{
    *state = NULL;
    const char *who = exec->who;
    const sb_ms_params *p = (const sb_ms_params *)params;
    sb_status st = sb_ms_check_params(p, step, err);
    if (st)
        return st;
    bool rgb = step == SB_MS_FILTER || step == SB_MS_PIPELINE;
    if (step != SB_MS_FILTER && !regions)
        return sb_fail(err, SB_ERR_UNAVAILABLE, "%s: this rung has no union-find for the step", who);
    if (in->width < 1 || in->height < 1)
        return sb_fail(err, SB_ERR_USAGE, "%s: empty image (%dx%d)", who, in->width, in->height);
    if (in->channels != (rgb ? 3 : 4) || in->stride != (size_t)in->width * in->channels)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs %s input with packed rows, got %d channels", who,
                       rgb ? "RGB" : "packed LUV", in->channels);
    ms_device *d = (ms_device *)(*state = calloc(1, state_size));
    if (!d)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    d->who = who;
    d->step = step;
    d->regions = regions;
    d->p = *p;
    d->width = in->width;
    d->height = in->height;
    d->n = (unsigned)in->width * (unsigned)in->height;
    d->stream = (cudaStream_t)exec->stream;
    d->host_in = in;
    d->host_out = output;
    if ((st = ms_allocate(d, err)))
        return st;
    if (rgb)      /* a table, not a frame: once */
        SB_CUDA_TRY(cudaMemcpyAsync(d->linear, sb_slic_linear_table(), 256 * sizeof(float), cudaMemcpyHostToDevice,
                                    d->stream),
                    err, who);
    if (exec->poison)
        SB_CUDA_TRY(cudaMemsetAsync(rgb ? (void *)d->filtered : (void *)d->labels, 0xA5, 4 * (size_t)d->n,
                                    d->stream),
                    err, who);
    return SB_OK;
}

sb_status ms_cuda_upload(void *state, sb_error *err)
{
    ms_device *d = (ms_device *)state;
    const void *data = d->host_in->data;
    if (ms_filters(d)) {
        SB_CUDA_TRY(cudaMemcpyAsync(d->rgb, data, 3 * (size_t)d->n, cudaMemcpyHostToDevice, d->stream), err, d->who);
        return SB_OK;
    }
    SB_CUDA_TRY(cudaMemcpyAsync(d->colour, data, 4 * (size_t)d->n, cudaMemcpyHostToDevice, d->stream), err, d->who);
    if (d->step == SB_MS_MERGE)
        SB_CUDA_TRY(cudaMemcpyAsync(d->flood, d->p.flood, 4 * (size_t)d->n, cudaMemcpyHostToDevice, d->stream), err,
                    d->who);
    return SB_OK;
}

sb_status ms_convert_input(ms_device *d, sb_error *err)
{
    MS_LAUNCH(ms_convert, d->width, d->n, d->rgb, d->linear, d->luv, d->pitch);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status ms_segment(ms_device *d, sb_error *err)
{
    sb_status st = SB_OK;
    if (d->step == SB_MS_FLOOD)
        st = ms_flood(d, d->colour, d->labels, err);
    else if (d->step == SB_MS_MERGE)
        st = ms_merge(d, d->colour, d->flood, d->labels, err);
    else if (d->step == SB_MS_PIPELINE) {      /* each step a range on the profiler's timeline */
        sb_trace_push("flood");
        st = ms_flood(d, d->filtered, d->flood, err);
        sb_trace_pop();
        sb_trace_push("merge");
        if (!st)
            st = ms_merge(d, d->filtered, d->flood, d->labels, err);
        sb_trace_pop();
    }
    return st;
}

sb_status ms_cuda_fetch(void *state, sb_error *err)
{
    ms_device *d = (ms_device *)state;
    if (d->step == SB_MS_FILTER) {
        sb_ms_luv *o = (sb_ms_luv *)d->host_out;
        SB_CUDA_TRY(cudaMemcpyAsync(o->luv, d->filtered, 4 * (size_t)d->n, cudaMemcpyDeviceToHost, d->stream), err,
                    d->who);
    } else {
        sb_ms_regions *o = (sb_ms_regions *)d->host_out;
        SB_CUDA_TRY(cudaMemcpyAsync(o->labels, d->labels, 4 * (size_t)d->n, cudaMemcpyDeviceToHost, d->stream), err,
                    d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(d->host_flags, d->flags, sizeof(int), cudaMemcpyDeviceToHost, d->stream), err,
                    d->who);
    }
    SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
    if (d->step != SB_MS_FILTER)
        ((sb_ms_regions *)d->host_out)->count = d->host_flags[0];
    return SB_OK;
}
