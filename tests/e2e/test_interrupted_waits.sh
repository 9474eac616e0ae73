#!/bin/sh
# Stopping a process's threads to patch a site (--patch=safe) must not show: calls
# that return EINTR after any ptrace stop are made again, and counted once.
# interrupted_waits: exit 0 (it checks that epoll_wait returned its eventfd and
# sigtimedwait its SIGUSR2, which come only after the six patches made while both
# threads were blocked), epoll_wait and rt_sigtimedwait counted once each, getppid 6,
# and neither with an error: the EINTRs that only the stops caused are no results
# (each call made again returns, once, what the program sees); the files agree.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/waits
st_run_clean interrupted_waits "$D" "$PROGRAMS/interrupted_waits"
if require_file "$D/syscalls.csv" interrupted_waits; then
	expect_count "$D" x86_64 epoll_wait 1 interrupted_waits
	expect_count "$D" x86_64 rt_sigtimedwait 1 interrupted_waits
	expect_count "$D" x86_64 getppid 6 interrupted_waits
	for name in epoll_wait rt_sigtimedwait; do
		# shellcheck disable=SC2046 # the fields of one line
		set -- $(csvtool times "$D" $name)
		[ "$2" = 0 ] || check_problem "interrupted_waits: $name has $2 errors, 0 (it returned what the program waited for)"
	done
	csvtool consistency "$D" --any-mode || check_problem "interrupted_waits: the files disagree"
fi
finish
