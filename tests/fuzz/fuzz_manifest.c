/* fuzz_manifest.c - libFuzzer target: the dataset manifest parser
 * (datasets/build/<set>/manifest.tsv, as `bench --set` reads it). */
#include "cases/dataset.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/segbench-fuzz-manifest-%d.tsv", (int)getpid());
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return 0;
    fwrite(data, 1, size, fp);
    fclose(fp);
    sb_dataset ds;
    sb_error err;
    if (sb_dataset_load_manifest(path, &ds, &err) == SB_OK)
        sb_dataset_free(&ds);
    return 0;
}
