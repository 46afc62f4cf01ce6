/* cmd_stream.c - `segbench stream ALGO/VARIANT`: its options.  The run is
 * bench/run/stream_cmd.c; the protocol bench/measure/stream.h. */
#include "cli/commands.h"

#include "base/args.h"
#include "cases/select.h"
#include "run/stream.h"

#include <string.h>

enum { OPT_FRAMES, OPT_IN_FLIGHT, OPT_RUNS, OPT_SET, OPT_SIZE, OPT_STAGE, OPT_SECONDS, OPT_RECT, OPT_FROM_COLOUR, OPT_WARM, OPT_WRITE_FRAMES, OPT_MAX_PIXELS, OPT_QUIET, OPT_COUNT };

static const sb_option STREAM_OPTIONS[OPT_COUNT] = {
    [OPT_FRAMES] = { "frames", "N|GLOB", "1 s of frames",
                     "frames to time, or the frame files to stream ('clip/*.png', quoted: segbench expands it)" },
    [OPT_IN_FLIGHT] = { "in-flight", "K[,K...]", "3 on the GPU, every core on the CPU",
                        "frames in flight: K instances, each with its own stream (GPU) or thread (CPU)" },
    [OPT_RUNS] = { "runs", "overlap|in-turn", "overlap",
                   "GPU: frames' runs overlap freely, or each waits for the run before it (copies still overlap)" },
    [OPT_SET] = { "set", "NAME", "default", "the image set whose scene streams" },
    [OPT_SIZE] = { "size", "WxH", "1920x1080", "the set's scene of this size" },
    [OPT_STAGE] = { "stage", "NAME", "the algorithm's stream stage", "the stage (parameter preset)" },
    [OPT_SECONDS] = { "seconds", "S", "1", "time at least this long (energy needs 1 s)" },
    [OPT_RECT] = { "rect", "X,Y,W,H", "the scene's; inset by a tenth for --frames",
                   "GrabCut's rectangle, holding the object in every frame" },
    [OPT_FROM_COLOUR] = { "from-colour", NULL, "off",
                          "the integral image: the frames come in colour and the host makes each one's grey inside "
                          "its frame (a colour-taking variant, cuda-colour, always streams them so)" },
    [OPT_WARM] = { "warm", NULL, "off",
                   "each K's row again with warm frames: each from the result of the frame K before it (the "
                   "clip's first K cold), checked against a serial reference run so; with --runs in-turn, from "
                   "the frame just before it, taken on the device (the k-means and SLIC rungs); the stage then "
                   "defaults to one that stops on its own criterion (k-means: converge; SLIC and GrabCut: "
                   "converge mode)" },
    [OPT_WRITE_FRAMES] = { "write-frames", "DIR|FILE.y4m", "none",
                           "after the rows, each distinct frame's result from the variant, checked, as the picture "
                           "'segbench run' writes: DIR/<sequence>-fNNNN.png, or one y4m clip (4:4:4 or mono, full "
                           "range, 30 frames/s) when the name ends in .y4m (every frame's or none)" },
    [OPT_MAX_PIXELS] = SB_OPTION_MAX_PIXELS,
    [OPT_QUIET] = { "quiet", NULL, NULL, "no progress lines while the serial reference runs the frames" },
};

const sb_command sb_cmd_stream = {
    "stream", "ALGO/VARIANT[@THREADS] [options]",
    "Stream frames through one variant with K in flight: frames/s, latency, energy, each frame checked.",
    "A GPU variant runs K instances, each on its own CUDA stream with its own pinned buffers, so one\n"
    "frame's upload, another's kernels and a third's download overlap; a CPU variant runs K frames side\n"
    "by side, one per thread.  Every distinct frame is checked against its own serial reference first.\n"
    "Printed: frames/s, latency p50/p99 (submission to result on the host), the bound (GPU: the slower\n"
    "of its copies and its kernels, each alone at its best with 1..K in flight) and the share of it\n"
    "reached (CPU: of perfect scaling, K frames at one frame's time alone), joules per frame (NVML, RAPL).\n"
    "  segbench stream integral/cuda-fused --size 3840x2160 --in-flight 1,2,3\n"
    "  segbench stream integral/cuda-fused --from-colour    (against integral/cuda-colour)\n"
    "  segbench stream kmeans/cpu --frames 'clip/*.png'\n"
    "  segbench stream kmeans/cuda-lastblock --warm --in-flight 1,3    (warm against cold; also slic/, grabcut/)\n"
    "  segbench stream kmeans/cuda-lastblock --warm --runs in-turn      (each frame from the one before, on the GPU)\n",
    STREAM_OPTIONS, OPT_COUNT, 0, SB_EXIT_AGREEMENT, cmd_stream,
};

sb_status cmd_stream(int argc, char **argv, sb_error *err)
{
    sb_stream_request q = {0};
    sb_optparse p;
    sb_optparse_begin(&p, &sb_cmd_stream, argc, argv, err);
    sb_status st = SB_OK;
    for (int opt; !st && (opt = sb_optparse_next(&p)) != SB_OPT_END;) {
        switch (opt) {
        case OPT_FRAMES: q.frames = p.value; break;
        case OPT_SET: q.set = p.value; break;
        case OPT_RUNS:
            if (strcmp(p.value, "overlap") && strcmp(p.value, "in-turn"))
                st = sb_fail(err, SB_ERR_USAGE, "--runs takes overlap or in-turn, not '%s'", p.value);
            q.runs_in_turn = !strcmp(p.value, "in-turn");
            break;
        case OPT_SIZE: q.size = p.value; break;
        case OPT_FROM_COLOUR: q.colour_frames = 1; break;
        case OPT_QUIET: q.quiet = 1; break;
        case OPT_WARM: q.warm = 1; break;
        case OPT_WRITE_FRAMES: q.write_frames = p.value; break;
        case OPT_STAGE: q.stage = p.value; break;
        case OPT_MAX_PIXELS: st = sb_option_max_pixels(p.value, err); break;
        case OPT_SECONDS: st = sb_parse_double(p.value, 0.01, 3600, "--seconds", &q.seconds, err); break;
        case OPT_RECT:
            q.has_rect = 1;
            st = sb_parse_rect(p.value, q.rect, err);
            break;
        case OPT_IN_FLIGHT:
            st = sb_parse_int_list(p.value, 1, SB_STREAM_MAX_IN_FLIGHT, "--in-flight", q.in_flight, SB_STREAM_KS,
                                   &q.nk, err);
            break;
        case SB_OPT_ARG:
            if (q.spec)
                return sb_fail(err, SB_ERR_USAGE, "one variant at a time (usage: segbench stream ALGO/VARIANT)");
            q.spec = p.value;
            break;
        default: return sb_optparse_unexpected(&p);
        }
    }
    if (p.status || st)
        return p.status ? p.status : st;
    if (!q.spec)
        return sb_fail(err, SB_ERR_USAGE, "usage: segbench stream ALGO/VARIANT [options] (see 'segbench stream --help')");
    return sb_run_stream(&q, err);
}
