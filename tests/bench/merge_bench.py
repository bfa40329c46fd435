#!/usr/bin/env python3
"""The merge of a campaign's shard reports: time and peak memory of `scancheck merge` over N synthetic
shards (default 64), each a copy of one real report (the quick preset at length 2 over every registered
backend: 8 cases, one per (architecture, io dtype) group, two rows per backend) with its cases renumbered
to distinct seeds and marked shard i of N. 64 such shards hold 8x the rows of a whole ci-preset report of
every backend (64 cases); the issue's budget is under 10 s and under 1 GiB.
Baseline in the same run: `scancheck render` of the merged report (reading it once and writing the three
pages), so the ratio says what merging costs beyond handling the merged report once.

Usage: merge_bench.py SCANCHECK [SHARDS]   (prints one line per figure; exit 1 over the budget)
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
    scancheck = os.path.abspath(sys.argv[1])
    shards = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    work = tempfile.mkdtemp(prefix="merge_bench.")
    try:
        base_dir = os.path.join(work, "base")
        subprocess.run([scancheck, "report", "--preset", "quick", "--lengths", "2", "--out", base_dir],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = json.load(open(os.path.join(base_dir, "report.json")))
        paths = []
        for i in range(shards):
            shard = json.loads(json.dumps(base))
            for k, case in enumerate(shard["cases"]):
                case["request"]["seed"] = 1000 * (i + 1) + k  # distinct cases: merge keys them by request
            shard["method"]["shard"] = {"index": i, "count": shards}
            path = os.path.join(work, f"shard-{i}.json")
            with open(path, "w") as f:
                json.dump(shard, f)
            paths.append(path)
        rows = shards * len(base["rows"])
        megabytes = sum(os.path.getsize(p) for p in paths) / 2**20
        merged = os.path.join(work, "merged.json")
        merge_s, merge_mib = timed([scancheck, "merge", *paths, "--shards", str(shards), "--out", merged])
        render_s, _ = timed([scancheck, "render", merged, "--out", os.path.join(work, "rendered")])
        merged_rows = len(json.load(open(merged))["rows"])
        assert merged_rows == rows, (merged_rows, rows)
        print(f"merge_bench: {shards} shards, {rows} rows, {megabytes:.0f} MiB of report.json")
        print(f"merge_bench: merge {merge_s:.2f} s (budget 10 s), peak memory {merge_mib:.0f} MiB (budget 1024 MiB)")
        print(f"merge_bench: render of the merged report {render_s:.2f} s; merge / render = {merge_s / render_s:.2f}x")
        return 0 if merge_s < 10 and merge_mib < 1024 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
