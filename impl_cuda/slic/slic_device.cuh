/* slic_device.cuh - what the CUDA SLIC rungs share: the buffers, the
 * run (convert, place the centres, iterate, connectivity), and the
 * device-side pieces of slic.h's rules.  The rungs differ in one place:
 * an iteration, one assignment and one update.  Everything around it is
 * the same code for all of them.
 *
 * A rung's state is a slic_device, or a struct of its own whose first
 * member is one.  Its prepare opens the device part (slic_device_open),
 * then sets up what only it needs; its run hands its iteration to
 * slic_run, the run every rung shares; its release frees its own things,
 * then calls slic_device_close.  Upload and fetch are shared
 * (slic_cuda_upload, slic_cuda_fetch; cuda-labels16 fetches its labels
 * itself, then the rest with slic_fetch_centres).
 *
 * Layout: the converted colour is a ushort4 a pixel (L, a, b, 0: one
 * aligned 8-byte load); labels are int32; a centre is slic.h's 16-byte
 * sb_slic_centre, read as one int4; the update's sums are 6 uint64 a
 * centre, zero between iterations.
 */
#ifndef SEGBENCH_SLIC_DEVICE_CUH
#define SEGBENCH_SLIC_DEVICE_CUH

#include <cstdint>

#include "segbench/slic.h"
#include "segbench/variant.h"

#include "../cuda_check.cuh"
#include "../regions/regions_device.cuh"

enum { SLIC_FULL_MASK = 0xffffffffu };

struct slic_device {
    const char *who;                 /* "slic/cuda-warpagg", for messages */
    sb_slic_params params;
    sb_slic_geometry geo;
    unsigned n;                      /* pixels */
    cudaStream_t stream;
    const sb_image *host_in;         /* the frame upload() copies */
    sb_slic_out *host_out;
    uint8_t *rgb;                    /* the input, packed: 3 bytes a pixel */
    float *linear;                   /* slic.h's sRGB table, 256 */
    ushort4 *colour;                 /* converted */
    int32_t *labels;
    int32_t *spare;                  /* the majority filter's second buffer */
    sb_slic_centre *centres;
    unsigned long long *sums;        /* centres x 6 */
    uint8_t *used;                   /* by centre, for the count without full connectivity */
    int *superpixels;
    rg_device regions;
    sb_slic_centre *start_centres;   /* a warm frame's first centres (params.start), uploaded with it */
    int warm;                        /* this frame begins from start_centres */
    sb_slic_centre *before;          /* converge mode: the centres before the pass */
    int *unsettled;                  /* converge mode: the centres the pass's update left unsettled */
    int iterations;                  /* the passes the last run made */
};

/* The start of every rung's prepare: a zeroed state of `state_size` bytes
 * (the rung's struct, a slic_device first) in *state, and the buffers in
 * it.  On failure *state may hold a part-built state; the harness hands
 * it to the rung's release. */
sb_status slic_device_open(void **state, size_t state_size, const sb_image *in, const void *params, void *output,
                           const sb_exec *exec, sb_error *err);
/* The end of every rung's release: the shared buffers, then the state. */
void slic_device_close(void *state);

sb_status slic_cuda_upload(void *state, sb_error *err);   /* the pixels */
sb_status slic_cuda_fetch(void *state, sb_error *err);    /* labels, centres, count; then wait */
/* The fetch after the labels, which a rung that fetches its labels its own
 * way (cuda-labels16) shares: centres and count, then wait. */
sb_status slic_fetch_centres(slic_device *d, sb_error *err);

/* Before the iterations: the colour conversion and the first centres. */
sb_status slic_start(slic_device *d, sb_error *err);
/* After them: connectivity (as the parameters ask) and the count. */
sb_status slic_finish(slic_device *d, sb_error *err);

/* Around each pass, converge mode's test (slic.h): the centres kept
 * before it, then whether its update left them settled enough to stop
 * (the host waits for the answer); outside converge mode neither does
 * anything, and *settled is 0. */
sb_status slic_pass_begin(slic_device *d, sb_error *err);
sb_status slic_pass_end(slic_device *d, int *settled, sb_error *err);

/* slic.h's algorithm, all on the device, the same for every rung:
 * `iterate(err)` enqueues one assignment and one update; the passes made
 * go to d->iterations. */
