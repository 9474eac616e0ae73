#!/bin/sh
# Stress of the in-process path: runs the programs whose hazards are races (threads
# at a site being patched, readers blocked in it, forks and vforks and clones of
# patched processes, handlers at the interrupted site, the first call at a site)
# many times under the plain build, and checks each run: exit status 0 (the programs
# check themselves) and the syscall counts they make by construction, in total, per
# site and per image. Prints "PROGRAM (MODE): N of M runs clean" per program and mode.
#
# With STRESS_TWICE=1 each run is one systrace run of the program twice in a row,
# `sh -c '"$0" "$@" && "$0" "$@"' PROGRAM ARGS`: its second process has the loader's
# sites patched at exec (tracer/early.c) and the program's sites written at its
# library's READY, before main ("patched at start"). The same checks hold for each of
# the two processes (each with its own children; the shell's rows left out), and
# both exit 0. Prints "PROGRAM (MODE, twice): N of M runs clean"; and, when in some
# clean runs those paths were not taken (the second process wrote no patch known
# from the first, or a process had no loader call in-process), how many.
#
#   sh tests/stress.sh [BUILD] [RUNS] [MODES] [PROGRAMS]
#     BUILD     the build folder (default build: BUILD/systrace, BUILD/tests/programs)
#     RUNS      runs per program and mode (default 200)
#     MODES     space-separated --patch modes (default "safe"; "safe unsafe" to compare)
#     PROGRAMS  space-separated subset (default: all below)
#
# Meant to run in the background while other work goes on: one run at a time, at
# nice 10 (its tracer's serving thread too: --tracer-nice=0), no timing assumption (each run is only bounded by STRESS_TIMEOUT, default
# 300 s, to catch hangs). The folders of failed runs are kept (their path is printed);
# exits 1 when any run failed.
BUILD=${1:-build}
RUNS=${2:-200}
MODES=${3:-safe}
ONLY=${4:-}
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "stress.sh: no build folder '${1:-build}'" >&2; exit 2; }
SYSTRACE=$BUILD/systrace
PROGRAMS=$BUILD/tests/programs
: "${STRESS_TIMEOUT:=300}"
[ -x "$SYSTRACE" ] || { echo "stress.sh: $SYSTRACE is missing (make build/systrace)" >&2; exit 2; }

# name and arguments; the expected counts are in check() below, by name
ALL="race_threads blocked_threads fork_threads clone_stack vfork_patched vfork_signals sigsys first_call unmap_self"
args_of() {
	case $1 in
	race_threads) echo "8 2000" ;;
	blocked_threads) echo "2000" ;;
	fork_threads) echo "4 3000" ;;
	clone_stack) echo "2000" ;;
	vfork_patched) echo "2000" ;;
	vfork_signals) echo "100" ;;
	sigsys) echo "20000 300" ;;
	first_call) echo "" ;;
	unmap_self) echo "200" ;;
	esac
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/systrace-stress.XXXXXX") || exit 2
CHECKER=$scratch/check.py
cat >"$CHECKER" <<'PY'
"""check.py E2E_DIR RUN_DIR PROGRAM [PROGRAM_PATH]: the counts PROGRAM makes by
construction (with the arguments stress.sh gives it); prints the first differences,
exits 1 on any. With PROGRAM_PATH (STRESS_TWICE: the run was a shell running the
program twice), the same for each top-level process of the program (the images of
PROGRAM_PATH the shell started, each with its descendants), the shell's rows left out;
both must exit 0. A clean twice run prints, if any, `not exercised: ...` (exit 0)."""
import collections
import os
import sys
sys.path.insert(0, sys.argv[1])
import csvtool

d, prog = sys.argv[2], sys.argv[3]
twice = len(sys.argv) > 4
# syscall name -> total calls
TOTALS = {
    "race_threads": {"getppid": 32001, "clone3": 8, "exit": 8},
    "blocked_threads": {"write": 9, "getppid": 3, "rt_sigreturn": 3, "tgkill": 3, "clone3": 9},
    "fork_threads": {"getppid": 27667, "fork": 1, "clone": 2, "wait4": 3},
    "clone_stack": {"getppid": 11029, "clone": 4, "clone3": 3, "wait4": 4},
    "vfork_patched": {"getppid": 18601, "vfork": 4, "wait4": 4},
    "vfork_signals": {"vfork": 200, "kill": 100, "getppid": 100, "wait4": 200, "rt_sigreturn": 100},
    "sigsys": {"getppid": 20001, "getpid": 601, "write": 600, "rt_sigreturn": 600, "tgkill": 300,
               "setitimer": 300},
    "first_call": {"getppid": 6, "getpid": 4},
    "unmap_self": {"getppid": 2001, "clone": 200, "exit": 200},
}
# calls of one syscall per image, sorted
ROWS = {
    "fork_threads": ("getppid", [1111, 1222, 1333, 24001]),
    "clone_stack": ("getppid", [1002, 1004, 1006, 1007, 7010]),
    "vfork_patched": ("getppid", [1500, 1600, 1700, 1800, 12001]),
}
# calls at sites: filters -> calls
SITES = {
    "race_threads": [({"symbol": "race_site"}, 16000), ({"symbol": "getppid", "object": "libc.so"}, 16000)],
    "blocked_threads": [({"symbol": "before_read"}, 2001), ({"symbol": "after_read"}, 2003),
                        ({"object": "libc.so", "syscall": "read"}, 2005)],
    "vfork_signals": [({"symbol": "pop_vfork"}, 100), ({"symbol": "__vfork"}, 100)],
}


