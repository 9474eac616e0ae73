#!/bin/sh
# systrace keeps threads that stop often on its own CPU (tracer/placement.c); the
# traced program must still see the CPUs it would see without systrace, and its own
# sched_setaffinity must hold. Both compared with the same program run natively.
. "$(dirname "$0")/lib.sh"
native=$("$PROGRAMS/affinity" | tr '\n' ' ')
D=$TMPDIR/affinity
traced=$("$SYSTRACE" --patch=off -o "$D" -- "$PROGRAMS/affinity" 2>"$D.err" | tr '\n' ' ')
no_sanitizer_report "$D.err" "systrace -- affinity"
[ "$traced" = "$native" ] ||
	check_problem "affinity: under systrace the program saw CPU counts '$traced', natively '$native'"
# through a shell and an exec, as nproc in a build script would be
n_native=$(nproc)
n_traced=$("$SYSTRACE" --patch=off -o "$D.sh" -- sh -c nproc 2>"$D.sh.err")
[ "$n_traced" = "$n_native" ] || check_problem "affinity: nproc under systrace printed '$n_traced', natively '$n_native'"
# another process's CPUs, asked and set by its parent (as taskset -p does), the child
# kept on one CPU by placement (every call a stop, --patch=off) and, with two tracer
# threads, served by the other one (handed on at its exec): the parent sees and sets
# the child's CPUs as natively, and the child keeps the one CPU it was given
# (tracer/tid_marks.h). The first line says whether the child was kept on one CPU
# (its kernel mask, which systrace does not hide): natively never, under systrace
# it must have been, or nothing was checked.
if [ "$(nproc)" -ge 2 ]; then
	native=$("$PROGRAMS/affinity_other" | tail -n +2 | tr '\n' ' ')
	for threads in 1 2; do
		out=$D.other$threads
		traced=$(SYSTRACE_TEST_HANDOFF=every-exec "$SYSTRACE" --tracer-threads=$threads --patch=off -o "$out" \
			-- "$PROGRAMS/affinity_other" 2>"$out.err")
		no_sanitizer_report "$out.err" "systrace --tracer-threads=$threads -- affinity_other"
		first=$(printf '%s\n' "$traced" | head -n 1)
		rest=$(printf '%s\n' "$traced" | tail -n +2 | tr '\n' ' ')
		[ "$first" = pinned ] ||
			check_problem "affinity_other, $threads tracer threads: the child was not kept on one CPU within its 200,000 stops ('$first')"
		[ "$rest" = "$native" ] ||
			check_problem "affinity_other, $threads tracer threads: '$rest', natively '$native'"
		require_file "$out/summary.csv" "affinity_other, $threads tracer threads" &&
			[ "$(summary_value "$out" tracer_handoffs)" = 1 ] ||
			check_problem "affinity_other, $threads tracer threads: tracer_handoffs is '$(summary_value "$out" tracer_handoffs)', expected 1"
	done
else
	echo "affinity: one CPU allowed here: nothing is kept on a CPU, the other-process part is not run"
fi
finish
