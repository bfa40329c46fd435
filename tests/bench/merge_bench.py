#!/usr/bin/env python3
"""The merge of a campaign's shard reports: time and peak memory of `scancheck merge` over N synthetic
shards (default 64) of the ci preset over every registered backend. The ci preset has 64 cases, 8 per
(architecture, io dtype) group, so each of 64 shards holds one case and the rows of its group's backends
(two per backend). A shard here is one case of a real report (the quick preset at length 2 over every
backend: one case per group), group i mod 8, its case renamed to a seed of its own, marked shard i of N.
`--scale K` gives each shard K such cases (a stress test: K = 8 is every group in every shard, 8x the
rows of a whole ci report). The issue's budget: under 10 s and under 1 GiB at K = 1.
Baseline in the same run: `scancheck render` of the merged report (reading it once and writing the three
pages), so the ratio says what merging costs beyond handling the merged report once.

Usage: merge_bench.py SCANCHECK [SHARDS] [--scale K]   (one line per figure; exit 1 over the budget)
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def timed(argv):
    """Wall seconds and the peak resident set (MiB) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest child so far, in KiB
    return seconds, max(peak, before) / 1024


def main():
    args = sys.argv[1:]
    scale = 1
    if "--scale" in args:
        i = args.index("--scale")
        scale = int(args[i + 1])
        del args[i : i + 2]
    scancheck = os.path.abspath(args[0])
    shards = int(args[1]) if len(args) > 1 else 64
    work = tempfile.mkdtemp(prefix="merge_bench.")
    try:
        base_dir = os.path.join(work, "base")
        subprocess.run(
            [scancheck, "report", "--preset", "quick", "--lengths", "2", "--out", base_dir],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = json.load(open(os.path.join(base_dir, "report.json")))
        paths = []
        groups = len(base["cases"])
        rows = 0
        for i in range(shards):
            shard = json.loads(json.dumps(base))
            kept = {shard["cases"][(i + k) % groups]["id"] for k in range(min(scale, groups))}
            shard["cases"] = [c for c in shard["cases"] if c["id"] in kept]
            shard["rows"] = [r for r in shard["rows"] if r["case"] in kept]
            for k, case in enumerate(shard["cases"]):
                case["request"]["seed"] = 1000 * (i + 1) + k  # distinct cases: merge keys them by request
            shard["method"]["shard"] = {"index": i, "count": shards}
            rows += len(shard["rows"])
            path = os.path.join(work, f"shard-{i}.json")
            with open(path, "w") as f:
                json.dump(shard, f)
            paths.append(path)
        megabytes = sum(os.path.getsize(p) for p in paths) / 2**20
        merged = os.path.join(work, "merged.json")
        merge_s, merge_mib = timed([scancheck, "merge", *paths, "--shards", str(shards), "--out", merged])
        render_s, _ = timed([scancheck, "render", merged, "--out", os.path.join(work, "rendered")])
        merged_rows = len(json.load(open(merged))["rows"])
        assert merged_rows == rows, (merged_rows, rows)
        print(
            f"merge_bench: {shards} shards x {min(scale, groups)} case(s), {rows} rows, {megabytes:.0f} MiB of report.json"
        )
        print(f"merge_bench: merge {merge_s:.2f} s (budget 10 s), peak memory {merge_mib:.0f} MiB (budget 1024 MiB)")
        print(f"merge_bench: render of the merged report {render_s:.2f} s; merge / render = {merge_s / render_s:.2f}x")
        return 0 if scale > 1 or (merge_s < 10 and merge_mib < 1024) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
