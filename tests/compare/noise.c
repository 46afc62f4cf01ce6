/* noise.c - compare/ on its own: the noise flags a row gets, and the
 * text they go into the CSV as. */
#include "test.h"

#include "compare/noise.h"

#include <string.h>

static void test_row_flags(void)
{
    sb_row r;
    memset(&r, 0, sizeof r);
    r.kernel.n = 10;
    r.kernel.median = 1.0;
    r.kernel.p25 = 0.95;
    r.kernel.p75 = 1.05;
    CHECK((sb_noise_row_flags(&r, 1) & SB_NOISE_FLAG_SPREAD) == 0);
    r.kernel.p25 = 0.7;
    r.kernel.p75 = 1.3;                       /* 60 % of the median */
    CHECK(sb_noise_row_flags(&r, 1) & SB_NOISE_FLAG_SPREAD);
    CHECK(sb_noise_spread_flag(&r.kernel) & SB_NOISE_FLAG_SPREAD);
    char text[64];
    sb_noise_flag_text(SB_NOISE_FLAG_SPREAD | SB_NOISE_FLAG_OVER_PEAK, text, sizeof text);
    CHECKF(strstr(text, "spread") && strstr(text, "over_peak") && !strchr(text, ','), "flags text '%s'", text);
    sb_noise_flag_text(0, text, sizeof text);
    CHECKF(text[0] == '\0', "no flags: '%s'", text);
}

const sb_test tests_compare_noise[] = {
    { "compare: a row's spread beyond a quarter of its median is flagged; the flags' CSV text has no comma",
      test_row_flags },
};
const int tests_compare_noise_count = sizeof tests_compare_noise / sizeof tests_compare_noise[0];
