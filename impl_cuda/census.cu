// census.cu - the kernel census (segbench/device.h): CUPTI's runtime-API
// callbacks see every kernel launch (<<<>>> compiles to cudaLaunchKernel,
// a launch with attributes -- programmatic dependent launch, clusters --
// goes through cudaLaunchKernelExC) with its function, block and dynamic
// shared memory; after the run the
// occupancy API and cudaFuncGetAttributes describe each one for the GPU
// and binary in use.  Only the census run is observed: timing runs are
// not (a subscribed callback costs time on every launch).
#include "segbench/device.h"

#include <cuda_runtime.h>
#include <cupti.h>
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct launch {
    const void *func;
    int block;
    size_t smem;
    char symbol[256];
};

constexpr int MAX_LAUNCHES = 64;
launch seen[MAX_LAUNCHES];
int nseen;
CUpti_SubscriberHandle subscriber;
bool subscribed;

const CUpti_CallbackId LAUNCH_CBIDS[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
};

// Inside a callback only plain memory work: no CUDA calls.
void CUPTIAPI on_launch(void *, CUpti_CallbackDomain, CUpti_CallbackId cbid, const void *data)
{
    const CUpti_CallbackData *cb = static_cast<const CUpti_CallbackData *>(data);
    if (cb->callbackSite != CUPTI_API_ENTER || nseen == MAX_LAUNCHES)
        return;
    const void *func;
    dim3 block;
    size_t smem;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000) {
        auto *p = static_cast<const cudaLaunchCooperativeKernel_v9000_params *>(cb->functionParams);
        func = p->func, block = p->blockDim, smem = p->sharedMem;
    } else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060) {
        auto *p = static_cast<const cudaLaunchKernelExC_v11060_params *>(cb->functionParams);
        func = p->func, block = p->config->blockDim, smem = p->config->dynamicSmemBytes;
    } else {
        auto *p = static_cast<const cudaLaunchKernel_v7000_params *>(cb->functionParams);
        func = p->func, block = p->blockDim, smem = p->sharedMem;
    }
    int threads = (int)(block.x * block.y * block.z);
    for (int i = 0; i < nseen; i++)
        if (seen[i].func == func && seen[i].block == threads && seen[i].smem == smem)
            return;
    launch &l = seen[nseen++];
    l.func = func;
    l.block = threads;
    l.smem = smem;
    snprintf(l.symbol, sizeof l.symbol, "%s", cb->symbolName ? cb->symbolName : "?");
}

// "_Z10scan_tilesPKhPjii" -> "scan_tiles" (templates keep their arguments).
void kernel_name(const char *symbol, char *out, size_t size)
{
    int status = 0;
    char *plain = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
    const char *name = status == 0 && plain ? plain : symbol;
    size_t len = strlen(name);
    int depth = 0;
    for (size_t i = 0; i < len; i++) {           // cut at the parameter list's '(' outside templates
        depth += name[i] == '<';
        depth -= name[i] == '>';
        if (name[i] == '(' && depth == 0) {
            len = i;
            break;
        }
    }
    snprintf(out, size, "%.*s", (int)len, name);
    free(plain);
}

}  // namespace

extern "C" sb_status sb_census_begin(sb_error *err)
{
    nseen = 0;
    if (subscribed)
        return SB_OK;
    CUptiResult r = cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_launch, nullptr);
    if (r != CUPTI_SUCCESS) {
        const char *why = "?";
        cuptiGetResultString(r, &why);
        return sb_fail(err, SB_ERR_UNAVAILABLE, "kernel census: CUPTI: %s", why);
    }
    for (CUpti_CallbackId cbid : LAUNCH_CBIDS)
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
    subscribed = true;
    return SB_OK;
}

extern "C" int sb_census_end(sb_kernel_info *out, int max)
{
    if (!subscribed)
        return 0;
    cuptiUnsubscribe(subscriber);
    subscribed = false;
    int device = 0, max_threads = 2048;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    int n = 0;
    for (int i = 0; i < nseen && n < max; i++) {
        const launch &l = seen[i];
        sb_kernel_info &k = out[n];
        memset(&k, 0, sizeof k);
        kernel_name(l.symbol, k.name, sizeof k.name);
        cudaFuncAttributes attr;
        if (cudaFuncGetAttributes(&attr, l.func) != cudaSuccess) {
            cudaGetLastError();                      // a library's kernel we cannot ask about
            continue;
        }
        int blocks = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, l.func, l.block, l.smem);
        cudaGetLastError();
        k.block = l.block;
        k.regs = attr.numRegs;
        k.static_smem = (int)attr.sharedSizeBytes;
        k.dynamic_smem = (int)l.smem;
        k.blocks_per_sm = blocks;
        int warps = (l.block + 31) / 32;
        k.occupancy = max_threads > 0 ? (double)blocks * warps * 32 / max_threads : 0.0;
        n++;
    }
    nseen = 0;
    return n;
}
