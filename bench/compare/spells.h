/* spells.h - host rounds that ran in a spell of a busy host, left out.
 *
 * On a shared cloud host a CPU row runs 1.5-1.8x slower in spells of
 * 10 ms to several seconds (machine/cache_probe.h).  A spell often
 * outlasts a round -- a fresh process of `segbench ab` -- so it cannot be
 * told from the build's own speed by the round's samples; one such round
 * among ten sets the A/A floor (the 99th percentile of |log B/A| between
 * rounds) at its own size, wider than the changes a user looks for.
 *
 * Each host round carries the cache probe read just before and after its
 * runs, on each of its CPUs at once (the slowest of those readings).  The probes of a comparison fall in two
 * clusters (on the 2-core box 0.23-0.28 ms and 0.31-0.42 ms, few between):
 * the quiet host's reading is a low quantile of all of them, any round,
 * either side -- a spell outlasts a process, so a process's own best
 * would be slow too -- and not their fastest, which one lucky reading
 * sets.  A round whose probe read more than SB_SPELL_MARGIN above it ran
 * in a spell, and is left out of the
 * evidence, for the verdicts and for the floors alike; `ab` and `noise`
 * run more rounds until each host row has its --rounds outside spells
 * (compare/ab.c).  On the 2-core box, in an A/A of the serial k-means
 * rows of the smoke set, the rounds of a small image whose probes read
 * within 12 % of the quiet host's lay within 12 % of each other, where all
 * of them spread 1.6x (docs/measuring.md, "Spells"). */
#ifndef SEGBENCH_SPELLS_H
#define SEGBENCH_SPELLS_H

#define SB_SPELL_MARGIN 0.12
#define SB_SPELL_QUIET_QUANTILE 0.05

/* The quiet host's probe: the SB_SPELL_QUIET_QUANTILE quantile of the
 * comparison's probes (ms, > 0; sorted in place); 0 when there are none. */
double sb_spell_quiet(double *probes, int n);

/* Did a round whose probe read `probe` ms run in a spell, against the
 * quiet host's `quiet`?  0 where either is unknown (0). */
int sb_spell_in(double probe, double quiet);

/* Keep the rounds of ms[0..n) outside spells, in their order, their
 * probes with them; returns how many are kept. */
int sb_spell_keep(double *ms, double *probe, int n, double quiet);

#endif
