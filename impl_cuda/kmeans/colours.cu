/* colours.cu - the histogram of an image's colours and the pixels' labels
 * from it, for the k-means rungs over colours (colours.cuh). */
#include "colours.cuh"

enum {
    COLOUR_WORDS = 1 << 19,                                   /* 2^24 colours, a bit each */
    WORDS_PER_THREAD = 8,                                     /* four uint4 loads of (bits, count) */
    WORDS_PER_BLOCK = KM_COLOUR_THREADS * WORDS_PER_THREAD,   /* 2048 */
    SCAN_BLOCKS = COLOUR_WORDS / WORDS_PER_BLOCK,             /* 256, one scan block's threads */
};
static_assert((int)SCAN_BLOCKS == (int)KM_COLOUR_THREADS, "the last block scans one total per thread");

/* The colours of quad q (pixel j: bytes 3j..3j+2 of its 3 words) as keys
 * R << 16 | G << 8 | B, so key order is RGB order. */
static __device__ __forceinline__ void km_quad_keys(const uint32_t *rgb, unsigned q, unsigned (&key)[4])
{
    const uint32_t *w = rgb + 3 * (size_t)q;
    const uint32_t word[3] = { __ldg(w), __ldg(w + 1), __ldg(w + 2) };
#pragma unroll
    for (int j = 0; j < 4; j++) {
        key[j] = 0;
#pragma unroll
        for (int ch = 0; ch < 3; ch++) {
            int byte = 3 * j + ch;
            key[j] = key[j] << 8 | ((word[byte / 4] >> (8 * (byte % 4))) & 0xffu);
        }
    }
}

/* Pixels of quad q inside the image (the last quad may be short). */
static __device__ __forceinline__ unsigned km_quad_inside(unsigned q, unsigned long long n)
{
    unsigned long long first = 4ull * q;
    return first >= n ? 0u : n - first >= 4 ? 4u : (unsigned)(n - first);
}

/* A present colour's index in the list: the colours of the words before
 * its own, then the set bits below it in its word.  A word keeps its bits
 * and its count before it side by side (x, y), so one 8-byte read, one L2
 * sector, serves both. */
static __device__ __forceinline__ unsigned km_colour_index(const uint2 *rank, unsigned key)
{
    uint2 r = __ldg(&rank[key >> 5]);
    return r.y + __popc(r.x & ((1u << (key & 31)) - 1u));
}

/* 1. Every pixel's colour marked present.  Most pixels repeat a colour
 * already marked: a read (from L2) first leaves the atomic to the first
 * few of each colour. */
static __global__ void __launch_bounds__(KM_COLOUR_THREADS)
    km_mark(const uint32_t *rgb, unsigned quads, unsigned long long n, uint2 *rank)
{
    for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
        unsigned key[4], inside = km_quad_inside(q, n);
        km_quad_keys(rgb, q, key);
#pragma unroll
        for (unsigned j = 0; j < 4; j++) {
            unsigned *word = &rank[key[j] >> 5].x, bit = 1u << (key[j] & 31);
            if (j < inside && !(__ldcg(word) & bit))
                atomicOr(word, bit);
        }
    }
}

/* This thread's 8 words of bits (in 4 uint4 loads: bits and counts are
 * interleaved). */
static __device__ __forceinline__ void km_thread_words(const uint2 *rank, uint32_t (&word)[WORDS_PER_THREAD],
                                                unsigned *first_word)
{
    *first_word = (blockIdx.x * KM_COLOUR_THREADS + threadIdx.x) * WORDS_PER_THREAD;
    const uint4 *v = (const uint4 *)(rank + *first_word);
#pragma unroll
    for (int i = 0; i < WORDS_PER_THREAD / 2; i++) {
        uint4 two = v[i];
        word[2 * i] = two.x;
        word[2 * i + 1] = two.z;
    }
}

/* The sum of v over the block's threads before this one, and the block's
 * total (every thread gets both). */
