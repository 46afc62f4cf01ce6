/* regions_3_blocksums.cu - cuda-blocksums of meanshift-merge and the
 * pipeline.  Grows from cuda-tiles.  The idea: a block's region sums gathered
 * in shared memory and added to global memory once. */
#include "regions_1_global.cuh"
#include "regions_2_tiles.cuh"
#include "regions_3_blocksums.cuh"

#include "../warp.cuh"

/* ---- region sums: a table a block in shared memory, then global memory ------------------- *
 *
 * A block of 1024 consecutive pixels holds a few regions; each warp's
 * leaders add into a small table in shared memory keyed by label, and the
 * block adds each entry to global memory once.  A label that finds no free slot within MS_SUM_PROBE of its own goes
 * straight to global memory: where a block holds many small regions
 * (board), a probe of the whole table cost more than it saved.  Slots
 * are never freed, so a label already in the table is always found
 * within the same probe. */
enum { MS_SUM_THREADS = 1024, MS_SUM_SLOTS = 64, MS_SUM_PROBE = 8 };

static __global__ void __launch_bounds__(MS_SUM_THREADS)
    block_sums(unsigned n, const int32_t *label, const uint32_t *colour, int32_t *count, unsigned long long *sum)
{
    __shared__ int32_t key[MS_SUM_SLOTS];
    __shared__ unsigned k_of[MS_SUM_SLOTS], L_of[MS_SUM_SLOTS], u_of[MS_SUM_SLOTS], v_of[MS_SUM_SLOTS];
    if (threadIdx.x < MS_SUM_SLOTS) {
        key[threadIdx.x] = -1;
        k_of[threadIdx.x] = L_of[threadIdx.x] = u_of[threadIdx.x] = v_of[threadIdx.x] = 0;
    }
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int32_t r = label[i];
        uint32_t c = colour[i];
        unsigned peers = __match_any_sync(__activemask(), r);
        unsigned L = sb_warp_sum(peers, c & 255u), u = sb_warp_sum(peers, c >> 8 & 255u),
                 v = sb_warp_sum(peers, c >> 16 & 255u);
        if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) {
            unsigned slot = (unsigned)r % MS_SUM_SLOTS, tries = 0;
            int32_t held;
            while ((held = atomicCAS(&key[slot], -1, r)) != -1 && held != r && ++tries < MS_SUM_PROBE)
                slot = (slot + 1) % MS_SUM_SLOTS;
            if (held == -1 || held == r) {     /* at most 1024 x 255 in a slot: no overflow */
                atomicAdd(&k_of[slot], __popc(peers));
                atomicAdd(&L_of[slot], L);
                atomicAdd(&u_of[slot], u);
                atomicAdd(&v_of[slot], v);
            } else {
                ms_add_global(count, sum, r, __popc(peers), L, u, v);
            }
        }
    }
    __syncwarp();                              /* the leaders' loops rejoin before the barrier */
    __syncthreads();
    if (threadIdx.x < MS_SUM_SLOTS && key[threadIdx.x] != -1) {
        unsigned s = threadIdx.x;
        ms_add_global(count, sum, key[s], k_of[s], L_of[s], u_of[s], v_of[s]);
    }
}

sb_status ms_block_region_sums(ms_device *d, const int32_t *label, const uint32_t *colour, sb_error *err)
{
    block_sums<<<sb_div_up(d->n, MS_SUM_THREADS), MS_SUM_THREADS, 0, d->stream>>>(d->n, label, colour, d->count,
                                                                              d->sum);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* ---- the rung -------------------------------------------------------------------------- */

static const ms_regions rung_regions = { ms_tiles_components, ms_block_region_sums, nullptr, ms_host_merge };

static sb_status rung_prepare(int step, void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    return ms_device_open(state, sizeof(ms_device), step, &rung_regions, in, params, output, exec, err);
}

MS_STEP_PREPARE(merge_prepare, rung_prepare, SB_MS_MERGE)
MS_STEP_PREPARE(pipeline_prepare, rung_prepare, SB_MS_PIPELINE)

SB_CUDA_RUNG("meanshift-merge", "cuda-blocksums", "cuda-tiles", "cuda-shared", 0,
             "region sums gathered per block in a shared-memory table, one global atomic a region and block",
             merge_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
SB_CUDA_RUNG("meanshift", "cuda-blocksums", "cuda-tiles", "cuda-shared", 0,
             "the merge's region sums gathered per block in shared memory first",
             pipeline_prepare, ms_cuda_upload, ms_run_global, ms_cuda_fetch, ms_device_close)
