/* machines.c - MACHINES.md for a host of several GPUs (make bench-slurm
 * --per-gpu): two cards of one model compared, the cluster tasks with
 * their start and end, and whether they ran at once. */
#include "test.h"
#include "test_groups.h"

#include "base/files.h"
#include "io/rows.h"
#include "pages/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A result set of one GPU row (integral sum cuda-pdl), its card named by uuid. */
static void make_set(const char *dir, const char *uuid, double ms)
{
    char path[SB_PATH_MAX];
    sb_error err;
    mkdir(dir, 0755);
    if (sb_path(path, &err, "%s/env.json", dir))
        return;
    FILE *fp = fopen(path, "w");
    if (!fp)
        return;
    fprintf(fp, "{\n  \"machine_id\": \"h100-80gb-hbm3\",\n  \"commit\": \"abc1234\",\n  \"dirty\": false,\n"
                "  \"run_id\": \"run-%s\",\n  \"gpu_name\": \"NVIDIA H100 80GB HBM3\",\n  \"gpu_uuid\": \"GPU-%s\",\n"
                "  \"device_copy_gbps\": 2940.0,\n  \"cpu_model\": \"Xeon\",\n  \"cpu_logical_cores\": 32,\n"
                "  \"cpu_usable_cores\": 16,\n  \"host\": \"node7\",\n  \"run_finished\": true\n}\n", uuid, uuid);
    fclose(fp);
    sb_rows rows = { 0 };
    sb_row *r = test_row_add(&rows, "integral", "sum", "cuda-pdl", "cuda-shared", 1, "synth-640x480", 640, 480);
    if (!r)
        return;
    snprintf(r->agreement, sizeof r->agreement, "exact");
    snprintf(r->commit, sizeof r->commit, "abc1234");
    snprintf(r->run_id, sizeof r->run_id, "run-%s", uuid);
    r->kernel.n = 10;
    r->kernel.median = ms;
    if (!sb_path(path, &err, "%s/integral.csv", dir))
        sb_rows_write_csv(&rows, path, &err);
    sb_rows_free(&rows);
}

static void test_two_cards_one_host(void)
{
    char root[SB_PATH_MAX], dirs[2][SB_PATH_MAX], tasks[SB_PATH_MAX], out[SB_PATH_MAX];
    sb_error err;
    CHECK(sb_path(root, &err, "%s/fleet", sb_test_dir()) == SB_OK);
    mkdir(root, 0755);
    CHECK(sb_path(dirs[0], &err, "%s/h100-80gb-hbm3-aaaa1111", root) == SB_OK);
    CHECK(sb_path(dirs[1], &err, "%s/h100-80gb-hbm3-bbbb2222", root) == SB_OK);
    make_set(dirs[0], "aaaa1111", 0.0250);
    make_set(dirs[1], "bbbb2222", 0.0251);
    CHECK(sb_path(tasks, &err, "%s/slurm-tasks.tsv", root) == SB_OK);
    FILE *fp = fopen(tasks, "w");
    if (fp) {
        fputs("task\ttarget\tnode\tmachine\tstatus\tdetail\tstart\tend\n"
              "1\tgpu:1\tnode7\th100-80gb-hbm3-aaaa1111\tok\t9 CSV lines\t2026-11-25T19:20:08Z\t2026-11-25T19:21:36Z\n"
              "2\tgpu:1\tnode7\th100-80gb-hbm3-bbbb2222\tok\t9 CSV lines\t2026-11-25T19:20:09Z\t2026-11-25T19:21:38Z\n",
              fp);
        fclose(fp);
    }
    CHECK(sb_path(out, &err, "%s/MACHINES.md", root) == SB_OK);
    CHECK(sb_report_machines(dirs, 2, root, NULL, out, tasks, &err) == SB_OK);
    char *md = sb_read_text(out);
    CHECK(md != NULL);
    if (!md)
        return;
    CHECKF(strstr(md, "two cards of one model in one host") != NULL, "no twin section:\n%s", md);
    CHECK(strstr(md, "within 1 %: 1 (100 %)") != NULL);
    CHECK(strstr(md, "16 and 16 of the host's 32 cores") != NULL);
    CHECK(strstr(md, "| start (UTC) | end (UTC) |") != NULL && strstr(md, "2026-11-25T19:21:38Z") != NULL);
    CHECKF(strstr(md, "The 2 tasks ran at the same time: all of them between the last start and the first end, 87 s") != NULL,
           "no overlap line");
    CHECK(strstr(md, "| h100-80gb-hbm3-aaaa1111 |") != NULL && strstr(md, "| h100-80gb-hbm3-bbbb2222 |") != NULL);
    CHECK(strstr(md, "follow memory bandwidth") == NULL);     /* one model: no bandwidth story */
    free(md);
}

const sb_test tests_report_machines[] = {
    { "report: MACHINES.md compares two cards of one model in one host, and shows the tasks' start, end and overlap",
      test_two_cards_one_host },
};
const int tests_report_machines_count = sizeof tests_report_machines / sizeof tests_report_machines[0];
