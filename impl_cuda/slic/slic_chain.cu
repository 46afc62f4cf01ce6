/* slic_chain.cu - a warm frame's centres taken on the device from the run
 * of the frame before it (segbench/warm_chain.h), for every SLIC rung: each
 * state opens with a slic_device, and each run begins in slic_start.
 *
 * Upload leaves a frame warm or cold as its start record says (a chained
 * frame's says cold); the chain then copies the centres the run before
 * ended on into `start_centres`, on the frame's stream after that run,
 * and marks the frame warm, so slic_start takes them as it would a start
 * record's.
 */
#include "slic_device.cuh"

#include "segbench/warm_chain.h"

static sb_status slic_chain(void *state, const void *before, sb_error *err)
{
    slic_device *d = (slic_device *)state;
    const slic_device *b = (const slic_device *)before;
    if (!d->start_centres || b->geo.centres != d->geo.centres)
        return sb_fail(err, SB_ERR_USAGE, "%s: a chained start needs a warm instance of the same grid", d->who);
    SB_CUDA_TRY(cudaMemcpyAsync(d->start_centres, b->centres, (size_t)d->geo.centres * sizeof(sb_slic_centre),
                                cudaMemcpyDeviceToDevice, d->stream),
                err, d->who);
    d->warm = 1;
    return SB_OK;
}

SB_WARM_CHAIN("slic", "cuda-seed", slic_chain)
SB_WARM_CHAIN("slic", "cuda-global", slic_chain)
SB_WARM_CHAIN("slic", "cuda-tiles", slic_chain)
SB_WARM_CHAIN("slic", "cuda-tilecentres", slic_chain)
SB_WARM_CHAIN("slic", "cuda-tilesums", slic_chain)
SB_WARM_CHAIN("slic", "cuda-warpagg", slic_chain)
SB_WARM_CHAIN("slic", "cuda-texture", slic_chain)
SB_WARM_CHAIN("slic", "cuda-rows", slic_chain)
SB_WARM_CHAIN("slic", "cuda-held", slic_chain)
SB_WARM_CHAIN("slic", "cuda-registers", slic_chain)
SB_WARM_CHAIN("slic", "cuda-labels16", slic_chain)
SB_WARM_CHAIN("slic", "cuda-onelaunch", slic_chain)
