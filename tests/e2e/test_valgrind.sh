#!/bin/sh
# valgrind runs a program under systrace as it runs alone: none of systrace's own
# calls (a handshake with a private syscall number, for one) reaches the program or
# the tool, which would print "WARNING: unhandled amd64-linux syscall". For
# `valgrind -q --error-exitcode=97 getppid_loop 100` (valgrind's own calls depend on
# timing once the guest has threads), in the default mode and with --patch=off:
#  - exit status 0, and valgrind prints nothing (with -q it prints only what it
#    finds);
#  - the counts equal strace -f -c's of the same command (+ exit_group; valgrind
#    passes the guest's calls to the kernel as its own).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

for mode in default off; do
	compare_inprocess "vg-$mode" "$mode" "exit_group=1" valgrind -q --error-exitcode=97 "$P/getppid_loop" 100
	if [ -s "$T/vg-$mode.err" ]; then
		check_problem "valgrind getppid_loop --patch=$mode: output on stderr (valgrind or systrace)"
		st_show_err "$T/vg-$mode"
	fi
done
finish
