/* runtime.cu - device.h on the CUDA runtime (see include/segbench/device.h). */
#include "segbench/device.h"

#include "cuda_check.cuh"

#include <algorithm>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static const char *WHO = "device";

extern "C" int sb_device_built(void) { return 1; }
extern "C" const char *sb_device_missing_why(void) { return ""; }

static int runtime_device_present = -1;   /* -1 not asked yet */
static sb_device_info runtime_info;       /* the answer, asked once */

static void query_device(sb_device_info *info);
__global__ void l2_flush_read(const uint4 *p, size_t n, unsigned *sink);

extern "C" void sb_device_query(sb_device_info *info)
{
    if (runtime_device_present < 0)
        query_device(&runtime_info);
    *info = runtime_info;
}

/* Why cudaGetDeviceCount found nothing, in words a user can act on. */
static void explain_no_device(cudaError_t e, char *reason, size_t size)
{
    int driver = access("/proc/driver/nvidia/version", F_OK) == 0;
    if (e == cudaErrorInsufficientDriver && driver) {
        int rt = 0;
        cudaRuntimeGetVersion(&rt);
        snprintf(reason, size, "the NVIDIA driver is older than this build's CUDA runtime %d.%d: update the driver",
                 rt / 1000, rt % 1000 / 10);
    } else if (e == cudaSuccess || e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        snprintf(reason, size, "no NVIDIA GPU or driver found");
    } else {
        snprintf(reason, size, "no usable GPU (cudaGetDeviceCount: %s)", cudaGetErrorString(e));
    }
}

/* Does this binary hold code that device 0 can run?  Asking for one
 * kernel's attributes loads its module: a binary built for other
 * architectures (and with no PTX the driver can compile) gets
 * cudaErrorNoKernelImageForDevice here instead of at the first launch. */
static int has_kernel_image(void)
{
    cudaFuncAttributes attr;
    cudaError_t e = cudaFuncGetAttributes(&attr, l2_flush_read);
    cudaGetLastError();                       /* not sticky: clear it */
    return e == cudaSuccess;
}

static void query_device(sb_device_info *info)
{
    memset(info, 0, sizeof *info);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        explain_no_device(e, info->reason, sizeof info->reason);
        cudaGetLastError();
        runtime_device_present = 0;
        return;
    }
    cudaDeviceProp prop;
    if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess) {
        snprintf(info->reason, sizeof info->reason, "cannot query device 0 (%s)", cudaGetErrorString(e));
        runtime_device_present = 0;
        return;
    }
    info->present = 1;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->mem_bytes = prop.totalGlobalMem;
    info->l2_bytes = (size_t)prop.l2CacheSize;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess)
        info->sm_clock_mhz = khz / 1000;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0) == cudaSuccess)
        info->mem_clock_mhz = khz / 1000;
    cudaDeviceGetAttribute(&info->mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;   /* as nvidia-smi -L writes it */
    snprintf(info->uuid, sizeof info->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
             u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    info->has_image = has_kernel_image();
    runtime_device_present = 1;
}

static int device_present(void)
{
    if (runtime_device_present < 0) {
        sb_device_info info;
        sb_device_query(&info);
    }
    return runtime_device_present;
}

extern "C" sb_status sb_device_stream_create(void **stream, sb_error *err)
{
    cudaStream_t s;
    SB_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), err, WHO);
    *stream = s;
    return SB_OK;
}

extern "C" void sb_device_stream_destroy(void *stream)
{
    if (stream)
        cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" sb_status sb_device_sync(void *stream, sb_error *err)
{
    SB_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream), err, "device work");
    SB_CUDA_TRY(cudaGetLastError(), err, "device work");
    return SB_OK;
}

extern "C" sb_status sb_device_event_create(void **event, sb_error *err)
{
    cudaEvent_t e;
    SB_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), err, WHO);
    *event = e;
    return SB_OK;
}

extern "C" void sb_device_event_destroy(void *event)
{
    if (event)
        cudaEventDestroy((cudaEvent_t)event);
}

extern "C" sb_status sb_device_event_record(void *event, void *stream, sb_error *err)
{
    SB_CUDA_TRY(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream), err, WHO);
    return SB_OK;
}

extern "C" sb_status sb_device_stream_wait(void *stream, void *event, sb_error *err)
{
    SB_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0), err, WHO);
    return SB_OK;
}

struct sb_device_timer {
    cudaEvent_t begin, end;
};

extern "C" sb_status sb_device_timer_create(sb_device_timer **timer, sb_error *err)
{
    sb_device_timer *t = (sb_device_timer *)calloc(1, sizeof *t);
    if (!t)
        return sb_fail(err, SB_ERR_NOMEM, "device timer: out of memory");
    cudaError_t e = cudaEventCreate(&t->begin);
    if (e == cudaSuccess)
        e = cudaEventCreate(&t->end);
    if (e != cudaSuccess) {
        sb_device_timer_destroy(t);
        return sb_cuda_fail(err, e, WHO, "cudaEventCreate");
    }
    *timer = t;
    return SB_OK;
}

