/* km_chain.cu - a warm frame's centres taken on the device from the run
 * of the frame before it (segbench/warm_chain.h), for every rung whose
 * state opens with a km_device and whose run starts from its `initial`
 * centres (km_restart, or cuda-onelaunch's own first pass).
 *
 * Upload puts a frame's initial centres, and their prepared form, into
 * `initial` and `initial_prepped`; the chain overwrites both, after the
 * upload on the same stream, with the centres the run before ended on
 * and their prepared form made here by km_prep -- the rule the update
 * uses after every pass, so the run begins exactly as one uploaded from
 * a start record holding those centres.  The host path (upload) prepares
 * them with the same function on the host.
 */
#include "kmeans_device.cuh"

#include "segbench/warm_chain.h"

__global__ void km_chain_kernel(int k, const int32_t *before, int32_t *initial, float4 *initial_prepped)
{
    int c = threadIdx.x;
    if (c >= k)
        return;
    int32_t centre[3] = { before[3 * c], before[3 * c + 1], before[3 * c + 2] };
    for (int ch = 0; ch < 3; ch++)
        initial[3 * c + ch] = centre[ch];
    initial_prepped[c] = km_prep(centre);
}

static sb_status km_chain(void *state, const void *before, sb_error *err)
{
    km_device *d = (km_device *)state;
    const km_device *b = (const km_device *)before;
    km_chain_kernel<<<1, SB_KMEANS_MAX_K, 0, d->stream>>>(d->params.k, b->centres, d->initial, d->initial_prepped);
    SB_CUDA_LAUNCHED(err, d->who);
    return SB_OK;
}

/* The rungs on a km_device (the seed rungs loop on the host: none). */
SB_WARM_CHAIN("kmeans", "cuda-global", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-blocksums", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-warpsums", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-fourpixels", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-quad", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-quadsums", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-blockcount", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-lastblock", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-texture", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-colours", km_chain)
SB_WARM_CHAIN("kmeans", "cuda-onelaunch", km_chain)
