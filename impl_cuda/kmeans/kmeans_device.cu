/* kmeans_device.cu - buffers and the pass loop shared by the device-resident
 * CUDA k-means variants (see kmeans_device.cuh). */
#include "kmeans_device.cuh"

#include <cstdlib>
#include <cstring>

static_assert(sizeof(sb_kmeans_prepped) == sizeof(float4), "a prepped centre is a float4");

sb_status km_device_open(void **state, size_t state_size, const sb_image *in, const void *params, void *output,
                         const sb_exec *exec, sb_error *err)
{
    const char *who = exec->who;
    km_device *d = (km_device *)(*state = calloc(1, state_size));
    if (!d)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    d->who = who;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs an RGB input, got %d channel(s)", who, in->channels);
    d->params = *(const sb_kmeans_params *)params;
    d->n = (long)in->width * in->height;
    d->quads = sb_div_up((unsigned long long)d->n, 4);
    d->stream = (cudaStream_t)exec->stream;
    d->host_in = in;
    d->host_out = (sb_kmeans_out *)output;
    int k = d->params.k;

    int dev;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&d->sm_count, cudaDevAttrMultiProcessorCount, dev), err, who);
    size_t rgb_bytes = (size_t)d->quads * 12;
    SB_CUDA_TRY(cudaMalloc(&d->rgb, rgb_bytes), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->labels, (size_t)d->quads * 4), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->centres, (size_t)k * 3 * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->prepped, (size_t)k * sizeof(float4)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->initial, (size_t)k * 3 * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->initial_prepped, (size_t)k * sizeof(float4)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->sums, (size_t)k * 4 * sizeof(unsigned long long)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->control, sizeof(km_control)), err, who);
    SB_CUDA_TRY(cudaMallocHost(&d->host_control, sizeof(km_control)), err, who);

    SB_CUDA_TRY(cudaMemsetAsync(d->rgb, 0, rgb_bytes, d->stream), err, who);   /* the padding, once */
    if (exec->poison)
        SB_CUDA_TRY(cudaMemsetAsync(d->labels, 0xA5, (size_t)d->quads * 4, d->stream), err, who);
    SB_CUDA_TRY(cudaMemsetAsync(d->sums, 0, (size_t)k * 4 * sizeof(unsigned long long), d->stream), err, who);
    return SB_OK;
}

void km_device_close(void *state)
{
    km_device *d = (km_device *)state;
    if (!d)
        return;
    cudaFree(d->rgb);
    cudaFree(d->labels);
    cudaFree(d->centres);
    cudaFree(d->prepped);
    cudaFree(d->initial);
    cudaFree(d->initial_prepped);
    cudaFree(d->sums);
    cudaFree(d->control);
    cudaFreeHost(d->host_control);
    free(d);
}

/* A frame: its initial centres (kmeans.h's seeding, on the host), and the
 * pixels and those centres onto the device.  The host arrays live in the
 * state, so the asynchronous copies may outlive this call. */
sb_status km_cuda_upload(void *state, sb_error *err)
{
    km_device *d = (km_device *)state;
    const sb_image *in = d->host_in;
    int k = d->params.k;
    sb_status st = sb_kmeans_initial(in, &d->params, d->host_initial, err);
    if (st)
        return st;
    for (int c = 0; c < k; c++)
        d->host_prepped[c] = sb_kmeans_prep(d->host_initial[c]);
    SB_CUDA_TRY(cudaMemcpy2DAsync(d->rgb, (size_t)in->width * 3, in->data, in->stride, (size_t)in->width * 3,
                                  (size_t)in->height, cudaMemcpyHostToDevice, d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(d->initial, d->host_initial, (size_t)k * 3 * sizeof(int32_t),
                                cudaMemcpyHostToDevice, d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(d->initial_prepped, d->host_prepped, (size_t)k * sizeof(float4),
                                cudaMemcpyHostToDevice, d->stream),
                err, d->who);
    return SB_OK;
}

unsigned km_blocks_for(int sm_count, long n, unsigned long long items, unsigned threads, unsigned per_sm)
{
    unsigned fill = (unsigned)sm_count * (per_sm > 0 ? per_sm : 1);
    unsigned needed = sb_div_up(items, threads);
    unsigned safe = sb_div_up((unsigned long long)n, 1u << 24);
    unsigned blocks = needed < fill ? needed : fill;
    return blocks < safe ? safe : blocks;
}

unsigned km_grid_blocks(const km_device *d, unsigned long long items, unsigned threads, unsigned per_sm)
{
    return km_blocks_for(d->sm_count, d->n, items, threads, per_sm);
}

__global__ void km_finish_kernel(int k, int converge, unsigned long long *sums, int32_t *centres, float4 *prepped,
                                 km_control *control)
{
    if (__ldcg(&control->done))
        return;
    km_finish_pass(k, converge, sums, centres, prepped, control);
}

sb_status km_restart(km_device *d, sb_error *err)
{
    const sb_kmeans_params *p = &d->params;
    SB_CUDA_TRY(cudaMemcpyAsync(d->centres, d->initial, (size_t)p->k * 3 * sizeof(int32_t),
                                cudaMemcpyDeviceToDevice, d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(d->prepped, d->initial_prepped, (size_t)p->k * sizeof(float4),
                                cudaMemcpyDeviceToDevice, d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaMemsetAsync(d->control, 0, sizeof(km_control), d->stream), err, d->who);
    return SB_OK;
}

sb_status km_converged(km_device *d, int *done, sb_error *err)
{
    SB_CUDA_TRY(cudaMemcpyAsync(d->host_control, d->control, sizeof(km_control), cudaMemcpyDeviceToHost,
                                d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
    *done = d->host_control->done;
    return SB_OK;
}

sb_status km_cuda_fetch(void *state, sb_error *err)
{
    km_device *d = (km_device *)state;
    sb_kmeans_out *out = d->host_out;
    SB_CUDA_TRY(cudaMemcpyAsync(out->labels, d->labels, (size_t)d->n, cudaMemcpyDeviceToHost, d->stream), err,
                d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(d->host_control, d->control, sizeof(km_control), cudaMemcpyDeviceToHost,
                                d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(out->centres, d->centres, (size_t)d->params.k * 3 * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
    out->k = d->params.k;
    out->iterations = d->host_control->passes;
    return SB_OK;
}
