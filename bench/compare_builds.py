#!/usr/bin/env python3
"""Two or more nsd binaries side by side, interleaved, on the free-play, FRF and basins
benchmarks (issue 44: "not slower"): each round runs every case with every binary, the
binaries' order reversed every other round, so drifting machine load falls on all alike.
Prints each case's median and range per binary, and the load average.

    python3 bench/compare_builds.py before=/tmp/nsd_before after=target/release/nsd [rounds]

Run from the repository root; the results go to a temporary folder.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = [
    ("freeplay_2000", ["run", "bench/freeplay_2000.nsd"]),
    ("frf_peer", ["run", "bench/frf_peer.nsd"]),
    ("basins_101", ["run", "bench/basins_500.nsd", "--only", "basins_101"]),
]


def main():
    bins = [a.split("=", 1) for a in sys.argv[1:] if "=" in a]
    rounds = next((int(a) for a in sys.argv[1:] if a.isdigit()), 5)
    if len(bins) < 2:
        sys.exit(__doc__)
    times = {(case, name): [] for case, _ in CASES for name, _ in bins}
    with tempfile.TemporaryDirectory() as out:
        for r in range(rounds):
            for case, args in CASES:
                for name, path in bins if r % 2 == 0 else bins[::-1]:
                    start = time.perf_counter()
                    subprocess.run([path, *args, "--out", os.path.join(out, name)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                    times[(case, name)].append(time.perf_counter() - start)
    print("load average", " ".join(open("/proc/loadavg").read().split()[:3]))
    for case, _ in CASES:
        for name, _ in bins:
            v = times[(case, name)]
            print(f"{case:14s} {name:10s} median {statistics.median(v) * 1e3:9.1f} ms"
                  f"  range {min(v) * 1e3:.1f}–{max(v) * 1e3:.1f} ms  (n = {len(v)})")


if __name__ == "__main__":
    main()
