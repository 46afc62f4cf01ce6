/* video_io.h - the frames of a YUV4MPEG2 stream (.y4m) as RGB images.
 *
 * YUV4MPEG2 is what `ffmpeg -i clip.mp4 -f yuv4mpegpipe clip.y4m` writes
 * and what video test suites ship: a text header ("YUV4MPEG2 W1920 H1080
 * F30:1 Ip A1:1 C420jpeg"), then each frame: a "FRAME" line and its Y,
 * U and V planes, 8 bits a sample.  Read here: chroma 4:2:0 (C420jpeg,
 * C420paldv, C420mpeg2, C420; the default), 4:2:2, 4:4:4 and mono,
 * progressive.  Refused with a line that says so: samples over 8 bits
 * (C420p10 and the like), interlaced frames (It, Ib, Im), a header
 * without W or H, a size over the decoding limit (image_io.h).
 *
 * The colour: BT.601 (the matrix of standard-definition video, and what
 * ffmpeg assumes of a y4m that names none), limited range (Y 16-235,
 * U and V 16-240) unless the header says XCOLORRANGE=FULL; each chroma
 * sample stands for the pixels it covers (nearest, no filtering: the
 * same pixels on every machine, which is all a benchmark's input needs).
 * Integer arithmetic, 16 fractional bits, rounded and clamped to 0..255.
 */
#ifndef SEGBENCH_VIDEO_IO_H
#define SEGBENCH_VIDEO_IO_H

#include "segbench/image_io.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_y4m {
    int width, height;
    int chroma_w, chroma_h;   /* a chroma plane's size: 0 x 0 for mono */
    int full_range;           /* XCOLORRANGE=FULL */
    int frames;               /* the whole frames the file holds */
    long *frame_at;           /* each frame's planes: its offset in the file */
    char note[160];           /* what was left out at the end (a frame cut off, a bad
                                 frame header), or "" */
} sb_y4m;

/* Read the header and find every whole frame: one clear line when the
 * file is no y4m this reads, or holds no whole frame; a frame cut off
 * (or a bad frame header) ends the frames, the ones before it kept, and
 * v->note says so. */
sb_status sb_y4m_open(const char *path, sb_y4m *v, sb_error *err);
void sb_y4m_free(sb_y4m *v);
/* Does the file begin as a y4m ("YUV4MPEG2 ")? */
int sb_y4m_sniff(const char *path);
/* Frame `index` of an opened file as an image (mode: grey through
 * sb_luma_u8 of the RGB, as a colour PNG would be). */
sb_status sb_y4m_read_frame(const char *path, const sb_y4m *v, int index, sb_load_mode mode, sb_image *img,
                            sb_error *err);

#ifdef __cplusplus
}
#endif
#endif
