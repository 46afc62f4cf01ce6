/* 9_strips.cuh - what cuda-strips (9_strips.cu) lends the strip rungs
 * after it: its state, prepare and release, the scan of the carries down
 * the strips (cuda-fused's own launch runs it too), and the first two
 * launches of a table -- each strip's column totals, then that scan --
 * which cuda-wide and cuda-staged keep. */
#ifndef SEGBENCH_INTEGRAL_9_STRIPS_CUH
#define SEGBENCH_INTEGRAL_9_STRIPS_CUH

#include "6_pdl.cuh"

struct strip_state {
    integral_device dev;   /* first: the shared upload and fetch read it */
    strip_scratch carries;
    int overlap;           /* programmatic dependent launch (compute capability 9.0+) */
};

/* After integral_device_open of a state that starts with a strip_state:
 * its carries, and whether its launches overlap. */
sb_status strip_init(strip_state *s, sb_error *err);

/* A variant's prepare and release with a strip_state. */
sb_status strip_prepare(void **state, const sb_image *in, const void *params, void *output, const sb_exec *exec,
                        sb_error *err);
void strip_release(void *state);

/* In place, for every column j of an [n][len] array m: m[i][j] becomes
 * the sum of m[0..i-1][j].  A block takes 32 columns (a lane each) and
 * its SCAN_WARPS warps split the rows into runs of up to SCAN_RUN rows, so
 * all of a round's loads are in flight at once: each warp sums its run,
 * the run totals of each column are scanned across the warps through
 * shared memory (a transposed read), and each warp writes its run's
 * prefixes.  A round covers SCAN_WARPS x SCAN_RUN rows; taller arrays take
 * more. */
enum { SCAN_WARPS = 16, SCAN_RUN = 24 };

template <class T>
__device__ void scan_down(strip_carries<T> c)
{
    __shared__ T run_total[SCAN_WARPS][33];       /* [run][column]; +1: no bank conflicts on the transpose */
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int col = blockIdx.x * 32 + lane, n = c.strips, len = c.pw;
    int run = min((int)SCAN_RUN, (n + SCAN_WARPS - 1) / SCAN_WARPS);   /* rows a warp */
    T *m = c.column;
    T carry[32 / SCAN_WARPS] = {};                /* column warp + j SCAN_WARPS summed above the round */
    for (int base = 0; base < n; base += SCAN_WARPS * run) {
        int first = base + warp * run;
        T v[SCAN_RUN], sum = 0;
#pragma unroll
        for (int k = 0; k < SCAN_RUN; k++) {
            int i = first + k;
            v[k] = (k < run && i < n && col < len) ? m[(size_t)i * len + col] : 0;
            sum += v[k];
        }
        run_total[warp][lane] = sum;
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 32 / SCAN_WARPS; j++) {   /* each warp scans the runs of its columns */
            int column = warp + j * SCAN_WARPS;
            T t = lane < SCAN_WARPS ? run_total[lane][column] : T(0);
            T inclusive = warp_inclusive_scan(t, lane);
            if (lane < SCAN_WARPS)
                run_total[lane][column] = carry[j] + inclusive - t;
            carry[j] += __shfl_sync(LANES_ALL, inclusive, 31);
        }
        __syncthreads();
        T above = run_total[warp][lane];          /* column col summed over the runs before this one */
#pragma unroll
        for (int k = 0; k < SCAN_RUN; k++) {
            int i = first + k;
            if (k < run && i < n && col < len)
                m[(size_t)i * len + col] = above;
            above += v[k];
        }
        __syncthreads();                          /* run_total is rewritten next round */
    }
}

/* Enqueue the column totals of every strip of d->in, then their scan down
 * the strips, into c (Op: SumOp or SquareOp); the scan may overlap the
 * totals. */
template <class Op>
sb_status strip_carries_scan(integral_device *d, strip_carries<typename Op::T> c, int overlap, sb_error *err);

#endif
