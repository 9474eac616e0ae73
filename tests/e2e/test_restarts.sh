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
# restarted_case PROGRAM MODE RESTARTS COUNTS: PROGRAM under systrace (MODE: a
# --patch mode, or time or log, each with safe), exactly RESTARTS in `restarted`,
# restart_syscall never, COUNTS (name=N, space-separated) by construction.
restarted_case() {
	_rc_p=$1 _rc_mode=$2 _rc_want=$3 _rc_counts=$4
	D=$TMPDIR/${_rc_p}_$_rc_mode
	if [ "$_rc_mode" = time ] || [ "$_rc_mode" = log ]; then
		ST_OPTS=--$_rc_mode st_run_ok safe "$_rc_p --$_rc_mode" "$D" "$PROGRAMS/$_rc_p" || return 0
	else
		st_run_ok "$_rc_mode" "$_rc_p" "$D" "$PROGRAMS/$_rc_p" || return 0
	fi
	for _rc_c in $_rc_counts restart_syscall=0; do
		expect_count "$D" x86_64 "${_rc_c%=*}" "${_rc_c#*=}" "$_rc_p --patch=$_rc_mode"
	done
	require_file "$D/processes.csv" "$_rc_p --patch=$_rc_mode" || return 0
	restarted=$(restarted_in "$D")
	[ "$restarted" -eq "$_rc_want" ] || check_problem "$_rc_p --patch=$_rc_mode: restarted = $restarted, expected $_rc_want"
	csvtool consistency "$D" --any-mode || check_problem "$_rc_p --patch=$_rc_mode: CSV files inconsistent"
}

for mode in safe off time log; do
	restarted_case restarts_in_gate $mode 4 "readv=6"
done
# A call in the gate that an SA_RESTART handler interrupts, restarted after it
# (tests/programs/restart_handled.c: exactly 2 restarts, readv 3, rt_sigreturn 2), in
# every mode and under --log.
for mode in safe off log; do
	restarted_case restart_handled $mode 2 "readv=3 rt_sigreturn=2"
done
# A call in the gate restarted after a signal that then fails (EPIPE): its error is
# its site's in sites.csv as its name's in syscalls.csv (tests/programs/
# restart_failed.c: exactly 1 restart, writev 3 calls, 1 error); the consistency
# check compares the two files' errors per image.
for mode in safe off time log; do
	restarted_case restart_failed $mode 1 "writev=3"
	_rf_errors=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["syscall"] == "writev" { e += $c["errors"] } END { print e + 0 }' "$D/syscalls.csv" 2>/dev/null)
	[ "$_rf_errors" = 1 ] || check_problem "restart_failed --patch=$mode: writev errors ${_rf_errors:-none}, 1 by construction"
done
# A call sent back through the return pad that the kernel makes again with no stop
# between (tests/programs/silent_restart.c: an io_uring timeout's task work makes its
# blocked read give up): the same call, 1 at read_site, no restart of the program's
# (before: 2, in every mode). strace -f -c sees the read entered twice, which says
# the kernel did make it again here.
"$PROGRAMS/silent_restart"
_sr=$?
if [ "$_sr" -eq 2 ]; then
	echo "silent_restart: skipped, io_uring is not available here"
elif [ "$_sr" -ne 0 ]; then
	check_problem "silent_restart: exits $_sr natively"
else
	strace_count "$TMPDIR/silent_restart.strace" "$PROGRAMS/silent_restart"
	_sr_reads=$(awk '$1 == "read" { print $2 }' "$TMPDIR/silent_restart.strace")
	[ "${_sr_reads:-0}" = 3 ] || check_problem "silent_restart: strace -f -c counts ${_sr_reads:-no} read, 3 if the kernel made the read again (the loader's and 2 entries)"
	for mode in safe off time log; do
		restarted_case silent_restart $mode 0 "read=2"
		expect_site_count "$D" symbol=read_site 1 "silent_restart --patch=$mode: read_site"
	done
fi
finish
