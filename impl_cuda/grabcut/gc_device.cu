/* gc_device.cu - GrabCut's per-pixel steps on the device, and the state
 * the CUDA variants share (gc_device.cuh).
 *
 * One thread a pixel.  Sums (k-means centres, GMM moments, beta) are
 * integers, so in whatever order they are added the totals equal the
 * host's.  The k-means pass and the GMM moment sums are the rung's (a
 * gc_sums, since rungs differ in them): the root's, a block's totals
 * gathered in shared memory first, are here (gc_block_sums, at the end),
 * for every rung that keeps them; beta's sum is here.  The tiny steps -- centres from sums,
 * mixtures from moments -- run in one block with grabcut.h's functions.
 * Nothing returns to the host until fetch: the k-means loop stops on a
 * device flag.
 */
#include "gc_device.cuh"

#include "segbench/kmeans.h"
#include "segbench/trace.h"

#include <stdlib.h>
#include <string.h>

/* ---- the steps' kernels ---- */

/* The first mask: PR_FGD inside the rectangle, BGD outside -- or, given
 * a warm start's mask (before), grabcut.h's warm rule. */
__global__ void gc_mask_init(int width, int height, int4 rect, const uint8_t *before, uint8_t *mask)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long)width * height)
        return;
    int x = (int)(i % width), y = (int)(i / width);
    int inside = x >= rect.x && x < rect.z && y >= rect.y && y < rect.w;
    mask[i] = before ? sb_gc_warm_mask(inside, before[i]) : inside ? SB_GC_PR_FGD : SB_GC_BGD;
}

/* After a pass: the update rule (kmeans.h), the pass count, convergence. */
__global__ void gc_kmeans_update(gc_dev_scratch *s, int *passes)
{
    if (s->kdone)
        return;
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K) {
        unsigned long long *sum = s->ksums[t];
        if (sum[3] > 0)
            for (int ch = 0; ch < 3; ch++)
                s->centres[t / SB_GC_K][t % SB_GC_K][ch] = sb_kmeans_mean(sum[ch], sum[3]);
        sum[0] = sum[1] = sum[2] = sum[3] = 0;
    }
    __syncthreads();
    if (t == 0) {
        ++*passes;
        if (s->changed == 0)
            s->kdone = 1;
        s->changed = 0;
    }
}

/* Both mixtures from the moments (grabcut.h's function), then the moments
 * zeroed for the next learn. */
__global__ void gc_learn_finish(gc_dev_scratch *s)
{
    int side = threadIdx.x;
    if (side < 2)
        sb_gc_gmm_finish((const uint64_t(*)[10])s->gsums[side], &s->gmm[side]);
    __syncthreads();
    if (threadIdx.x < 2 * SB_GC_K * 10)
        (&s->gsums[0][0][0])[threadIdx.x] = 0;
}

__global__ void gc_assign(long n, const uint8_t *rgb, const uint8_t *mask, uint8_t *comp, const gc_dev_scratch *s)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double energy;
    int k = sb_gc_score(&s->gmm[SB_GC_SIDE(mask[i])], rgb + 3 * i, &energy);
    comp[i] = (uint8_t)(k < 0 ? 0 : k);
}

__device__ __forceinline__ int gc_d2(const uint8_t *a, const uint8_t *b)
{
    int d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* beta's sum: each pixel's pairs E, SE, S, SW; a warp sum, then one
 * atomic per warp. */
__global__ void gc_beta_sum(int width, int height, const uint8_t *rgb, gc_dev_scratch *s)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long sum = 0;
    if (i < (long)width * height) {
        int x = (int)(i % width), y = (int)(i / width);
        const uint8_t *px = rgb + 3 * i, *below = px + 3 * (long)width;
        if (x + 1 < width)
            sum += gc_d2(px, px + 3);
        if (y + 1 < height) {
            if (x + 1 < width)
                sum += gc_d2(px, below + 3);
            sum += gc_d2(px, below);
            if (x > 0)
                sum += gc_d2(px, below - 3);
        }
    }
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, o);
    if ((threadIdx.x & 31) == 0 && sum)
        atomicAdd(&s->dsum, sum);
}

