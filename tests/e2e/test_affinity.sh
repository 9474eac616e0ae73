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
finish
