/* runtime_stub.c - device.h for builds without device code (no nvcc, or
 * CUDA_ARCH=none): no device, plain host memory, and "not built" with the
 * build's reason (buildinfo.h) from every device call. */
#include "segbench/device.h"

#include "buildinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *NOT_BUILT = "CUDA support not built (" SB_BUILD_NO_CUDA_WHY ")";

int sb_device_built(void) { return 0; }
const char *sb_device_missing_why(void) { return SB_BUILD_NO_CUDA_WHY; }

void sb_device_query(sb_device_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->reason, sizeof info->reason, "%s", NOT_BUILT);
}

sb_status sb_device_stream_create(void **stream, sb_error *err)
{
    *stream = NULL;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

void sb_device_stream_destroy(void *stream) { (void)stream; }

sb_status sb_device_event_create(void **event, sb_error *err)
{
    *event = NULL;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

void sb_device_event_destroy(void *event) { (void)event; }

sb_status sb_device_event_record(void *event, void *stream, sb_error *err)
{
    (void)event;
    (void)stream;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

sb_status sb_device_stream_wait(void *stream, void *event, sb_error *err)
{
    (void)event;
    (void)stream;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

sb_status sb_device_sync(void *stream, sb_error *err)
{
    (void)stream;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

sb_status sb_device_timer_create(sb_device_timer **timer, sb_error *err)
{
    *timer = NULL;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

void sb_device_timer_destroy(sb_device_timer *timer) { (void)timer; }

sb_status sb_device_timer_begin(sb_device_timer *timer, void *stream, sb_error *err)
{
    (void)timer;
    (void)stream;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

sb_status sb_device_timer_end(sb_device_timer *timer, void *stream, double *ms, sb_error *err)
{
    (void)timer;
    (void)stream;
    *ms = 0.0;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

sb_status sb_device_flush_l2(void *stream, sb_error *err)
{
    (void)stream;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

sb_status sb_device_copy_bandwidth(double *gbps, sb_error *err)
{
    *gbps = 0.0;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

sb_status sb_device_bus_bandwidth(sb_bus_rates *rates, sb_error *err)
{
    memset(rates, 0, sizeof *rates);
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}

void *sb_host_alloc(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, 64, bytes ? bytes : 1) == 0 ? p : NULL;
}

void sb_host_free(void *ptr) { free(ptr); }

void sb_device_release_scratch(void) {}

sb_status sb_census_begin(sb_error *err) { return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT); }

int sb_census_end(sb_kernel_info *out, int max)
{
    (void)out;
    (void)max;
    return 0;
}

sb_status sb_device_profiler_start(sb_error *err) { return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT); }
sb_status sb_device_profiler_stop(sb_error *err) { return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT); }

sb_status sb_device_profile_marker(int index, void *stream, sb_error *err)
{
    (void)index;
    (void)stream;
    return sb_fail(err, SB_ERR_UNAVAILABLE, "%s", NOT_BUILT);
}
