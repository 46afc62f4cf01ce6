/* fuzz_y4m.c - libFuzzer target: the YUV4MPEG2 reader (segbench/video_io.h)
 * as `stream --frames clip.y4m` meets a file: the header, the frames'
 * places, and every frame decoded in both load modes.  The reader works
 * on a file (it seeks), so each input is written to one first.  Any
 * crash, leak or undefined behaviour is a finding; errors are fine. */
#include "segbench/video_io.h"

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file("y4m", data, size);
    if (!path)
        return 0;
    sb_y4m v;
    sb_error err;
    if (sb_y4m_open(path, &v, &err) != SB_OK)
        return 0;
    for (int i = 0; i < v.frames && i < 4; i++)
        for (int m = 0; m < 2; m++) {
            sb_image img;
            if (sb_y4m_read_frame(path, &v, i, m ? SB_LOAD_GREY : SB_LOAD_RGB, &img, &err) == SB_OK)
                sb_image_free(&img);
        }
    sb_y4m_free(&v);
    return 0;
}
