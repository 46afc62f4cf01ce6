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
 *
 * Written (sb_y4m_writer): colour frames as 4:4:4, full range
 * ("C444 XCOLORRANGE=FULL"), grey ones as "Cmono", the same matrix the
 * other way: what ffmpeg and ffplay read, and what sb_y4m_read_frame
 * reads back within 2 levels a channel (grey: exactly).
 */
#ifndef SEGBENCH_VIDEO_IO_H
#define SEGBENCH_VIDEO_IO_H

#include "segbench/atomic_file.h"
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

/* A y4m being written: all of it or none (atomic_file.h).  begin: the
 * header (width x height, 1 channel: mono, 3: colour; fps frames a
 * second); frame: one image of that size and channel count; end: the file
 * in place; abort: nothing left.  Each returns one clear line on error
 * (a frame of another size, a full disk) and the writer is then aborted. */
typedef struct sb_y4m_writer {
    sb_atomic_file af;
    int width, height, channels;
    int frames;
    unsigned char *planes;     /* one frame's Y, U and V */
} sb_y4m_writer;

sb_status sb_y4m_write_begin(sb_y4m_writer *w, const char *path, int width, int height, int channels, int fps,
                             sb_error *err);
sb_status sb_y4m_write_frame(sb_y4m_writer *w, const sb_image *img, sb_error *err);
sb_status sb_y4m_write_end(sb_y4m_writer *w, sb_error *err);
void sb_y4m_write_abort(sb_y4m_writer *w);

#ifdef __cplusplus
}
#endif
#endif
