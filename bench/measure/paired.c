/* paired.c - two bench processes that take their samples in turns
 * (paired.h). */
#include "measure/paired.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* What one side tells the other as it hands the token on. */
typedef struct token {
    uint64_t key;                 /* the row it just timed a sample of (0: none yet) */
    int32_t index;                /* which sample of that row */
    int32_t pad;
} token;

static int send_token(sb_paired *pair, uint64_t key, int index)
{
    token t = { key, index, 0 };
    ssize_t n;
    while ((n = send(pair->fd, &t, sizeof t, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return n == (ssize_t)sizeof t;
}

/* Wait for the partner's token; 0 when it has gone (the socket closed). */
static int recv_token(sb_paired *pair, token *t)
{
    size_t got = 0;
    while (got < sizeof *t) {
        ssize_t n = recv(pair->fd, (char *)t + got, sizeof *t - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

/* The partner has gone: this side runs on alone, unpaired. */
static void partner_gone(sb_paired *pair)
{
    close(pair->fd);
    pair->fd = -1;
}

sb_status sb_paired_begin(sb_paired *pair, sb_error *err)
{
    memset(pair, 0, sizeof *pair);
    pair->fd = -1;
    const char *env = getenv(SB_PAIRED_ENV);
    if (!env || !*env)
        return SB_OK;
    int fd, reps, used = 0;
    char part[8];
    if (sscanf(env, "%d,%7[a-z],%d%n", &fd, part, &reps, &used) != 3 || env[used] || fd < 0 || reps < 1 ||
        (strcmp(part, "first") && strcmp(part, "second")))
        return sb_fail(err, SB_ERR_USAGE, "%s=%s: expected FD,first|second,REPS (set by segbench ab --paired)",
                       SB_PAIRED_ENV, env);
    int type;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0)
        return sb_fail(err, SB_ERR_USAGE, "%s=%s: descriptor %d is not a socket (%s)", SB_PAIRED_ENV, env, fd,
                       strerror(errno));
    pair->fd = fd;
    pair->on = 1;
    pair->reps = reps;
    pair->second = part[0] == 's';
    if (pair->second) {
        token t;
        if (!recv_token(pair, &t))
            partner_gone(pair);
        else {
            pair->partner_key = t.key;
            pair->partner_index = t.index;
        }
    }
    return SB_OK;
}

int sb_paired_turn(sb_paired *pair, uint64_t key, int index)
{
    if (pair->fd < 0)
        return 0;
    /* the second side's partner timed this sample just before it; the
     * first side's times it next */
    int paired = pair->second && pair->partner_key == key && pair->partner_index == index;
    token t;
    if (!send_token(pair, key, index) || !recv_token(pair, &t)) {
        partner_gone(pair);             /* the first side's last sample is still this one's pair */
        return paired;
    }
    if (!pair->second)
        paired = t.key == key && t.index == index;
    pair->partner_key = t.key;
    pair->partner_index = t.index;
    return paired;
}

void sb_paired_end(sb_paired *pair)
{
    if (pair->fd >= 0)
        close(pair->fd);
    pair->fd = -1;
}

uint64_t sb_paired_key(const char *label)
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)label; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return h ? h : 1;
}
