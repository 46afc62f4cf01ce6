#!/usr/bin/env python3
"""same_but_timings.py RESULTS_A RESULTS_B [REPORT_A REPORT_B]

Do two builds behave the same?  For a change that should not alter
behaviour (a refactor): two runs of `segbench bench`, one by each build,
must hold the same rows (algorithm, stage, variant, threads, image) with the
same sizes, byte floors and agreement; and the two builds' `segbench
report` of ONE result set must write the same pages (REPORT_A and REPORT_B;
only the report's own folder name may differ).  A serial row's
agreement reads "reference" when its one sample was the reference run
itself (a timing matter) and "exact" otherwise: the two are the same here.
Prints the differences; exit 1 if any.
"""
import csv, os, sys

KEY = ("algo", "stage", "variant", "backend", "threads", "image", "width", "height")
SAME = ("bytes", "agreement")


def rows(path):
    with open(path, newline="") as f:
        return {tuple(r[k] for k in KEY): r for r in csv.DictReader(f)}


def main(argv):
    if len(argv) not in (3, 5):
        print(__doc__.strip().splitlines()[0])
        return 2
    diffs = []
    a, b = argv[1], argv[2]
    fa = {f for f in os.listdir(a) if f.endswith(".csv") and not f.endswith(".samples.csv")}
    fb = {f for f in os.listdir(b) if f.endswith(".csv") and not f.endswith(".samples.csv")}
    diffs += [f"results: {f} only in {a}" for f in sorted(fa - fb)] + [f"results: {f} only in {b}" for f in sorted(fb - fa)]
    for f in sorted(fa & fb):
        if f.endswith((".kernels.csv", ".quality.csv")) or f == "peers.csv":
            continue
        ra, rb = rows(os.path.join(a, f)), rows(os.path.join(b, f))
        diffs += [f"{f}: row {k} only in A" for k in sorted(set(ra) - set(rb))]
        diffs += [f"{f}: row {k} only in B" for k in sorted(set(rb) - set(ra))]
        for k in sorted(set(ra) & set(rb)):
            for c in SAME:
                same = {"exact", "reference"} if c == "agreement" else set()
                if ra[k][c] != rb[k][c] and not {ra[k][c], rb[k][c]} <= same:
                    diffs.append(f"{f}: {k} {c}: {ra[k][c]} vs {rb[k][c]}")
    if len(argv) == 5:
        ra, rb = argv[3], argv[4]
        for root, _, files in os.walk(ra):
            for f in files:
                if not f.endswith(".md"):
                    continue
                pa = os.path.join(root, f)
                pb = os.path.join(rb, os.path.relpath(pa, ra))
                if not os.path.exists(pb):
                    diffs.append(f"report: {pb} missing")
                    continue
                la = open(pa).read().replace(ra, "<report>").splitlines()
                lb = open(pb).read().replace(rb, "<report>").splitlines()
                name = os.path.relpath(pa, ra)
                for i, (x, y) in enumerate(zip(la, lb)):
                    if x != y:
                        diffs.append(f"report: {name}:{i + 1}:\n  A {x[:200]}\n  B {y[:200]}")
                        break
                if len(la) != len(lb):
                    diffs.append(f"report: {name}: {len(la)} lines vs {len(lb)}")
    for d in diffs:
        print(d)
    print(f"{len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
