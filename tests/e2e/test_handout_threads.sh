#!/bin/sh
# The region handed out over a socket by each serving thread (tracer/region_handout.h):
# an image that cannot reach the region through /proc (a chroot without one)
# connects to the socket its set-up names and stops; the thread that serves it
# answers. With one socket for all threads, a thread answering its own image's stop
# accepted every connection waiting, another thread's image's among them, found
# that image in none of its tables and closed it: that image stayed on the slow path.
#  - with --tracer-threads=3, the command sees three listening sockets of this
#    systrace (one per thread; /proc/net/unix);
#  - 8 getppid_loop run at once in a jail, each image handed to the next thread at
#    its exec (SYSTRACE_TEST_HANDOFF=every-exec): every one has its in-process path
#    up (library `ready`), 100 getppid each, at least 99 of them in-process.
. "$(dirname "$0")/lib.sh"
T=$TMPDIR
unset SYSTRACE_TEST_THREADS SYSTRACE_TEST_HANDOFF

if [ "$(id -u)" -ne 0 ]; then
	echo "    not run: chroot needs root"
	finish
fi

ST_OPTS=--tracer-threads=3 st_run_mode default "$T/sockets" sh -c "echo \$PPID > '$T/ppid'; cat /proc/net/unix > '$T/unix'"
[ "$ST_STATUS" -eq 0 ] || check_problem "sockets: exit status $ST_STATUS"
if require_file "$T/unix" "the command's /proc/net/unix"; then
	n=$(grep -c "@systrace-$(cat "$T/ppid")-" "$T/unix")
	[ "$n" -eq 3 ] || check_problem "3 serving threads: $n sockets of theirs in /proc/net/unix, expected 3"
fi

J=$T/root
make_jail "$J"
export SYSTRACE_TEST_HANDOFF=every-exec
ST_OPTS=--tracer-threads=3 st_run_mode default "$T/jail" chroot "$J" /bin/sh -c \
	'for i in 1 2 3 4 5 6 7 8; do /bin/getppid_loop 100 & done; wait'
[ "$ST_STATUS" -eq 0 ] || check_problem "jail: exit status $ST_STATUS"
csvtool library "$T/jail" ready /getppid_loop --images 8 --inprocess 99 ||
	check_problem "jail: not every getppid_loop image is in-process (above)"
handoffs=$(summary_value "$T/jail" tracer_handoffs)
[ "${handoffs:-0}" -ge 8 ] || check_problem "jail: tracer_handoffs is '$handoffs', expected at least 8"
# (each loop's getppid, and sh's own for $PPID)
expect_count "$T/jail" x86_64 getppid 801 "8 x getppid_loop 100 in a jail, 3 threads"
finish
