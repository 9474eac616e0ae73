#!/bin/sh
# The command stops itself (raise(SIGSTOP)) while a child it made runs on, and the
# child, once it sees its parent stopped, makes 200 calls and continues it
# (tests/programs/stop_beside_child.c). Natively the child is not held by its
# parent's stop. systrace stops with its command only while the command is the only
# process traced, by any tracer thread (tracer/events.c, stops_itself): with two
# threads the child is the other's (handed on at its exec), and a systrace that
# stopped itself would hold it at its first call, with nobody left to continue the
# parent: the run would never end. Counts by construction (how many times the child
# looks at its parent's state depends on the timing).
. "$(dirname "$0")/lib.sh"
export SYSTRACE_TEST_HANDOFF=every-exec
: "${RUN_TIMEOUT:=60}"
for threads in 1 2; do
	D=$TMPDIR/stop$threads
	ST_OPTS="--tracer-threads=$threads" st_run "$D" "$PROGRAMS/stop_beside_child"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "stop_beside_child, $threads tracer threads: systrace exited $ST_STATUS, natively 0"
		st_show_err "$D"
	elif require_file "$D/syscalls.csv" "stop_beside_child, $threads tracer threads"; then
		grep -q "^continued by the child: exit 0$" "$D.out" ||
			check_problem "stop_beside_child, $threads tracer threads: printed '$(cat "$D.out")'"
		expect_count "$D" x86_64 getppid 201 "stop_beside_child, $threads tracer threads (the child's 200 and its own)"
		expect_count "$D" x86_64 kill 1 "stop_beside_child, $threads tracer threads (the child's SIGCONT)"
		expect_count "$D" x86_64 tgkill 1 "stop_beside_child, $threads tracer threads (the parent's raise)"
		csvtool consistency "$D" || check_problem "stop_beside_child, $threads tracer threads: the CSV files are inconsistent"
		[ "$(summary_value "$D" tracer_handoffs)" = 1 ] ||
			check_problem "stop_beside_child, $threads tracer threads: tracer_handoffs is '$(summary_value "$D" tracer_handoffs)', expected 1"
	fi
done
finish
