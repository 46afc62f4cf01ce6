/* fuzz_image.c - libFuzzer target: the image loader as `segbench run` and
 * `bench` meet a file (format sniffing, PNG through libpng, PNM), in every
 * load mode, fed from memory.  Any crash, leak or undefined behaviour is a
 * finding; errors are fine.  Build and run: make fuzz. */
#include "segbench/image_io.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;                       /* fmemopen refuses an empty buffer */
    static const sb_load_mode modes[] = { SB_LOAD_NATIVE, SB_LOAD_GREY, SB_LOAD_RGB };
    for (int m = 0; m < 3; m++) {
        FILE *fp = fmemopen((void *)data, size, "rb");
        if (!fp)
            return 0;
        sb_image img;
        sb_error err;
        if (sb_image_read(fp, "fuzz-input", modes[m], &img, &err) == SB_OK)
            sb_image_free(&img);
        fclose(fp);
    }
    return 0;
}
