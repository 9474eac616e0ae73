#!/bin/sh
# A syscall interrupted by a signal and restarted by the kernel is one call of the
# program, though under ptrace the kernel enters it twice (and strace -f -c counts
# both): systrace counts it once, and reports the restarts in the `restarted` column.
# See tests/programs/restarts.c for the five cases and the counts by construction;
# SIGCHLD is left unblocked, so the wait4 count must hold whatever the timing.
# restarts_in_gate: calls restarted while in-process, in both modes.
. "$(dirname "$0")/lib.sh"

# restarted_in DIR: the restarts of every image of a run
restarted_in() {
	python3 -c 'import csv,sys; print(sum(int(r["restarted"]) for r in csv.DictReader(open(sys.argv[1], newline=""))))' "$1/processes.csv"
}
for round in 1 2 3; do
	D=$TMPDIR/restarts$round
	st_run_ok off "restarts (round $round: a call did not return as it should?)" "$D" "$PROGRAMS/restarts" || continue
	expect_count "$D" x86_64 readv 4 "restarts round $round"
	expect_count "$D" x86_64 nanosleep 1 "restarts round $round"
	expect_count "$D" x86_64 getppid 4 "restarts round $round"
	expect_count "$D" x86_64 rt_sigreturn 4 "restarts round $round"
	expect_count "$D" x86_64 wait4 6 "restarts round $round"
	expect_count "$D" x86_64 restart_syscall 0 "restarts round $round"
	# A, B, D and E restart at least once each (wait4 may add more)
	require_file "$D/processes.csv" "restarts round $round" || continue
	restarted=$(restarted_in "$D")
	[ "$restarted" -ge 4 ] || check_problem "restarts round $round: restarted = $restarted, expected at least 4"
	csvtool consistency "$D" || check_problem "restarts round $round: CSV files inconsistent"
done

# Restarted in-process (through the gate, where no stop sees the second entry): each
# counted once in `restarted`, as on the ptrace path; see
# tests/programs/restarts_in_gate.c (exactly 4 restarts, readv 6); with --time too
# (the time routine's frame left for the stub's traced syscall, the time kept);
# with --log too (the log routine's frame left the same way).
for mode in safe off time log; do
	D=$TMPDIR/restarts_in_gate_$mode
	if [ $mode = time ] || [ $mode = log ]; then
		ST_OPTS=--$mode st_run_ok safe "restarts_in_gate --$mode" "$D" "$PROGRAMS/restarts_in_gate" || continue
	else
		st_run_ok "$mode" restarts_in_gate "$D" "$PROGRAMS/restarts_in_gate" || continue
	fi
	expect_count "$D" x86_64 readv 6 "restarts_in_gate --patch=$mode"
	expect_count "$D" x86_64 restart_syscall 0 "restarts_in_gate --patch=$mode"
	require_file "$D/processes.csv" "restarts_in_gate --patch=$mode" || continue
	restarted=$(restarted_in "$D")
	[ "$restarted" -eq 4 ] || check_problem "restarts_in_gate --patch=$mode: restarted = $restarted, expected 4"
	csvtool consistency "$D" --any-mode || check_problem "restarts_in_gate --patch=$mode: CSV files inconsistent"
done
# A call in the gate that an SA_RESTART handler interrupts, restarted after it
# (tests/programs/restart_handled.c: exactly 2 restarts, readv 3, rt_sigreturn 2), in
# every mode and under --log.
for mode in safe off log; do
	D=$TMPDIR/restart_handled_$mode
	if [ $mode = log ]; then
		ST_OPTS=--log st_run_ok safe "restart_handled --log" "$D" "$PROGRAMS/restart_handled" || continue
	else
		st_run_ok "$mode" restart_handled "$D" "$PROGRAMS/restart_handled" || continue
	fi
	expect_count "$D" x86_64 readv 3 "restart_handled --patch=$mode"
	expect_count "$D" x86_64 rt_sigreturn 2 "restart_handled --patch=$mode"
	expect_count "$D" x86_64 restart_syscall 0 "restart_handled --patch=$mode"
	require_file "$D/processes.csv" "restart_handled --patch=$mode" || continue
	restarted=$(restarted_in "$D")
	[ "$restarted" -eq 2 ] || check_problem "restart_handled --patch=$mode: restarted = $restarted, expected 2"
	csvtool consistency "$D" --any-mode || check_problem "restart_handled --patch=$mode: CSV files inconsistent"
done
finish
