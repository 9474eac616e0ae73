#!/usr/bin/env python3
"""Interleaved speed comparison of the in-process path (called by
bench/run-inprocess.sh, which builds the programs).

Workloads and their arms (every arm of a workload runs once per round, in an
order that rotates from round to round):

getppid: getppid_loop, N raw getppid calls from one syscall instruction
  native   getppid_loop N
  filter   getppid_loop --allow-filter N  (systrace's filter, every outcome ALLOW)
  safe     systrace --patch=safe -- getppid_loop N
  base     (with --baseline) the same under another systrace, for before/after
  off      systrace --patch=off -- getppid_loop SLOW_N  (every call a stop)
  strace   strace -f -c -o /dev/null getppid_loop SLOW_N
  time     (with --time-arms) systrace --patch=safe --time -- getppid_loop N
  offtime  (with --time-arms) systrace --patch=off --time -- getppid_loop SLOW_N
threads: threads_loop, T threads x M calls at one shared site
  native, filter, safe, unsafe as above with M calls per thread;
  single, off with SLOW_M calls per thread (under single the shared site stays
  unpatched: every call stops)

Per-call figures: "wall" is the wall time of the whole run (process start,
systrace's start and end included) divided by the number of calls, the honest
figure; "loop" is the program's own timing of its loop (clock_gettime, the
vDSO), which leaves out the start. Under systrace the getppid count that
systrace reports (syscalls.csv) must equal the calls made, exactly.
Writes raw.csv and table.md into --results and prints the table.
"""
import argparse
import csv
import os
import re
import shlex
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import (RawResults, busy_cpu_s, fmt, keep_output, median, ratio,  # noqa: E402
                     read_summary, run_once)

SUMMARY_KEYS = ["syscalls", "syscalls_inprocess", "syscalls_ptraced", "ptrace_stops",
                "sites_patched", "tracer_cpu_ns"]
FIELDS = ["workload", "round", "slot", "arm", "calls", "wall_s", "status", "loop_ns",
          "getppid_counted", "count_exact", "user_s", "sys_s", "other_cpu_s",
          "tracer_hwm_kb", "waited_s"] + SUMMARY_KEYS
LOOP_NS = re.compile(r"loop ([0-9.]+) ns/call")


def arms(args):
    """workload -> list of (arm, kind, program argv, calls)"""
    g, t = args.getppid, args.threads
    n, sn = args.n, args.slow_n
    nt, m, sm = args.threads_t, args.threads_m, args.threads_slow_m
    base = [("base", "base", [g, str(n)], n)] if args.baseline else []
    timed = [("time", "safe-time", [g, str(n)], n)] if args.time_arms else []
    offtimed = [("offtime", "off-time", [g, str(sn)], sn)] if args.time_arms else []
    return {
        "getppid": [
            ("native", "native", [g, str(n)], n),
            ("filter", "native", [g, "--allow-filter", str(n)], n),
            ("safe", "safe", [g, str(n)], n),
        ] + base + timed + [
            ("off", "off", [g, str(sn)], sn),
        ] + offtimed + [
            ("strace", "strace", [g, str(sn)], sn),
        ],
        "threads": [
            ("native", "native", [t, str(nt), str(m)], nt * m),
            ("filter", "native", [t, "--allow-filter", str(nt), str(m)], nt * m),
            ("safe", "safe", [t, str(nt), str(m)], nt * m),
            ("unsafe", "unsafe", [t, str(nt), str(m)], nt * m),
            ("single", "single", [t, str(nt), str(sm)], nt * sm),
            ("off", "off", [t, str(nt), str(sm)], nt * sm),
        ],
    }


def full_argv(kind, argv, args, outdir):
    if kind == "native":
        return argv
    if kind == "strace":
        return ["strace", "-f", "-c", "-o", "/dev/null"] + argv
    if kind == "base":
        return [args.baseline, "--patch=safe", "-o", outdir, "--"] + argv
    if kind.endswith("-time"):
        return [args.systrace, f"--patch={kind[:-5]}", "--time", "-o", outdir, "--"] + argv
    return [args.systrace, f"--patch={kind}", "-o", outdir, "--"] + argv


def getppid_counted(outdir):
    """The getppid calls systrace counted, over every process of the run."""
    try:
        with open(os.path.join(outdir, "syscalls.csv"), newline="") as f:
            return sum(int(r["calls"]) for r in csv.DictReader(f) if r["syscall"] == "getppid")
    except (OSError, KeyError, ValueError):
        return None


