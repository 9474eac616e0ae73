#!/bin/sh
# Stopping a process's threads to patch a site (--patch=safe) must not show: calls
# that return EINTR after any ptrace stop are made again, and counted once.
# interrupted_waits: exit 0 (it checks that epoll_wait returned its eventfd and
# sigtimedwait its SIGUSR2, which come only after the six patches made while both
# threads were blocked), epoll_wait and rt_sigtimedwait counted once each, getppid 6.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/waits
st_run_clean interrupted_waits "$D" "$PROGRAMS/interrupted_waits"
if require_file "$D/syscalls.csv" interrupted_waits; then
	expect_count "$D" x86_64 epoll_wait 1 interrupted_waits
	expect_count "$D" x86_64 rt_sigtimedwait 1 interrupted_waits
	expect_count "$D" x86_64 getppid 6 interrupted_waits
fi
finish
