#!/bin/sh
# A thread killed by another thread's exit_group while its call's seccomp stop waits
# for the tracer: the kernel drops that stop, and the call is still counted, once (at
# the thread's exit event; tests/programs/exit_in_stop.c): 20 thread exits, by
# construction, in the default mode and with --patch=off (strace -f -c cannot say:
# it counts calls at their return). Before: 12 to 18 of 20.
# killed_entering (tests/programs/killed_entering.c): the same for a thread whose
# last stop before that call was a creation event (it made a thread), with the
# tracer stopped meanwhile so that the call's stop is never read, by construction:
# its one call, counted once. Before: 0 (the event left the thread's last call
# taken as seen).
# killed_after_pad (tests/programs/killed_after_pad.c): a ptraced call that returns
# -ENOSYS with a fatal signal pending, by construction (a supervisor of the
# program's own answers it ENOSYS once it has sent the signal): the signal's stop,
# or its exit stop (--log), takes its result, and its thread dies on its way back;
# counted once, with its error, in the default mode, --patch=off and --log. Before:
# twice (the exit event took it for a call killed at its entry).
. "$(dirname "$0")/lib.sh"
for mode in default off; do
	D=$TMPDIR/exit_in_stop_$mode
	st_run_ok "$mode" exit_in_stop "$D" "$PROGRAMS/exit_in_stop" || continue
	expect_count "$D" x86_64 exit 20 "exit_in_stop ($mode)"
	expect_count "$D" x86_64 exit_group 21 "exit_in_stop ($mode)"
	csvtool consistency "$D" --any-mode || check_problem "exit_in_stop ($mode): CSV files inconsistent"
done
D=$TMPDIR/killed_entering
if st_run_ok default killed_entering "$D" "$PROGRAMS/killed_entering"; then
	expect_site_count "$D" symbol=raw_getppid+0x9 1 "killed_entering: the call its thread was killed entering"
	csvtool consistency "$D" --any-mode || check_problem "killed_entering: CSV files inconsistent"
fi
for mode in default off log; do
	D=$TMPDIR/killed_after_pad_$mode
	case $mode in
	log) ST_OPTS=--log st_run_mode default "$D" "$PROGRAMS/killed_after_pad" ;;
	*) st_run_mode "$mode" "$D" "$PROGRAMS/killed_after_pad" ;;
	esac
	if [ "$ST_STATUS" -ne 143 ]; then
		check_problem "killed_after_pad ($mode): exited $ST_STATUS (natively 143: SIGTERM; 2: the construction does not hold)"
		st_show_err "$D"
		continue
	fi
	expect_site_count "$D" object=/killed_after_pad syscall=getpriority 1 "killed_after_pad ($mode): the call that returned as its thread died"
	_errors=$(awk -F, 'NR > 1 && $3 == "getpriority" { e += $5 } END { print e + 0 }' "$D/syscalls.csv")
	[ "$_errors" = 1 ] || check_problem "killed_after_pad ($mode): getpriority has $_errors errors, expected 1 (ENOSYS)"
	csvtool consistency "$D" --any-mode || check_problem "killed_after_pad ($mode): CSV files inconsistent"
done
finish
