/* cache_probe.h - is this a spell: the time of a fixed loop that reads
 * from the cache what a small CPU row reads.
 *
 * On a shared cloud host (the 2-core CI box: one hardware thread per core
 * of a Xeon that other guests use too) a CPU row's loop runs 1.5-1.8x
 * slower in spells of 10 ms to several seconds, while a chain of
 * arithmetic in registers moves a few per cent and a read of DRAM little
 * more: the spells are in the caches (bench/NOTES.md, "The 2-core box").  A spell
 * outlasts a round of a row and often a process, so a row's own samples
 * cannot show it, nor a probe compared with the process's best.
 *
 * The probe is one pass of k-means' nearest-centre loop over a 160x120
 * image of floats (230 KB, held in the L2 cache: the smoke set's rows read
 * theirs from there), about 0.25 ms on that box.  Its image is the
 * caller's (host_noise.h's sb_host_cache_probe_ms holds it in the run's
 * sb_host_probes); the comparison holds the readings to the quiet host's
 * (compare/spells.h): a round whose probes read well above it ran in a
 * spell. */
#ifndef SEGBENCH_CACHE_PROBE_H
#define SEGBENCH_CACHE_PROBE_H

enum { SB_CACHE_PROBE_FLOATS = 160 * 120 * 3 };

/* The probe's image: the same fixed pattern in every process and build. */
void sb_cache_probe_fill(float image[SB_CACHE_PROBE_FLOATS]);

/* One timed pass over it, in ms, on the calling thread; *checksum gets
 * what the pass found (so that the loop is not optimised away). */
double sb_cache_probe_pass(const float image[SB_CACHE_PROBE_FLOATS], int *checksum);

#endif
