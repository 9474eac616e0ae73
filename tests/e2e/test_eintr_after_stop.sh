#!/bin/sh
# A call the kernel resumed with restart_syscall, then made return EINTR by a
# handler, has its error counted as its own (tests/programs/eintr_after_stop.c):
# three children each sleep, are stopped (SIGSTOP) and continued (the kernel enters
# restart_syscall in the sleep's place), then interrupted by a caught SIGUSR1; the
# first child's sleep is ptraced, the others' in-process (the parent's polls
# patched the site). In the default mode, with --patch=off and with --log: exit 0,
# clock_nanosleep has 3 errors in syscalls.csv (the parent's polls make none), and
# the files agree (processes.csv's errors are its syscalls.csv rows' sum and its
# sites.csv rows'). Before, the error went to restart_syscall, which has no calls
# and so no syscalls.csv row: CPython's test_threadsignals under make check-real
# showed an image whose sites.csv errors were one more than its syscalls.csv's.
# (strace -f -c counts restart_syscall as a call of its own: not compared.)
. "$(dirname "$0")/lib.sh"
T=$TMPDIR

for mode in default off log; do
	name=eintr-$mode
	echo "== $name"
	# (the program exits 0 when each sleep returned EINTR)
	if [ $mode = log ]; then
		ST_OPTS=--log st_run_ok default "$name" "$T/$name" "$PROGRAMS/eintr_after_stop" 3 || continue
	else
		st_run_ok $mode "$name" "$T/$name" "$PROGRAMS/eintr_after_stop" 3 || continue
	fi
	_any=--any-mode
	[ $mode = off ] && _any=
	# shellcheck disable=SC2086
	csvtool consistency "$T/$name" $_any || check_problem "$name: the files disagree"
	got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["syscall"] == "clock_nanosleep" { e += $c["errors"] } END { print e + 0 }' "$T/$name/syscalls.csv")
	[ "$got" = 3 ] || check_problem "$name: clock_nanosleep errors $got, 3 by construction"
done
finish
