/* atomic_file.c - temp-file-then-rename writes (see atomic_file.h). */
#include "segbench/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files being written, for the signal handler: an interrupted
 * run must not leave hidden ".name.tmp.XXXXXX" files behind.  Slots are
 * claimed with a compare-and-swap: bench writes the gallery's pictures on
 * its openers' threads while the main thread writes its logs. */
enum { TRACKED_MAX = 32 };
static _Atomic(const char *) tracked[TRACKED_MAX];

void sb_temp_track(const char *tmp_path)
{
    for (int i = 0; i < TRACKED_MAX; i++) {
        const char *free_slot = NULL;
        if (atomic_compare_exchange_strong(&tracked[i], &free_slot, tmp_path))
            return;
    }
}

void sb_temp_untrack(const char *tmp_path)
{
    for (int i = 0; i < TRACKED_MAX; i++) {
        const char *mine = tmp_path;
        atomic_compare_exchange_strong(&tracked[i], &mine, NULL);
    }
}

/* Only async-signal-safe calls: unlink, signal, raise. */
static void remove_temps_and_die(int sig)
{
    for (int i = 0; i < TRACKED_MAX; i++) {
        const char *path = atomic_load(&tracked[i]);
        if (path)
            unlink(path);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void sb_temp_remove_on_signal(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temps_and_die;
    sigemptyset(&sa.sa_mask);
    /* SIGXFSZ: a file grew past `ulimit -f`: die as cleanly.  A signal the
     * parent set to be ignored stays ignored (nohup's SIGHUP; an ignored
     * SIGXFSZ turns a write past the limit into an EFBIG error, said as one) */
    const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGXFSZ };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(signals[i], &sa, NULL);
    }
}

/* ---- temporary names ----
 *
 * ".<name>.tmp.<pid>.XXXXXX" beside the target: hidden, recognisable as
 * ours, and naming the process that writes it, so that a later run can
 * tell a file left by a killed process (sb_temp_sweep) from one being
 * written now.  A long name is shortened to keep the whole within
 * NAME_MAX: a valid 254-character output name must stay writable. */
static void temp_name(char *out, size_t size, const char *dir, int dir_len, const char *base)
{
    char tail[40];
    int tail_len = snprintf(tail, sizeof tail, ".tmp.%ld.XXXXXX", (long)getpid());
    int room = NAME_MAX - 1 - tail_len;      /* the leading dot */
    snprintf(out, size, "%.*s.%.*s%s", dir_len, dir, room, base, tail);
}

/* Is `name` one of our temporary names, and of which process? */
static long temp_owner(const char *name)
{
    if (name[0] != '.')
        return 0;
    const char *tmp = NULL;
    for (const char *p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp."))
        tmp = p;
    if (!tmp)
        return 0;
    char *end;
    long pid = strtol(tmp + 5, &end, 10);
    if (pid <= 0 || *end != '.' || strlen(end + 1) != 6)
        return 0;
    return pid;
}

int sb_temp_sweep(const char *dir, time_t before)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = temp_owner(e->d_name);
        if (!pid || pid == (long)getpid() || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
            continue;                  /* not ours, or its writer still lives */
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path || lstat(path, &st) != 0 ||
            !S_ISREG(st.st_mode) || st.st_mtime >= before)
            continue;
        removed += unlink(path) == 0;
    }
    closedir(d);
    return removed;
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
    temp_name(af->tmp_path, sizeof af->tmp_path, path, dir_len, base);

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

/* ---- all or none: files completed under their temporary names, renamed together ---- */

enum { HELD_MAX = 8 };
static struct held_file {
    char tmp[4096], path[4096];
} held[HELD_MAX];
static int held_count = -1;            /* -1: not holding */

void sb_atomic_hold_begin(void) { held_count = 0; }

static sb_status hold(sb_atomic_file *af, sb_error *err)
{
    if (held_count == HELD_MAX) {
        unlink(af->tmp_path);
        sb_temp_untrack(af->tmp_path);
        return sb_fail(err, SB_ERR_USAGE, "%s: more than %d outputs at once", af->path, HELD_MAX);
    }
    struct held_file *h = &held[held_count++];
    memcpy(h->tmp, af->tmp_path, sizeof h->tmp);
    memcpy(h->path, af->path, sizeof h->path);
    sb_temp_track(h->tmp);             /* the copy stays tracked until the end */
    sb_temp_untrack(af->tmp_path);
    return SB_OK;
}

sb_status sb_atomic_hold_end(int keep, sb_error *err)
{
    sb_status st = SB_OK;
    for (int i = 0; i < (held_count > 0 ? held_count : 0); i++) {
        if (keep && !st && rename(held[i].tmp, held[i].path) != 0)
            st = sb_fail(err, SB_ERR_IO, "%s: cannot rename into place (%s)", held[i].path, strerror(errno));
        if (!keep || st)
            unlink(held[i].tmp);
        sb_temp_untrack(held[i].tmp);
    }
    held_count = -1;
    return st;
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
    if (held_count >= 0)
        return hold(af, err);
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
