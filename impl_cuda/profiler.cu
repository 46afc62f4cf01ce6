/* profiler.cu - the profiler hand-off of device.h: cudaProfilerStart/Stop
 * around the region `segbench profile` wants seen, and a marker kernel
 * that cuts a kernel-by-kernel profile into that command's regions. */
#include "segbench/device.h"

#include "cuda_check.cuh"

#include <cuda_profiler_api.h>

extern "C" sb_status sb_device_profiler_start(sb_error *err)
{
    SB_CUDA_TRY(cudaProfilerStart(), err, "profile");
    return SB_OK;
}

extern "C" sb_status sb_device_profiler_stop(sb_error *err)
{
    SB_CUDA_TRY(cudaProfilerStop(), err, "profile");
    return SB_OK;
}

/* Does nothing a profile could mistake for work: one thread a block, no
 * memory.  Its grid size is what it says: region `index` starts here. */
__global__ void sb_profile_marker(void) {}

extern "C" sb_status sb_device_profile_marker(int index, void *stream, sb_error *err)
{
    if (index < 0 || index >= 65535)
        return sb_fail(err, SB_ERR_USAGE, "profile: marker %d out of range", index);
    sb_profile_marker<<<index + 1, 1, 0, (cudaStream_t)stream>>>();
    SB_CUDA_LAUNCHED(err, "profile");
    SB_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream), err, "profile");
    return SB_OK;
}
