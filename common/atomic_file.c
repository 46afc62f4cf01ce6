/* atomic_file.c - temp-file-then-rename writes (see atomic_file.h). */
#include "segbench/atomic_file.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files being written, for the signal handler: an interrupted
 * run must not leave hidden ".name.tmp.XXXXXX" files behind. */
enum { TRACKED_MAX = 32 };
static const char *volatile tracked[TRACKED_MAX];

void sb_temp_track(const char *tmp_path)
{
    for (int i = 0; i < TRACKED_MAX; i++)
        if (!tracked[i]) {
            tracked[i] = tmp_path;
            return;
        }
}

void sb_temp_untrack(const char *tmp_path)
{
    for (int i = 0; i < TRACKED_MAX; i++)
        if (tracked[i] == tmp_path)
            tracked[i] = NULL;
}

/* Only async-signal-safe calls: unlink, signal, raise. */
static void remove_temps_and_die(int sig)
{
    for (int i = 0; i < TRACKED_MAX; i++)
        if (tracked[i])
            unlink(tracked[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void sb_temp_remove_on_signal(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temps_and_die;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

sb_status sb_atomic_open(sb_atomic_file *af, const char *path, sb_error *err)
{
    memset(af, 0, sizeof *af);
    if (!path || !*path)
        return sb_fail(err, SB_ERR_USAGE, "empty output path");
    if (strlen(path) + 32 >= sizeof af->tmp_path)
        return sb_fail(err, SB_ERR_USAGE, "%s: output path too long", path);
    snprintf(af->path, sizeof af->path, "%s", path);

    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base)
        return sb_fail(err, SB_ERR_USAGE, "%s: output path names a directory", path);
    snprintf(af->tmp_path, sizeof af->tmp_path, "%.*s.%s.tmp.XXXXXX", dir_len, path, base);

    int fd = mkstemp(af->tmp_path);
    if (fd < 0) {
        int e = errno;
        struct stat dir;
        char dir_path[4096];
        snprintf(dir_path, sizeof dir_path, "%.*s", dir_len ? dir_len : 1, dir_len ? path : ".");
        if (e == ENOENT && stat(dir_path, &dir) != 0)
            return sb_fail(err, SB_ERR_IO, "%s: cannot create (its directory does not exist)", path);
        return sb_fail(err, SB_ERR_IO, "%s: cannot create (%s)", path, strerror(e));
    }
    /* mkstemp makes the file 0600; give it the usual 0644 (less umask). */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    sb_temp_track(af->tmp_path);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        sb_temp_untrack(af->tmp_path);
        int e = errno;
        close(fd);
        unlink(af->tmp_path);
        return sb_fail(err, SB_ERR_IO, "%s: cannot open for writing (%s)", path, strerror(e));
    }
    return SB_OK;
}

sb_status sb_atomic_commit(sb_atomic_file *af, sb_error *err)
{
    int failed = ferror(af->fp) || fflush(af->fp) != 0 || fsync(fileno(af->fp)) != 0;
    int e = errno;
    if (fclose(af->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    af->fp = NULL;
    if (failed) {
        unlink(af->tmp_path);
        sb_temp_untrack(af->tmp_path);
        return sb_fail(err, SB_ERR_IO, "%s: write failed (%s)", af->path, strerror(e));
    }
    if (rename(af->tmp_path, af->path) != 0) {
        e = errno;
        unlink(af->tmp_path);
        sb_temp_untrack(af->tmp_path);
        return sb_fail(err, SB_ERR_IO, "%s: cannot rename into place (%s)", af->path, strerror(e));
    }
    sb_temp_untrack(af->tmp_path);
    return SB_OK;
}

void sb_atomic_abort(sb_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
        unlink(af->tmp_path);
        sb_temp_untrack(af->tmp_path);
    }
}

sb_status sb_atomic_write_text(const char *path, const char *text, sb_error *err)
{
    sb_atomic_file af;
    sb_status st = sb_atomic_open(&af, path, err);
    if (st)
        return st;
    fputs(text, af.fp);
    return sb_atomic_commit(&af, err);
}

sb_status sb_mkdirs(const char *path, sb_error *err)
{
    char buf[4096];
    if (strlen(path) >= sizeof buf)
        return sb_fail(err, SB_ERR_USAGE, "%s: path too long", path);
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return sb_fail(err, SB_ERR_IO, "%s: cannot create directory (%s)", buf, strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return sb_fail(err, SB_ERR_IO, "%s: not a directory", path);
    return SB_OK;
}
