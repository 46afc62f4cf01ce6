/* slic_device.cu - buffers, the run and the shared kernels of the CUDA
 * SLIC variants (see slic_device.cuh). */
#include "slic_device.cuh"

#include <cstdlib>
#include <cstring>

static_assert(sizeof(sb_slic_centre) == sizeof(int4), "a centre is one int4");

enum { SLIC_THREADS = 256 };

/* RGB to fixed-point colour, one pixel a thread; the sRGB table is copied
 * to shared memory first (256 floats, read by every thread). */
__global__ void slic_convert(unsigned n, const uint8_t *rgb, const float *linear, int space, ushort4 *colour)
{
    __shared__ float table[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        table[i] = linear[i];
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint16_t c[3];
    sb_slic_convert(table, space, rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], c);
    colour[i] = make_ushort4(c[0], c[1], c[2], 0);
}

__global__ void slic_place_centres(sb_slic_geometry g, const ushort4 *colour, sb_slic_centre *centres)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g.centres)
        return;
    int x, y;
    sb_slic_initial_position(c % g.grid_w, c / g.grid_w, g.S, g.width, g.height, &x, &y);
    ushort4 v = colour[(size_t)y * g.width + x];
    sb_slic_centre k;
    k.x = SB_SLIC_XY_UNIT * x;
    k.y = SB_SLIC_XY_UNIT * y;
    k.colour[0] = v.x;
    k.colour[1] = v.y;
    k.colour[2] = v.z;
    k.pad = 0;
    centres[c] = k;
}

__global__ void slic_update(int count, sb_slic_centre *centres, unsigned long long *sums)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= count)
        return;
    uint64_t s[6];
    for (int k = 0; k < 6; k++) {
        s[k] = sums[6 * c + k];
        sums[6 * c + k] = 0;
    }
    sb_slic_centre centre = centres[c];
    sb_slic_update_centre(&centre, s);
    centres[c] = centre;
}

/* Converge mode: how many centres did the update leave unsettled? */
__global__ void slic_count_unsettled(int count, const sb_slic_centre *before, const sb_slic_centre *after,
                                     int *unsettled)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int mine = c < count && sb_slic_unsettled(&before[c], &after[c]);
    mine = __syncthreads_count(mine);
    if (threadIdx.x == 0 && mine)
        atomicAdd(unsettled, mine);
}

__global__ void slic_majority(int width, int height, const int32_t *from, int32_t *to)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (unsigned)width * (unsigned)height)
        to[i] = sb_slic_majority(from, width, height, (int)(i % width), (int)(i / width));
}

__global__ void slic_mark_used(unsigned n, const int32_t *labels, uint8_t *used)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        used[labels[i]] = 1;     /* every writer writes the same value */
}

/* One block counts the centres in use. */
__global__ void slic_count_used(int count, const uint8_t *used, int *superpixels)
{
    __shared__ int total;
    if (threadIdx.x == 0)
        total = 0;
    __syncthreads();
    int mine = 0;
    for (int c = threadIdx.x; c < count; c += blockDim.x)
        mine += used[c];
    atomicAdd(&total, mine);
    __syncthreads();
    if (threadIdx.x == 0)
        *superpixels = total;
}