def program_groups(procs):
    """STRESS_TWICE: [(label, top row, set of (pid, image))] for each top-level process
    of the program, oldest first: an image of the program whose parent is the shell
    (the run's root), or the shell itself after an execve; each with every image
    descending from it (children by ppid, later images of a pid by its earlier one).
    Rows of no group must be the shell's own."""
    exe = os.path.realpath(sys.argv[4])
    pids = {p["pid"] for p in procs}
    roots = [p for p in procs if p["ppid"] not in pids]
    if len(roots) != 1:
        raise csvtool.CheckError(f"expected one root process (the shell), found {len(roots)}")
    root = roots[0]
    key = lambda p: (p["pid"], p["image"], p["start_ns"])
    tops = sorted((p for p in procs if p["exe"] == exe and p is not root and
                   (p["ppid"] == root["pid"] or p["pid"] == root["pid"])), key=lambda p: int(p["start_ns"]))
    if len(tops) != 2:
        raise csvtool.CheckError(f"expected 2 top-level processes of {exe} under the shell, found "
                                 + str([(p["pid"], p["image"], p["exe"]) for p in tops]))
    by_pid = collections.defaultdict(list)
    for p in procs:
        by_pid[p["pid"]].append(p)
    top_of = {key(t): i for i, t in enumerate(tops)}
    owner = {}

    def creator(p):
        # the image of pid that started last before p: p's own earlier image, or its parent's
        pid = p["pid"] if int(p["image"]) > 0 else p["ppid"]
        before = [q for q in by_pid.get(pid, []) if q is not p and int(q["start_ns"]) <= int(p["start_ns"])
                  and (pid != p["pid"] or int(q["image"]) < int(p["image"]))]
        return max(before, key=lambda q: int(q["start_ns"])) if before else None

    def owner_of(p):
        k = key(p)
        if k not in owner:
            if k in top_of:
                owner[k] = top_of[k]
            elif p is root:
                owner[k] = None
            else:
                c = creator(p)
                if c is None:
                    raise csvtool.CheckError(f"pid {p['pid']} image {p['image']}: no creator among the rows")
                owner[k] = owner_of(c)
        return owner[k]

    groups = [set() for _ in tops]
    for p in procs:
        o = owner_of(p)
        if o is None:
            if p["exe"] != root["exe"]:
                raise csvtool.CheckError(f"pid {p['pid']} image {p['image']} ({p['exe']}) is neither the shell's "
                                         "nor under a process of the program")
        else:
            groups[o].add((p["pid"], p["image"]))
    if groups[0] & groups[1] or any((p["pid"], p["image"]) in groups[0] | groups[1]
                                    for p in procs if owner_of(p) is None):
        raise csvtool.CheckError("a (pid, image) is in two processes' trees (pid reused): cannot attribute its rows")
    return [(f"process {i + 1} of 2 (pid {t['pid']})", t, g) for i, (t, g) in enumerate(zip(tops, groups))]


def check(label, keys, syscalls, sites, problems):
    """The counts by construction over the images in keys (None: every image)."""
    mine = lambda r: keys is None or (r["pid"], r["image"]) in keys
    got = collections.Counter()
    per_image = collections.Counter()
    name = ROWS[prog][0] if prog in ROWS else None
    for r in syscalls:
        if mine(r) and csvtool.row_abi(r) == "x86_64":
            got[r["syscall"]] += int(r["calls"])
            if r["syscall"] == name:
                per_image[(r["pid"], r["image"])] += int(r["calls"])
    for sc, n in TOTALS.get(prog, {}).items():
        if got.get(sc, 0) != n:
            problems.append(f"{label}{sc}: {got.get(sc, 0)} calls, {n} by construction")
    if prog in ROWS:
        rows = sorted(n for n in per_image.values() if n)
        if rows != ROWS[prog][1]:
            problems.append(f"{label}{name} per image: {rows}, {ROWS[prog][1]} by construction")
    for filters, n in SITES.get(prog, []):
        rows = [r for r in sites if mine(r)
                and ("symbol" not in filters or csvtool.symbol_matches(r["symbol"], filters["symbol"]))
                and ("object" not in filters or filters["object"] in r["object"])
                and ("syscall" not in filters or r["syscall"] == filters["syscall"])]
        total = sum(int(r["ptraced"]) + int(r["inprocess"]) for r in rows)
        if total != n:
            problems.append(f"{label}sites {filters}: {total} calls, {n} by construction: "
                            + "; ".join(csvtool.describe_site(r) for r in rows))


