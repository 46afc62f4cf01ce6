/* error.h - errors as values.
 *
 * Every fallible function returns an sb_status and, on failure, fills an
 * sb_error with one human-readable line that names the thing that failed
 * (a file, a parameter, a CUDA call).  Nothing below main() prints or exits;
 * main() is the one place that turns an error into a message and an exit
 * code.
 */
#ifndef SEGBENCH_ERROR_H
#define SEGBENCH_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sb_status {
    SB_OK = 0,
    SB_ERR_USAGE,      /* bad command line or parameter value */
    SB_ERR_IO,         /* a file could not be opened, read or written */
    SB_ERR_FORMAT,     /* a file's content is not what it claims to be */
    SB_ERR_LIMIT,      /* a size outside the supported range */
    SB_ERR_NOMEM,      /* an allocation failed */
    SB_ERR_DEVICE,     /* a CUDA or library call failed */
    SB_ERR_DEVICE_MEMORY, /* the GPU has too little free memory for the work */
    SB_ERR_UNAVAILABLE,/* not built, or no device to run on */
    SB_ERR_AGREEMENT,  /* a variant broke its agreement contract */
    SB_ERR_SLOWER      /* compare --fail-on-slower found a slowdown */
} sb_status;

enum { SB_ERROR_MSG_MAX = 512 };

typedef struct sb_error {
    sb_status status;
    char msg[SB_ERROR_MSG_MAX];
} sb_error;

/* Record a failure and return its status, so callers write
 *     return sb_fail(err, SB_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
 * err may be NULL (the message is then dropped). */
sb_status sb_fail(sb_error *err, sb_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The process exit code for a status: 0 ok, 1 agreement failure, 3 a
 * slowdown (compare --fail-on-slower), 2 otherwise.  (A signal ends the
 * process as the signal does: 130 for Ctrl-C, as the shell reports it.) */
int sb_exit_code(sb_status status);

#ifdef __cplusplus
}
#endif
#endif
