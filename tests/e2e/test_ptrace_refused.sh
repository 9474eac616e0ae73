#!/bin/sh
# A program that asks to trace another (PTRACE_TRACEME, PTRACE_SEIZE of its child),
# as gdb and strace do first: alone both work; under systrace, the tracer of every
# process of the command, the kernel refuses both (EPERM) and systrace says why on
# stderr, once, naming the program and the request (README, Limits).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

native=$("$P/ptrace_refused" | tr '\n' ' ')
[ "$native" = "traceme: ok seize: ok " ] ||
	check_problem "ptrace_refused alone printed '$native' (expected both ok)"
for mode in default off; do
	st_run_mode $mode "$T/refused_$mode" "$P/ptrace_refused"
	got=$(tr '\n' ' ' <"$T/refused_$mode.out")
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "ptrace_refused ($mode): exited $ST_STATUS under systrace (0 alone)"
	elif [ "$got" != "traceme: Operation not permitted seize: Operation not permitted " ]; then
		check_problem "ptrace_refused ($mode): printed '$got' under systrace (expected both refused)"
	fi
	n=$(grep -c 'ptrace_refused (pid [0-9]*) asks to trace a process (ptrace PTRACE_TRACEME), which the kernel refuses with EPERM' "$T/refused_$mode.err" || true)
	[ "$n" = 1 ] || check_problem "ptrace_refused ($mode): systrace's reason said $n times on stderr (expected once): $(cat "$T/refused_$mode.err")"
	n=$(grep -c 'asks to trace a process' "$T/refused_$mode.err" || true)
	[ "$n" = 1 ] || check_problem "ptrace_refused ($mode): $n warnings about tracing (expected one for the run)"
done
finish
