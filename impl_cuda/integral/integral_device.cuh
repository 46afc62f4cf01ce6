/* integral_device.cuh - what every CUDA integral variant shares: the padded
 * device buffers, their upload and download, the variant plumbing, and the
 * two value operations (sum of pixels, sum of squared pixels).
 *
 * A variant file supplies only its kernels and an integral_cuda_hooks
 * record (what to set up, how to run, what to tear down); prepare, upload,
 * fetch and release are the same for all of them.  For the "sqsum" stage each
 * variant runs its pipeline twice, once per table (SumOp, then SquareOp).
 *
 * Padding.  Device buffers are padded to whole tiles of INTEGRAL_PAD_X x
 * INTEGRAL_PAD_Y pixels and the input padding is zero, so kernels read and
 * write whole tiles with no bounds checks and every row starts 128-byte
 * aligned (16-byte vector loads of pixels, 16-byte stores of sums).  Only
 * the W x H corner is copied back.  Zeros to the right of and below the
 * image do not change any sum inside it.
 */
#ifndef SEGBENCH_INTEGRAL_DEVICE_CUH
#define SEGBENCH_INTEGRAL_DEVICE_CUH

#include <cstdint>

#include "segbench/integral.h"
#include "segbench/variant.h"

#include "../cuda_check.cuh"

enum { INTEGRAL_PAD_X = 128, INTEGRAL_PAD_Y = 32 };

struct integral_cuda_hooks;

struct integral_device {
    const struct integral_cuda_hooks *hooks;
    const char *who;               /* "integral/cuda-shared", for messages */
    int width, height;             /* the image */
    int pw, ph;                    /* padded: multiples of INTEGRAL_PAD_X / _Y */
    int squares;
    int poison;                    /* fill outputs with 0xA5 bytes before running */
    cudaStream_t stream;
    const sb_image *host_in;       /* grey, pinned */
    sb_integral_out *host_out;     /* pinned */
    uint8_t *in;                   /* pw x ph bytes, row pitch pw */
    uint32_t *sum;                 /* pw x ph, row pitch pw */
    uint64_t *sq;                  /* pw x ph, or NULL */
    void *scratch;                 /* the variant's own buffers */
};

struct integral_cuda_hooks {
    sb_status (*setup)(integral_device *d, sb_error *err);   /* optional */
    sb_status (*run)(integral_device *d, sb_error *err);     /* enqueue on d->stream */
    void (*teardown)(integral_device *d);                    /* optional */
    sb_status (*fetch)(integral_device *d, sb_error *err);   /* optional: for results that
                                                                do not live in d->sum/sq */
    int own_outputs;         /* 1: the variant allocates its own output buffers (d->sum,
                                d->sq stay NULL) */
};

/* The value each pixel contributes, and the type its sums are kept in. */
struct SumOp {
    typedef uint32_t T;
    static __device__ __forceinline__ T of(uint32_t v) { return v; }
};
struct SquareOp {
    typedef uint64_t T;
    static __device__ __forceinline__ T of(uint32_t v) { return (uint64_t)(v * v); }
};

/* prepare: allocate the padded buffers (zero padding; outputs poisoned
 * with 0xA5 bytes when exec->poison is set), then the variant's own
 * setup.  upload: copy the W x H pixels into the padded input. */
sb_status integral_cuda_prepare(const integral_cuda_hooks *hooks, void **state, const sb_image *in,
                                const void *params, void *output, const sb_exec *exec, sb_error *err);
sb_status integral_cuda_upload(void *state, sb_error *err);
sb_status integral_cuda_run(void *state, sb_error *err);
/* fetch: copy the W x H results into the harness's output and wait. */
sb_status integral_cuda_fetch(void *state, sb_error *err);
void integral_cuda_release(void *state);

#endif
