#!/bin/sh
# Errors for every call, on both paths (issue 15): tests/programs/errors makes calls
# that fail (ENOENT opens, EBADF closes, EAGAIN reads, a run-time-number close, and
# reads a signal interrupts: EINTR), each 100 times, the first at a site stopping in
# the tracer and the rest in-process. In the default mode, with --patch=off (every
# call ptraced) and with --log (results from the log), systrace's errors per syscall
# name equal `strace -f -c`'s exactly (and with --time, whose stubs call the time
# routine and test errors with the flags saved), and the files agree with each other:
# processes.csv's errors are the sum of the image's syscalls.csv rows, and so are
# its sites.csv rows'; summary.csv's the sum of processes.csv's. The ptraced calls'
# results are learned without a second stop each (the return pad, tracer/results.c),
# in the default mode and with --patch=off (which has the gate too, for the pad):
# they stop fewer times than the program has ptraced calls plus their exits.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

echo "== strace -f -c of the program alone"
timeout --foreground -k 10 "$RUN_TIMEOUT" strace -f -c -U name,calls,errors -o "$T/strace" -- \
	"$P/errors" 100 eintr >"$T/strace.out" 2>&1 || fail "errors exits non-zero under strace: a broken test program?"

for mode in default off log time; do
	name=errors-$mode
	echo "== $name"
	if [ $mode = log ] || [ $mode = time ]; then
		ST_OPTS=--$mode st_run_mode default "$T/$name" "$P/errors" 100 eintr
	else
		st_run_mode $mode "$T/$name" "$P/errors" 100 eintr
	fi
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$name: systrace exited $ST_STATUS (the program exits 0 when every call fails as it must)"
		st_show_err "$T/$name"
		continue
	fi
	# futex: pthread_join waits (EAGAIN) only if the thread has not quite ended
	csvtool compare-errors "$T/$name" "$T/strace" futex=? ||
		check_problem "$name: errors per syscall differ from strace -f -c"
	_any=--any-mode
	[ $mode = off ] && _any=
	# shellcheck disable=SC2086
	csvtool consistency "$T/$name" $_any || check_problem "$name: the files disagree"
	# by construction: 200 read errors (EAGAIN, EINTR), 200 close (both sites)
	for want in read=200 close=200 openat=100 rt_sigreturn=100; do
		got=$(awk -F, -v n="${want%=*}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["syscall"] == n { e += $c["errors"] } END { print e + 0 }' "$T/$name/syscalls.csv")
		[ "$got" = "${want#*=}" ] || check_problem "$name: ${want%=*} errors $got, ${want#*=} by construction"
	done
done

# no second stop per ptraced call: the stops are fewer than the ptraced calls twice
# (under --time too: the timed pad)
for mode in default off time; do
	require_file "$T/errors-$mode/summary.csv" errors-$mode || continue
	stops=$(summary_value "$T/errors-$mode" ptrace_stops)
	ptraced=$(summary_value "$T/errors-$mode" syscalls_ptraced)
	echo "$mode: $stops stops for $ptraced ptraced calls"
	[ "$stops" -lt $((2 * ptraced)) ] ||
		check_problem "errors-$mode: $stops stops for $ptraced ptraced calls: their results took an exit stop each"
done
finish
