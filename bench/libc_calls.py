#!/usr/bin/env python3
"""What --libc-calls costs: each workload under systrace with and without it, in
the default mode and under --patch=off (every call stops, so every call unwinds),
ROUNDS interleaved rounds (the order of the two arms alternates). Prints a markdown
table of medians: wall seconds, tracer CPU seconds (summary.csv's tracer_cpu_ns),
the ptraced calls, and the extra wall time and tracer CPU time per ptraced call (the
CPU figure is the steadier one on a shared machine).

  python3 bench/libc_calls.py SYSTRACE LIBC_LOOP [ROUNDS] [LOOP_N] [SPAWN_N] [LIBIBERTY]

LIBIBERTY: the libiberty source folder (bench/prepare-libiberty.sh unpacks it), to
add its configure + make -j2 (run in a fresh empty folder each time).
"""
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time


def summary(outdir):
    with open(os.path.join(outdir, "summary.csv"), newline="") as f:
        return {r["metric"]: r["value"] for r in csv.DictReader(f)}


def run(systrace, mode, with_option, argv):
    with tempfile.TemporaryDirectory(prefix="systrace-libc-calls-") as out:
        cmd = [systrace, f"--patch={mode}"] + (["--libc-calls"] if with_option else []) + ["-o", out, "--"] + argv
        os.mkdir(os.path.join(out, "work"))
        t0 = time.monotonic()
        done = subprocess.run(cmd, cwd=os.path.join(out, "work"), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        wall = time.monotonic() - t0
        if done.returncode != 0:
            sys.exit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr}")
        s = summary(out)
        return wall, int(s["tracer_cpu_ns"]) / 1e9, int(s["syscalls_ptraced"])


def main():
    systrace, loop = (os.path.abspath(a) if "/" in a else a for a in sys.argv[1:3])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    loop_n = sys.argv[4] if len(sys.argv) > 4 else "20000"
    spawn_n = sys.argv[5] if len(sys.argv) > 5 else "200"
    workloads = {
        f"libc_loop {loop_n}": [loop, loop_n],
        f"spawn {spawn_n}": ["sh", "-c", f"i=0; while [ $i -lt {spawn_n} ]; do /bin/true; i=$((i+1)); done"],
    }
    if len(sys.argv) > 6:
        configure = os.path.join(sys.argv[6], "configure")
        workloads["libiberty"] = ["sh", "-c", f"'{configure}' >/dev/null && make -j2 >/dev/null"]
    results = {}
    for r in range(rounds):
        for name, argv in workloads.items():
            for mode in ("safe", "off"):
                for with_option in ((False, True) if r % 2 == 0 else (True, False)):
                    results.setdefault((name, mode, with_option), []).append(run(systrace, mode, with_option, argv))
    print("| workload | --patch | ptraced calls | wall s without | wall s with | with/without "
          "| tracer CPU s without | with | extra wall us per ptraced call | extra tracer CPU us per ptraced call |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in workloads:
        for mode in ("safe", "off"):
            off, on = results[(name, mode, False)], results[(name, mode, True)]
            w0, w1 = (statistics.median(x[0] for x in v) for v in (off, on))
            c0, c1 = (statistics.median(x[1] for x in v) for v in (off, on))
            calls = statistics.median(x[2] for x in on)
            print(f"| {name} | {mode} | {calls:,.0f} | {w0:.3f} | {w1:.3f} | {w1 / w0:.2f}x "
                  f"| {c0:.3f} | {c1:.3f} | {(w1 - w0) / calls * 1e6:.1f} | {(c1 - c0) / calls * 1e6:.1f} |")


if __name__ == "__main__":
    main()
