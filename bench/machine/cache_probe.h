/* cache_probe.h - is this a spell: the time of a fixed loop that reads
 * from the cache what a small CPU row reads.
 *
 * On a shared cloud host (the 2-core CI box: one hardware thread per core
 * of a Xeon that other guests use too) a CPU row's loop runs 1.5-1.8x
 * slower in spells of 10 ms to several seconds, while a chain of
 * arithmetic in registers moves a few per cent and a read of DRAM little
 * more: the spells are in the caches (docs/measuring.md).  A spell
 * outlasts a round of a row and often a process, so a row's own samples
 * cannot show it, nor a probe compared with the process's best.
 *
 * sb_cache_probe_ms() times one pass of k-means' nearest-centre loop over
 * a 160x120 image of floats (230 KB, held in the L2 cache: the smoke
 * set's rows read theirs from there), the best of two, about 0.2 ms on
 * that box.  The caller holds it to the best any process of a comparison
 * read (compare/spells.h): a round whose probes read well above that ran in a
 * spell. */
#ifndef SEGBENCH_CACHE_PROBE_H
#define SEGBENCH_CACHE_PROBE_H

/* The probe's time now, in ms, on the calling thread; safe to call from
 * several threads (they take turns). */
double sb_cache_probe_ms(void);

#endif
