/* rng.h - small deterministic random numbers (SplitMix64).
 *
 * Used for synthetic datasets and random test images.
 * The same seed gives the same sequence on every platform; sb_hash64 gives
 * order-independent per-pixel randomness (a pixel's noise depends only on
 * the seed and its coordinates, so generation can run in any order).
 */
#ifndef SEGBENCH_RNG_H
#define SEGBENCH_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_rng {
    uint64_t state;
} sb_rng;

static inline uint64_t sb_hash64(uint64_t x)
{
    /* SplitMix64 finaliser (Steele, Lea and Flood 2014). */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline void sb_rng_seed(sb_rng *r, uint64_t seed) { r->state = seed; }

static inline uint64_t sb_rng_next(sb_rng *r)
{
    r->state += 0x9e3779b97f4a7c15ull;
    return sb_hash64(r->state - 0x9e3779b97f4a7c15ull);
}

/* Uniform integer in [0, n), n > 0 (multiply-shift; bias below 2^-32). */
static inline uint32_t sb_rng_below(sb_rng *r, uint32_t n)
{
    return (uint32_t)(((sb_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform double in [0, 1). */
static inline double sb_rng_unit(sb_rng *r)
{
    return (double)(sb_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#ifdef __cplusplus
}
#endif
#endif