__global__ void gc_nlinks(int width, int height, const uint8_t *rgb, double gamma, gc_dev_scratch *s, int32_t *n0,
                          int32_t *n1, int32_t *n2, int32_t *n3)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long)width * height)
        return;
    uint64_t W = (uint64_t)width, H = (uint64_t)height;
    double beta = sb_gc_beta(s->dsum, (W - 1) * H + W * (H - 1) + 2 * (W - 1) * (H - 1));
    double diagonal = sb_ddiv(gamma, sb_dsqrt(2.0));
    int x = (int)(i % width), y = (int)(i / width);
    const uint8_t *px = rgb + 3 * i, *below = px + 3 * (long)width;
    int right = x + 1 < width, left = x > 0, down = y + 1 < height;
    n0[i] = right ? sb_gc_nlink(gamma, beta, gc_d2(px, px + 3)) : 0;
    n1[i] = down && right ? sb_gc_nlink(diagonal, beta, gc_d2(px, below + 3)) : 0;
    n2[i] = down ? sb_gc_nlink(gamma, beta, gc_d2(px, below)) : 0;
    n3[i] = down && left ? sb_gc_nlink(diagonal, beta, gc_d2(px, below - 3)) : 0;
}

__global__ void gc_tlinks(long n, const uint8_t *rgb, const uint8_t *mask, double lambda, const gc_dev_scratch *s,
                          int32_t *term)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int m = mask[i];
    double e_bg = 0.0, e_fg = 0.0;
    if (m == SB_GC_PR_BGD || m == SB_GC_PR_FGD) {
        sb_gc_score(&s->gmm[0], rgb + 3 * i, &e_bg);
        sb_gc_score(&s->gmm[1], rgb + 3 * i, &e_fg);
    }
    term[i] = sb_gc_term(m, e_bg, e_fg, lambda);
}

/* The cut's side into the probable pixels' mask; given `moved` (converge
 * mode), the pixels that changed side are counted there, a warp's at once. */
__global__ void gc_update_mask(long n, const uint8_t *fg, uint8_t *mask, unsigned long long *moved)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    int changed = 0;
    if (i < n && (mask[i] == SB_GC_PR_BGD || mask[i] == SB_GC_PR_FGD)) {
        uint8_t m = fg[i] ? SB_GC_PR_FGD : SB_GC_PR_BGD;
        changed = m != mask[i];
        mask[i] = m;
    }
    if (moved) {
        unsigned count = __popc(__ballot_sync(0xffffffffu, changed));
        if ((threadIdx.x & 31) == 0 && count)
            atomicAdd(moved, (unsigned long long)count);
    }
}

/* ---- enqueuing the steps ---- */

static int gc_dev_warm(const gc_dev *d) { return d->step == GC_PIPELINE && d->p.start && d->p.start->given; }

static sb_status step_mask_init(gc_dev *d, sb_error *err)
{
    gc_mask_init<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->width, d->height,
                                                       make_int4(d->rect[0], d->rect[1], d->rect[2], d->rect[3]),
                                                       gc_dev_warm(d) ? d->before : NULL, d->mask);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* The k-means start: centres, zero sums, not converged, no passes. */
__global__ void gc_kmeans_start(gc_dev_scratch *s, int *passes)
{
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K * 3)
        s->centres[t / (3 * SB_GC_K)][(t / 3) % SB_GC_K][t % 3] = sb_gc_kmeans_start((t / 3) % SB_GC_K);
    if (t < 2 * SB_GC_K * 4)
        (&s->ksums[0][0])[t] = 0;
    if (t == 0) {
        s->changed = 0;
        s->kdone = 0;
        *passes = 0;
    }
}

