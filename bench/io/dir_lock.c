/* dir_lock.c - flock on <dir>/.lock with the holder written inside (see dir_lock.h). */
#include "io/dir_lock.h"

#include "base/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

sb_status sb_dir_lock_take(sb_dir_lock *lock, const char *dir, const char *what, int wait, const char *hint,
                           sb_error *err)
{
    char path[SB_PATH_MAX];
    snprintf(path, sizeof path, "%s/.lock", dir);
    lock->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock->fd < 0)
        return sb_fail(err, SB_ERR_IO, "%s: cannot open the results folder's lock (%s)", path, strerror(errno));
    if (flock(lock->fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char holder[400] = "";
        ssize_t n = pread(lock->fd, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        if (e != EWOULDBLOCK) {
            sb_dir_lock_release(lock);
            return sb_fail(err, SB_ERR_IO, "%s: cannot lock (%s)", path, strerror(e));
        }
        if (!wait) {
            sb_dir_lock_release(lock);
            return sb_fail(err, SB_ERR_USAGE, "%s/ is in use by %s; wait for it to end%s", dir,
                           holder[0] ? holder : "another segbench", hint ? hint : "");
        }
        fprintf(stderr, "waiting for %s/, in use by %s...\n", dir, holder[0] ? holder : "another segbench");
        while (flock(lock->fd, LOCK_EX) != 0)
            if (errno != EINTR) {
                e = errno;
                sb_dir_lock_release(lock);
                return sb_fail(err, SB_ERR_IO, "%s: cannot lock (%s)", path, strerror(e));
            }
    }
    char host[128] = "?", since[32];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char text[600];
    int len = snprintf(text, sizeof text, "segbench %.200s (pid %d on %.127s, since %s)\n", what, (int)getpid(), host,
                       since);
    int named = ftruncate(lock->fd, 0) == 0 && pwrite(lock->fd, text, (size_t)len, 0) == len;
    (void)named;                   /* unnamed, the lock holds all the same */
    return SB_OK;
}

void sb_dir_lock_release(sb_dir_lock *lock)
{
    if (lock->fd >= 0)
        close(lock->fd);           /* closing drops the flock */
    lock->fd = -1;
}