template <class Iterate>
sb_status slic_run(slic_device *d, const Iterate &iterate, sb_error *err)
{
    sb_status st = slic_start(d, err);
    int settled = 0;
    for (d->iterations = 0; !st && !settled && d->iterations < d->params.iterations;) {
        if (!(st = slic_pass_begin(d, err)) && !(st = iterate(err))) {
            d->iterations++;
            st = slic_pass_end(d, &settled, err);
        }
    }
    return st ? st : slic_finish(d, err);
}

/* The update of slic.h for variants that add into d->sums: centres from
 * the sums (kept when empty), sums zeroed. */
sb_status slic_enqueue_update(slic_device *d, sb_error *err);

/* ---- device pieces ----------------------------------------------------- */

/* A centre as the distance reads it: integers held in floats (slic.h). */
struct slic_fcentre {
    float x, y, c[3];
};

__device__ __forceinline__ slic_fcentre slic_fcentre_of(int4 v)
{
    slic_fcentre f;
    f.x = (float)v.x;
    f.y = (float)v.y;
    f.c[0] = (float)(v.z & 0xffff);
    f.c[1] = (float)((unsigned)v.z >> 16);
    f.c[2] = (float)(v.w & 0xffff);
    return f;
}

/* The nearest of the 9 centres around pixel (x, y) of cell (gx, gy), in
 * slic.h's order (rows of cells, then columns; strict <, so ties keep the
 * first); px, py, pc: the pixel as the distance reads it.  `centre(cx,
 * cy)` fetches cell (cx, cy)'s centre from wherever the variant keeps
 * it.  Returns the label; *best_cx, *best_cy get its cell. */
template <class CentreAt>
__device__ __forceinline__ int32_t slic_nearest(const CentreAt &centre, const sb_slic_geometry &g, int gx, int gy,
                                                float px, float py, const float pc[3], int *best_cx, int *best_cy)
{
    float best = INFINITY;
    *best_cx = *best_cy = -1;
#pragma unroll
    for (int dy = -1; dy <= 1; dy++) {
        int cy = gy + dy;
#pragma unroll
        for (int dx = -1; dx <= 1; dx++) {
            int cx = gx + dx;
            if (cy < 0 || cy >= g.grid_h || cx < 0 || cx >= g.grid_w)
                continue;
            slic_fcentre c = centre(cx, cy);
            float d = sb_slic_distance(g.cn, g.wxy, px, py, pc, c.x, c.y, c.c);
            if (d < best) {
                best = d;
                *best_cx = cx;
                *best_cy = cy;
            }
        }
    }
    return *best_cy * g.grid_w + *best_cx;
}

/* The label of pixel (x, y) with colour v, the centres read by `centre`. */
template <class CentreAt>
__device__ __forceinline__ int32_t slic_label(const CentreAt &centre, const sb_slic_geometry &g, int x, int y,
                                              ushort4 v)
{
    const float pc[3] = { (float)v.x, (float)v.y, (float)v.z };
    int cx, cy;
    return slic_nearest(centre, g, x / g.S, y / g.S, (float)(SB_SLIC_XY_UNIT * x), (float)(SB_SLIC_XY_UNIT * y), pc,
                        &cx, &cy);
}

/* What a pixel adds to its centre's sums: x, y, the three channels, 1. */
__device__ __forceinline__ void slic_sum_values(unsigned (&v)[6], int x, int y, ushort4 c)
{
    v[0] = (unsigned)x;
    v[1] = (unsigned)y;
    v[2] = c.x;
    v[3] = c.y;
    v[4] = c.z;
    v[5] = 1;
}

/* A kernel that takes more than the default 48 KiB of dynamic shared
 * memory (small S) must say so first. */
template <class Kernel>
static sb_status slic_allow_shared(Kernel *kernel, size_t bytes, const slic_device *d, sb_error *err)
{
    if (bytes > 48 * 1024)
        SB_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes), err,
                    d->who);
    return SB_OK;
}

/* Centres read from global memory (through the read-only cache), converted
 * at every read. */
struct GlobalCentres {
    const int4 *centres;
    int grid_w;
    __device__ __forceinline__ slic_fcentre operator()(int cx, int cy) const
    {
        return slic_fcentre_of(__ldg(&centres[cy * grid_w + cx]));
    }
};

#endif
