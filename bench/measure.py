#!/usr/bin/env python3
"""Interleaved wall-time comparison: native, systrace, strace -f -c and,
with --variant-arm OPTION, systrace with that option too (--prepatch, --log, --time), or
with --baseline SYSTRACE, another systrace build with the same --patch (before and
after a change, in the same rounds).

Called by bench/run.sh, which prepares the workloads. Each round runs the
arms of a workload back to back, in an order that rotates from round to
round. Writes raw.csv (one row per run) and table.md (medians and ratios,
then bench/stops.py on the last systrace output of each workload) into
--results, and prints the table.
"""
import argparse
import csv
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

ARMS = ["native", "systrace", "strace"]
# optional fourth arm: systrace --patch=MODE with one more option (--variant-arm),
# named after it: prepatch, log; or another systrace (--baseline), arm baseline
VARIANT = {"option": "--prepatch", "arm": "prepatch", "binary": None}


def traced_arms():
    """the arms that write systrace's output"""
    return ("systrace", VARIANT["arm"])
# Copied from summary.csv into raw.csv; a key this systrace does not write is empty.
SUMMARY_KEYS = ["syscalls", "processes", "execs", "ptrace_stops", "syscalls_ptraced",
                "syscalls_inprocess", "tracer_cpu_ns", "tracer_maxrss_kb",
                "syscalls_early", "ptrace_stops_lifecycle", "ptrace_stops_early",
                "ptrace_stops_late", "patches_written", "patches_known",
                "patches_not_amortized", "stop_cost_ns", "inprocess_cost_ns",
                "saving_per_call_ns"]
STOP_SPLIT = [("lifecycle", "ptrace_stops_lifecycle"), ("early", "ptrace_stops_early"),
              ("late", "ptrace_stops_late")]
FIELDS = ["workload", "round", "slot", "arm", "wall_s", "status", "user_s",
          "sys_s", "other_cpu_s", "tracer_hwm_kb"] + SUMMARY_KEYS
TICK = os.sysconf("SC_CLK_TCK")


