/* fuzz_pnm.c - libFuzzer target: the PNM parser alone (headers, comments,
 * plain and binary samples, 16-bit maxvals), fed from memory. */
#include "segbench/image_io.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        return 0;
    sb_image img;
    sb_error err;
    if (sb_pnm_read(fp, "fuzz.pnm", SB_LOAD_NATIVE, &img, &err) == SB_OK)
        sb_image_free(&img);
    fclose(fp);
    return 0;
}
