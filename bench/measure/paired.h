/* paired.h - two bench processes that take their samples in turns.
 *
 * `segbench ab --paired` starts the baseline's bench and this build's at
 * once, joined by a socket, and they hand one token back and forth: a
 * process runs only while it holds the token, and passes it on after each
 * timed sample of a CPU row.  So A's sample k of a row and B's sample k
 * run next to each other in time, milliseconds apart, and never at once.
 *
 * Why: on a shared cloud host a CPU row runs up to 1.8x slower in spells
 * of 10 ms to seconds (another guest's work in the caches), and a spell
 * outlasts a process, so rounds of whole processes differ by more than a
 * 1.25x change (docs/measuring.md).  Adjacent samples share the spell:
 * the median of B's sample k over A's sample k is the change, with the
 * spell divided out.  Measured on the 2-core box (a standalone loop of the
 * k-means pass, 30 samples a round): rounds of processes one after the
 * other gave B/A from 0.51 to 1.93 for one program against itself; the
 * median of paired samples, 0.99 to 1.01, and 1.22-1.29 for a 1.25x
 * change.
 *
 * The token says which row and which sample its sender just timed, so a
 * process knows whether its partner's sample next to its own was the same
 * one: a row where it was not (a row one build lacks, a check that failed
 * on one side, a partner that has exited) is flagged `unpaired`, and ab
 * judges it by its rounds alone.
 *
 * The process learns its part from the environment, set by ab:
 *   SB_PAIRED=FD,first|second,REPS
 * FD is its end of the socket, `first` holds the token from the start,
 * REPS is the kernel samples every CPU row takes (the same on both sides,
 * or the samples would not pair).  The state is the caller's (no
 * statics). */
#ifndef SEGBENCH_PAIRED_H
#define SEGBENCH_PAIRED_H

#include "segbench/error.h"

#include <stdint.h>

#define SB_PAIRED_ENV "SB_PAIRED"

typedef struct sb_paired {
    int fd;                       /* the socket to the partner; -1: off, or the partner has gone */
    int on;                       /* begun paired (the partner may since have gone) */
    int second;                   /* this side times the second sample of each pair */
    int reps;                     /* kernel samples a CPU row takes, on both sides */
    uint64_t partner_key;         /* second side: the sample the partner timed just before */
    int partner_index;
} sb_paired;

/* From SB_PAIRED: off (pair->on = 0) when it is not set; a malformed value
 * is a usage error.  The second side waits here for the first's first
 * sample. */
sb_status sb_paired_begin(sb_paired *pair, sb_error *err);
/* After this process timed sample `index` of the row `key`: the partner
 * times its own, then this process goes on.  Returns 1 when the partner's
 * sample next to this one was the same row's same sample, 0 when not (or
 * pairing is off, or the partner has gone). */
int sb_paired_turn(sb_paired *pair, uint64_t key, int index);
/* The token let go: the partner runs on alone. */
void sb_paired_end(sb_paired *pair);
/* A row's key from its label (FNV-1a). */
uint64_t sb_paired_key(const char *label);

#endif