sb_status slic_enqueue_update(slic_device *d, sb_error *err)
{
    int count = d->geo.centres;
    slic_update<<<sb_div_up(count, SLIC_THREADS), SLIC_THREADS, 0, d->stream>>>(count, d->centres, d->sums);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status slic_device_open(void **state, size_t state_size, const sb_image *in, const void *params, void *output,
                           const sb_exec *exec, sb_error *err)
{
    const char *who = exec->who;
    slic_device *d = (slic_device *)(*state = calloc(1, state_size));
    if (!d)
        return sb_fail(err, SB_ERR_NOMEM, "%s: out of memory", who);
    d->who = who;
    d->params = *(const sb_slic_params *)params;
    sb_status st = sb_slic_geometry_init(&d->geo, in->width, in->height, &d->params, err);
    if (st)
        return st;
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: needs an RGB input, got %d channel(s)", who, in->channels);
    d->n = (unsigned)in->width * (unsigned)in->height;
    d->stream = (cudaStream_t)exec->stream;
    d->host_in = in;
    d->host_out = (sb_slic_out *)output;
    size_t n = d->n, centres = (size_t)d->geo.centres;

    SB_CUDA_TRY(cudaMalloc(&d->rgb, 3 * n), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->linear, 256 * sizeof(float)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->colour, n * sizeof(ushort4)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->labels, n * sizeof(int32_t)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->centres, centres * sizeof(sb_slic_centre)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->sums, centres * 6 * sizeof(unsigned long long)), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->used, centres), err, who);
    SB_CUDA_TRY(cudaMalloc(&d->superpixels, sizeof(int)), err, who);
    if (d->params.connectivity == SB_SLIC_CONNECT_MAJORITY)
        SB_CUDA_TRY(cudaMalloc(&d->spare, n * sizeof(int32_t)), err, who);
    if (d->params.start)
        SB_CUDA_TRY(cudaMalloc(&d->start_centres, centres * sizeof(sb_slic_centre)), err, who);
    if (d->params.converge) {
        SB_CUDA_TRY(cudaMalloc(&d->before, centres * sizeof(sb_slic_centre)), err, who);
        SB_CUDA_TRY(cudaMalloc(&d->unsettled, sizeof(int)), err, who);
    }
    if (d->params.connectivity == SB_SLIC_CONNECT_FULL && (st = rg_device_alloc(&d->regions, in->width, in->height,
                                                                                 who, err)))
        return st;

    SB_CUDA_TRY(cudaMemcpyAsync(d->linear, sb_slic_linear_table(), 256 * sizeof(float), cudaMemcpyHostToDevice,
                                d->stream),
                err, who);
    SB_CUDA_TRY(cudaMemsetAsync(d->sums, 0, centres * 6 * sizeof(unsigned long long), d->stream), err, who);
    if (exec->poison) {
        SB_CUDA_TRY(cudaMemsetAsync(d->labels, 0xA5, n * sizeof(int32_t), d->stream), err, who);
        SB_CUDA_TRY(cudaMemsetAsync(d->centres, 0xA5, centres * sizeof(sb_slic_centre), d->stream), err, who);
        SB_CUDA_TRY(cudaMemsetAsync(d->superpixels, 0xA5, sizeof(int), d->stream), err, who);
    }
    return SB_OK;
}

sb_status slic_cuda_upload(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    const sb_image *in = d->host_in;
    SB_CUDA_TRY(cudaMemcpy2DAsync(d->rgb, (size_t)in->width * 3, in->data, in->stride, (size_t)in->width * 3,
                                  (size_t)in->height, cudaMemcpyHostToDevice, d->stream),
                err, d->who);
    const sb_slic_start *warm = d->params.start;
    d->warm = warm && warm->given;
    if (d->warm && (warm->count != d->geo.centres || !warm->centres))
        return sb_fail(err, SB_ERR_USAGE, "%s: a warm start of %d centres for a grid of %d", d->who, warm->count,
                       d->geo.centres);
    if (d->warm)
        SB_CUDA_TRY(cudaMemcpyAsync(d->start_centres, warm->centres, (size_t)warm->count * sizeof(sb_slic_centre),
                                    cudaMemcpyHostToDevice, d->stream),
                    err, d->who);
    return SB_OK;
}