def per_call_ns(rows, key, stat=median):
    """median (or stat) over successful runs of key (wall: seconds for the whole run)
    per call, in ns"""
    if key == "wall":
        values = [float(r["wall_s"]) * 1e9 / int(r["calls"]) for r in rows]
    else:
        values = [float(r["loop_ns"]) for r in rows if r["loop_ns"] not in (None, "")]
    return stat(values) if values else None


def table(rows, specs, names):
    out = []
    for name in names:
        runs = [r for r in rows if r["workload"] == name]
        ok = {a: [r for r in runs if r["arm"] == a and r["status"] == "0"] for a, *_ in specs[name]}
        wall = {a: per_call_ns(ok[a], "wall") for a in ok}
        loop = {a: per_call_ns(ok[a], "loop") for a in ok}
        lmin = {a: per_call_ns(ok[a], "loop", min) for a in ok}
        out.append(f"### {name}\n")
        out.append("| arm | command | calls per run | ok runs | median wall s | wall ns/call "
                   "| loop ns/call | wall / filter | wall / native | loop / filter | loop / native "
                   "| loop ns/call, min | min loop / filter's | outside the loop ms "
                   "| count exact | stops (median) "
                   "| other CPU s (max) |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for arm, kind, argv, calls in specs[name]:
            all_runs = [r for r in runs if r["arm"] == arm]
            cmd = shlex.join(full_argv(kind, [os.path.basename(argv[0])] + argv[1:], ARGS, "OUT"))
            cmd = cmd.replace(ARGS.systrace, "systrace")
            if ARGS.baseline:
                cmd = cmd.replace(ARGS.baseline, "baseline-systrace")
            exact = [r["count_exact"] for r in all_runs if r["count_exact"] != ""]
            exact_s = "n/a" if not exact else f"{exact.count('yes')}/{len(exact)}"
            other = max((float(r["other_cpu_s"]) for r in all_runs), default=None)
            out.append(
                f"| {arm} | `{cmd}` | {calls:,} | {len(ok[arm])}/{len(all_runs)}"
                f" | {fmt(median([r['wall_s'] for r in ok[arm]]), '.3f')}"
                f" | {fmt(wall[arm], '.1f')} | {fmt(loop[arm], '.1f')}"
                f" | {fmt(ratio(wall[arm], wall['filter']), '.3f', 'x')}"
                f" | {fmt(ratio(wall[arm], wall['native']), '.3f', 'x')}"
                f" | {fmt(ratio(loop[arm], loop['filter']), '.3f', 'x')}"
                f" | {fmt(ratio(loop[arm], loop['native']), '.3f', 'x')}"
                f" | {fmt(lmin[arm], '.1f')} | {fmt(ratio(lmin[arm], lmin['filter']), '.3f', 'x')}"
                f" | {fmt(median([float(r['wall_s']) * 1e3 - float(r['loop_ns']) * calls / 1e6 for r in ok[arm] if r['loop_ns']]), '.0f')}"
                f" | {exact_s} | {fmt(median([r['ptrace_stops'] for r in ok[arm]]), ',.0f')}"
                f" | {fmt(other, '.2f')} |")
        out.append("")
        # per-round ratios of the in-process arms to the filter baseline
        # --time's cost: its arms to the same mode's without it, per round
        for arm, against in (("time", "safe"), ("offtime", "off")):
            for key in ("wall", "loop"):
                per = []
                for rnd in sorted({r["round"] for r in runs}, key=str):
                    same = {r["arm"]: r for r in runs if r["round"] == rnd and r["status"] == "0"}
                    if arm in same and against in same:
                        per.append(ratio(per_call_ns([same[arm]], key), per_call_ns([same[against]], key)))
                per = [x for x in per if x is not None]
                if per:
                    out.append(f"- {name} {arm}/{against}, {key}, per round: "
                               + ", ".join(f"{x:.3f}" for x in per)
                               + f"; median {median(per):.3f}")
        for arm, kind, *_ in specs[name]:
            if kind not in ("safe", "unsafe", "base", "safe-time"):
                continue
            for key in ("wall", "loop"):
                per = []
                for rnd in sorted({r["round"] for r in runs}, key=str):
                    same = {r["arm"]: r for r in runs if r["round"] == rnd and r["status"] == "0"}
                    if arm in same and "filter" in same:
                        per.append(ratio(per_call_ns([same[arm]], key), per_call_ns([same["filter"]], key)))
                per = [x for x in per if x is not None]
                if per:
                    out.append(f"- {name} {arm}/filter, {key}, per round: "
                               + ", ".join(f"{x:.3f}" for x in per)
                               + f"; median {median(per):.3f}")
        out.append("")
    return "\n".join(out) + "\n"


def wait_quiet(limit, threshold=0.3):
    """Waits, up to limit seconds, for a second in which the machine's CPUs are
    busy for less than threshold CPUs in all (other people's work on a shared
    machine); returns the seconds waited."""
    t0 = time.monotonic()
    while True:
        b0 = busy_cpu_s()
        time.sleep(1.0)
        if busy_cpu_s() - b0 < threshold or time.monotonic() - t0 >= limit:
            return time.monotonic() - t0


ARGS = None


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systrace", required=True)
    ap.add_argument("--baseline", default="",
                    help="another systrace, run as arm `base` beside `safe` (getppid)")
    ap.add_argument("--time-arms", action="store_true",
                    help="getppid: arms `time` and `offtime`, safe and off with --time")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--results", required=True)
    ap.add_argument("--getppid", default="")
    ap.add_argument("--threads", default="")
    ap.add_argument("--n", type=int, default=5000000)
    ap.add_argument("--slow-n", type=int, default=200000)
    ap.add_argument("--threads-t", type=int, default=4)
    ap.add_argument("--threads-m", type=int, default=1250000)
    ap.add_argument("--threads-slow-m", type=int, default=25000)
    ap.add_argument("--quiet-wait", type=float, default=0,
                    help="before each run, wait up to this many seconds for a second "
                         "in which other work uses less than 0.3 CPU")
    ap.add_argument("--table-only", action="store_true",
                    help="print the table of the raw.csv already in --results (same options)")
    ap.add_argument("workload", nargs="+", choices=["getppid", "threads"])
    ARGS = args = ap.parse_args()

    specs = arms(args)
    if args.table_only:
        with open(os.path.join(args.results, "raw.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        print(table(rows, specs, args.workload))
        return 0
    with RawResults(args.results, FIELDS) as raw:
        for name in args.workload:
            arm_list = specs[name]
            print(f"== {name}", file=sys.stderr)
            log_path = os.path.join(args.results, f"{name}.log")
            with open(log_path, "a") as log:
                for rnd in range(args.rounds):
                    k = rnd % len(arm_list)
                    for slot, (arm, kind, argv, calls) in enumerate(arm_list[k:] + arm_list[:k]):
                        waited = wait_quiet(args.quiet_wait) if args.quiet_wait > 0 else 0
                        outdir = tempfile.mkdtemp(prefix="out-", dir=raw.scratch)
                        log.flush()
                        start = os.path.getsize(log_path)
                        row = {"workload": name, "round": rnd + 1, "slot": slot + 1,
                               "arm": arm, "calls": calls, "waited_s": f"{waited:.0f}"}
                        row.update(run_once(full_argv(kind, argv, args, outdir), raw.scratch,
                                            log, args.timeout))
                        log.flush()
                        with open(log_path) as f:
                            f.seek(start)
                            found = LOOP_NS.findall(f.read())
                        row["loop_ns"] = found[-1] if found else ""
                        if kind not in ("native", "strace"):
                            counted = getppid_counted(outdir)
                            row["getppid_counted"] = counted
                            row["count_exact"] = "yes" if counted == calls else "NO"
                            summary = read_summary(outdir)
                            row.update({key: summary.get(key) for key in SUMMARY_KEYS})
                            kept = os.path.join(args.results, f"systrace-out-{name}-{arm}")
                            keep_output(outdir, kept)
                        shutil.rmtree(outdir, ignore_errors=True)
                        raw.add(row)
                        bad = row["status"] != "0" or row.get("count_exact") == "NO"
                        print(f"   round {rnd + 1}/{args.rounds} {arm:7} {row['wall_s']:>8} s"
                              f"  loop {row['loop_ns'] or '?':>8} ns/call  status {row['status']}"
                              + (f"  count {row['getppid_counted']}/{calls}" if "count_exact" in row else "")
                              + ("  <-- FAILED" if bad else ""), file=sys.stderr)

    rows = [{k: str(r[k]) if r.get(k) is not None else "" for k in FIELDS} for r in raw.rows]
    text = (f"rounds: {args.rounds}; medians over successful runs, ratios of medians of per-call "
            f"times;\n\"wall\" = whole run / calls, \"loop\" = the program's own loop timing / calls; "
            f"\"min\" = the fastest run\n(interference only adds time); \"outside the loop\" = wall - loop time "
            f"(start and end of the\nprocess, and of systrace); \"other CPU\" = CPU time "
            f"used during a run outside the measured\nprocess tree\n\n"
            + table(rows, specs, args.workload))
    with open(os.path.join(args.results, "table.md"), "w") as f:
        f.write(text)
    print(text)
    print(f"raw results: {raw.path}\nlogs and last systrace output per arm: {args.results}/")
    bad = [r for r in rows if r["status"] != "0" or r["count_exact"] == "NO"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
