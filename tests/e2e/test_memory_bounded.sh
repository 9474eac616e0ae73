#!/bin/sh
# systrace's memory does not grow with the length of the run: its peak RSS (plain
# build, --patch=off, every syscall a ptrace stop) for a run 10 times longer stays
# within 10% of the shorter run's:
#   getppid_loop 100000 vs 1000000 (syscalls: 1 byte kept per stop would be 13% of
#   the tracer's 6.7 MB),
#   fork_loop 800 exec vs 8000 exec (processes and images, one after another).
# The shorter run of images is past the tracer's start-up growth (its tables and
# heap reach their steady size within some 400-800 images: 6.7 MB at 200, 7.1 MB
# from 800 to 8000 on), which would otherwise take most of the 10%; what follows
# the live images, those waiting for the writer thread, is bounded by
# tracer/offload.c (MAX_WAITING), whatever the length.
# Measured two ways: /usr/bin/time's maximum resident set (of systrace and the
# programs it waited for, which are far smaller) and summary.csv's tracer_maxrss_kb.
# (/usr/bin/time measures `timeout systrace ...`; timeout itself is smaller still.)
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR
# (a hang's bound, not a measure: fork_loop 8000 exec took more than 150 s beside a
# CPU hog, the stress runs and the other e2e lane)
RUN_TIMEOUT=600

# peak NAME CMD...: sets PEAK_TIME (KiB, /usr/bin/time) and PEAK_SELF (KiB, summary.csv)
peak() {
	name=$1
	shift
	PEAK_TIME='' PEAK_SELF=''
	/usr/bin/time -f 'maxrss_kb=%M' -o "$T/$name.time" \
		timeout --foreground -k 10 "$RUN_TIMEOUT" "$SYSTRACE_PLAIN" --patch=off -o "$T/$name" -- "$@" >"$T/$name.out" 2>"$T/$name.err"
	st=$?
	if [ "$st" -ne 0 ]; then
		check_problem "$name: systrace -- $* exited $st"
		sed 's/^/    | /' "$T/$name.err" | head -20
		return 1
	fi
	PEAK_TIME=$(sed -n 's/^maxrss_kb=//p' "$T/$name.time")
	PEAK_SELF=$(summary_value "$T/$name" tracer_maxrss_kb)
	echo "$name: /usr/bin/time ${PEAK_TIME} KiB, tracer_maxrss_kb ${PEAK_SELF} KiB"
	[ -n "$PEAK_TIME" ] || { check_problem "$name: no maxrss from /usr/bin/time"; return 1; }
	[ -n "$PEAK_SELF" ] || { check_problem "$name: summary.csv has no tracer_maxrss_kb"; return 1; }
	return 0
}

# within10 WHAT SMALL LARGE: LARGE <= SMALL * 1.10
within10() {
	if [ "$3" -gt $(($2 * 110 / 100)) ]; then
		check_problem "$1: peak RSS grew from $2 KiB to $3 KiB (more than 10%) for a run 10x longer"
	else
		echo "ok   $1: $2 KiB -> $3 KiB"
	fi
}

if peak syscalls_small "$P/getppid_loop" 100000; then
	small_time=$PEAK_TIME small_self=$PEAK_SELF
	if peak syscalls_large "$P/getppid_loop" 1000000; then
		expect_count "$T/syscalls_large" x86_64 getppid 1000000 "getppid_loop 1000000"
		within10 "syscalls (/usr/bin/time)" "$small_time" "$PEAK_TIME"
		within10 "syscalls (tracer_maxrss_kb)" "$small_self" "$PEAK_SELF"
	fi
fi

if peak procs_small "$P/fork_loop" 800 exec; then
	small_time=$PEAK_TIME small_self=$PEAK_SELF
	if peak procs_large "$P/fork_loop" 8000 exec; then
		rows=$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1], newline=""))))' "$T/procs_large/processes.csv")
		[ "$rows" -eq 16001 ] || check_problem "fork_loop 8000 exec: processes.csv has $rows rows, expected 16001 (root + 8000 x (fork image + exec image))"
		within10 "processes (/usr/bin/time)" "$small_time" "$PEAK_TIME"
		within10 "processes (tracer_maxrss_kb)" "$small_self" "$PEAK_SELF"
	fi
fi

finish
