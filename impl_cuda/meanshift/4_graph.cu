/* 4_graph.cu - mean-shift's region merge as one CUDA graph (variant
 * "cuda-graph" of the merge step).
 *
 * Against cuda-shared: the same kernels, but the host no longer drives
 * them.  cuda-shared launches some 25 kernels one by one and, in every
 * pruning round, copies a 4-byte "did anything merge?" flag back and
 * waits for it, because the number of rounds depends on the image.  Here
 * the whole merge is recorded once, at prepare, as a graph whose rounds
 * sit in a conditional WHILE node (CUDA 12.4+): a one-thread kernel at the
 * end of each round sets the loop's condition from the flag on the
 * device (cudaGraphSetConditional).  A run is one cudaGraphLaunch, and the
 * host waits once, in fetch.  The price: the last round's relabel runs
 * although nothing moves (it leaves every label as it is).  What it
 * bought on the H100 (r16, run 20261123T053911Z-da92): 1080p 0.263 ->
 * 0.242 ms; the photos, which take more rounds, 1.1-1.6x (fruits 0.248 ->
 * 0.159 ms).
 *
 * Filter, flood and pipeline: cuda-shared's rows are the ones to read;
 * this rung offers only the step whose lesson it is.
 */
#include "ms_device.cuh"

static sb_status rung_prepare(void **state, const sb_image *in, const void *params, void *output,
                              const sb_exec *exec, sb_error *err)
{
    sb_status st = ms_device_open(state, sizeof(ms_device), SB_MS_MERGE, CCL_TILED, in, params, output, exec, err);
    if (st)
        return st;
    return ms_merge_graph_build((ms_device *)*state, err);
}

static sb_status rung_run(void *state, sb_error *err) { return ms_segment((ms_device *)state, err); }

SB_VARIANT("meanshift-merge", "cuda-graph", "cuda-shared", CUDA, SB_DEVICE, ALL_STAGES,
           "cuda-shared's merge recorded as one CUDA graph: the pruning rounds in a device-side WHILE loop",
           rung_prepare, ms_cuda_upload, rung_run, ms_cuda_fetch, ms_device_close)
