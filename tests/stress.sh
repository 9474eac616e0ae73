#!/bin/sh
# Stress of the in-process path: runs the programs whose hazards are races (threads
# at a site being patched, readers blocked in it, forks and vforks and clones of
# patched processes, handlers at the interrupted site, the first call at a site)
# many times under the plain build, and checks each run: exit status 0 (the programs
# check themselves) and the syscall counts they make by construction, in total, per
# site and per image. Prints "PROGRAM (MODE): N of M runs clean" per program and mode.
#
#   sh tests/stress.sh [BUILD] [RUNS] [MODES] [PROGRAMS]
#     BUILD     the build folder (default build: BUILD/systrace, BUILD/tests/programs)
#     RUNS      runs per program and mode (default 200)
#     MODES     space-separated --patch modes (default "safe"; "safe unsafe" to compare)
#     PROGRAMS  space-separated subset (default: all below)
#
# Meant to run in the background while other work goes on: one run at a time, at
# nice 10, no timing assumption (each run is only bounded by STRESS_TIMEOUT, default
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
ALL="race_threads blocked_threads fork_threads clone_stack vfork_patched sigsys first_call unmap_self"
args_of() {
	case $1 in
	race_threads) echo "8 2000" ;;
	blocked_threads) echo "2000" ;;
	fork_threads) echo "4 3000" ;;
	clone_stack) echo "2000" ;;
	vfork_patched) echo "2000" ;;
	sigsys) echo "20000 300" ;;
	first_call) echo "" ;;
	unmap_self) echo "200" ;;
	esac
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/systrace-stress.XXXXXX") || exit 2
CHECKER=$scratch/check.py
cat >"$CHECKER" <<'PY'
"""check.py E2E_DIR RUN_DIR PROGRAM: the counts PROGRAM makes by construction (with
the arguments stress.sh gives it); prints the first differences, exits 1 on any."""
import sys
sys.path.insert(0, sys.argv[1])
import csvtool

d, prog = sys.argv[2], sys.argv[3]
# syscall name -> total calls
TOTALS = {
    "race_threads": {"getppid": 32001, "clone3": 8, "exit": 8},
    "blocked_threads": {"write": 9, "getppid": 3, "rt_sigreturn": 3, "tgkill": 3, "clone3": 9},
    "fork_threads": {"getppid": 27667, "fork": 1, "clone": 2, "wait4": 3},
    "clone_stack": {"getppid": 11029, "clone": 4, "clone3": 3, "wait4": 4},
    "vfork_patched": {"getppid": 18601, "vfork": 4, "wait4": 4},
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
}
problems = []
try:
    got = csvtool.systrace_counts(d)
    for name, n in TOTALS.get(prog, {}).items():
        if got.get(name, 0) != n:
            problems.append(f"{name}: {got.get(name, 0)} calls, {n} by construction")
    if prog in ROWS:
        name, want = ROWS[prog]
        rows = csvtool.row_counts(d, name)
        if rows != want:
            problems.append(f"{name} per image: {rows}, {want} by construction")
    sites = csvtool.load_sites(d) if prog in SITES else []
    for filters, n in SITES.get(prog, []):
        rows = [r for r in sites
                if ("symbol" not in filters or csvtool.symbol_matches(r["symbol"], filters["symbol"]))
                and ("object" not in filters or filters["object"] in r["object"])
                and ("syscall" not in filters or r["syscall"] == filters["syscall"])]
        total = sum(int(r["ptraced"]) + int(r["inprocess"]) for r in rows)
        if total != n:
            problems.append(f"sites {filters}: {total} calls, {n} by construction: "
                            + "; ".join(csvtool.describe_site(r) for r in rows))
    problems += csvtool.check_consistency(d, patch_off=False)
except csvtool.CheckError as e:
    problems.append(str(e))
for p in problems[:6]:
    print(p)
sys.exit(1 if problems else 0)
PY

LC_ALL=C
export LC_ALL
total_bad=0
for mode in $MODES; do
	for prog in ${ONLY:-$ALL}; do
		[ -x "$PROGRAMS/$prog" ] || { echo "$prog: $PROGRAMS/$prog is missing (make programs)"; total_bad=$((total_bad + 1)); continue; }
		clean=0
		shown=0
		i=0
		while [ "$i" -lt "$RUNS" ]; do
			i=$((i + 1))
			d=$scratch/$prog-$mode-$i
			# shellcheck disable=SC2046 # the arguments are words
			nice -n 10 timeout -k 10 "$STRESS_TIMEOUT" "$SYSTRACE" --patch="$mode" -o "$d" -- \
				"$PROGRAMS/$prog" $(args_of "$prog") >"$d.out" 2>"$d.err"
			status=$?
			why=
			if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
				why="timed out after ${STRESS_TIMEOUT}s (a hang)"
			elif [ "$status" -ne 0 ]; then
				why="exit status $status: $(grep -v '^systrace: note' "$d.err" | head -2 | tr '\n' ' ')"
			else
				if why=$(python3 "$CHECKER" "$HERE/e2e" "$d" "$prog" 2>&1); then
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
					echo "  $prog (--patch=$mode) run $i: $why" | cut -c1-600
					echo "    (kept: $d)"
				fi
				shown=$((shown + 1))
			fi
		done
		echo "$prog (--patch=$mode): $clean of $RUNS runs clean"
	done
done
if [ "$total_bad" -eq 0 ]; then
	rm -rf "$scratch"
	exit 0
fi
echo "(failed runs are in $scratch)"
exit 1
