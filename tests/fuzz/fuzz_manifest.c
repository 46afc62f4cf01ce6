/* fuzz_manifest.c - libFuzzer target: the dataset manifest parser
 * (datasets/build/<set>/manifest.tsv, as `bench --set` reads it). */
#include "cases/dataset.h"

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("manifest.tsv", data, size);
    if (!path)
        return 0;
    sb_dataset ds;
    sb_error err;
    if (sb_dataset_load_manifest(path, &ds, &err) == SB_OK)
        sb_dataset_free(&ds);
    return 0;
}
