#!/bin/sh
# A command that chroots into a root where none of systrace's files exist, nor /proc
# (a jail built here: the loader, libc, sh and getppid_loop): its programs run as
# they do alone and stay in-process.
# `chroot JAIL /bin/sh -c 'getppid_loop 1000; getppid_loop 1000'`, default mode:
#  - exit status 0, nothing on stderr (ld.so's "cannot be preloaded" for a library
#    path the jail does not have, for one);
#  - both getppid_loop images have their in-process path up (library `ready`),
#    1000 getppid each, at least 999 of their calls in-process;
#  - the counts equal strace -f -c's of the same command (+ exit_group).
. "$(dirname "$0")/lib.sh"
T=$TMPDIR

if [ "$(id -u)" -ne 0 ]; then
	echo "    not run: chroot needs root"
	finish
fi
J=$T/root
make_jail "$J"

if compare_inprocess jail default "exit_group=3" chroot "$J" /bin/sh -c '/bin/getppid_loop 1000; /bin/getppid_loop 1000'; then
	if [ -s "$T/jail.err" ]; then
		check_problem "chroot: output on stderr"
		st_show_err "$T/jail"
	fi
	csvtool library "$T/jail" ready /getppid_loop --images 2 --inprocess 999 ||
		check_problem "chroot: the getppid_loop images are not in-process (above)"
	# (sh's own getppid, for $PPID)
	expect_rows "$T/jail" getppid "1 1000 1000" "chroot"
fi
finish
