#!/bin/sh
# The CSV files of one run agree with each other (--patch=off):
#  - summary.csv has every key; each total equals the sum of its processes.csv column
#    (syscalls, early, ptraced, inprocess, instrument_syscalls, forks, vforks, threads,
#    execs, exits, sites, sites_patched, sites_unpatchable, ptrace_stops and its
#    split ptrace_stops_lifecycle/_early/_late) and processes equals the number of rows;
#  - per row: syscalls = ptraced + inprocess, early <= syscalls, stops_lifecycle +
#    stops_early + stops_late = ptrace_stops (and in the totals), and with --patch=off
#    inprocess = 0, nothing patched, ptrace_stops >= ptraced, stops_late = 0 (no
#    library is ever ready: a stop that is not lifecycle is early);
#  - per (pid, image): the calls of syscalls.csv and the ptraced + inprocess of
#    sites.csv sum to the row's syscalls, syscalls.csv's ptraced and inprocess to
#    the row's (ptraced + inprocess = calls in each of its rows, and with
#    --patch=off inprocess = 0), and per syscall the ptraced calls at its sites are
#    syscalls.csv's (fewer only where a site saw several numbers, `?`);
#    (pid, image, start_ns) is unique;
#  - an image that ended in exec is followed by the next image of its pid;
#  - --show-perf-stats prints `key: value` for every summary key (equal to
#    summary.csv), percentage pairs that add up to 100.00%, and the stops per
#    process (all, lifecycle, early, late: the totals over the rows);
#  - the totals that each program fixes by construction (processes, forks, vforks,
#    threads) are exact.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS

# check_run NAME PROCESSES FORKS VFORKS THREADS CMD...
check_run() {
	name=$1 procs=$2 forks=$3 vforks=$4 threads=$5
	shift 5
	echo "== $name: $*"
	ST_OPTS=--show-perf-stats st_run "$TMPDIR/$name" "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$name: systrace exited $ST_STATUS, the program exits 0"
		st_show_err "$TMPDIR/$name"
		return
	fi
	csvtool consistency "$TMPDIR/$name" || check_problem "$name: the CSV files disagree (above)"
	csvtool perfstats "$TMPDIR/$name" "$TMPDIR/$name.err" || check_problem "$name: --show-perf-stats (above)"
	[ "$procs" = - ] && return
	python3 - "$TMPDIR/$name" "$procs" "$forks" "$vforks" "$threads" <<'PY' || check_problem "$name: totals (above)"
import sys
sys.path.insert(0, __import__("os").environ["E2E_DIR"])
import csvtool
d = sys.argv[1]
s = csvtool.load_summary(d)
bad = 0
for key, want in zip(("processes", "forks", "vforks", "threads"), sys.argv[2:]):
    if s[key] != int(want):
        print(f"FAIL: summary {key} = {s[key]}, the program makes {want}")
        bad = 1
sys.exit(bad)
PY
}
export E2E_DIR

check_run fork_tree 15 14 0 0 "$P/fork_tree"
check_run threads 1 0 0 8 "$P/threads"
check_run vfork_exec 5 0 3 0 "$P/vfork_exec"
check_run signals 3 2 0 0 "$P/signals"
check_run exec_from_thread 2 0 0 1 "$P/exec_from_thread"
check_run clone_vm 2 1 0 0 "$P/clone_vm"
check_run closefds_noenv 2 0 0 0 "$P/closefds_noenv"
# a mixed tree under a shell: only the cross-file invariants
check_run shell_mix - - - - /bin/sh -c "$P/fork_tree && $P/threads && $P/vfork_exec & $P/exec_from_thread; $P/signals; wait"

finish