problems = []
notes = []
try:
    syscalls = csvtool.load_syscalls(d)
    sites = csvtool.load_sites(d)
    if not twice:
        check("", None, syscalls, sites, problems)
    else:
        for label, top, keys in program_groups(csvtool.load_processes(d)):
            if top["exit"] != "exit:0":
                problems.append(f"{label}: {top['exit']}")
            check(label + ": ", keys, syscalls, sites, problems)
            loader = sum(int(r["inprocess"]) for r in sites
                         if (r["pid"], r["image"]) == (top["pid"], top["image"]) and "ld-linux" in r["object"])
            if loader == 0:
                notes.append(f"{label}: no loader call in-process")
            if label.startswith("process 2") and int(top.get("patches_known") or 0) == 0:
                notes.append(f"{label}: no patch known from the first (patches_known 0)")
    problems += csvtool.check_consistency(d, patch_off=False)
except csvtool.CheckError as e:
    problems.append(str(e))
for p in problems[:6]:
    print(p)
if notes and not problems:
    print("not exercised: " + "; ".join(notes))
sys.exit(1 if problems else 0)
PY

LC_ALL=C
export LC_ALL
# STRESS_TWICE: the command is a shell that runs the program twice (the positional
# parameters are free now: they go before the program's path)
twice=
set --
if [ "${STRESS_TWICE:-0}" = 1 ]; then
	twice=", twice"
	# shellcheck disable=SC2016 # the child shell expands them
	set -- sh -c '"$0" "$@" && "$0" "$@"'
fi
total_bad=0
for mode in $MODES; do
	for prog in ${ONLY:-$ALL}; do
		[ -x "$PROGRAMS/$prog" ] || { echo "$prog: $PROGRAMS/$prog is missing (make programs)"; total_bad=$((total_bad + 1)); continue; }
		clean=0
		shown=0
		unexercised=0
		i=0
		while [ "$i" -lt "$RUNS" ]; do
			i=$((i + 1))
			d=$scratch/$prog-$mode${twice:+-twice}-$i
			# shellcheck disable=SC2046 # the arguments are words
			nice -n 10 timeout -k 10 "$STRESS_TIMEOUT" "$SYSTRACE" --patch="$mode" --tracer-nice=0 -o "$d" -- \
				"$@" "$PROGRAMS/$prog" $(args_of "$prog") >"$d.out" 2>"$d.err"
			status=$?
			why=
			if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
				why="timed out after ${STRESS_TIMEOUT}s (a hang)"
			elif [ "$status" -ne 0 ]; then
				why="exit status $status: $(grep -v '^systrace: note' "$d.err" | head -2 | tr '\n' ' ')"
			else
				if why=$(python3 "$CHECKER" "$HERE/e2e" "$d" "$prog" ${twice:+"$PROGRAMS/$prog"} 2>&1); then
					if [ -n "$why" ]; then
						unexercised=$((unexercised + 1))
						[ "$unexercised" -gt 1 ] || echo "  $prog (--patch=$mode$twice) run $i: $why" | cut -c1-600
					fi
					why=
				else
					why="counts: $(printf '%s' "$why" | tr '\n' ';')"
				fi
			fi
			if [ -z "$why" ]; then
				clean=$((clean + 1))
				rm -rf "$d" "$d.out" "$d.err"
			else
				total_bad=$((total_bad + 1))
				if [ "$shown" -lt 3 ]; then
					echo "  $prog (--patch=$mode$twice) run $i: $why" | cut -c1-600
					echo "    (kept: $d)"
				fi
				shown=$((shown + 1))
			fi
		done
		echo "$prog (--patch=$mode$twice): $clean of $RUNS runs clean"
		[ "$unexercised" -eq 0 ] || echo "  ($prog: in $unexercised of the clean runs the paths were not all exercised)"
	done
done
if [ "$total_bad" -eq 0 ]; then
	rm -rf "$scratch"
	exit 0
fi
echo "(failed runs are in $scratch)"
exit 1
