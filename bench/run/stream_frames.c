/* stream_frames.c - `segbench stream --write-frames DIR|FILE.y4m`: each
 * distinct frame's result from the variant, as the picture `segbench run`
 * writes, one PNG a frame or all of them as one y4m clip (run/stream.h). */
#include "run/stream.h"

#include "base/files.h"
#include "variants/agreement.h"
#include "variants/outputs.h"
#include "measure/protocol.h"

#include "segbench/atomic_file.h"
#include "segbench/device.h"
#include "segbench/video_io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CLIP_FPS = 30 };         /* the y4m's frame rate: the frames' own is not known (a glob has none) */

int sb_stream_frames_to_y4m(const char *target)
{
    size_t n = strlen(target);
    return n > 4 && strcasecmp(target + n - 4, ".y4m") == 0;
}

sb_status sb_stream_frames_dir_ok(const char *target, sb_error *err)
{
    struct stat sb;
    char dir[SB_PATH_MAX];
    if (sb_stream_frames_to_y4m(target)) {
        const char *slash = strrchr(target, '/');
        snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - target) + (slash == target) : 1, slash ? target : ".");
        if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode))
            return sb_fail(err, SB_ERR_USAGE, "--write-frames: %s is a folder, not a y4m file", target);
    } else {
        snprintf(dir, sizeof dir, "%s", target);
    }
    if (stat(dir, &sb) != 0)
        return sb_fail(err, SB_ERR_USAGE, "--write-frames: %s: %s (make the folder first)", dir, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return sb_fail(err, SB_ERR_USAGE, "--write-frames: %s is not a folder", dir);
    return SB_OK;
}

/* Frame d through a fresh session of v, checked, its picture written
 * (atomically) to path. */
static sb_status write_one(const sb_frames *fr, int d, const sb_variant *v, int threads, void *stream,
                           const char *path, sb_error *err)
{
    const sb_case *c = fr->c[d];
    const sb_case_data *cd = &fr->cd[d];
    void *out = NULL;
    sb_status st = sb_output_alloc_for(c->algo, v->flags, &out, &cd->input, c->params, err);
    if (!st)
        st = sb_run_once(c, v, threads, stream, out, 1, NULL, err);
    sb_agreement ag;
    if (!st) {
        sb_output_check(c->algo, c->input, c->params, c->reference, out, v->flags, &ag);
        if (!ag.ok && !(v->flags & SB_FLOOR))
            st = sb_fail(err, SB_ERR_AGREEMENT, "--write-frames: %s disagrees with the reference on frame %d: %s "
                         "(nothing written)", v->who, d + 1, ag.metric);
    }
    if (!st)
        st = c->algo->write_output(path, &cd->input, c->params, (v->flags & SB_FLOOR) ? c->reference : out, err);
    sb_output_free(out);
    return st;
}

/* The frames' pictures as one y4m: each written as a PNG beside the
 * clip (a hidden name of this process's), read back and appended; the
 * clip all or none. */
static sb_status write_clip(const sb_frames *fr, const sb_variant *v, int threads, void *stream, const char *path,
                            sb_error *err)
{
    const char *slash = strrchr(path, '/');
    char base[SB_PATH_MAX];
    sb_status st = sb_path(base, err, "%.*s.%s.frame.%ld", slash ? (int)(slash - path) + 1 : 0, path,
                           slash ? slash + 1 : path, (long)getpid());
    sb_y4m_writer w;
    memset(&w, 0, sizeof w);
    for (int d = 0; d < fr->count && !st; d++) {
        char pic_path[SB_PATH_MAX];
        sb_image pic = { 0 };
        if ((st = sb_path(pic_path, err, "%s.f%04d.png", base, d)))
            break;
        sb_temp_track(pic_path);
        st = write_one(fr, d, v, threads, stream, pic_path, err);
        if (!st)
            st = sb_image_load(pic_path, SB_LOAD_NATIVE, &pic, err);
        remove(pic_path);
        sb_temp_untrack(pic_path);
        if (!st && d == 0)                 /* the clip's size comes with its first picture */
            st = sb_y4m_write_begin(&w, path, pic.width, pic.height, pic.channels, CLIP_FPS, err);
        if (!st)
            st = sb_y4m_write_frame(&w, &pic, err);
        sb_image_free(&pic);
    }
    if (!st)
        return sb_y4m_write_end(&w, err);
    sb_y4m_write_abort(&w);
    return st;
}

sb_status sb_stream_write_frames(const sb_frames *fr, const sb_variant *v, int threads, const char *dir,
                                 const char *name, sb_error *err)
{
    if (sb_stream_frames_to_y4m(dir)) {
        void *stream = NULL;
        sb_status st = sb_is_device(v) ? sb_device_stream_create(&stream, err) : SB_OK;
        if (!st)
            st = write_clip(fr, v, threads, stream, dir, err);
        sb_device_stream_destroy(stream);
        return st;
    }
    void *stream = NULL;
    sb_status st = sb_is_device(v) ? sb_device_stream_create(&stream, err) : SB_OK;
    int written = 0;
    for (int d = 0; d < fr->count && !st; d++) {
        char path[SB_PATH_MAX];
        st = sb_path(path, err, "%s/%s-f%04d.png", dir, name, d);
        if (!st)
            st = write_one(fr, d, v, threads, stream, path, err);
        written += !st;
    }
    for (int d = 0; st && d < written; d++) {  /* every frame's picture, or none */
        char path[SB_PATH_MAX];
        sb_error ignored;
        if (!sb_path(path, &ignored, "%s/%s-f%04d.png", dir, name, d))
            remove(path);
    }
    sb_device_stream_destroy(stream);
    return st;
}
