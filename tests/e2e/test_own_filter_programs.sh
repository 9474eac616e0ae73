#!/bin/sh
# The hazard programs under a filter of their own (issue 13): own_filter's launcher
# (numbers the kernel does not have, i386 and x32 calls killed) execs each, so that
# every ptraced call is decided by the program's filter from the return pad's
# address, and every call that the pad does not serve (forks, vforks, clones with a
# new stack, execve) is followed to its exit stop from there, its children moved
# back after their creator's syscall at their first stop. Each must end as it does
# under the same filter alone (they check themselves: 0), in the default mode, with
# --patch=off, --log and --time, and the files must agree.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

for prog in vfork_exec fork_tree clone_vm clone_stack exec_from_thread restarts signals blocked_threads \
	handler_in_gate vfork_patched; do
	timeout --foreground -k 10 "$RUN_TIMEOUT" "$P/own_filter" launcher "$P/$prog" >"$T/$prog.native.out" 2>&1
	native=$?
	[ "$native" = 0 ] || fail "$prog under own_filter's launcher alone exits $native"
	for mode in default off log time; do
		dir=$T/$prog-$mode
		echo "== $prog ($mode)"
		if [ $mode = log ] || [ $mode = time ]; then
			ST_OPTS=--$mode st_run_mode default "$dir" "$P/own_filter" launcher "$P/$prog"
		else
			st_run_mode $mode "$dir" "$P/own_filter" launcher "$P/$prog"
		fi
		if [ "$ST_STATUS" != 0 ]; then
			check_problem "$prog ($mode) under own_filter's launcher: systrace exited $ST_STATUS, alone 0"
			st_show_err "$dir"
			continue
		fi
		any=--any-mode
		[ $mode = off ] && any=
		# shellcheck disable=SC2086
		csvtool consistency "$dir" $any || check_problem "$prog ($mode): the files disagree"
	done
done
finish
