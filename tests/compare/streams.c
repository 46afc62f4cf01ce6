/* streams.c - compare --baseline's stream table (compare/compare_streams.h). */
#include "test.h"
#include "test_groups.h"

#include "compare/compare_streams.h"
#include "io/stream_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sb_stream_row stream_row(const char *variant, int k, double fps, const char *flags)
{
    sb_stream_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.algo, sizeof r.algo, "integral");
    snprintf(r.stage, sizeof r.stage, "sum");
    snprintf(r.variant, sizeof r.variant, "%s", variant);
    snprintf(r.backend, sizeof r.backend, "%s", strcmp(variant, "cpu") ? "cuda-shared" : "cpu");
    snprintf(r.sequence, sizeof r.sequence, "scene-64x48");
    snprintf(r.agreement, sizeof r.agreement, "exact");
    snprintf(r.flags, sizeof r.flags, "%s", flags);
    r.threads = 1;
    r.in_flight = k;
    r.fps = fps;
    r.gpu_j = r.cpu_j = r.gpu_idle_w = r.cpu_idle_w = -1;
    return r;
}

/* The two sets written under test_path(name-base) and test_path(name-cur),
 * and compare's stream table of them (malloc'd); *n the rows compared. */
static char *compare_sets(const char *name, const sb_stream_row *base, int nb, const sb_stream_row *cur, int nc,
                          const char *variants, int *n)
{
    sb_error err = { SB_OK, "" };
    test_sh("mkdir -p %s %s", test_pathf("%s-base", name), test_pathf("%s-cur", name));
    CHECK(sb_stream_rows_write(test_pathf("%s-base/integral.stream.csv", name), base, nb, &err) == SB_OK);
    CHECK(sb_stream_rows_write(test_pathf("%s-cur/integral.stream.csv", name), cur, nc, &err) == SB_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    *n = sb_compare_stream_rows(test_pathf("%s-base", name), test_pathf("%s-cur", name), "integral", variants, fp);
    fclose(fp);
    if (!text) {
        fprintf(stderr, "compare_sets: out of memory\n");
        exit(2);
    }
    return text;
}

static void test_compare_stream_rows(void)
{
    sb_stream_row base[] = { stream_row("cuda-fused", 1, 1000, ""), stream_row("cuda-fused", 2, 1000, ""),
                             stream_row("cpu", 4, 100, ""), stream_row("cuda-fused", 3, 1000, "") };
    sb_stream_row cur[] = { stream_row("cuda-fused", 1, 1050, ""), stream_row("cuda-fused", 2, 1300, ""),
                            stream_row("cpu", 4, 60, "unstable"), stream_row("cuda-pdl", 2, 900, "") };
    int n;
    char *text = compare_sets("cs", base, 4, cur, 4, NULL, &n);
    CHECKF(n == 3, "%d rows compared: %s", n, text);
    CHECKF(strstr(text, "K=1 scene-64x48") && strstr(strstr(text, "K=1 scene-64x48"), "same"),
           "within 10 %%: same: %s", text);
    CHECKF(strstr(text, "1.30x  faster"), "30 %% more frames/s: faster: %s", text);
    CHECKF(strstr(text, "same (flagged: unstable)"), "a flagged row is same: %s", text);
    CHECKF(strstr(text, "only in the baseline") && strstr(text, "cuda-pdl K=2 scene-64x48: only in the current"),
           "rows on one side only: %s", text);
    free(text);
    text = compare_sets("cs", base, 4, cur, 4, "cpu", &n);
    CHECKF(n == 1 && !strstr(text, "cuda-fused"), "--variant cpu: %d rows: %s", n, text);
    free(text);
}

/* A row whose runs took turns is another row than the one at the same K
 * whose runs overlapped: each is matched with its own kind. */
static void test_compare_stream_runs(void)
{
    sb_stream_row base[] = { stream_row("cuda-fused", 2, 800, ""), stream_row("cuda-fused", 2, 1400, "") };
    sb_stream_row cur[] = { stream_row("cuda-fused", 2, 1410, ""), stream_row("cuda-fused", 2, 790, "") };
    snprintf(base[0].runs, sizeof base[0].runs, "overlap");
    snprintf(base[1].runs, sizeof base[1].runs, "in-turn");
    snprintf(cur[0].runs, sizeof cur[0].runs, "in-turn");
    snprintf(cur[1].runs, sizeof cur[1].runs, "overlap");
    int n;
    char *text = compare_sets("cr", base, 2, cur, 2, NULL, &n);
    CHECKF(n == 2 && !strstr(text, "faster") && !strstr(text, "slower") && strstr(text, "K=2 in turn"),
           "%d rows compared; each with its own kind, both the same: %s", n, text);
    free(text);
}

const sb_test tests_compare_streams[] = {
    { "compare: two sets' stream rows, frames/s: same within 10 % or flagged, faster, slower, one side only",
      test_compare_stream_rows },
    { "compare: a stream row whose runs took turns is matched only with its own kind", test_compare_stream_runs },
};
const int tests_compare_streams_count = sizeof tests_compare_streams / sizeof tests_compare_streams[0];