static __device__ __forceinline__ unsigned km_block_exclusive_scan(unsigned v, unsigned *total)
{
    __shared__ unsigned warp_total[KM_COLOUR_THREADS / 32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned inclusive = warp_inclusive_scan(v, lane);
    if (lane == 31)
        warp_total[warp] = inclusive;
    __syncthreads();
    unsigned before = 0, sum = 0;
    for (int i = 0; i < KM_COLOUR_THREADS / 32; i++) {
        before += i < warp ? warp_total[i] : 0u;
        sum += warp_total[i];
    }
    __syncthreads();   /* warp_total may be reused by the next call */
    *total = sum;
    return before + inclusive - v;
}

/* 2a. Each block's colours counted; the block that finishes last turns
 * the counts into each block's first index and the number of colours. */
static __global__ void __launch_bounds__(KM_COLOUR_THREADS)
    km_count_words(const uint2 *rank, unsigned *block_base, km_histogram *hist)
{
    uint32_t word[WORDS_PER_THREAD];
    unsigned first_word, mine = 0, total;
    km_thread_words(rank, word, &first_word);
#pragma unroll
    for (int i = 0; i < WORDS_PER_THREAD; i++)
        mine += __popc(word[i]);
    km_block_exclusive_scan(mine, &total);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        block_base[blockIdx.x] = total;
        __threadfence();
        last = atomicAdd(&hist->blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    unsigned count = __ldcg(&block_base[threadIdx.x]), colours;   /* one block's total a thread */
    unsigned base = km_block_exclusive_scan(count, &colours);
    block_base[threadIdx.x] = base;
    if (threadIdx.x == 0)
        hist->colours = colours;
}

/* 2b. Each word's first index, and the list of colours in key order (their
 * weights zeroed for step 3).  A thread's 8 words can hold 256 colours, so
 * the warp writes them together: one word at a time, a lane a bit. */
static __global__ void __launch_bounds__(KM_COLOUR_THREADS)
    km_list_colours(uint2 *rank, const unsigned *block_base, uint32_t *colour, unsigned *weight)
{
    uint32_t word[WORDS_PER_THREAD];
    unsigned first_word, mine = 0, total, lane = threadIdx.x & 31;
    km_thread_words(rank, word, &first_word);
#pragma unroll
    for (int i = 0; i < WORDS_PER_THREAD; i++)
        mine += __popc(word[i]);
    unsigned index = block_base[blockIdx.x] + km_block_exclusive_scan(mine, &total);
#pragma unroll
    for (int i = 0; i < WORDS_PER_THREAD; i++) {
        rank[first_word + i].y = index;
        for (unsigned busy = __ballot_sync(KM_FULL_MASK, word[i] != 0); busy; busy &= busy - 1) {
            int owner = __ffs(busy) - 1;
            uint32_t bits = __shfl_sync(KM_FULL_MASK, word[i], owner);
            unsigned at = __shfl_sync(KM_FULL_MASK, index, owner);
            unsigned key0 = __shfl_sync(KM_FULL_MASK, first_word + i, owner) << 5;
            if (bits >> lane & 1u) {
                unsigned to = at + __popc(bits & ((1u << lane) - 1u));
                colour[to] = key0 | lane;
                weight[to] = 0;
            }
        }
        index += __popc(word[i]);
    }
}

/* 3. Every pixel counted into its colour's weight. */
static __global__ void __launch_bounds__(KM_COLOUR_THREADS)
    km_weigh(const uint32_t *rgb, unsigned quads, unsigned long long n, const uint2 *rank, unsigned *weight)
{
    for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
        unsigned key[4], inside = km_quad_inside(q, n);
        km_quad_keys(rgb, q, key);
#pragma unroll
        for (unsigned j = 0; j < 4; j++)
            if (j < inside)
                atomicAdd(&weight[km_colour_index(rank, key[j])], 1u);
    }
}

/* 4. Every pixel labelled with the centres its colour's last pass used
 * (a label is a function of the colour and those centres alone): the same
 * label as its colour's, without a lookup per pixel.  4 labels to a word,
 * as every rung leaves them; pixels of the padding get 0. */
static __global__ void __launch_bounds__(KM_COLOUR_THREADS)
    km_label_pixels(const uint32_t *rgb, unsigned quads, unsigned long long n, int k, const float4 *last_prepped,
                    uint32_t *labels)
{
    __shared__ float4 centre[SB_KMEANS_MAX_K];
    for (int c = threadIdx.x; c < k; c += blockDim.x)
        centre[c] = last_prepped[c];
    __syncthreads();
    for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
        unsigned key[4], inside = km_quad_inside(q, n);
        km_quad_keys(rgb, q, key);
        uint32_t word = 0;
#pragma unroll
        for (unsigned j = 0; j < 4; j++)
            if (j < inside)
                word |= km_nearest(centre, k, key[j] >> 16, (key[j] >> 8) & 0xffu, key[j] & 0xffu) << (8 * j);
        labels[q] = word;
    }
}

