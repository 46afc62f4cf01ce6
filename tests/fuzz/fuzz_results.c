/* fuzz_results.c - libFuzzer target: the results readers (<algo>.csv and
 * <algo>.samples.csv as report, compare --baseline and bench --resume read
 * them) and the repair --resume makes.  A results folder may come from
 * anywhere (a shared cluster file system, a mailed tarball). */
#include "io/rows.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(data, 1, size, fp);
        fclose(fp);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char rows_path[64], samples_path[64];
    if (!rows_path[0]) {
        snprintf(rows_path, sizeof rows_path, "/tmp/segbench-fuzz-results-%d.csv", (int)getpid());
        snprintf(samples_path, sizeof samples_path, "/tmp/segbench-fuzz-results-%d.samples.csv", (int)getpid());
    }
    /* the input is both files: a rows CSV, then (after a form feed, when
     * there is one) the samples CSV */
    const uint8_t *split = memchr(data, '\f', size);
    size_t rows_size = split ? (size_t)(split - data) : size;
    write_file(rows_path, data, rows_size);
    write_file(samples_path, split ? split + 1 : data, split ? size - rows_size - 1 : size);
    sb_rows rows;
    sb_error err;
    if (sb_rows_read_csv(rows_path, &rows, &err) == SB_OK) {
        sb_rows_read_samples(samples_path, &rows, &err);
        const char *run = rows.count ? rows.row[0].run_id : "unknown";
        char run_id[64];
        snprintf(run_id, sizeof run_id, "%s", run);
        sb_rows_free(&rows);
        sb_rows kept;
        sb_repair what;
        if (sb_results_repair(rows_path, samples_path, run_id, &kept, &what, &err) == SB_OK)
            sb_rows_free(&kept);
    }
    return 0;
}
