/* 15_colour.cu - cuda-colour.  A branch of cuda-fused.  The idea:
 * cuda-fused's kernels on a colour frame, its grey made on the device by one
 * more pass, so the host never converts. */
#include "12_fused.cuh"

/* 0. The grey of the colour frame, exactly as sb_luma_u8 makes it: a
 * thread makes 4 pixels from 12 bytes (three 4-byte loads, 384 contiguous
 * bytes a warp) and writes them as one 4-byte store into the padded grey.
 * Pixels right of the image are written 0 and rows below it are not
 * touched, so the padding stays zero. */
enum { LUMA_THREADS = 256 };

__device__ __forceinline__ uint32_t luma(uint32_t r, uint32_t g, uint32_t b)
{
    return (77u * r + 150u * g + 29u * b + 128u) >> 8;
}
__device__ __forceinline__ uint32_t byte_of(uint32_t w, int i) { return (w >> (8 * i)) & 0xff; }

static __global__ void luma_rows(const uint8_t *rgb, int rgb_pitch, int width, uint8_t *grey, int pw)
{
    int x = (blockIdx.x * LUMA_THREADS + threadIdx.x) * 4, y = blockIdx.y;
    if (x >= width)
        return;
    const uint32_t *p = reinterpret_cast<const uint32_t *>(rgb + (size_t)y * rgb_pitch + 3 * x);
    uint32_t a = __ldg(p), b = __ldg(p + 1), c = __ldg(p + 2);   /* r0 g0 b0 r1 | g1 b1 r2 g2 | b2 r3 g3 b3 */
    uint32_t y0 = luma(byte_of(a, 0), byte_of(a, 1), byte_of(a, 2));
    uint32_t y1 = luma(byte_of(a, 3), byte_of(b, 0), byte_of(b, 1));
    uint32_t y2 = luma(byte_of(b, 2), byte_of(b, 3), byte_of(c, 0));
    uint32_t y3 = luma(byte_of(c, 1), byte_of(c, 2), byte_of(c, 3));
    int inside = width - x;                       /* pixels of the four inside the image, >= 1 */
    uint32_t four = y0 | (inside > 1 ? y1 << 8 : 0) | (inside > 2 ? y2 << 16 : 0) | (inside > 3 ? y3 << 24 : 0);
    *reinterpret_cast<uint32_t *>(grey + (size_t)y * pw + x) = four;
}

/* ---- the variant ------------------------------------------------------------------- */

struct rung_state {
    strip_state strip;     /* first: cuda-fused's, whose run this is after luma_rows */
    const sb_image *colour;   /* the frame, 3 bytes a pixel, pinned: read at each upload */
    uint8_t *rgb;          /* its copy on the device: height rows of 3 pw bytes */
};

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    if (in->channels != 3)
        return sb_fail(err, SB_ERR_USAGE, "%s: takes the colour frame (3 channels), got %d", exec->who,
                       in->channels);
    sb_image grey = { in->width, in->height, 1, (size_t)in->width, NULL };   /* what the device holds */
    sb_status st = integral_device_open(state, sizeof(rung_state), INTEGRAL_SHARED_OUTPUTS, &grey, params,
                                        output, exec, err);
    rung_state *s = (rung_state *)*state;
    if (s)
        s->strip.dev.host_in = NULL;    /* there is no host grey: luma_rows makes it from s->rgb */
    if (st || (st = strip_init(&s->strip, err)))
        return st;
    s->colour = in;
    integral_device *d = &s->strip.dev;
    size_t rgb_bytes = (size_t)3 * d->pw * d->height;
    SB_CUDA_TRY(cudaMalloc(&s->rgb, rgb_bytes), err, d->who);
    /* once: the bytes right of the image, which luma_rows reads and masks */
    SB_CUDA_TRY(cudaMemsetAsync(s->rgb, 0, rgb_bytes, d->stream), err, d->who);
    return SB_OK;
}

static sb_status rung_upload(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    const sb_image *in = s->colour;
    integral_device *d = &s->strip.dev;
    SB_CUDA_TRY(cudaMemcpy2DAsync(s->rgb, (size_t)3 * d->pw, in->data, in->stride, (size_t)3 * in->width,
                                  (size_t)in->height, cudaMemcpyHostToDevice, d->stream),
                err, d->who);
    return SB_OK;
}

static sb_status rung_run(void *state, sb_error *err)
{
    rung_state *s = (rung_state *)state;
    integral_device *d = &s->strip.dev;
    dim3 grid(sb_div_up(d->width, 4 * LUMA_THREADS), d->height);
    luma_rows<<<grid, LUMA_THREADS, 0, d->stream>>>(s->rgb, 3 * d->pw, d->width, d->in, d->pw);
    SB_CUDA_LAUNCHED(err, d->who);
    return fused_run(state, err);
}

static void rung_release(void *state)
{
    rung_state *s = (rung_state *)state;
    if (s)
        cudaFree(s->rgb);
    strip_release(state);
}

SB_CUDA_RUNG("integral", "cuda-colour", "cuda-fused", "cuda-shared", SB_COLOUR_IN,
             "the frame crosses the bus in colour and its grey is made on the GPU: the host converts nothing",
             rung_prepare, rung_upload, rung_run, integral_cuda_fetch, rung_release)