static size_t rank_bytes(void) { return (size_t)COLOUR_WORDS * sizeof(uint2) + sizeof(km_histogram); }

sb_status km_colours_open(km_colours *c, const km_device *d, sb_error *err)
{
    c->most = d->n < (1L << 24) ? (size_t)d->n : (size_t)1 << 24;
    SB_CUDA_TRY(cudaMalloc(&c->rank, rank_bytes()), err, d->who);
    c->hist = (km_histogram *)(c->rank + COLOUR_WORDS);
    SB_CUDA_TRY(cudaMalloc(&c->block_base, SCAN_BLOCKS * sizeof(unsigned)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->colour, c->most * sizeof(uint32_t)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->weight, c->most * sizeof(unsigned)), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->label, c->most), err, d->who);
    SB_CUDA_TRY(cudaMalloc(&c->last_prepped, (size_t)d->params.k * sizeof(float4)), err, d->who);
    int per_sm = 0;
    SB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, km_weigh, KM_COLOUR_THREADS, 0), err, d->who);
    c->pixel_blocks = km_grid_blocks(d, d->quads, KM_COLOUR_THREADS, (unsigned)per_sm);
    return SB_OK;
}

void km_colours_close(km_colours *c)
{
    cudaFree(c->rank);
    cudaFree(c->block_base);
    cudaFree(c->colour);
    cudaFree(c->weight);
    cudaFree(c->label);
    cudaFree(c->last_prepped);
}

sb_status km_colours_histogram(km_colours *c, const km_device *d, sb_error *err)
{
    unsigned long long n = (unsigned long long)d->n;
    SB_CUDA_TRY(cudaMemsetAsync(c->rank, 0, rank_bytes(), d->stream), err, d->who);
    km_mark<<<c->pixel_blocks, KM_COLOUR_THREADS, 0, d->stream>>>(d->rgb, d->quads, n, c->rank);
    SB_CUDA_LAUNCHED(err, d->who);
    km_count_words<<<SCAN_BLOCKS, KM_COLOUR_THREADS, 0, d->stream>>>(c->rank, c->block_base, c->hist);
    SB_CUDA_LAUNCHED(err, d->who);
    km_list_colours<<<SCAN_BLOCKS, KM_COLOUR_THREADS, 0, d->stream>>>(c->rank, c->block_base, c->colour, c->weight);
    SB_CUDA_LAUNCHED(err, d->who);
    km_weigh<<<c->pixel_blocks, KM_COLOUR_THREADS, 0, d->stream>>>(d->rgb, d->quads, n, c->rank, c->weight);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

sb_status km_colours_label_pixels(km_colours *c, const km_device *d, sb_error *err)
{
    km_label_pixels<<<c->pixel_blocks, KM_COLOUR_THREADS, 0, d->stream>>>(
        d->rgb, d->quads, (unsigned long long)d->n, d->params.k, c->last_prepped, d->labels);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}
