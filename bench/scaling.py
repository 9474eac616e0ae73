#!/usr/bin/env python3
"""Many processes, one tracer: N parallel spawn loops (each `sh -c 'i=0; while
[ $i -lt M ]; do /bin/true; i=$((i+1)); done'`), for each N natively, under
systrace and under strace -f -c (and, with --free-arm, under systrace with the
loops left where the scheduler puts them), with bench/stop_probe timing the
round trip of a stop beside them (N = 0: the probe alone, the unloaded round trip).

Called by bench/scaling.sh, which builds the probe. Each round runs every N,
in an order that rotates from round to round, and for each N the arms back to
back, in an order that rotates too; ratios are taken within a round. Writes
raw.csv (one row per run) and table.md into --results, and prints the table.
`scaling.py --retable RESULTS... [--max-other-cpu S]` prints the tables again
from raw.csv files, pooled, without the rounds that other work disturbed.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402  (run_once, read_summary, RawResults, fmt)

# Copied from summary.csv into raw.csv (systrace arms).
SUMMARY_KEYS = ["syscalls", "processes", "execs", "ptrace_stops", "syscalls_ptraced",
                "syscalls_inprocess", "tracer_cpu_ns", "wall_ns", "stop_cost_ns",
                "ptrace_stops_lifecycle", "ptrace_stops_early", "ptrace_stops_late",
                "tracer_writer_cpu_ns"]
PROBE_STATS = ["samples", "dropped", "bad_results", "split_samples", "rt_p50_ns",
               "rt_p90_ns", "rt_p99_ns", "rt_mean_ns", "rt_min_ns", "runq_p50_ns",
               "runq_p90_ns", "runq_mean_ns", "rest_p50_ns", "rest_p90_ns", "rest_mean_ns"]
PROBES = ["first", "last"]
PROBE_KEYS = ["wall_ns", "loop_failures", "tracer_cpu_ns", "tracer_run_delay_ns",
              "cpu_busy"] + [f"{p}_{k}" for p in PROBES for k in PROBE_STATS]
FIELDS = (["round", "slot", "n", "arm", "wall_s", "status", "user_s", "sys_s",
           "other_cpu_s", "tracer_hwm_kb", "images", "loop_wall_s", "images_per_s"]
          + ["probe_" + k for k in PROBE_KEYS] + ["summary_" + k for k in SUMMARY_KEYS])
SYSTRACE_ARMS = ("systrace", "free")


def loop_argv(m):
    return ["sh", "-c", f"i=0; while [ $i -lt {m} ]; do /bin/true; i=$((i+1)); done"]


def images_of(n, m):
    """Process images of N loops of M: per loop the spawned child (image 0) and sh
    (its exec), then per iteration sh's vfork child and /bin/true (its exec)."""
    return n * (2 * m + 2)


def arm_argv(arm, n, args, outdir, probe_out):
    k = args.k0 if n == 0 else args.k
    probe = ([args.probe] + (["-a"] if arm == "free" else [])
             + ["-k", str(k), "-g", str(args.gap_us), "-o", probe_out, str(n)]
             + (loop_argv(args.m) if n else []))
    if arm in SYSTRACE_ARMS:
        return [args.systrace, f"--patch={args.patch}", "-o", outdir, "--"] + probe
    if arm == "strace":
        return ["strace", "-f", "-c", "-o", "/dev/null"] + probe
    return probe


def read_probe(path):
    try:
        with open(path) as f:
            lines = f.read().splitlines()[1:]
    except OSError:
        return {}
    return dict(line.split(",", 1) for line in lines if "," in line)


def num(row, key):
    v = row.get(key, "")
    return None if v in (None, "") else float(v)


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def div(a, b, scale=1.0):
    return None if a is None or b is None or b == 0 else scale * a / b


def serving_cpu_ns(row):
    """The CPU of the tracer's thread that serves the stops: all of summary.csv's
    tracer_cpu_ns but its writer thread's (tracer/offload.h; none before it)."""
    total = num(row, "summary_tracer_cpu_ns")
    return None if total is None else total - (num(row, "summary_tracer_writer_cpu_ns") or 0)


def ok_rows(rows, n, arm):
    return [r for r in rows if int(r["n"]) == n and r["arm"] == arm and r["status"] == "0"]


def per_round(rows, n, arm, fn):
    """Median over the rounds of fn(row of (n, arm), rows of its round)."""
    out = []
    for r in ok_rows(rows, n, arm):
        same_round = [x for x in rows if x["round"] == r["round"] and x["status"] == "0"]
        out.append(fn(r, same_round))
    return med(out)


