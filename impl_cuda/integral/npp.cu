/* npp.cu - NVIDIA's library integral image as the baseline (variant "npp",
 * backend lib).
 *
 * nppiIntegral_8u32s_C1R_Ctx (and nppiSqrIntegral_8u32s64f_C1R_Ctx for the
 * "sqsum" stage) write an exclusive (W+1) x (H+1) table: entry (x+1, y+1)
 * is our inclusive (x, y).  fetch() copies that W x H window back.  NPP's
 * sums are Npp32s, so any sum above INT32_MAX (about 8.4 Mpx of white) is
 * wrong by construction; the agreement check counts those sums as failures
 * rather than comparing bits that happen to wrap the same way.  Its squared
 * sums are Npp64f, exact below 2^53 (always, within segbench's limits),
 * and are converted to u64 on the host in fetch(), in place in the output
 * (a double and a u64 are both 8 bytes, so no staging buffer is needed).
 */
#include "integral_device.cuh"

#include <nppi.h>

#include <cmath>
#include <cstring>

struct npp_state {
    integral_device dev;   /* first: the shared upload reads it */
    NppStreamContext ctx;
    Npp32s *sum;        /* (W+1) x (H+1), row pitch sum_pitch bytes */
    Npp64f *sq;
    size_t sum_pitch, sq_pitch;
};

static sb_status npp_fail(integral_device *d, NppStatus st, const char *call, sb_error *err)
{
    return sb_fail(err, SB_ERR_DEVICE, "%s: %s returned NPP status %d", d->who, call, (int)st);
}

static sb_status npp_prepare(void **state, const sb_image *in, const void *params, void *output,
                             const sb_exec *exec, sb_error *err)
{
    sb_status st = integral_device_open(state, sizeof(npp_state), INTEGRAL_OWN_OUTPUTS, in, params, output, exec,
                                        err);
    if (st)
        return st;
    npp_state *s = (npp_state *)*state;
    integral_device *d = &s->dev;

    NppStreamContext *c = &s->ctx;
    int dev = 0;
    SB_CUDA_TRY(cudaGetDevice(&dev), err, d->who);
    c->hStream = d->stream;
    c->nCudaDeviceId = dev;
    SB_CUDA_TRY(cudaDeviceGetAttribute(&c->nMultiProcessorCount, cudaDevAttrMultiProcessorCount, dev), err,
                d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&c->nMaxThreadsPerMultiProcessor,
                                       cudaDevAttrMaxThreadsPerMultiProcessor, dev),
                err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&c->nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, dev), err,
                d->who);
    int smem = 0;
    SB_CUDA_TRY(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, dev), err, d->who);
    c->nSharedMemPerBlock = (size_t)smem;
    SB_CUDA_TRY(cudaDeviceGetAttribute(&c->nCudaDevAttrComputeCapabilityMajor,
                                       cudaDevAttrComputeCapabilityMajor, dev),
                err, d->who);
    SB_CUDA_TRY(cudaDeviceGetAttribute(&c->nCudaDevAttrComputeCapabilityMinor,
                                       cudaDevAttrComputeCapabilityMinor, dev),
                err, d->who);
    SB_CUDA_TRY(cudaStreamGetFlags(d->stream, &c->nStreamFlags), err, d->who);

    size_t w1 = (size_t)d->width + 1, h1 = (size_t)d->height + 1;
    SB_CUDA_TRY(cudaMallocPitch((void **)&s->sum, &s->sum_pitch, w1 * sizeof(Npp32s), h1), err, d->who);
    if (d->squares) {
        SB_CUDA_TRY(cudaMallocPitch((void **)&s->sq, &s->sq_pitch, w1 * sizeof(Npp64f), h1), err, d->who);
    }
    if (d->poison) {
        SB_CUDA_TRY(cudaMemset2DAsync(s->sum, s->sum_pitch, 0xA5, w1 * sizeof(Npp32s), h1, d->stream), err,
                    d->who);
        if (s->sq)
            SB_CUDA_TRY(cudaMemset2DAsync(s->sq, s->sq_pitch, 0xA5, w1 * sizeof(Npp64f), h1, d->stream),
                        err, d->who);
    }
    return SB_OK;
}

static sb_status npp_run(void *state, sb_error *err)
{
    npp_state *s = (npp_state *)state;
    integral_device *d = &s->dev;
    NppiSize roi = { d->width, d->height };
    NppStatus st;
    if (d->squares) {
        st = nppiSqrIntegral_8u32s64f_C1R_Ctx(d->in, d->pw, s->sum, (int)s->sum_pitch, s->sq,
                                              (int)s->sq_pitch, roi, 0, 0.0, s->ctx);
        if (st != NPP_SUCCESS)
            return npp_fail(d, st, "nppiSqrIntegral_8u32s64f_C1R_Ctx", err);
    } else {
        st = nppiIntegral_8u32s_C1R_Ctx(d->in, d->pw, s->sum, (int)s->sum_pitch, roi, 0, s->ctx);
        if (st != NPP_SUCCESS)
            return npp_fail(d, st, "nppiIntegral_8u32s_C1R_Ctx", err);
    }
    return SB_OK;
}

static sb_status npp_fetch(void *state, sb_error *err)
{
    npp_state *s = (npp_state *)state;
    integral_device *d = &s->dev;
    sb_integral_out *out = d->host_out;
    size_t w = (size_t)d->width, h = (size_t)d->height;
    /* skip NPP's leading zero row and column */
    const char *sum_at = (const char *)s->sum + s->sum_pitch + sizeof(Npp32s);
    SB_CUDA_TRY(cudaMemcpy2DAsync(out->sum, w * sizeof *out->sum, sum_at, s->sum_pitch, w * sizeof(Npp32s),
                                  h, cudaMemcpyDeviceToHost, d->stream),
                err, d->who);
    if (d->squares) {
        const char *sq_at = (const char *)s->sq + s->sq_pitch + sizeof(Npp64f);
        static_assert(sizeof(Npp64f) == sizeof(uint64_t), "converted in place");
        SB_CUDA_TRY(cudaMemcpy2DAsync(out->sqsum, w * sizeof(Npp64f), sq_at, s->sq_pitch,
                                      w * sizeof(Npp64f), h, cudaMemcpyDeviceToHost, d->stream),
                    err, d->who);
    }
    SB_CUDA_TRY(cudaStreamSynchronize(d->stream), err, d->who);
    if (d->squares)
        for (size_t i = 0; i < w * h; i++) {
            double v;                   /* out-of-range values become a mismatch, not UB */
            memcpy(&v, &out->sqsum[i], sizeof v);
            out->sqsum[i] = (v >= 0.0 && v < 1.8e19 && v == std::floor(v)) ? (uint64_t)v : UINT64_MAX;
        }
    return SB_OK;
}

static void npp_release(void *state)
{
    npp_state *s = (npp_state *)state;
    if (s) {
        cudaFree(s->sum);
        cudaFree(s->sq);
    }
    integral_device_close(s);
}

SB_VARIANT("integral", "npp", "lib", NPP, SB_DEVICE | SB_INT32, ALL_STAGES,
           "NPP nppiIntegral_8u32s / nppiSqrIntegral_8u32s64f",
           npp_prepare, integral_cuda_upload, npp_run, npp_fetch, npp_release)
SB_RUNG("integral", "npp", NULL, "a root outside the ladder: NVIDIA's library, nppiIntegral")
