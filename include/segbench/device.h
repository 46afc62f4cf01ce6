/* device.h - the harness's window on CUDA, callable from plain C.
 *
 * Implemented in impl_cuda/runtime.cu when nvcc is found at build time, and
 * by impl_cuda/runtime_stub.c otherwise (which reports "not built").  The
 * harness never includes a CUDA header; everything it needs from the
 * device (events, streams, pinned memory, the bandwidth ceiling) is here.
 */
#ifndef SEGBENCH_DEVICE_H
#define SEGBENCH_DEVICE_H

#include <stddef.h>

#include "segbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_device_info {
    int present;              /* a GPU and a driver that answers were found */
    int has_image;            /* present, and this binary holds code it can run
                                 (machine code for its architecture, or PTX
                                 the driver can compile for it) */
    char reason[256];         /* why not, when present == 0 */
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t mem_bytes;
    size_t l2_bytes;
    int sm_clock_mhz;         /* peak clocks as reported by the driver */
    int mem_clock_mhz;
    int mem_bus_bits;
    int driver_version;       /* e.g. 13000 */
    int runtime_version;
    char uuid[48];            /* "GPU-8f6c...": names this card (NVML, nvidia-smi, compare) */
} sb_device_info;

/* 1 when this binary was built with CUDA. */
int sb_device_built(void);

/* Why it was not ("" when it was): no nvcc at build time, an nvcc that
 * could not compile there, no GPU at build time (CUDA_ARCH=none by
 * default) or CUDA_ARCH=none asked for. */
const char *sb_device_missing_why(void);

/* Fill *info; never fails (present = 0 and a reason when there is no GPU).
 * The first call initialises the CUDA context. */
void sb_device_query(sb_device_info *info);

sb_status sb_device_stream_create(void **stream, sb_error *err);
void sb_device_stream_destroy(void *stream);
sb_status sb_device_sync(void *stream, sb_error *err);

/* An event, to order work across streams: record() marks the point the
 * stream's work has reached; wait() makes later work on another stream
 * start only once that point is passed (the record made before the call:
 * a later record of the same event does not move it). */
sb_status sb_device_event_create(void **event, sb_error *err);
void sb_device_event_destroy(void *event);
sb_status sb_device_event_record(void *event, void *stream, sb_error *err);
sb_status sb_device_stream_wait(void *stream, void *event, sb_error *err);

/* A pair of CUDA events: begin() records the first on the stream, end()
 * records the second, waits for it and returns the elapsed milliseconds.
 * end() also reports any error raised by the work in between. */
typedef struct sb_device_timer sb_device_timer;
sb_status sb_device_timer_create(sb_device_timer **timer, sb_error *err);
void sb_device_timer_destroy(sb_device_timer *timer);
sb_status sb_device_timer_begin(sb_device_timer *timer, void *stream, sb_error *err);
sb_status sb_device_timer_end(sb_device_timer *timer, void *stream, double *ms, sb_error *err);

/* Evict the L2 cache (read a buffer twice its size) on the stream, so a
 * timed run starts cold instead of finding its input in cache, and with no
 * dirty lines of someone else's to write back. */
sb_status sb_device_flush_l2(void *stream, sb_error *err);

/* The measured ceiling: a large device-to-device copy, counting bytes read
 * plus bytes written, median of repeated copies, in GB/s (1e9 B/s). */
sb_status sb_device_copy_bandwidth(double *gbps, sb_error *err);

/* The bus between host and device (PCIe, or NVLink-C2C on a Grace host):
 * large copies between pinned host memory and the device, each way alone
 * and both at once on two streams (bytes of both over the time both take),
 * medians of repeated copies, in GB/s.  The limit of every upload and
 * download a per-frame or stream row pays. */
typedef struct sb_bus_rates {
    double to_device;             /* host -> device */
    double to_host;               /* device -> host */
    double both;                  /* the two at once, bytes of both */
} sb_bus_rates;
sb_status sb_device_bus_bandwidth(sb_bus_rates *rates, sb_error *err);

/* Host memory for buffers that cross the bus: page-locked when a device is
 * present (so copies run at full speed and asynchronously), plain
 * otherwise or when the environment sets SB_PAGEABLE=1.  Free with
 * sb_host_free only. */
void *sb_host_alloc(size_t bytes);
void sb_host_free(void *ptr);

/* Free the harness's own device scratch (the L2 flush buffer). */
void sb_device_release_scratch(void);

/* The profiler hand-off (impl_cuda/profiler.cu).  start/stop bracket the
 * region a profiler started with "collection off" records
 * (cudaProfilerStart/Stop: ncu --profile-from-start off, nsys
 * --capture-range=cudaProfilerApi).  marker() launches one tiny kernel,
 * sb_profile_marker, whose grid is `index` + 1 blocks: a profile that lists
 * kernels in launch order is cut into the harness's regions at each
 * marker (bench/profile/). */
sb_status sb_device_profiler_start(sb_error *err);
sb_status sb_device_profiler_stop(sb_error *err);
sb_status sb_device_profile_marker(int index, void *stream, sb_error *err);

/* The kernel census: what the kernels launched between begin and end are,
 * asked of the CUDA runtime itself (CUPTI sees each launch; the occupancy
 * API answers for the binary that runs), so a report can show registers,
 * shared memory, block size and theoretical occupancy per kernel. */
typedef struct sb_kernel_info {
    char name[128];            /* demangled, without its parameter list */
    int block;                 /* threads per block */
    int regs;                  /* registers per thread */
    int static_smem, dynamic_smem;   /* bytes per block */
    int blocks_per_sm;         /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
    double occupancy;          /* resident warps / the SM's maximum, 0..1 */
} sb_kernel_info;

/* SB_ERR_UNAVAILABLE when launches cannot be observed (no CUDA, or another
 * tool such as ncu or compute-sanitizer holds CUPTI). */
sb_status sb_census_begin(sb_error *err);
/* Stop observing; fill out with the distinct (kernel, block, dynamic shared
 * memory) launches seen, at most max; return how many. */
int sb_census_end(sb_kernel_info *out, int max);

#ifdef __cplusplus
}
#endif
#endif
