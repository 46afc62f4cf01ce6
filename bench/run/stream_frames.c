/* stream_frames.c - `segbench stream --write-frames DIR`: each distinct
 * frame's result from the variant, as the picture `segbench run` writes
 * (run/stream.h). */
#include "run/stream.h"

#include "base/files.h"
#include "variants/agreement.h"
#include "variants/outputs.h"
#include "measure/protocol.h"

#include "segbench/device.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

sb_status sb_stream_frames_dir_ok(const char *dir, sb_error *err)
{
    struct stat sb;
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

sb_status sb_stream_write_frames(const sb_frames *fr, const sb_variant *v, int threads, const char *dir,
                                 const char *name, sb_error *err)
{
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
