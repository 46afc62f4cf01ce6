/* fuzz_env.c - libFuzzer target: env.json as report, compare and bench
 * --resume read it (sb_json_get, sb_run_info_parse). */
#include "io/env_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    sb_run_info ri;
    sb_run_info_parse(text, &ri);
    char value[8];                   /* smaller than most values: truncation must hold */
    static const char *const keys[] = { "gpu_name", "host_copy_gbps", "device_copy_gbps", "cpu_model", "dirty" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        sb_json_get(text, keys[i], value, sizeof value);
    free(text);
    return 0;
}
