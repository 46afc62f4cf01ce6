/* 10_wide.cuh - what cuda-wide (10_wide.cu) lends the strip rungs after
 * it: 16 pixels a thread, read in one 16-byte load, and the helpers that
 * take them apart. */
#ifndef SEGBENCH_INTEGRAL_10_WIDE_CUH
#define SEGBENCH_INTEGRAL_10_WIDE_CUH

#include "integral_device.cuh"

enum {
    PIXELS = 16,                              /* a thread's pixels of a row: one 16-byte load */
    STRIP_SEGMENT = STRIP_THREADS * PIXELS    /* pixels of a row scanned at once */
};
static_assert(INTEGRAL_PAD_X % PIXELS == 0, "a thread's pixels are all inside the padded row or all out");

/* 16 pixels of a row at once, and pixel i of them. */
__device__ __forceinline__ uint4 load16(const uint8_t *in, int pitch, int x, int y)
{
    return __ldg(reinterpret_cast<const uint4 *>(in + (size_t)y * pitch + x));
}
__device__ __forceinline__ uint32_t pixel(const uint4 &q, int i)
{
    uint32_t w = i < 4 ? q.x : i < 8 ? q.y : i < 12 ? q.z : q.w;   /* i is a constant after unrolling */
    return (w >> (8 * (i % 4))) & 0xff;
}

/* The values of a 16-pixel group summed, in four byte dot products
 * (dp4a): the row totals need no unpacked pixels. */
__device__ __forceinline__ uint32_t total16(SumOp, const uint4 &q)
{
    const uint32_t ones = 0x01010101u;
    return __dp4a(q.x, ones, __dp4a(q.y, ones, __dp4a(q.z, ones, __dp4a(q.w, ones, 0u))));
}
__device__ __forceinline__ uint32_t total16(SquareOp, const uint4 &q)   /* at most 16 x 255^2 */
{
    return __dp4a(q.x, q.x, __dp4a(q.y, q.y, __dp4a(q.z, q.z, __dp4a(q.w, q.w, 0u))));
}

/* Four sums from consecutive addresses. */
__device__ __forceinline__ void load4(const uint32_t *p, uint32_t v[4])
{
    uint4 q = *reinterpret_cast<const uint4 *>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}
__device__ __forceinline__ void load4(const uint64_t *p, uint64_t v[4])
{
    ulonglong2 a = reinterpret_cast<const ulonglong2 *>(p)[0], b = reinterpret_cast<const ulonglong2 *>(p)[1];
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
}

/* Row -1 of a segment: the carries U at a thread's 16 columns (zero
 * outside the image). */
template <class T>
__device__ __forceinline__ void strip_row_above(const T *above, int x, bool inside, T (&u)[PIXELS])
{
#pragma unroll
    for (int i = 0; i < PIXELS; i += 4) {
        u[i] = u[i + 1] = u[i + 2] = u[i + 3] = 0;
        if (inside)
            load4(above + x + i, u + i);
    }
}

/* The start of a segment of a strip, its pixels and row -1 (u) in
 * registers: each row's prefix within a thread's 16 pixels, then across
 * the warp (before[r]), then across the block (part, segment:
 * block_scan_rows); then row -1's running sums in acc, and carry[0] (U's
 * sum left of the segment) moved past it.  Every thread of the block
 * calls it. */
template <class Op, class T>
__device__ __forceinline__ void strip_prefixes(const uint4 (&pixels)[STRIP_ROWS], const T (&u)[PIXELS],
                                               T (&carry)[STRIP_ROWS + 1], T (&part)[STRIP_ROWS + 1][STRIP_WARPS],
                                               T (&segment)[STRIP_ROWS + 1], int lane, int warp,
                                               T (&before)[STRIP_ROWS + 1], T (&acc)[PIXELS])
{
    T total = 0;
#pragma unroll
    for (int i = 0; i < PIXELS; i++)
        total += u[i];
    T inclusive = warp_inclusive_scan(total, lane);
    before[0] = inclusive - total;
    if (lane == 31)
        part[0][warp] = inclusive;
#pragma unroll
    for (int r = 0; r < STRIP_ROWS; r++) {
        total = total16(Op(), pixels[r]);
        inclusive = warp_inclusive_scan(total, lane);
        before[r + 1] = inclusive - total;
        if (lane == 31)
            part[r + 1][warp] = inclusive;
    }
    block_scan_rows(part, segment, lane, warp);

    /* Row -1 starts the running column sums: S(x, y0 - 1). */
    T left = carry[0] + part[0][warp] + before[0];
    acc[0] = left + u[0];
#pragma unroll
    for (int i = 1; i < PIXELS; i++)
        acc[i] = acc[i - 1] + u[i];
    carry[0] += segment[0];
}

#endif
