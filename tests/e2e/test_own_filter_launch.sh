#!/bin/sh
# Programs with seccomp filters of their own, continued from test_own_filter.sh (which
# says what each case checks): a launcher that kills or refuses the numbers the kernel
# does not have and execs a dynamically linked, static or i386 program, TSYNC from a
# thread, two filters stacked, inheritance across fork and exec, USER_NOTIF to a
# supervisor thread, and a filter too long for the rewriting.
. "$(dirname "$0")/own_filter_lib.sh"

run_case launcher 0 "exit_group=1" "getppid=5000/0" -- launcher "$P/getppid_loop" 5000
# a static program has no gate: its calls are decided from the pad's address all
# the same; an i386 call is killed by the launcher's filter, as alone
# the same numbers refused: --log's buffer-full call (a number of systrace's own)
# must still reach the tracer
run_case launcher-errno 0 "exit_group=1" "getppid=5000/0" -- launcher-errno "$P/getppid_loop" 5000
run_case launcher-static 0 "exit_group=1" "getppid=300/0" -- launcher "$P/getppid_static" 300
# (a kernel without IA32 emulation gives int $0x80 a SIGSEGV before any filter
# runs: nothing of the filter's to check there, as test_i386 says)
if "$P/i386_int80" probe 2>/dev/null; then
	run_case launcher-i386 159 "" "" -- launcher "$P/i386_int80"
else
	echo "launcher-i386 skipped: this kernel has no IA32 emulation (int \$0x80 gets SIGSEGV)"
fi
run_case tsync 0 "exit_group=1 exit=1 futex=?" "getpriority=200/200 seccomp=1/0" -- tsync 100
run_case stacked 0 "exit_group=1" "getpriority=100/100 getppid=100/100 getuid=100/0 rt_sigreturn=100/0" -- stacked 100
run_case fork 0 "exit_group=2" "getpriority=300/300" -- fork 100
# the supervisor's ioctls: a notification whose call systrace's stop interrupted
# (to patch a site of the supervisor's) is gone (ENOENT), and is sent again when
# the call is made again, as after a signal (docs/architecture.md)
run_case notify 0 "exit_group=1 exit=1 ioctl=? futex=?" "getpriority=100/0 seccomp=1/0" -- notify 100

# the rewriting adds 16 instructions to a filter that returns its accumulator (10 to
# one that does not): one of 4080 fits, one of 4081 is refused (EINVAL, as the
# kernel refuses one too long), with a message; alone both fit
for n in 4080 4081; do
	want=installed
	[ $n = 4081 ] && want="Invalid argument"
	[ "$("$OF" big $n)" = installed ] || fail "a filter of $n instructions is refused alone"
	st_run_mode default "$T/big-$n" "$OF" big $n
	[ "$ST_STATUS" = 0 ] && [ "$(cat "$T/big-$n.out")" = "$want" ] ||
		check_problem "a filter of $n instructions under systrace: '$(cat "$T/big-$n.out")', expected '$want'"
	if [ $n = 4081 ]; then
		grep -q "seccomp filter of 4081 instructions leaves no room" "$T/big-$n.err" ||
			check_problem "a filter of 4081 instructions refused without a message"
	fi
done
finish
