#!/bin/sh
# No tracee may run untraced (strace #303): a child created with
# clone(CLONE_UNTRACED | SIGCHLD) must still be traced, or, carrying the inherited
# seccomp filter with no tracer, every syscall it makes fails with ENOSYS. The
# program's child checks its 9 getppid results and exits 0 only if they are right;
# systrace must exit 0, count the child's 9 getppid (11 in all) and give it a row.
# (strace -f does not follow such a child, so there is no strace comparison here.)
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/clone_untraced
st_run "$D" "$PROGRAMS/clone_untraced"
if [ "$ST_STATUS" -ne 0 ]; then
	check_problem "systrace --patch=off -- clone_untraced exited $ST_STATUS, expected 0 (1: the CLONE_UNTRACED child's syscalls failed, it ran untraced)"
	st_show_err "$D"
fi
if [ -f "$D/processes.csv" ]; then
	expect_count "$D" x86_64 getppid 11 "clone_untraced (9 in the child, 2 in the parent)"
	rows=$(python3 -c 'import csv,sys; print(sum(1 for _ in csv.DictReader(open(sys.argv[1], newline=""))))' "$D/processes.csv")
	[ "$rows" = 2 ] || check_problem "clone_untraced: processes.csv has $rows rows, expected 2 (the parent and the CLONE_UNTRACED child)"
else
	check_problem "clone_untraced: no processes.csv"
fi
finish
