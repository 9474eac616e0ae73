#!/usr/bin/env python3
"""Where the tracer's CPU time goes, by phase of a process image's life, from a
`perf record -e cpu-clock --call-graph dwarf -p <tracer pid>` of systrace
(bench/tracer_profile.sh makes one).

    python3 bench/tracer_phases.py perf.data [IMAGES]
    python3 bench/tracer_phases.py perf.data --under FUNCTION [DEPTH]

Each sample is put in the first phase (in the order of PHASES) that one of its
stack's functions belongs to; the rest of the event loop is "dispatch", and time in
waitpid is "waiting" (the tracer's own CPU spent getting there, not idle time: perf
samples cpu-clock only while the tracer runs). With IMAGES (processes in
summary.csv), each phase's share is also given per image in microseconds.
"""
import subprocess
import sys

# phase -> functions of tracer/ whose frames put a sample in it (first match wins)
PHASES = [
    ("exec set-up (early.c)", ["early_on_exec"]),
    ("region handout (region_handout.c)", ["handout_serve"]),
    ("control calls (--log's flush)", ["library_on_control"]),
    ("known-site writes", ["known_sites_write_planned", "known_sites_write_all",
                           "known_sites_write_object", "known_sites_write_at_ready"]),
    ("planning at a trap", ["site_plan", "patching_on_call"]),
    ("map walks, objects", ["objects_for_each_known", "objects_for_each_known_at",
                            "objects_begin", "objects_code_of", "proc_maps_open",
                            "proc_maps_gap_near", "image_name_sites"]),
    ("/proc reads", ["procfs_times", "cpu_times_of", "procfs_status_u64", "procfs_exe", "procfs_signal_caught",
                     "procfs_is_running", "image_take_times"]),
    ("exit accounting", ["thread_remove", "thread_detach", "image_end", "library_thread_ends",
                         "library_image_complete", "output_dir_image"]),
    ("new threads, processes", ["children_on_creator_event", "children_on_unknown_stop",
                                "library_thread_starts", "perf_counters_open"]),
    ("placement", ["placement_check", "placement_note_stop"]),
    ("waiting (waitpid)", ["__GI___wait4", "__wait4", "wait4"]),
    ("dispatch", ["events_run", "dispatch"]),
]


def samples(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F", "ip,sym"], capture_output=True,
                         text=True, check=True).stdout
    stack = []
    for line in out.splitlines():
        line = line.strip()
        if not line:
            if stack:
                yield stack
            stack = []
            continue
        parts = line.split(None, 1)
        if len(parts) == 2:
            stack.append(parts[1].split("+")[0])
    if stack:
        yield stack


def phase_of(stack):
    names = set(stack)
    for phase, funcs in PHASES:
        if names.intersection(funcs):
            return phase
    return "start-up and the rest"


def under(path, func, depth):
    counts = {}
    total = 0
    for st in samples(path):
        # stacks run from the leaf to the root
        if func not in st:
            continue
        i = st.index(func)
        callee = st[i - depth] if i - depth >= 0 else "(itself)"
        counts[callee] = counts.get(callee, 0) + 1
        total += 1
    for name, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{n:6d} {100.0 * n / total:5.1f}%  {name}")
    return 0


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if len(sys.argv) > 3 and sys.argv[2] == "--under":
        return under(sys.argv[1], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    images = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    counts = {}
    total = 0
    for st in samples(sys.argv[1]):
        p = phase_of(st)
        counts[p] = counts.get(p, 0) + 1
        total += 1
    # cpu-clock's default period: 250 us of CPU per sample at 4000 Hz
    period_us = 250.0
    print("| phase | samples | share |" + (" us per image |" if images else ""))
    print("|---|---:|---:|" + ("---:|" if images else ""))
    order = [p for p, _ in PHASES] + ["start-up and the rest"]
    for p in order:
        n = counts.get(p, 0)
        if not n:
            continue
        row = f"| {p} | {n} | {100.0 * n / total:.1f}% |"
        if images:
            row += f" {n * period_us / images:.1f} |"
        print(row)
    row = f"| all | {total} | 100% |"
    if images:
        row += f" {total * period_us / images:.1f} |"
    print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
