#!/bin/sh
# A traced program's PTRACE_ATTACH of a process it did not create, its sibling, as a
# debugger's `attach PID` does (tests/programs/attach_other.c; tracer/nested_ptrace.h):
# the attach, the wait for its stop (blocking, and with WNOHANG), GETREGS, GETFPREGS
# and GETREGSET showing the target's marked register, the detach, ESRCH after it, and
# the target going on, all as natively (the program checks each step; it exits 0);
# with one serving thread, and with 4 and every exec handed to the next, so that the
# target and the attacher are served by two threads and every call crosses between
# them (before, the kernel refused the attach: EPERM); in the default mode and with
# --patch=off. By construction: 6 ptrace calls a round, at least one wait4.
# And a thread that attaches the target and then execs (not the leader: its exec
# takes the leader's tid): the attachment ends with the exec, and the target goes
# on and ends (before, systrace kept it stopped under the thread's old tid, and the
# run never ended, even on SIGTERM).
# And an attach that meets its target between two serving threads (its exec handed
# on, every hand-off 200 ms long: SYSTRACE_TEST_HANDOFF=every-exec-slow; the
# attacher waits for the target's TracerPid to read 0): it waits for the receiver
# and works, as natively (before, EPERM).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
unset SYSTRACE_TEST_THREADS
ROUNDS=30

"$P/attach_other" $ROUNDS || fail "attach_other $ROUNDS exits $? natively"
"$P/attach_other" 2 exec || fail "attach_other 2 exec exits $? natively"
"$P/attach_other" 2 parked >/dev/null || fail "attach_other 2 parked exits $? natively"
export SYSTRACE_TEST_HANDOFF=every-exec
for threads in 1 4; do
	for mode in default off; do
		name=threads$threads-$mode
		echo "== attach_other $ROUNDS, --tracer-threads=$threads, --patch=$mode"
		ST_OPTS=--tracer-threads=$threads st_run_ok "$mode" "attach_other ($threads threads)" \
			"$TMPDIR/$name" "$P/attach_other" $ROUNDS
		require_file "$TMPDIR/$name/summary.csv" "$name" || continue
		expect_count "$TMPDIR/$name" x86_64 ptrace $((6 * ROUNDS)) "$name"
		n=$(csvtool counts "$TMPDIR/$name" x86_64 | awk '$1 == "wait4" { print $2 }')
		[ "${n:-0}" -ge $((ROUNDS + 2)) ] ||
			check_problem "$name: wait4 counted ${n:-0} times, at least $((ROUNDS + 2)) by construction"
		# the target's exec and the attacher's two, each to the next thread: on
		# two threads, one apart
		h=$(summary_value "$TMPDIR/$name" tracer_handoffs)
		[ "$h" = 3 ] || check_problem "$name: $h hand-offs, expected 3 (each exec)"
		csvtool consistency "$TMPDIR/$name" --any-mode || check_problem "$name: the CSV files are inconsistent"
	done
	name=threads$threads-exec
	echo "== attach_other 2 exec, --tracer-threads=$threads"
	ST_OPTS=--tracer-threads=$threads st_run_ok default "attach_other exec ($threads threads)" \
		"$TMPDIR/$name" "$P/attach_other" 2 exec
	require_file "$TMPDIR/$name/summary.csv" "$name" || continue
	# the rounds' 12, the thread's attach, the new image's detach
	expect_count "$TMPDIR/$name" x86_64 ptrace 14 "$name"
	h=$(summary_value "$TMPDIR/$name" tracer_handoffs)
	[ "$h" = 4 ] || check_problem "$name: $h hand-offs, expected 4 (each exec)"
done
name=parked
echo "== attach_other 2 parked, --tracer-threads=4, every hand-off slow"
SYSTRACE_TEST_HANDOFF=every-exec-slow ST_OPTS=--tracer-threads=4 st_run_ok default "attach_other parked" \
	"$TMPDIR/$name" "$P/attach_other" 2 parked
grep -qx "attached untraced" "$TMPDIR/$name.out" ||
	check_problem "$name: the attacher never attached the target between two threads"
if require_file "$TMPDIR/$name/summary.csv" "$name"; then
	# two rounds' 12, the attach and detach of the target parked, one round's 6
	expect_count "$TMPDIR/$name" x86_64 ptrace 20 "$name"
	# the target's two execs, the attacher's three
	h=$(summary_value "$TMPDIR/$name" tracer_handoffs)
	[ "$h" = 5 ] || check_problem "$name: $h hand-offs, expected 5 (each exec)"
fi
finish