extern "C" void sb_device_timer_destroy(sb_device_timer *t)
{
    if (!t)
        return;
    if (t->begin)
        cudaEventDestroy(t->begin);
    if (t->end)
        cudaEventDestroy(t->end);
    free(t);
}

extern "C" sb_status sb_device_timer_begin(sb_device_timer *t, void *stream, sb_error *err)
{
    SB_CUDA_TRY(cudaEventRecord(t->begin, (cudaStream_t)stream), err, WHO);
    return SB_OK;
}

extern "C" sb_status sb_device_timer_end(sb_device_timer *t, void *stream, double *ms, sb_error *err)
{
    SB_CUDA_TRY(cudaEventRecord(t->end, (cudaStream_t)stream), err, WHO);
    SB_CUDA_TRY(cudaEventSynchronize(t->end), err, "device work");
    SB_CUDA_TRY(cudaGetLastError(), err, "device work");
    float elapsed = 0.0f;
    SB_CUDA_TRY(cudaEventElapsedTime(&elapsed, t->begin, t->end), err, WHO);
    *ms = elapsed;
    return SB_OK;
}

static void *runtime_flush_buf = NULL;
static size_t runtime_flush_bytes = 0;
static unsigned *runtime_flush_sink = NULL;

/* Read the whole flush buffer.  A read, not a write: a memset would leave
 * the L2 full of dirty lines, and the timed kernel would then pay for
 * writing them back (seen on the H100: the widening copy ran at 42 % of the
 * copy bandwidth after a memset flush).  The sink is written only if the
 * XOR of the buffer hits a value it never has, so nothing is stored. */
__global__ void l2_flush_read(const uint4 *p, size_t n, unsigned *sink)
{
    unsigned acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u)
        *sink = acc;
}

extern "C" sb_status sb_device_flush_l2(void *stream, sb_error *err)
{
    if (!runtime_flush_buf) {
        int l2 = 0, sms = 0;
        SB_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), err, WHO);
        SB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), err, WHO);
        runtime_flush_bytes = std::max<size_t>(2 * (size_t)l2, (size_t)8 << 20) / 16 * 16;
        SB_CUDA_TRY(cudaMalloc(&runtime_flush_buf, runtime_flush_bytes), err, "L2 flush buffer");
        SB_CUDA_TRY(cudaMalloc(&runtime_flush_sink, sizeof *runtime_flush_sink), err, "L2 flush buffer");
        SB_CUDA_TRY(cudaMemset(runtime_flush_buf, 0, runtime_flush_bytes), err, "L2 flush buffer");
    }
    int sms = 0;
    SB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), err, WHO);
    l2_flush_read<<<4 * sms, 512, 0, (cudaStream_t)stream>>>((const uint4 *)runtime_flush_buf,
                                                             runtime_flush_bytes / 16, runtime_flush_sink);
    SB_CUDA_TRY(cudaGetLastError(), err, "L2 flush");
    return SB_OK;
}

extern "C" void sb_device_release_scratch(void)
{
    if (runtime_flush_buf) {
        cudaFree(runtime_flush_buf);
        cudaFree(runtime_flush_sink);
    }
    runtime_flush_buf = NULL;
    runtime_flush_sink = NULL;
    runtime_flush_bytes = 0;
}

extern "C" sb_status sb_device_copy_bandwidth(double *gbps, sb_error *err)
{
    const size_t bytes = (size_t)512 << 20;   /* far larger than any L2 */
    const int reps = 20;
    void *src = NULL, *dst = NULL;
    cudaEvent_t a, b;
    SB_CUDA_TRY(cudaMalloc(&src, bytes), err, "bandwidth probe");
    if (cudaMalloc(&dst, bytes) != cudaSuccess) {
        cudaFree(src);
        return sb_fail(err, SB_ERR_DEVICE, "bandwidth probe: cannot allocate 2 x 512 MiB");
    }
    cudaMemset(src, 1, bytes);
    cudaMemset(dst, 0, bytes);
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> ms;
    for (int i = 0; i < reps + 3; i++) {
        cudaEventRecord(a);
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t = 0;
        cudaEventElapsedTime(&t, a, b);
        if (i >= 3)                      /* the first copies are warm-up */
            ms.push_back(t);
    }
    cudaError_t e = cudaGetLastError();
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaFree(src);
    cudaFree(dst);
    if (e != cudaSuccess)
        return sb_cuda_fail(err, e, "bandwidth probe", "cudaMemcpyAsync");
    std::sort(ms.begin(), ms.end());
    double median = ms[ms.size() / 2];
    *gbps = 2.0 * (double)bytes / (median * 1e-3) / 1e9;
    return SB_OK;
}

/* The bus probe's copies: to the device (1), to the host (2) or both at
 * once (3), on two streams so the two directions can overlap; the elapsed
 * time of the whole from one pair of events. */
enum { BUS_TO_DEVICE = 1, BUS_TO_HOST = 2 };
struct bus_probe {
    size_t bytes;
    void *host_src, *host_dst, *dev_src, *dev_dst;
    cudaStream_t s[2];
    cudaEvent_t begin, end, other_done;
};