static sb_status step_kmeans(gc_dev *d, sb_error *err)
{
    gc_kmeans_start<<<1, 64, 0, d->stream>>>(d->s, &d->stats->passes);
    SB_CUDA_LAUNCHED(err, d->who);
    /* at most 10 passes, each a no-op after convergence: no read-back */
    for (int pass = 0; pass < SB_GC_KMEANS_PASSES; pass++) {
        d->sums->kmeans_pass(d);
        gc_kmeans_update<<<1, 32, 0, d->stream>>>(d->s, &d->stats->passes);
    }
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status step_learn(gc_dev *d, sb_error *err)
{
    d->sums->learn_sums(d);
    gc_learn_finish<<<1, 128, 0, d->stream>>>(d->s);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status step_assign(gc_dev *d, sb_error *err)
{
    gc_assign<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status step_nlinks(gc_dev *d, sb_error *err)
{
    SB_CUDA_TRY(cudaMemsetAsync(&d->s->dsum, 0, sizeof d->s->dsum, d->stream), err, d->who);
    gc_beta_sum<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->width, d->height, d->rgb, d->s);
    gc_nlinks<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->width, d->height, d->rgb, d->p.gamma, d->s, d->nlink[0],
                                                    d->nlink[1], d->nlink[2], d->nlink[3]);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

static sb_status step_tlinks(gc_dev *d, sb_error *err)
{
    gc_tlinks<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->p.lambda, d->s, d->term);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* The mask from the cut; in converge mode, whether the cut settled the
 * run (grabcut.h's rule: the host waits for the count). */
static sb_status step_update_mask(gc_dev *d, int *settled, sb_error *err)
{
    unsigned long long *moved = d->p.converge ? &d->s->moved : NULL;
    if (moved)
        SB_CUDA_TRY(cudaMemsetAsync(moved, 0, sizeof *moved, d->stream), err, d->who);
    gc_update_mask<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->fg, d->mask, moved);
    SB_CUDA_LAUNCHED(err, d->who);
    *settled = 0;
    if (moved) {
        unsigned long long count = 0;
        SB_CUDA_TRY(cudaMemcpyAsync(&count, moved, sizeof count, cudaMemcpyDeviceToHost, d->stream), err, d->who);
        SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
        *settled = sb_gc_settled((long long)count, d->rect_pixels);
    }
    return SB_OK;
}

/* ---- the variant's life ---- */

void gc_dev_close(gc_dev *d)
{
    if (!d)
        return;
    if (d->stream)
        cudaStreamSynchronize(d->stream);
    cudaFree(d->rgb);
    cudaFree(d->mask);
    cudaFree(d->before);
    cudaFree(d->comp);
    cudaFree(d->comp0);
    cudaFree(d->fg);
    cudaFree(d->term);
    for (int k = 0; k < SB_GC_NLINKS; k++)
        cudaFree(d->nlink[k]);
    cudaFree(d->r);
    cudaFree(d->sink);
    cudaFree(d->excess);
    cudaFree(d->h[0]);
    cudaFree(d->h[1]);
    cudaFree(d->inflow);
    cudaFree(d->test_term[0]);
    cudaFree(d->test_term[1]);
    cudaFree(d->s);
    cudaFree(d->stats);
    cudaFreeHost(d->stats_host);
    if (d->cut_state)
        d->cut->release(d);
    free(d);
}

static cudaError_t dev_alloc(void **p, size_t bytes, cudaError_t e)
{
    return e != cudaSuccess ? e : cudaMalloc(p, bytes);
}

static sb_status allocate(gc_dev *d, sb_error *err)
{
    size_t n = (size_t)d->n;
    int graph = d->step == GC_GRAPH || d->step == GC_MAXFLOW || d->step == GC_PIPELINE;
    int cut = d->step == GC_MAXFLOW || d->step == GC_PIPELINE;
    cudaError_t e = cudaSuccess;
    if (d->step != GC_MAXFLOW) {
        e = dev_alloc((void **)&d->rgb, 3 * n, e);
        e = dev_alloc((void **)&d->mask, n, e);
    }
    if (d->step == GC_PIPELINE)
        e = dev_alloc((void **)&d->before, n, e);      /* a warm start's mask */
    if (d->step != GC_GRAPH && d->step != GC_MAXFLOW)
        e = dev_alloc((void **)&d->comp, n, e);
    if (d->step == GC_GMM)
        e = dev_alloc((void **)&d->comp0, n, e);
    if (graph) {
        e = dev_alloc((void **)&d->term, 4 * n, e);
        for (int k = 0; k < SB_GC_NLINKS; k++)
            e = dev_alloc((void **)&d->nlink[k], 4 * n, e);
    }
    if (cut) {
        e = dev_alloc((void **)&d->fg, n, e);
        e = dev_alloc((void **)&d->r, 4 * SB_MF_DIRS * n, e);
        e = dev_alloc((void **)&d->sink, 4 * n, e);
        e = dev_alloc((void **)&d->excess, 4 * n, e);
        e = dev_alloc((void **)&d->h[0], 4 * n, e);
        e = dev_alloc((void **)&d->h[1], 4 * n, e);
        e = dev_alloc((void **)&d->inflow, 4 * n, e);
    }
    if (d->step == GC_MAXFLOW && d->p.stale_term && d->cut->warm) {
        e = dev_alloc((void **)&d->test_term[0], 4 * n, e);
        e = dev_alloc((void **)&d->test_term[1], 4 * n, e);
    }
    e = dev_alloc((void **)&d->s, sizeof *d->s, e);
    e = dev_alloc((void **)&d->stats, sizeof *d->stats, e);
    if (e == cudaSuccess)
        e = cudaMallocHost((void **)&d->stats_host, sizeof *d->stats_host);
    if (e != cudaSuccess)
        return sb_fail(err, SB_ERR_NOMEM, "%s: cannot allocate device memory for a %dx%d image: %s", d->who,
                       d->width, d->height, cudaGetErrorString(e));
    return SB_OK;
}

/* A frame: the image (rows packed on the device), and the step's upstream. */
sb_status gc_dev_upload(gc_dev *d, sb_error *err)
{
    const sb_image *in = d->host_in;
    size_t n = (size_t)d->n;
    if (d->rgb)
        SB_CUDA_TRY(cudaMemcpy2DAsync(d->rgb, 3 * (size_t)d->width, in->data, in->stride, 3 * (size_t)d->width,
                                      (size_t)d->height, cudaMemcpyHostToDevice, d->stream),
                    err, d->who);
    if (d->step == GC_GMM) {
        const sb_gc_kmeans_out *k = (const sb_gc_kmeans_out *)d->p.upstream;
        SB_CUDA_TRY(cudaMemcpyAsync(d->comp0, k->comp, n, cudaMemcpyHostToDevice, d->stream), err, d->who);
    }
    if (d->step == GC_GRAPH) {
        const sb_gc_gmm_out *g = (const sb_gc_gmm_out *)d->p.upstream;
        SB_CUDA_TRY(cudaMemcpyAsync(d->s->gmm, g->gmm, sizeof g->gmm, cudaMemcpyHostToDevice, d->stream), err,
                    d->who);
    }
    if (gc_dev_warm(d)) {
        const sb_gc_start *start = d->p.start;
        SB_CUDA_TRY(cudaMemcpyAsync(d->before, start->mask, n, cudaMemcpyHostToDevice, d->stream), err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(d->s->gmm, start->gmm, sizeof start->gmm, cudaMemcpyHostToDevice, d->stream), err,
                    d->who);
    }
    if (d->step == GC_MAXFLOW) {
        const sb_gc_graph *g = (const sb_gc_graph *)d->p.upstream;
        SB_CUDA_TRY(cudaMemcpyAsync(d->term, g->term, 4 * n, cudaMemcpyHostToDevice, d->stream), err, d->who);
        if (d->test_term[0]) {
            SB_CUDA_TRY(cudaMemcpyAsync(d->test_term[0], d->p.stale_term, 4 * n, cudaMemcpyHostToDevice, d->stream),
                        err, d->who);
            SB_CUDA_TRY(cudaMemcpyAsync(d->test_term[1], g->term, 4 * n, cudaMemcpyHostToDevice, d->stream), err,
                        d->who);
        }
        for (int k = 0; k < SB_GC_NLINKS; k++)
            SB_CUDA_TRY(cudaMemcpyAsync(d->nlink[k], g->nlink[k], 4 * n, cudaMemcpyHostToDevice, d->stream), err,
                        d->who);
    }
    return SB_OK;
}

sb_status gc_dev_open(gc_dev **out, int step, const gc_cut *cut, const gc_sums *sums, const sb_image *in,
                      const void *params, void *output, const sb_exec *exec, sb_error *err)
{
    *out = NULL;
    const char *who = exec->who;
    const sb_grabcut_params *p = (const sb_grabcut_params *)params;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs an RGB image (got %d channels)", who, in->channels);
    sb_status st = sb_gc_check_params(p, in->width, in->height, err);
    if (st)
        return st;
    if (step != GC_KMEANS && step != GC_PIPELINE && !p->upstream)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs the earlier steps' output (run it through segbench)", who);
    gc_dev *d = (gc_dev *)calloc(1, sizeof *d);
    if (!d)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    d->who = who;
    d->step = step;
    d->cut = cut;
    d->sums = sums;
    d->width = in->width;
    d->height = in->height;
    d->n = (long)in->width * in->height;
    d->stream = (cudaStream_t)exec->stream;
    d->p = *p;
    d->host_in = in;
    d->out = output;
    sb_gc_rect_clip(p, in->width, in->height, d->rect);
    d->rect_pixels = (long long)(d->rect[2] - d->rect[0]) * (d->rect[3] - d->rect[1]);
    if ((st = allocate(d, err)) ||
        ((step == GC_MAXFLOW || step == GC_PIPELINE) && (st = cut->prepare(d, err)))) {
        gc_dev_close(d);
        return st;
    }
    /* every stats field is fetched, whether or not this step writes it */
    if (cudaMemsetAsync(d->stats, 0, sizeof *d->stats, d->stream) != cudaSuccess) {
        gc_dev_close(d);
        return sb_fail(err, SB_ERR_DEVICE, "%s: cudaMemsetAsync (stats) failed", who);
    }
    if (exec->poison && d->fg && cudaMemsetAsync(d->fg, 0xA5, (size_t)d->n, d->stream) != cudaSuccess) {
        gc_dev_close(d);
        return sb_fail(err, SB_ERR_DEVICE, "%s: cudaMemsetAsync (poison) failed", who);
    }
    *out = d;
    return SB_OK;
}

/* The loop (grabcut.h): a cold start's k-means and learn, or a warm
 * start's mask and mixtures (uploaded with the frame); then the
 * iterations, all of them or, in converge mode, until a cut settles. */
static sb_status run_pipeline(gc_dev *d, sb_error *err)
{
    /* each step a range on the profiler's timeline (trace.h) */
    sb_status st;
    int warm = gc_dev_warm(d);
    sb_trace_push(warm ? "start: the earlier frame's mask and mixtures, n-links" : "start: k-means, mixtures, n-links");
    if (!(st = step_mask_init(d, err)) && (warm || (!(st = step_kmeans(d, err)) && !(st = step_learn(d, err)))))
        st = step_nlinks(d, err);
    sb_trace_pop();
    int settled = 0;
    for (d->iterations = 0; d->iterations < d->p.iterations && !settled && !st;) {
        int it = d->iterations++;
        sb_trace_push("iteration %d: assign, learn, t-links", it + 1);
        if (!(st = step_assign(d, err)) && !(st = step_learn(d, err)))
            st = step_tlinks(d, err);
        sb_trace_pop();
        sb_trace_push("iteration %d: cut", it + 1);
        if (!st && !(st = d->cut->solve(d, it, err)))
            st = step_update_mask(d, &settled, err);
        sb_trace_pop();
    }
    return st;
}

/* grabcut-maxflow given stale_term (tests): the stale t-links' cut, then
 * the true ones' from its flow, into stats slot 1. */
static sb_status run_stale_first(gc_dev *d, sb_error *err)
{
    size_t bytes = sizeof(int32_t) * (size_t)d->n;
    sb_status st;
    SB_CUDA_TRY(cudaMemcpyAsync(d->term, d->test_term[0], bytes, cudaMemcpyDeviceToDevice, d->stream), err, d->who);
    if ((st = d->cut->solve(d, 0, err)))
        return st;
    SB_CUDA_TRY(cudaMemcpyAsync(d->term, d->test_term[1], bytes, cudaMemcpyDeviceToDevice, d->stream), err, d->who);
    return d->cut->solve(d, 1, err);
}

int gc_dev_cuts(const gc_dev *d)
{
    if (d->step == GC_PIPELINE)
        return d->p.iterations;
    return d->test_term[0] ? 2 : d->step == GC_MAXFLOW;
}

sb_status gc_dev_run(gc_dev *d, sb_error *err)
{
    sb_status st;
    switch (d->step) {
    case GC_KMEANS:
        if ((st = step_mask_init(d, err)))
            return st;
        return step_kmeans(d, err);
    case GC_GMM:
        SB_CUDA_TRY(cudaMemcpyAsync(d->comp, d->comp0, (size_t)d->n, cudaMemcpyDeviceToDevice, d->stream), err,
                    d->who);
        SB_CUDA_TRY(cudaMemsetAsync(d->s->gsums, 0, sizeof d->s->gsums, d->stream), err, d->who);
        if ((st = step_mask_init(d, err)) || (st = step_learn(d, err)) || (st = step_assign(d, err)))
            return st;
        return step_learn(d, err);
    case GC_GRAPH:
        if ((st = step_mask_init(d, err)) || (st = step_nlinks(d, err)))
            return st;
        return step_tlinks(d, err);
    case GC_MAXFLOW:
        if (d->test_term[0])
            return run_stale_first(d, err);
        return d->cut->solve(d, 0, err);
    default:
        SB_CUDA_TRY(cudaMemsetAsync(d->s->gsums, 0, sizeof d->s->gsums, d->stream), err, d->who);
        return run_pipeline(d, err);
    }
}

sb_status gc_dev_fetch(gc_dev *d, sb_error *err)
{
    size_t n = (size_t)d->n;
    cudaStream_t st = d->stream;
    SB_CUDA_TRY(cudaMemcpyAsync(d->stats_host, d->stats, sizeof *d->stats, cudaMemcpyDeviceToHost, st), err, d->who);
    switch (d->step) {
    case GC_KMEANS: {
        sb_gc_kmeans_out *o = (sb_gc_kmeans_out *)d->out;
        SB_CUDA_TRY(cudaMemcpyAsync(o->comp, d->comp, n, cudaMemcpyDeviceToHost, st), err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(o->centres, d->s->centres, sizeof o->centres, cudaMemcpyDeviceToHost, st), err,
                    d->who);
        break;
    }
    case GC_GMM: {
        sb_gc_gmm_out *o = (sb_gc_gmm_out *)d->out;
        SB_CUDA_TRY(cudaMemcpyAsync(o->comp, d->comp, n, cudaMemcpyDeviceToHost, st), err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(o->gmm, d->s->gmm, sizeof o->gmm, cudaMemcpyDeviceToHost, st), err, d->who);
        break;
    }
    case GC_GRAPH: {
        sb_gc_graph *o = (sb_gc_graph *)d->out;
        SB_CUDA_TRY(cudaMemcpyAsync(o->term, d->term, 4 * n, cudaMemcpyDeviceToHost, st), err, d->who);
        for (int k = 0; k < SB_GC_NLINKS; k++)
            SB_CUDA_TRY(cudaMemcpyAsync(o->nlink[k], d->nlink[k], 4 * n, cudaMemcpyDeviceToHost, st), err, d->who);
        break;
    }
    case GC_MAXFLOW: {
        sb_gc_cut_out *o = (sb_gc_cut_out *)d->out;
        SB_CUDA_TRY(cudaMemcpyAsync(o->fg, d->fg, n, cudaMemcpyDeviceToHost, st), err, d->who);
        break;
    }
    default: {
        sb_gc_out *o = (sb_gc_out *)d->out;
        SB_CUDA_TRY(cudaMemcpyAsync(o->mask, d->mask, n, cudaMemcpyDeviceToHost, st), err, d->who);
        SB_CUDA_TRY(cudaMemcpyAsync(o->gmm, d->s->gmm, sizeof o->gmm, cudaMemcpyDeviceToHost, st), err, d->who);
    }
    }
    SB_CUDA_TRY(cudaStreamSynchronize(st), err, d->who);
    const gc_dev_stats *s = d->stats_host;
    switch (d->step) {
    case GC_KMEANS:
        ((sb_gc_kmeans_out *)d->out)->passes = s->passes;
        break;
    case GC_GRAPH: {
        /* beta as the host computes it from the same integer sum */
        unsigned long long dsum;
        SB_CUDA_TRY(cudaMemcpy(&dsum, &d->s->dsum, sizeof dsum, cudaMemcpyDeviceToHost), err, d->who);
        uint64_t W = (uint64_t)d->width, H = (uint64_t)d->height;
        ((sb_gc_graph *)d->out)->beta = sb_gc_beta(dsum, (W - 1) * H + W * (H - 1) + 2 * (W - 1) * (H - 1));
        break;
    }
    case GC_MAXFLOW: {
        sb_gc_cut_out *o = (sb_gc_cut_out *)d->out;
        int last = gc_dev_cuts(d) - 1;
        o->flow = s->flow[last];
        o->rounds = s->rounds[last];
        o->relabels = s->relabels[last];
        break;
    }
    case GC_PIPELINE: {
        sb_gc_out *o = (sb_gc_out *)d->out;
        o->iterations = d->iterations;
        for (int i = 0; i < SB_GC_MAX_ITER; i++) {      /* 0 past the iterations made (an earlier frame's left) */
            int made = i < d->iterations;
            o->flow[i] = made ? s->flow[i] : 0;
            o->rounds[i] = made ? s->rounds[i] : 0;
            o->relabels[i] = made ? s->relabels[i] : 0;
        }
        break;
    }
    default:
        break;
    }
    return SB_OK;
}

/* ---- the k-means and GMM sums, a block at a time: cuda-global's,
 * which every rung keeps unless its idea changes them ---- */

/* One k-means pass: each pixel's nearest centre among its side's 5, the
 * changed count and the integer sums, the block's totals gathered in
 * shared memory first.  A no-op once converged. */
static __global__ void block_kmeans_pass(long n, const uint8_t *rgb, const uint8_t *mask, uint8_t *comp,
                                         gc_dev_scratch *s, const int *passes)
{
    __shared__ sb_kmeans_prepped centres[2 * SB_GC_K];
    __shared__ unsigned long long sums[2 * SB_GC_K][4];
    __shared__ unsigned long long changed;
    if (s->kdone)
        return;
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K)
        centres[t] = sb_kmeans_prep(s->centres[t / SB_GC_K][t % SB_GC_K]);
    if (t < 2 * SB_GC_K * 4)
        sums[t / 4][t % 4] = 0;
    if (t == 0)
        changed = 0;
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    if (i < n) {
        int side = SB_GC_SIDE(mask[i]);
        const uint8_t *px = rgb + 3 * i;
        int best = gc_kmeans_nearest(centres + side * SB_GC_K, px);
        if (*passes == 0 || comp[i] != best)
            atomicAdd(&changed, 1ull);
        comp[i] = (uint8_t)best;
        unsigned long long *sm = sums[side * SB_GC_K + best];
        atomicAdd(&sm[0], (unsigned long long)px[0]);
        atomicAdd(&sm[1], (unsigned long long)px[1]);
        atomicAdd(&sm[2], (unsigned long long)px[2]);
        atomicAdd(&sm[3], 1ull);
    }
    __syncthreads();
    if (t < 2 * SB_GC_K * 4 && sums[t / 4][t % 4])
        atomicAdd(&s->ksums[t / 4][t % 4], sums[t / 4][t % 4]);
    if (t == 0 && changed)
        atomicAdd(&s->changed, changed);
}

/* The GMM moments of every pixel's side and component, the block's
 * totals gathered in shared memory first (as in block_kmeans_pass). */
static __global__ void block_learn_sums(long n, const uint8_t *rgb, const uint8_t *mask, const uint8_t *comp,
                                        gc_dev_scratch *s)
{
    __shared__ unsigned long long sums[2 * SB_GC_K][10];
    int t = threadIdx.x;
    if (t < 2 * SB_GC_K * 10)
        sums[t / 10][t % 10] = 0;
    __syncthreads();
    long i = (long)blockIdx.x * blockDim.x + t;
    if (i < n) {
        uint64_t own[10] = { 0 };
        sb_gc_sums_add(own, rgb + 3 * i);
        unsigned long long *sm = sums[SB_GC_SIDE(mask[i]) * SB_GC_K + comp[i]];
        for (int j = 0; j < 10; j++)
            atomicAdd(&sm[j], (unsigned long long)own[j]);
    }
    __syncthreads();
    if (t < 2 * SB_GC_K * 10 && sums[t / 10][t % 10])
        atomicAdd(&(&s->gsums[0][0][0])[t], sums[t / 10][t % 10]);
}

static void block_kmeans(gc_dev *d)
{
    block_kmeans_pass<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s,
                                                                &d->stats->passes);
}

static void block_learn(gc_dev *d) { block_learn_sums<<<gc_blocks(d), GC_BLOCK, 0, d->stream>>>(d->n, d->rgb, d->mask, d->comp, d->s); }

const gc_sums gc_block_sums = { block_kmeans, block_learn };
