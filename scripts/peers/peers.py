#!/usr/bin/env python3
"""peers.py - `make peers`: what a user would otherwise pick, timed on the
same images and machine as segbench, so the report can put segbench's best
variant beside each: OpenCV (integral, kmeans, pyrMeanShiftFiltering,
grabCut), scikit-image (slic), CuPy and PyTorch (the integral image on the
GPU).  Optional: a missing Python or package is skipped with a note; the C
core never depends on this.

    peers.py --dataset DIR --out FILE [--budget S] [--machine ID] [--commit SHA]

Writes FILE (CSV, written whole then renamed): algo, stage, peer, device,
image, width, height, n, median_ms, p25_ms, p75_ms, note, and where each
row came from: run_id (peers-<UTC time>), commit (segbench's, --commit),
machine (--machine: segbench's machine id) and date (UTC).  Each peer runs
once to warm up, then again until it has 3 runs and has spent the budget
(or 25 runs).  GPU peers are timed with device synchronisation around each
call, input already on the GPU, so the time is the computation alone, as
segbench's kernel time is.  The parameters match the segbench stage each
row stands beside; where a peer computes something different, the note
says so.
"""
import argparse
import csv
import datetime
import importlib
import os
import statistics
import sys
import tempfile
import time


def load_manifest(dataset):
    images = {}
    with open(os.path.join(dataset, "manifest.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            path = c[1] if os.path.isabs(c[1]) else os.path.join(dataset, c[1])
            rect = c[5:9]                      # "-" where the image has no rectangle
            images[c[0]] = {"path": path, "w": int(c[3]), "h": int(c[4]),
                            "rect": tuple(int(v) for v in rect) if "-" not in rect else None}
    return images


def timed(fn, sync=None, budget=2.0):
    """Median and quartiles of fn's wall time in ms (one warm-up run first)."""
    fn()
    if sync:
        sync()
    samples, start = [], time.perf_counter()
    while len(samples) < 25 and (len(samples) < 3 or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        samples.append((time.perf_counter() - t0) * 1e3)
    q = statistics.quantiles(samples, n=4) if len(samples) > 1 else samples * 3
    return len(samples), statistics.median(samples), q[0], q[2]


def optional(name):
    try:
        return importlib.import_module(name)
    except Exception as e:                      # ImportError, or a broken install
        print(f"peers: {name} not available ({e.__class__.__name__}): its peers are skipped")
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=2.0, help="seconds per peer (default 2)")
    ap.add_argument("--machine", default="?", help="segbench's machine id, recorded in each row")
    ap.add_argument("--commit", default="unknown", help="the commit of the tree, recorded in each row")
    a = ap.parse_args()
    began = datetime.datetime.now(datetime.timezone.utc)
    run_id, date = "peers-" + began.strftime("%Y%m%dT%H%M%SZ"), began.strftime("%Y-%m-%dT%H:%M:%SZ")
    images = load_manifest(a.dataset)
    cv2, np = optional("cv2"), optional("numpy")
    if cv2 is None or np is None:
        print("peers: OpenCV and NumPy are needed to read the images; nothing measured")
        return 0
    skimage_seg, cp, torch = optional("skimage.segmentation"), optional("cupy"), optional("torch")
    rows = []

    def add(algo, stage, peer, device, name, stats, note=""):
        n, med, p25, p75 = stats
        im = images[name]
        rows.append([algo, stage, peer, device, name, im["w"], im["h"], n, f"{med:.4f}", f"{p25:.4f}",
                     f"{p75:.4f}", note, run_id, a.commit, a.machine, date])
        print(f"peers: {algo}/{stage} {peer} on {name}: {med:.3f} ms (n={n})")

    def pick(names):
        for n in names:
            if n in images:
                return n
        return None

    b = a.budget
    big = pick(["synth-3840x2160", "synth-1920x1080", "synth-1280x720", "synth-640x480", "synth-160x120"])
    mid = pick(["synth-1920x1080", "synth-1280x720", "synth-640x480", "synth-160x120"])
    small = pick(["synth-640x480", "synth-160x120"])
    if big:                                   # integral image, u8 -> 32-bit sums
        grey = cv2.imread(images[big]["path"], cv2.IMREAD_GRAYSCALE)
        add("integral", "sum", "cv2.integral", "cpu", big, timed(lambda: cv2.integral(grey, sdepth=cv2.CV_32S), budget=b),
            "output has an extra zero row and column")
        if cp is not None:
            try:
                g = cp.asarray(grey)
                add("integral", "sum", "cupy cumsum x2", "gpu", big,
                    timed(lambda: cp.cumsum(cp.cumsum(g, axis=0, dtype=cp.uint32), axis=1, dtype=cp.uint32),
                          cp.cuda.Device().synchronize, b))
            except Exception as e:
                print(f"peers: cupy failed ({e}); skipped")
        if torch is not None and torch.cuda.is_available():
            t = torch.from_numpy(grey).cuda()
            add("integral", "sum", "torch cumsum x2", "gpu", big,
                timed(lambda: torch.cumsum(torch.cumsum(t, 0, dtype=torch.int32), 1), torch.cuda.synchronize, b),
                "int32 sums (torch has no uint32 cumsum)")
    if mid:                                   # k-means, k = 16, exactly 10 passes
        rgb = cv2.imread(images[mid]["path"], cv2.IMREAD_COLOR)
        data = rgb.reshape(-1, 3).astype(np.float32)
        crit = (cv2.TERM_CRITERIA_MAX_ITER, 10, 0)
        add("kmeans", "fixed10", "cv2.kmeans", "cpu", mid,
            timed(lambda: cv2.kmeans(data, 16, None, crit, 1, cv2.KMEANS_PP_CENTERS), budget=b),
            "float centres, k-means++ start")
        if skimage_seg is not None:           # SLIC, S = 16 (one superpixel per 16x16), 10 iterations
            im = images[mid]
            nseg = im["w"] * im["h"] // 256
            add("slic", "s16", "skimage slic", "cpu", mid,
                timed(lambda: skimage_seg.slic(rgb[:, :, ::-1], n_segments=nseg, compactness=10, max_num_iter=10,
                                               start_label=0), budget=b),
                "its own connectivity step")
    if small:                                 # mean-shift filter r16, range 10; GrabCut, 5 iterations
        rgb = cv2.imread(images[small]["path"], cv2.IMREAD_COLOR)
        add("meanshift-filter", "r16", "cv2.pyrMeanShiftFiltering", "cpu", small,
            timed(lambda: cv2.pyrMeanShiftFiltering(rgb, 16, 10, maxLevel=0), budget=b),
            "RGB (segbench: LUV), square window")
        x, y, w, h = images[small]["rect"] or (0, 0, images[small]["w"], images[small]["h"])

        def grabcut():
            mask = np.zeros(rgb.shape[:2], np.uint8)
            bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
            cv2.grabCut(rgb, mask, (x, y, w, h), bgd, fgd, 5, cv2.GC_INIT_WITH_RECT)
        add("grabcut", "rect", "cv2.grabCut", "cpu", small, timed(grabcut, budget=b), "5 iterations")

    fd, tmp = tempfile.mkstemp(prefix=".peers.", dir=os.path.dirname(os.path.abspath(a.out)))
    with os.fdopen(fd, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["algo", "stage", "peer", "device", "image", "width", "height", "n", "median_ms", "p25_ms",
                    "p75_ms", "note", "run_id", "commit", "machine", "date"])
        w.writerows(rows)
    os.replace(tmp, a.out)
    print(f"peers: wrote {a.out} ({len(rows)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