static float bus_copy_ms(bus_probe *p, int ways)
{
    cudaEventRecord(p->begin, p->s[0]);
    cudaStreamWaitEvent(p->s[1], p->begin, 0);
    if (ways & BUS_TO_DEVICE)
        cudaMemcpyAsync(p->dev_dst, p->host_src, p->bytes, cudaMemcpyHostToDevice, p->s[0]);
    if (ways & BUS_TO_HOST)
        cudaMemcpyAsync(p->host_dst, p->dev_src, p->bytes, cudaMemcpyDeviceToHost, p->s[1]);
    cudaEventRecord(p->other_done, p->s[1]);
    cudaStreamWaitEvent(p->s[0], p->other_done, 0);
    cudaEventRecord(p->end, p->s[0]);
    cudaEventSynchronize(p->end);
    float ms = 0;
    cudaEventElapsedTime(&ms, p->begin, p->end);
    return ms;
}

/* GB/s of one direction or both: bytes moved over the median time. */
static double bus_rate(bus_probe *p, int ways)
{
    const int reps = 10;
    std::vector<float> ms;
    for (int i = 0; i < reps + 2; i++) {      /* the first two are warm-up */
        float t = bus_copy_ms(p, ways);
        if (i >= 2)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double moved = (double)p->bytes * (ways == (BUS_TO_DEVICE | BUS_TO_HOST) ? 2 : 1);
    return moved / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

extern "C" sb_status sb_device_bus_bandwidth(sb_bus_rates *rates, sb_error *err)
{
    memset(rates, 0, sizeof *rates);
    bus_probe p = {};
    p.bytes = (size_t)256 << 20;              /* far past any startup cost of a copy */
    cudaError_t e = cudaMallocHost(&p.host_src, p.bytes);
    if (e == cudaSuccess) e = cudaMallocHost(&p.host_dst, p.bytes);
    if (e == cudaSuccess) e = cudaMalloc(&p.dev_src, p.bytes);
    if (e == cudaSuccess) e = cudaMalloc(&p.dev_dst, p.bytes);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&p.s[0], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&p.s[1], cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaEventCreate(&p.begin);
    if (e == cudaSuccess) e = cudaEventCreate(&p.end);
    if (e == cudaSuccess) e = cudaEventCreate(&p.other_done);
    if (e == cudaSuccess) {
        memset(p.host_src, 1, p.bytes);       /* touched, so no page is mapped during a copy */
        memset(p.host_dst, 0, p.bytes);
        cudaMemset(p.dev_src, 1, p.bytes);
        rates->to_device = bus_rate(&p, BUS_TO_DEVICE);
        rates->to_host = bus_rate(&p, BUS_TO_HOST);
        rates->both = bus_rate(&p, BUS_TO_DEVICE | BUS_TO_HOST);
        e = cudaGetLastError();
    }
    /* only what was made: destroying a null handle would leave an error behind for the next caller */
    if (p.other_done) cudaEventDestroy(p.other_done);
    if (p.end) cudaEventDestroy(p.end);
    if (p.begin) cudaEventDestroy(p.begin);
    if (p.s[1]) cudaStreamDestroy(p.s[1]);
    if (p.s[0]) cudaStreamDestroy(p.s[0]);
    cudaFree(p.dev_dst);                      /* cudaFree and cudaFreeHost take NULL */
    cudaFree(p.dev_src);
    cudaFreeHost(p.host_dst);
    cudaFreeHost(p.host_src);
    if (e != cudaSuccess) {
        memset(rates, 0, sizeof *rates);
        return sb_cuda_fail(err, e, "bus probe", "2 x 256 MiB pinned and on the device");
    }
    return SB_OK;
}

/* Pinned or plain host memory; a header records which, so one free works
 * for both.  64 bytes keeps the payload aligned for any vector load. */
enum { HOST_HEADER = 64, HOST_PLAIN = 0x504c4149, HOST_PINNED = 0x50494e4e };

extern "C" void *sb_host_alloc(size_t bytes)
{
    unsigned char *p = NULL;
    unsigned kind = HOST_PLAIN;
    static int pageable = -1;     /* SB_PAGEABLE=1: measure what pinning buys */
    if (pageable < 0) {
        const char *e = getenv("SB_PAGEABLE");
        pageable = e && *e && strcmp(e, "0") != 0;
    }
    if (!pageable && device_present() == 1 && cudaMallocHost((void **)&p, bytes + HOST_HEADER) == cudaSuccess)
        kind = HOST_PINNED;
    else if (posix_memalign((void **)&p, HOST_HEADER, bytes + HOST_HEADER) != 0)
        return NULL;
    memcpy(p, &kind, sizeof kind);
    return p + HOST_HEADER;
}

extern "C" void sb_host_free(void *ptr)
{
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HOST_HEADER;
    unsigned kind;
    memcpy(&kind, p, sizeof kind);
    if (kind == HOST_PINNED)
        cudaFreeHost(p);
    else
        free(p);
}