def busy_cpu_s():
    """CPU seconds all CPUs spent busy since boot (everything but idle and iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / TICK


def workloads(args):
    """name -> (argv, needs a fresh empty working folder per run)"""
    spawn = "i=0; while [ $i -lt 500 ]; do /bin/true; i=$((i+1)); done"
    configure = shlex.quote(os.path.join(args.libiberty_src, "libiberty", "configure"))
    return {
        "libiberty": (["sh", "-c", f"{configure} >/dev/null && make -j2 >/dev/null"], True),
        "spawn": (["sh", "-c", spawn], False),
        "getppid": ([args.getppid, str(args.getppid_n)], False),
    }


def arm_argv(arm, argv, args, outdir):
    if arm == "systrace":
        return [args.systrace, f"--patch={args.patch}", "-o", outdir, "--"] + argv
    if arm == VARIANT["arm"]:
        option = [VARIANT["option"]] if VARIANT["option"] else []
        return ([VARIANT["binary"] or args.systrace, f"--patch={args.patch}"] + option
                + ["-o", outdir, "--"] + argv)
    if arm == "strace":
        return ["strace", "-f", "-c", "-o", "/dev/null"] + argv
    return argv


class HwmWatcher(threading.Thread):
    """Polls VmHWM (peak RSS) of one process, the tracer itself, not its
    children (wait4's ru_maxrss would be the largest process of the tree, or
    this script's own size inherited through fork).
    Holding /proc/PID open ties the reads to that process even if the pid
    is reused after it is reaped."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.hwm_kb = None
        self.stop = threading.Event()
        try:
            self.dirfd = os.open(f"/proc/{pid}", os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            self.dirfd = None

    def run(self):
        while self.dirfd is not None and not self.stop.is_set():
            try:
                fd = os.open("status", os.O_RDONLY, dir_fd=self.dirfd)
                try:
                    text = os.read(fd, 8192).decode()
                finally:
                    os.close(fd)
            except OSError:
                break
            for line in text.splitlines():
                if line.startswith("VmHWM:"):
                    self.hwm_kb = int(line.split()[1])
            self.stop.wait(0.05)

    def finish(self):
        self.stop.set()
        self.join()
        if self.dirfd is not None:
            os.close(self.dirfd)


def run_once(argv, cwd, log, timeout):
    log.write(f"\n### {shlex.join(argv)}  (cwd {cwd})\n")
    log.flush()
    busy0 = busy_cpu_s()
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log,
                            stderr=log, start_new_session=True)
    watcher = HwmWatcher(proc.pid)
    watcher.start()
    timed_out = threading.Event()

    def kill():
        timed_out.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass

    timer = threading.Timer(timeout, kill)
    timer.start()
    _, wstatus, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    # CPU used meanwhile by anything outside the measured tree: other
    # processes competing for the 2 CPUs make a run unreliable.
    other = busy_cpu_s() - busy0 - ru.ru_utime - ru.ru_stime
    timer.cancel()
    proc.returncode = 0  # reaped by wait4 above
    watcher.finish()
    if timed_out.is_set():
        status = "timeout"
    elif os.WIFSIGNALED(wstatus):
        status = str(128 + os.WTERMSIG(wstatus))
    else:
        status = str(os.WEXITSTATUS(wstatus))
    return {"wall_s": f"{wall:.3f}", "status": status,
            "user_s": f"{ru.ru_utime:.3f}", "sys_s": f"{ru.ru_stime:.3f}",
            "other_cpu_s": f"{max(other, 0):.2f}",
            "tracer_hwm_kb": watcher.hwm_kb}


def read_summary(outdir):
    try:
        with open(os.path.join(outdir, "summary.csv"), newline="") as f:
            return {row["metric"]: row["value"] for row in csv.DictReader(f)}
    except (OSError, KeyError):
        return {}


class RawResults:
    """One row per run in RESULTS/raw.csv, written (and flushed) as each run ends,
    and a scratch folder in RESULTS for the runs' working and output folders, removed
    at the end (kept when the runs end in an exception)."""

    def __init__(self, results, fields):
        os.makedirs(results, exist_ok=True)
        self.scratch = tempfile.mkdtemp(prefix="scratch-", dir=results)
        self.rows = []
        self.path = os.path.join(results, "raw.csv")
        self._file = open(self.path, "w", newline="")
        self._writer = csv.DictWriter(self._file, fieldnames=fields)
        self._writer.writeheader()

    def add(self, row):
        self.rows.append(row)
        self._writer.writerow(row)
        self._file.flush()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *_):
        self._file.close()
        if exc_type is None:
            shutil.rmtree(self.scratch, ignore_errors=True)


def keep_output(outdir, kept):
    """Moves a run's systrace output folder to kept, in place of an earlier run's."""
    shutil.rmtree(kept, ignore_errors=True)
    shutil.move(outdir, kept)


def median(values):
    values = [float(v) for v in values if v not in (None, "")]
    return statistics.median(values) if values else None


def fmt(value, spec, suffix=""):
    return "n/a" if value is None else format(value, spec) + suffix


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def arms_of(rows):
    """The arms in rows: the three, and the variant when it ran."""
    v = VARIANT["arm"]
    return ARMS + ([v] if any(r["arm"] == v for r in rows) else [])


def per_run(runs, num, den, scale=1.0):
    """Median over runs of num/den (summary keys), None where a key is missing."""
    values = []
    for r in runs:
        a, b = r.get(num, ""), r.get(den, "")
        if a not in (None, "") and b not in (None, "") and float(b) != 0:
            values.append(scale * float(a) / float(b))
    return median(values)


