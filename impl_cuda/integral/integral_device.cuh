/* integral_device.cuh - what every CUDA integral variant shares: the padded
 * device buffers, their upload and download, the variant plumbing, and the
 * two value operations (sum of pixels, sum of squared pixels).
 *
 * A rung's state is a struct of its own whose first member is an
 * integral_device.  Its prepare opens the device part (integral_device_open:
 * the padded buffers), then allocates what only it needs; its run launches
 * its kernels; its release frees its own things, then calls
 * integral_device_close.  Upload and fetch are the same for every rung, so
 * they are shared (integral_cuda_upload, integral_cuda_fetch).  For the
 * "sqsum" stage each rung runs its pipeline twice, once per table (SumOp,
 * then SquareOp).
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
#include "../warp.cuh"

enum { INTEGRAL_PAD_X = 128, INTEGRAL_PAD_Y = 32 };

/* The tile rungs' tile: one warp owns 128 x 32 pixels, lane i columns
 * 4i..4i+3 (the buffers are padded to whole tiles). */
enum {
    TILE_W = 128,             /* 32 lanes x 4 pixels */
    TILE_H = 32               /* rows a warp walks (16 measured the same at 4K) */
};
static_assert((int)TILE_W == (int)INTEGRAL_PAD_X && INTEGRAL_PAD_Y % TILE_H == 0, "buffers are padded to whole tiles");
enum { TILES_PER_BLOCK = 4 };     /* the tile rungs' blocks: one warp a tile */

/* Four sums to consecutive addresses in one 16-byte store (two for u64). */
__device__ __forceinline__ void store4(uint32_t *p, const uint32_t v[4])
{
    *reinterpret_cast<uint4 *>(p) = make_uint4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void store4(uint64_t *p, const uint64_t v[4])
{
    reinterpret_cast<ulonglong2 *>(p)[0] = make_ulonglong2(v[0], v[1]);
    reinterpret_cast<ulonglong2 *>(p)[1] = make_ulonglong2(v[2], v[3]);
}

/* Pixels from the padded input in global memory: one 4-byte load a lane
 * through the read-only data path (__ldg), 128 contiguous bytes a warp. */
struct GlobalLoader {
    const uint8_t *in;
    int pitch;
    __device__ __forceinline__ uchar4 operator()(int x, int y) const
    {
        return __ldg(reinterpret_cast<const uchar4 *>(in + (size_t)y * pitch + x));
    }
};

struct integral_device {
    const char *who;               /* "integral/cuda-pdl", for messages */
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
};

/* Where a rung's results live: in d->sum and d->sq (allocated here, copied
 * back by integral_cuda_fetch), or in buffers of its own (a library with
 * its own layout; d->sum and d->sq stay NULL and the rung fetches). */
enum integral_outputs { INTEGRAL_SHARED_OUTPUTS, INTEGRAL_OWN_OUTPUTS };

/* The value each pixel contributes, and the type its sums are kept in. */
struct SumOp {
    typedef uint32_t T;
    static __device__ __forceinline__ T of(uint32_t v) { return v; }
};
struct SquareOp {
    typedef uint64_t T;
    static __device__ __forceinline__ T of(uint32_t v) { return (uint64_t)(v * v); }
};

/* Where the tile rungs' tile totals live: after the carry scan, the same
 * arrays hold the exclusive prefixes U, L and V (3_tilescan.cu explains). */
template <class T>
struct tile_carries {
    T *column;     /* [tiles_y][pw]       column totals per tile  -> U */
    T *row;        /* [tiles_x][ph]       row totals per tile     -> L */
    T *tile;       /* [tiles_y][tiles_x]  tile totals             -> V */
    int tiles_x, tiles_y, pw, ph;
};

/* Both tables' carries: the tile rungs' scratch. */
struct tiled_scratch {
    tile_carries<uint32_t> sum;
    tile_carries<uint64_t> sq;
};
sb_status tiled_scratch_init(tiled_scratch *s, const integral_device *d, sb_error *err);
void tiled_scratch_release(tiled_scratch *s);

/* The strip rungs' carries (9_strips.cu explains them): each strip's
 * column sums, [strips][pw]; after the carry scan, the sums above each
 * strip (U).  One array a table: the strip rungs' scratch. */
template <class T>
struct strip_carries {
    T *column;
    int strips, pw;
};
struct strip_scratch {
    strip_carries<uint32_t> sum;
    strip_carries<uint64_t> sq;   /* column NULL without squares */
};
sb_status strip_scratch_init(strip_scratch *s, const integral_device *d, int strip_rows, sb_error *err);
void strip_scratch_release(strip_scratch *s);

/* The start of every rung's prepare: a zeroed state of `state_size` bytes
 * (the rung's struct, an integral_device first) in *state, and the padded
 * buffers in it (zero padding; outputs poisoned with 0xA5 bytes when
 * exec->poison is set).  On failure *state may hold a part-built state;
 * the harness hands it to the rung's release. */
sb_status integral_device_open(void **state, size_t state_size, integral_outputs outputs, const sb_image *in,
                               const void *params, void *output, const sb_exec *exec, sb_error *err);
/* The end of every rung's release: the shared buffers, then the state. */
void integral_device_close(void *state);

/* upload: copy the W x H pixels into the padded input. */
sb_status integral_cuda_upload(void *state, sb_error *err);
/* fetch: copy the W x H results of d->sum (and d->sq) into the harness's
 * output and wait. */
sb_status integral_cuda_fetch(void *state, sb_error *err);

/* ---- the strips (cuda-strips on: 9_strips.cu explains them) -------------------------------- */

enum {
    STRIP_ROWS = 8,                           /* rows a strip; divides INTEGRAL_PAD_Y */
    STRIP_THREADS = 256,                      /* a block: one strip */
    STRIP_WARPS = STRIP_THREADS / 32
};
static_assert(INTEGRAL_PAD_Y % STRIP_ROWS == 0, "strips tile the padded height");
static_assert(STRIP_WARPS <= 32, "block_scan_rows gives each warp total a lane");

/* The block-wide part of scanning ROWS rows at once.  On entry each warp's
 * lane 31 has stored its warp's total of row r in part[r][warp]; on return
 * part[r][w] holds the total of row r over warps before w, and
 * segment[r] the total of row r over the whole block. */
template <int ROWS, class T>
__device__ __forceinline__ void block_scan_rows(T (&part)[ROWS][STRIP_WARPS], T (&segment)[ROWS], int lane,
                                                int warp)
{
    __syncthreads();                              /* every warp's totals are in */
    for (int r = warp; r < ROWS; r += STRIP_WARPS) {
        T v = lane < STRIP_WARPS ? part[r][lane] : T(0);   /* a lane a warp */
        T inclusive = warp_inclusive_scan(v, lane);
        if (lane < STRIP_WARPS)
            part[r][lane] = inclusive - v;
        if (lane == 31)
            segment[r] = inclusive;
    }
    __syncthreads();
}

#endif
