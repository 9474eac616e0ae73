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
finish