def table(rows, names):
    arms = arms_of(rows)
    v = VARIANT["arm"]
    pre = v in arms
    out = ["| workload | native s | systrace s | strace s |"
           + (f" {v} s |" if pre else "")
           + " systrace/native | strace/native | systrace/strace |"
           + (f" {v}/native | {v}/systrace |" if pre else "")
           + " syscalls | processes |",
           "|---|---:|---:|---:|" + ("---:|" if pre else "") + "---:|---:|---:|"
           + ("---:|---:|" if pre else "") + "---:|---:|"]
    detail = ["| workload | arm | ok runs | median s | min s | max s "
              "| tracer peak RSS MiB | tree CPU s (user+sys) | other CPU s (max) |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    traced = [a for a in traced_arms() if a in arms]
    ok_rows = [r for r in rows if r["arm"] in traced and r["status"] == "0"]
    split = [(label, key) for label, key in STOP_SPLIT
             if any(r.get(key, "") not in (None, "") for r in ok_rows)]
    stops = ["| workload | arm | in-process | ptrace stops | stops/process |"
             + "".join(f" {label}/process |" for label, _ in split),
             "|---|---|---:|---:|---:|" + "---:|" * len(split)]
    for name in names:
        med = {}
        for arm in arms:
            runs = [r for r in rows if r["workload"] == name and r["arm"] == arm]
            ok = [r for r in runs if r["status"] == "0"]
            walls = [float(r["wall_s"]) for r in ok]
            med[arm] = median(walls)
            hwm = median([r["tracer_hwm_kb"] for r in ok]) if arm != "native" else None
            cpu = median([float(r["user_s"]) + float(r["sys_s"]) for r in ok])
            other = max((float(r["other_cpu_s"]) for r in runs), default=None)
            failed = len(runs) - len(ok)
            detail.append(
                f"| {name} | {arm} | {len(ok)}/{len(runs)}"
                + (f" ({failed} failed)" if failed else "")
                + f" | {fmt(med[arm], '.3f')} | {fmt(min(walls, default=None), '.3f')}"
                f" | {fmt(max(walls, default=None), '.3f')}"
                f" | {fmt(hwm and hwm / 1024, '.1f')} | {fmt(cpu, '.2f')}"
                f" | {fmt(other, '.2f')} |")
            if arm in traced:
                stops.append(
                    f"| {name} | {arm}"
                    f" | {fmt(per_run(ok, 'syscalls_inprocess', 'syscalls', 100), '.1f', '%')}"
                    f" | {fmt(median([r.get('ptrace_stops', '') for r in ok]), ',.0f')}"
                    f" | {fmt(per_run(ok, 'ptrace_stops', 'processes'), ',.1f')} |"
                    + "".join(f" {fmt(per_run(ok, key, 'processes'), ',.1f')} |"
                              for _, key in split))
        st = [r for r in rows if r["workload"] == name and r["arm"] == "systrace"
              and r["status"] == "0"]
        syscalls = median([r["syscalls"] for r in st])
        procs = median([r["processes"] for r in st])
        out.append(
            f"| {name} | {fmt(med['native'], '.3f')} | {fmt(med['systrace'], '.3f')}"
            f" | {fmt(med['strace'], '.3f')}"
            + (f" | {fmt(med[v], '.3f')}" if pre else "")
            + f" | {fmt(ratio(med['systrace'], med['native']), '.2f', 'x')}"
            f" | {fmt(ratio(med['strace'], med['native']), '.2f', 'x')}"
            f" | {fmt(ratio(med['systrace'], med['strace']), '.2f', 'x')}"
            + (f" | {fmt(ratio(med[v], med['native']), '.2f', 'x')}"
               f" | {fmt(ratio(med[v], med['systrace']), '.2f', 'x')}" if pre else "")
            + f" | {fmt(syscalls, ',.0f')} | {fmt(procs, ',.0f')} |")
    text = "\n".join(out) + "\n\n" + "\n".join(detail) + "\n"
    if len(stops) > 2:
        note = ("From systrace's summary.csv, medians over successful runs of each run's "
                "own value: in-process = syscalls_inprocess / syscalls; per process = the "
                "count / processes (process images)"
                + ("; lifecycle, early, late: ptrace_stops_lifecycle, ptrace_stops_early, "
                   "ptrace_stops_late (events and signals; syscall stops before and after "
                   "the image's library was ready)" if split else "") + ".")
        text += ("\n" + textwrap.fill(note, 88, break_on_hyphens=False) + "\n\n"
                 + "\n".join(stops) + "\n")
    return text


def stops_reports(results, names):
    """bench/stops.py on the kept systrace output of each workload and arm."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import stops  # noqa: E402
    parts = []
    for name in names:
        for arm in traced_arms():
            outdir = os.path.join(results, f"{arm}-out-{name}")
            if not os.path.isdir(outdir):
                continue
            try:
                text = stops.report(outdir)
            except Exception as e:  # a report must not lose the measurements
                text = f"stops.py failed: {e!r}\n"
            parts.append(f"\n## Where the stops come from: {name}, {arm} arm, last round\n\n"
                         f"`python3 bench/stops.py {outdir}`\n\n```\n{text}```\n")
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--systrace", required=True)
    ap.add_argument("--patch", default="off")
    ap.add_argument("--variant-arm", choices=["--prepatch", "--log", "--time"],
                    help="a fourth arm: systrace --patch=MODE with this option")
    ap.add_argument("--baseline", metavar="SYSTRACE",
                    help="a fourth arm: this other systrace build, --patch=MODE")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--results", required=True)
    ap.add_argument("--libiberty-src", default="")
    ap.add_argument("--getppid", default="")
    ap.add_argument("--getppid-n", type=int, default=200000)
    ap.add_argument("workload", nargs="+", choices=["libiberty", "spawn", "getppid"])
    args = ap.parse_args()
    if args.variant_arm == "--prepatch" and args.patch == "off":
        ap.error("--variant-arm=--prepatch needs patching on: --patch=safe, single or unsafe "
                 "(systrace refuses --prepatch with --patch=off)")
    if args.variant_arm and args.baseline:
        ap.error("--variant-arm and --baseline are both a fourth arm: one at a time")
    if args.variant_arm:
        VARIANT.update(option=args.variant_arm, arm=args.variant_arm.lstrip("-"))
    if args.baseline:
        VARIANT.update(option=None, arm="baseline", binary=args.baseline)
    fourth = bool(args.variant_arm or args.baseline)
    arms = ARMS + ([VARIANT["arm"]] if fourth else [])

    specs = workloads(args)
    with RawResults(args.results, FIELDS) as raw:
        for name in args.workload:
            argv, fresh = specs[name]
            print(f"== {name}: {shlex.join(argv)}", file=sys.stderr)
            with open(os.path.join(args.results, f"{name}.log"), "a") as log:
                for rnd in range(args.rounds):
                    shift = rnd % len(arms)
                    order = arms[shift:] + arms[:shift]
                    for slot, arm in enumerate(order):
                        cwd = tempfile.mkdtemp(dir=raw.scratch) if fresh else raw.scratch
                        outdir = tempfile.mkdtemp(prefix="out-", dir=raw.scratch)
                        row = {"workload": name, "round": rnd + 1, "slot": slot + 1,
                               "arm": arm}
                        row.update(run_once(arm_argv(arm, argv, args, outdir), cwd,
                                            log, args.timeout))
                        if arm in traced_arms():
                            summary = read_summary(outdir)
                            row.update({k: summary.get(k) for k in SUMMARY_KEYS})
                            keep_output(outdir, os.path.join(args.results,
                                                             f"{arm}-out-{name}"))
                        shutil.rmtree(outdir, ignore_errors=True)
                        if fresh:
                            shutil.rmtree(cwd, ignore_errors=True)
                        raw.add(row)
                        warn = "" if row["status"] == "0" else "  <-- FAILED"
                        print(f"   round {rnd + 1}/{args.rounds} {arm:8} "
                              f"{row['wall_s']:>9} s  status {row['status']}{warn}",
                              file=sys.stderr)

    rows = [{k: str(v) if v is not None else "" for k, v in r.items()} for r in raw.rows]
    text = (f"rounds: {args.rounds}, systrace --patch={args.patch}"
            + (f", {VARIANT['arm']}: systrace --patch={args.patch} {VARIANT['option']}"
               if args.variant_arm else "")
            + (f", baseline: {args.baseline} --patch={args.patch}" if args.baseline else "")
            + ", medians over successful runs, ratios of medians; \"other CPU\" is CPU "
            "time\nused during a run outside the measured process tree (noise from other "
            "work)\n\n" + table(rows, args.workload)
            + stops_reports(args.results, args.workload))
    with open(os.path.join(args.results, "table.md"), "w") as f:
        f.write(text)
    print(text)
    print(f"raw results: {raw.path}\nlogs and last systrace output "
          f"(systrace-out-WORKLOAD, {VARIANT['arm']}-out-WORKLOAD): {args.results}/")
    failed = [r for r in rows if r["status"] != "0"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
