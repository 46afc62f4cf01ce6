/* dir_lock.h - one writer at a time in a results folder.
 *
 * `bench` holds an exclusive flock(2) on <dir>/.lock for its whole run, and
 * writes into that file who holds it (process, host, command, since when),
 * so a second `bench` into the same folder can say who is in the way
 * instead of interleaving its rows with the first one's.  The kernel drops
 * the lock when the holder exits, however it exits; the file itself stays
 * (it is ignored by git).  flock needs a file system with working locks:
 * local ones, NFSv4, Lustre and GPFS have them.
 */
#ifndef SEGBENCH_DIR_LOCK_H
#define SEGBENCH_DIR_LOCK_H

#include "segbench/error.h"

typedef struct sb_dir_lock {
    int fd;              /* -1 when not held */
} sb_dir_lock;

/* Take the lock of `dir` (which must exist) for `what` ("bench --set
 * smoke").  Held elsewhere: wait when `wait`, else a usage error naming
 * the holder, and then `hint` (what the command offers instead: ", or
 * use --wait"). */
sb_status sb_dir_lock_take(sb_dir_lock *lock, const char *dir, const char *what, int wait, const char *hint,
                           sb_error *err);
void sb_dir_lock_release(sb_dir_lock *lock);

#endif
