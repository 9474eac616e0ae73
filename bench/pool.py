#!/usr/bin/env python3
"""Pools the raw.csv files of several bench/run.sh runs into one table (medians
over every round of every run), and lists the systrace/strace ratio of each round.
Usage: python3 bench/pool.py RESULTS_DIR...  (each holding a raw.csv)."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import median, table  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows, names = [], []
    for run, folder in enumerate(sys.argv[1:], 1):
        with open(os.path.join(folder, "raw.csv"), newline="") as f:
            for r in csv.DictReader(f):
                r["round"] = f"{run}.{r['round']}"
                rows.append(r)
                if r["workload"] not in names:
                    names.append(r["workload"])
    print(table(rows, names))
    for name in names:
        ratios = []
        for rnd in sorted({r["round"] for r in rows if r["workload"] == name}):
            wall = {r["arm"]: float(r["wall_s"]) for r in rows
                    if r["workload"] == name and r["round"] == rnd and r["status"] == "0"}
            if "systrace" in wall and "strace" in wall:
                ratios.append((rnd, wall["systrace"] / wall["strace"]))
        print(f"{name}: systrace/strace per round: "
              + ", ".join(f"{rnd} {x:.2f}" for rnd, x in ratios)
              + f"; median {median([x for _, x in ratios]):.2f}")


if __name__ == "__main__":
    main()
