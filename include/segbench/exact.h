/* exact.h - the floating-point operations that CPU and GPU evaluate to the
 * same bit.
 *
 * Where an algorithm needs floats (SLIC's and mean-shift's colour
 * conversions and distances, GrabCut's Gaussian mixtures), bit-exact
 * agreement between backends needs three things:
 *   1. every operation correctly rounded, and never fused: on the device
 *      the _rn intrinsics (nvcc would otherwise contract a * b + c into an
 *      FMA); on the host plain operators under -ffp-contract=off and SSE
 *      arithmetic (the Makefile's flags);
 *   2. the operations done in the same order on both, so each header
 *      writes its sums left to right through these functions;
 *   3. no library function whose rounding differs between libm and CUDA:
 *      the cube root, exp and log below are built from operations of (1)
 *      and exact integer steps, and are the same code on both sides.
 * Bit casts go through the intrinsics on the device and memcpy on the
 * host (no undefined type punning).
 */
#ifndef SEGBENCH_EXACT_H
#define SEGBENCH_EXACT_H

#include "segbench/hd.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- float ------------------------------------------------------------------ */

SB_HD float sb_fadd(float a, float b)
{
#if defined(__CUDA_ARCH__)
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
SB_HD float sb_fmul(float a, float b)
{
#if defined(__CUDA_ARCH__)
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
SB_HD float sb_fdiv(float a, float b)
{
#if defined(__CUDA_ARCH__)
    return __fdiv_rn(a, b);
#else
    return a / b;
#endif
}
SB_HD uint32_t sb_float_bits(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}
SB_HD float sb_float_from_bits(uint32_t u)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* Cube root of t in [0.0088, 1.1], without a division: r = t^(-1/3)
 * from a guess in the exponent bits (a few per cent off), three Newton
 * steps r <- r (4 - t r^3) / 3, then t r^2 (within 5e-7 relative).  Only
 * exact integer operations and correctly rounded float multiplications
 * and additions, so host and device agree to the bit. */
SB_HD float sb_fcbrt(float t)
{
    float r = sb_float_from_bits(0x54a2fa8cu - sb_float_bits(t) / 3u);
    for (int i = 0; i < 3; i++) {
        float error = sb_fadd(4.0f, -sb_fmul(t, sb_fmul(sb_fmul(r, r), r)));
        r = sb_fmul(r, sb_fmul(error, 0.333333343f));
    }
    return sb_fmul(t, sb_fmul(r, r));
}

/* ---- double ----------------------------------------------------------------- */

SB_HD double sb_dadd(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
SB_HD double sb_dsub(double a, double b) { return sb_dadd(a, -b); }
SB_HD double sb_dmul(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
SB_HD double sb_ddiv(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}
SB_HD double sb_dsqrt(double a)
{
#if defined(__CUDA_ARCH__)
    return __dsqrt_rn(a);
#else
    return sqrt(a);                     /* IEEE: correctly rounded */
#endif
}
SB_HD int64_t sb_double_bits(double d)
{
#if defined(__CUDA_ARCH__)
    return __double_as_longlong(d);
#else
    int64_t i;
    memcpy(&i, &d, sizeof i);
    return i;
#endif
}
SB_HD double sb_double_from_bits(int64_t i)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(i);
#else
    double d;
    memcpy(&d, &i, sizeof d);
    return d;
#endif
}

#define SB_LN2_HI 6.93147180369123816490e-01   /* ln 2, high part: k * HI is exact */
#define SB_LN2_LO 1.90821492927058770002e-10   /* ln 2 - HI */
#define SB_LOG2E  1.44269504088896338700e+00

/* exp(x) for x in [-700, 700] (0 below): x = k ln2 + r with |r| <= ln2/2
 * (Cody-Waite), exp(r) by its Taylor polynomial to r^13 (truncation below
 * 1e-17 relative), times 2^k built in the exponent bits. */
SB_HD double sb_dexp(double x)
{
    if (x < -700.0)
        return 0.0;
    if (x > 700.0)
        x = 700.0;
    double kd = (double)(int64_t)sb_dadd(sb_dmul(x, SB_LOG2E), x < 0 ? -0.5 : 0.5);
    double r = sb_dsub(sb_dsub(x, sb_dmul(kd, SB_LN2_HI)), sb_dmul(kd, SB_LN2_LO));
    /* Horner from 1/13!: p = 1/n! + r p for n = 12 down to 0; n! as a double
     * is exact up to 22!, and 1.0 / n! is one correctly rounded division
     * folded by the compiler, so the constants are the same everywhere */
    double p = 1.0 / 6227020800.0, fact = 6227020800.0;
    for (int n = 13; n >= 1; n--) {
        fact = fact / n;               /* (n-1)!, exact */
        p = sb_dadd(sb_dmul(p, r), sb_ddiv(1.0, fact));
    }
    int64_t k = (int64_t)kd;
    return sb_dmul(p, sb_double_from_bits((k + 1023) << 52));
}

/* log(x) for normal x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)),
 * log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its series to
 * s^21 (truncation below 1e-17). */
SB_HD double sb_dlog(double x)
{
    int64_t bits = sb_double_bits(x);
    int64_t e = ((bits >> 52) & 0x7ff) - 1023;
    double m = sb_double_from_bits((bits & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);
    if (m > 1.4142135623730951) {
        m = sb_dmul(m, 0.5);
        e++;
    }
    double s = sb_ddiv(sb_dsub(m, 1.0), sb_dadd(m, 1.0));
    double s2 = sb_dmul(s, s);
    double p = 1.0 / 21.0;
    for (int n = 19; n >= 1; n -= 2)
        p = sb_dadd(sb_dmul(p, s2), 1.0 / n);
    double log_m = sb_dmul(sb_dmul(2.0, s), p);
    double ed = (double)e;
    return sb_dadd(sb_dmul(ed, SB_LN2_HI), sb_dadd(sb_dmul(ed, SB_LN2_LO), log_m));
}

#endif