def partner(round_rows, n, arm):
    for x in round_rows:
        if int(x["n"]) == n and x["arm"] == arm:
            return x
    return None


def us(v):
    return measure.fmt(None if v is None else v / 1000, ",.1f")


def tables(rows, ns, arms):
    f = measure.fmt
    loaded = [n for n in ns if n > 0]
    traced = [a for a in arms if a != "native"]
    out = []

    # 1. throughput
    head = "| N | loop images |" + "".join(f" {a} images/s |" for a in arms)
    head += "".join(f" {a}/native |" for a in traced)
    if "strace" in arms and "systrace" in arms:
        head += " systrace/strace |"
    out += [head, "|" + "---:|" * (head.count("|") - 1)]
    for n in loaded:
        line = f"| {n} | {f(med([num(r, 'images') for r in ok_rows(rows, n, 'native')]), ',.0f')} |"
        line += "".join(f" {f(med([num(r, 'images_per_s') for r in ok_rows(rows, n, a)]), ',.0f')} |"
                        for a in arms)
        for a in traced:
            def slowdown(r, rr, a=a):
                nat = partner(rr, int(r["n"]), "native")
                return div(num(nat, "images_per_s"), num(r, "images_per_s")) if nat else None
            line += f" {f(per_round(rows, n, a, slowdown), '.2f', 'x')} |"
        if "strace" in arms and "systrace" in arms:
            def vs_strace(r, rr):
                st = partner(rr, int(r["n"]), "strace")
                return div(num(st, "images_per_s"), num(r, "images_per_s")) if st else None
            line += f" {f(per_round(rows, n, 'systrace', vs_strace), '.2f', 'x')} |"
        out.append(line)
    out.append("")
    out.append("images/s: loop images / the loops' wall time (from the probe: first loop "
               "started to last loop reaped), medians over rounds; X/native: the median "
               "over rounds of native images/s / X images/s in the same round (the "
               "slowdown: the images are the same).")
    out.append("")

    # 2. the tracer
    out += ["| N | arm | tracer busy (summary) | tracer busy (/proc) | tracer run-queue wait "
            "(/proc) | tracer CPU us/image | stops/image | tracer CPU us/stop | tree CPU "
            "us/image | CPUs busy (machine) | other CPU s (max) |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for n in ns:
        for a in arms:
            rs = ok_rows(rows, n, a)
            if not rs:
                continue
            sysarm = a in SYSTRACE_ARMS
            busy_sum = med([div(serving_cpu_ns(r), num(r, "summary_wall_ns"), 100)
                            for r in rs]) if sysarm else None
            busy_proc = med([div(num(r, "probe_tracer_cpu_ns"), 1e9 * num(r, "loop_wall_s"), 100)
                             for r in rs])
            runq = med([div(num(r, "probe_tracer_run_delay_ns"), 1e9 * num(r, "loop_wall_s"), 100)
                        for r in rs])
            per_image = stops = per_stop = tree = None
            if n and sysarm:
                per_image = med([div(serving_cpu_ns(r), num(r, "summary_processes"),
                                     1e-3) for r in rs])
                stops = med([div(num(r, "summary_ptrace_stops"), num(r, "summary_processes"))
                             for r in rs])
            elif n and a != "native":
                per_image = med([div(num(r, "probe_tracer_cpu_ns"), num(r, "images"), 1e-3)
                                 for r in rs])
            if sysarm:
                per_stop = med([div(serving_cpu_ns(r), num(r, "summary_ptrace_stops"),
                                    1e-3) for r in rs])
            if n:
                tree = med([div(num(r, "user_s") + num(r, "sys_s"), num(r, "images"), 1e6)
                            for r in rs])
            cpus = []
            width = max(len(r["probe_cpu_busy"].split(";")) for r in rs)
            for i in range(width if all(r["probe_cpu_busy"] for r in rs) else 0):
                cpus.append(med([100 * float(r["probe_cpu_busy"].split(";")[i]) for r in rs
                                 if len(r["probe_cpu_busy"].split(";")) > i]))
            other = max(float(r["other_cpu_s"]) for r in rs)
            out.append(f"| {n} | {a} | {f(busy_sum, '.1f', '%')} | {f(busy_proc, '.1f', '%')}"
                       f" | {f(runq, '.1f', '%')} | {f(per_image, ',.0f')} | {f(stops, '.1f')}"
                       f" | {f(per_stop, '.1f')} | {f(tree, ',.0f')}"
                       f" | {' / '.join(f(c, '.0f', '%') for c in cpus)} | {f(other, '.2f')} |")
    out.append("")
    out.append("tracer busy (summary): summary.csv's tracer_cpu_ns less tracer_writer_cpu_ns "
               "(the thread that serves the stops; its writer thread's share apart, "
               "tracer/offload.h) / wall_ns (the whole run, getrusage of systrace); (/proc): the tracer thread's CPU time over the loops' "
               "window (sum_exec_runtime of /proc/TRACER/task/TRACER/schedstat, read by the "
               "probe at the first loop's start and the last's end) / that window; run-queue "
               "wait: its run_delay over the window (runnable, waiting for a CPU) / the window. "
               "us/image, stops/image, us/stop: that serving thread's CPU and ptrace_stops / "
               "processes, and its CPU / ptrace_stops (all images and stops of the run, "
               "the probes' included; strace: the /proc CPU / loop images). Tree CPU: user + "
               "system time of everything the run started, the tracer included (wait4) / loop "
               "images. CPUs busy: each CPU's busy share of the window, whole machine "
               "(/proc/stat). Other CPU: CPU time outside the measured tree during the run "
               "(measure.py's), the largest of the rounds. N=0: the probes alone.")
    out.append("")

    # 3. queueing
    out += ["| N | arm | probe | calls | round trip p50 us | p90 us | p50 - p50(N=0) us "
            "| p90 - p90(N=0) us | run-queue p50 us | rest p50 us | rest p90 us |",
            "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for a in arms:
        for p in PROBES:
            for n in ns:
                rs = ok_rows(rows, n, a)
                if not rs:
                    continue

                def excess(key, p=p, a=a):
                    def fn(r, rr):
                        base = partner(rr, 0, a)
                        return (num(r, f"probe_{p}_{key}") - num(base, f"probe_{p}_{key}")
                                if base and num(base, f"probe_{p}_{key}") is not None
                                and num(r, f"probe_{p}_{key}") is not None else None)
                    return fn
                calls = med([num(r, f"probe_{p}_samples") for r in rs])
                line = (f"| {n} | {a} | {p} | {f(calls, ',.0f')}"
                        f" | {us(med([num(r, f'probe_{p}_rt_p50_ns') for r in rs]))}"
                        f" | {us(med([num(r, f'probe_{p}_rt_p90_ns') for r in rs]))}")
                if n:
                    line += (f" | {us(per_round(rows, n, a, excess('rt_p50_ns')))}"
                             f" | {us(per_round(rows, n, a, excess('rt_p90_ns')))}")
                else:
                    line += " | | "
                clean = med([div(num(r, f"probe_{p}_split_samples"), num(r, f"probe_{p}_samples"))
                             for r in rs])
                if clean is not None and clean >= 0.5:
                    line += (f" | {us(med([num(r, f'probe_{p}_runq_p50_ns') for r in rs]))}"
                             f" | {us(med([num(r, f'probe_{p}_rest_p50_ns') for r in rs]))}"
                             f" | {us(med([num(r, f'probe_{p}_rest_p90_ns') for r in rs]))} |")
                else:
                    line += " | n/a | n/a | n/a |"

                out.append(line)
    out.append("")
    out.append("The probes (bench/stop_probe.c) time getppid calls from anonymous code, never "
               "patched: traced, each is a stop. `first` is the command itself, the tracer's "
               "own child, which waitpid(-1) reports before any other; `last` its child forked "
               "before the loops, older than every process they start, which the kernel "
               "reports after all of them (newest first). Medians over rounds of each run's "
               "percentile; the excess over N=0 is taken per round (the queueing delay). "
               "run-queue: the probe's own wait for a CPU during the call (run_delay); rest: "
               "round trip minus it (the call, and traced the time stopped until the tracer "
               "resumed it), over the calls whose split is clean (n/a: fewer than half were; "
               "under strace the probe's reads of schedstat stop too).")
    return "\n".join(out) + "\n"


def retable(args):
    """The tables again from RESULTS/raw.csv (several folders pooled), leaving out
    every round in which some run had more than --max-other-cpu seconds of other
    CPU: on a shared machine, the quiet rounds alone."""
    import csv
    rows = []
    for i, folder in enumerate(args.retable):
        with open(os.path.join(folder, "raw.csv"), newline="") as f:
            for r in csv.DictReader(f):
                r["round"] = f"{i + 1}.{r['round']}"
                rows.append(r)
    noisy = {r["round"] for r in rows
             if args.max_other_cpu is not None and float(r["other_cpu_s"]) > args.max_other_cpu}
    kept = [r for r in rows if r["round"] not in noisy]
    ns = sorted({int(r["n"]) for r in kept})
    arms = [a for a in ["native", "systrace", "free", "strace"] if any(r["arm"] == a for r in kept)]
    print(f"from {', '.join(args.retable)}: {len({r['round'] for r in kept})} of "
          f"{len({r['round'] for r in rows})} rounds"
          + (f" (left out: those with a run of more than {args.max_other_cpu:g} s of other "
             f"CPU)" if args.max_other_cpu is not None else "") + "\n")
    print(tables(kept, ns, arms))
    return 0


def main():
    if "--retable" in sys.argv:
        ap = argparse.ArgumentParser(description=retable.__doc__)
        ap.add_argument("--retable", nargs="+", required=True, metavar="RESULTS")
        ap.add_argument("--max-other-cpu", type=float, metavar="S")
        return retable(ap.parse_args())
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--systrace", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--patch", default="safe")
    ap.add_argument("--ns", default="1,2,4,8")
    ap.add_argument("--m", type=int, default=200)
    ap.add_argument("--k", type=int, default=2000)
    ap.add_argument("--k0", type=int, default=1000)
    ap.add_argument("--gap-us", type=float, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--no-strace", action="store_true")
    ap.add_argument("--free-arm", action="store_true")
    ap.add_argument("--results", required=True)
    args = ap.parse_args()
    ns = [0] + [int(x) for x in args.ns.replace(",", " ").split() if int(x) > 0]
    arms = (["native", "systrace"] + (["free"] if args.free_arm else [])
            + ([] if args.no_strace else ["strace"]))

    started = time.strftime("%a %b %d %H:%M:%S %Z %Y")
    with measure.RawResults(args.results, FIELDS) as raw:
        with open(os.path.join(args.results, "scaling.log"), "a") as log:
            for rnd in range(args.rounds):
                nshift = rnd % len(ns)
                for i, n in enumerate(ns[nshift:] + ns[:nshift]):
                    shift = (rnd + i) % len(arms)
                    order = arms[shift:] + arms[:shift]
                    for slot, arm in enumerate(order):
                        outdir = tempfile.mkdtemp(prefix="out-", dir=raw.scratch)
                        probe_out = os.path.join(raw.scratch, "probe.csv")
                        row = {"round": rnd + 1, "slot": slot + 1, "n": n, "arm": arm}
                        row.update(measure.run_once(arm_argv(arm, n, args, outdir, probe_out),
                                                    raw.scratch, log, args.timeout))
                        probe = read_probe(probe_out)
                        if os.path.exists(probe_out):
                            os.unlink(probe_out)
                        row.update({"probe_" + k: probe.get(k) for k in PROBE_KEYS})
                        images = images_of(n, args.m)
                        wall = num(probe, "wall_ns")
                        row["images"] = images
                        if wall:
                            row["loop_wall_s"] = f"{wall / 1e9:.4f}"
                            row["images_per_s"] = f"{images * 1e9 / wall:.1f}" if n else ""
                        if arm in SYSTRACE_ARMS:
                            summary = measure.read_summary(outdir)
                            row.update({"summary_" + k: summary.get(k) for k in SUMMARY_KEYS})
                            if n == max(ns):
                                measure.keep_output(outdir, os.path.join(
                                    args.results, f"{arm}-out-n{n}"))
                        shutil.rmtree(outdir, ignore_errors=True)
                        raw.add(row)
                        warn = "" if row["status"] == "0" else "  <-- FAILED"
                        print(f"   round {rnd + 1}/{args.rounds} N={n} {arm:8} "
                              f"{row['wall_s']:>8} s  images/s {row.get('images_per_s') or '-':>8}"
                              f"  status {row['status']}{warn}", file=sys.stderr)

    rows = [{k: str(v) if v is not None else "" for k, v in r.items()} for r in raw.rows]
    text = (f"scaling: {started} to {time.strftime('%H:%M:%S %Z')}, rounds {args.rounds}, "
            f"N {','.join(map(str, ns[1:]))}, M {args.m}, probe K {args.k} (N=0: "
            f"{args.k0}), mean gap {args.gap_us:g} us, systrace --patch={args.patch}"
            + (", free: systrace with the loops' affinity their own (stop_probe -a)"
               if args.free_arm else "") + "\n\n" + tables(rows, ns, arms))
    with open(os.path.join(args.results, "table.md"), "w") as f:
        f.write(text)
    print(text)
    print(f"raw results: {raw.path}")
    return 1 if any(r["status"] != "0" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
