#!/usr/bin/env python3
"""same_rows.py - do two result sets hold the same rows, apart from what
timing decides?  For a refactor of the harness that must change no
output (issue 75): bench the smoke set before and after, then

    python3 scripts/same_rows.py BEFORE_DIR AFTER_DIR

Every CSV of the two sets (and the gallery's index) is compared row by
row on the columns a run does not time: the row's key, size, bytes,
agreement and its metric, code identity (the samples files: the key of
each sample line).  Times, dates, run ids, commits and noise flags are
left out, and so is the serial reference's own verdict (whether its runs
were slow enough to be its samples is timing's to decide).  Prints one
line a file and exits 1 when any differs.  What a timing can still move:
repeat.csv holds the rows its share of the run's time could re-measure.
"""
import csv
import glob
import os
import sys

TIMED = set("""n median_ms min_ms p25_ms p75_ms max_ms e2e_n e2e_median_ms e2e_min_ms e2e_p25_ms e2e_p75_ms
e2e_max_ms gbps peak_fraction date run_id commit flags frame_n frame_median_ms frame_min_ms frame_p25_ms
frame_p75_ms frame_max_ms setup_n setup_median_ms setup_min_ms setup_p25_ms setup_p75_ms setup_max_ms
sm_mhz_start sm_mhz_end mem_mhz_start mem_mhz_end clock_reasons rounds round_spread steal cpu_slowdown
mem_slowdown stopped fps seconds frames latency_p50_ms latency_p99_ms latency_max_ms upload_ms run_ms fetch_ms
bound_fps bound_fraction spread gpu_j_per_frame gpu_idle_w cpu_j_per_frame cpu_idle_w energy_note
first_median_ms first_n again_median_ms again_n ratio within_10pct first_flags""".split())
SAMPLE_KEY = {"algo", "stage", "variant", "threads", "image", "kind"}


def rows(path):
    with open(path, newline="") as f:
        table = list(csv.reader(f, delimiter="\t" if path.endswith(".tsv") else ","))
    if not table:
        return [], []
    header = table[0]
    keep = [i for i, h in enumerate(header)
            if (h in SAMPLE_KEY if path.endswith(".samples.csv") else h not in TIMED)]
    # the serial reference's own row: whether its runs were slow enough to
    # be its samples ("reference", "slow row, N samples") or it was checked
    # like any row ("exact") is timing's to decide
    variant = header.index("variant") if "variant" in header else -1
    verdict = {header.index(h) for h in ("agreement", "agreement_metric", "checked") if h in header}
    def cells(r):
        ref = variant >= 0 and variant < len(r) and r[variant] == "cpu"
        return tuple("" if ref and i in verdict else r[i] for i in keep if i < len(r))
    return header, sorted(cells(r) for r in table[1:])


def main(before, after):
    files = sorted(glob.glob(os.path.join(before, "*.csv")) + glob.glob(os.path.join(before, "gallery", "*.tsv")))
    bad = 0
    for a in files:
        b = os.path.join(after, os.path.relpath(a, before))
        name = os.path.relpath(a, before)
        if not os.path.exists(b):
            print(f"{name}: only in {before}")
            bad += 1
            continue
        (ha, ra), (hb, rb) = rows(a), rows(b)
        if ha != hb:
            print(f"{name}: the columns differ")
            bad += 1
        elif ra != rb:
            only_a, only_b = set(ra) - set(rb), set(rb) - set(ra)
            print(f"{name}: {len(only_a)} row(s) only before, {len(only_b)} only after, e.g. {sorted(only_a)[:1]} "
                  f"against {sorted(only_b)[:1]}")
            bad += 1
        else:
            print(f"{name}: the same {len(ra)} row(s)")
    for b in sorted(glob.glob(os.path.join(after, "*.csv"))):
        if not os.path.exists(os.path.join(before, os.path.basename(b))):
            print(f"{os.path.basename(b)}: only in {after}")
            bad += 1
    print(f"{len(files) - bad} of {len(files)} files the same" + ("" if not bad else f"; {bad} differ"))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: same_rows.py BEFORE_DIR AFTER_DIR")
    sys.exit(main(sys.argv[1], sys.argv[2]))
