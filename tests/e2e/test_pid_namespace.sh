#!/bin/sh
# A command that enters a pid namespace with its own /proc (`unshare -fp
# --mount-proc`, as build sandboxes do), where /proc shows none of the processes
# outside it, the tracer's included: its programs stay in-process.
# `unshare -fp --mount-proc sh -c 'getppid_loop 1000; getppid_loop 1000'`, default
# mode:
#  - exit status 0, nothing on stderr;
#  - every image inside (sh, both getppid_loop) has its in-process path up (library
#    `ready`); the getppid_loop images 1000 getppid each, at least 999 of their
#    calls in-process;
#  - the counts equal strace -f -c's of the same command (+ exit_group).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

if [ "$(id -u)" -ne 0 ]; then
	echo "    not run: unshare -p needs root"
	finish
fi
if compare_inprocess pidns default "exit_group=4" unshare -fp --mount-proc sh -c '"$0" 1000; "$0" 1000' "$P/getppid_loop"; then
	if [ -s "$T/pidns.err" ]; then
		check_problem "pid namespace: output on stderr"
		st_show_err "$T/pidns"
	fi
	{ csvtool library "$T/pidns" ready /getppid_loop --images 2 --inprocess 999 &&
		csvtool library "$T/pidns" ready "$(readlink -f /bin/sh)"; } ||
		check_problem "pid namespace: the images inside are not in-process (above)"
	# (sh's own getppid, for $PPID)
	expect_rows "$T/pidns" getppid "1 1000 1000" "pid namespace"
fi
finish