sb_status slic_start(slic_device *d, sb_error *err)
{
    const sb_slic_geometry *g = &d->geo;
    slic_convert<<<sb_div_up(d->n, SLIC_THREADS), SLIC_THREADS, 0, d->stream>>>(d->n, d->rgb, d->linear,
                                                                               d->params.space, d->colour);
    if (d->warm)
        SB_CUDA_TRY(cudaMemcpyAsync(d->centres, d->start_centres, (size_t)g->centres * sizeof(sb_slic_centre),
                                    cudaMemcpyDeviceToDevice, d->stream),
                    err, d->who);
    else
        slic_place_centres<<<sb_div_up(g->centres, SLIC_THREADS), SLIC_THREADS, 0, d->stream>>>(*g, d->colour,
                                                                                                 d->centres);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status slic_pass_begin(slic_device *d, sb_error *err)
{
    if (d->params.converge)
        SB_CUDA_TRY(cudaMemcpyAsync(d->before, d->centres, (size_t)d->geo.centres * sizeof(sb_slic_centre),
                                    cudaMemcpyDeviceToDevice, d->stream),
                    err, d->who);
    return SB_OK;
}

sb_status slic_pass_end(slic_device *d, int *settled, sb_error *err)
{
    *settled = 0;
    if (!d->params.converge)
        return SB_OK;
    int count = d->geo.centres, unsettled = 0;
    SB_CUDA_TRY(cudaMemsetAsync(d->unsettled, 0, sizeof(int), d->stream), err, d->who);
    slic_count_unsettled<<<sb_div_up(count, SLIC_THREADS), SLIC_THREADS, 0, d->stream>>>(count, d->before,
                                                                                       d->centres, d->unsettled);
    SB_CUDA_LAUNCHED(err, d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(&unsettled, d->unsettled, sizeof(int), cudaMemcpyDeviceToHost, d->stream), err,
                d->who);
    SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);   /* the host decides whether to go on */
    *settled = sb_slic_settled(unsettled, count);
    return SB_OK;
}

sb_status slic_finish(slic_device *d, sb_error *err)
{
    const sb_slic_geometry *g = &d->geo;
    unsigned blocks = sb_div_up(d->n, SLIC_THREADS);
    if (d->params.connectivity == SB_SLIC_CONNECT_FULL)
        return rg_device_enforce(&d->regions, d->labels, g->min_piece, d->superpixels, d->stream, d->who, err);
    if (d->params.connectivity == SB_SLIC_CONNECT_MAJORITY) {     /* labels -> spare -> labels */
        slic_majority<<<blocks, SLIC_THREADS, 0, d->stream>>>(g->width, g->height, d->labels, d->spare);
        slic_majority<<<blocks, SLIC_THREADS, 0, d->stream>>>(g->width, g->height, d->spare, d->labels);
    }
    SB_CUDA_TRY(cudaMemsetAsync(d->used, 0, (size_t)g->centres, d->stream), err, d->who);
    slic_mark_used<<<blocks, SLIC_THREADS, 0, d->stream>>>(d->n, d->labels, d->used);
    slic_count_used<<<1, 1024, 0, d->stream>>>(g->centres, d->used, d->superpixels);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status slic_fetch_centres(slic_device *d, sb_error *err)
{
    sb_slic_out *out = d->host_out;
    SB_CUDA_TRY(cudaMemcpyAsync(out->centres, d->centres, (size_t)d->geo.centres * sizeof(sb_slic_centre),
                                cudaMemcpyDeviceToHost, d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(&out->superpixels, d->superpixels, sizeof(int), cudaMemcpyDeviceToHost, d->stream),
                err, d->who);
    SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
    out->centre_count = d->geo.centres;
    out->iterations = d->iterations;
    return SB_OK;
}

sb_status slic_cuda_fetch(void *state, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    SB_CUDA_TRY(cudaMemcpyAsync(d->host_out->labels, d->labels, (size_t)d->n * sizeof(int32_t),
                                cudaMemcpyDeviceToHost, d->stream),
                err, d->who);
    return slic_fetch_centres(d, err);
}

void slic_device_close(void *state)
{
    slic_device *d = (slic_device *)state;
    if (!d)
        return;
    cudaFree(d->rgb);
    cudaFree(d->linear);
    cudaFree(d->colour);
    cudaFree(d->labels);
    cudaFree(d->spare);
    cudaFree(d->centres);
    cudaFree(d->sums);
    cudaFree(d->used);
    cudaFree(d->superpixels);
    cudaFree(d->start_centres);
    cudaFree(d->before);
    cudaFree(d->unsettled);
    rg_device_free(&d->regions);
    free(d);
}
