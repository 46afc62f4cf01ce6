/* code_id.h - which code a variant is: a hash of its source.
 *
 * A result row names the commit it was measured at, but a commit is too
 * coarse a test of "same code": most commits change a few rungs, and
 * until 2026-11-29 a run of record rewrote every rung header's measured
 * block.  A variant's
 * code identity is a hash of the text of its own source file and of every
 * file that reaches it:
 *   - each file it includes with quotes ("ms_device.cuh", "../warp.cuh",
 *     "segbench/ccl.h"), found where the compiler looks -- the including
 *     file's folder, then include/, then impl_cpu/ (the CPU variants'
 *     shared internals) -- and, in turn, what they include;
 *   - the implementation beside each such header (ms_device.cuh ->
 *     ms_device.cu, pool.h -> pool.c; impl_cpu/slic_host.h -> slic.c,
 *     the serial file that holds what it declares), which the rung calls
 *     into;
 * each text without a rung header's "Measured (the run of record ..."
 * block, which the headers held, rewritten at each run of record, until
 * 2026-11-29: the blank comment line before it stays in the hash, and the
 * files keep that line, so a file's identity did not change when its
 * block went.  The files are hashed in
 * path order (FNV-1a, 64 bits), so the same texts give the same identity
 * whichever build or commit they come from: the build bakes each
 * variant's into the binary (scripts/code_ids.c), and a row measured
 * before rows recorded it gets it from git at the row's commit
 * (io/code_ids.c).  Compiler flags are not in it: env.json records them.
 * (Scanning the includes, not the compiler's .d files, gives the same
 * answer for a variant this build cannot compile and for an old commit.)
 */
#ifndef SEGBENCH_BASE_CODE_ID_H
#define SEGBENCH_BASE_CODE_ID_H

/* A source file's text (repository-relative path), malloc'd, or NULL when
 * there is none. */
typedef char *(*sb_source_reader)(const char *path, void *ctx);

enum { SB_CODE_ID_LEN = 16, SB_CODE_ID_MAX_FILES = 256 };

/* The identity of the variant file `file` into id (SB_CODE_ID_LEN hex
 * digits and a '\0'); returns how many files went into it, 0 (id empty)
 * when `file` itself cannot be read. */
int sb_code_id(const char *file, sb_source_reader read, void *ctx, char id[SB_CODE_ID_LEN + 1]);

/* A reader of the files under the folder ctx (a const char *; "." for
 * the current one). */
char *sb_code_id_read_tree(const char *path, void *ctx);

#endif
