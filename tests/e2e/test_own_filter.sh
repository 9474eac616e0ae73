#!/bin/sh
# Programs with seccomp filters of their own (issue 13): tests/programs/own_filter
# installs one (ERRNO, TRAP to its own SIGSYS handler, LOG, TRACE with no tracer of its
# own, KILL_PROCESS, KILL_THREAD, a launcher that kills or refuses the numbers the
# kernel does not have and execs a dynamically linked, static or i386 program,
# TSYNC from a thread, two filters stacked, inheritance across fork and exec,
# USER_NOTIF to a supervisor thread) and checks that every call was decided as its
# filter says. In the default mode, with --patch=off, --log and --time (whose
# ptraced calls return through the timed pad), it must end as it ends alone (its
# exit status, or its death by SIGSYS), and every call must be counted (the
# refused ones too, with their errors) exactly as `strace -f -c` counts them, and
# by construction.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR
OF=$P/own_filter

# expect_errors DIR NAME N WHAT: NAME's errors (x86_64, every row) are exactly N.
expect_errors() {
	require_file "$1/syscalls.csv" "$4" || return 1
	_e=$(awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["syscall"] == n && $c["abi"] != "i386" { e += $c["errors"] } END { print e + 0 }' "$1/syscalls.csv")
	[ "$_e" = "$3" ] || check_problem "$4: $2 errors $_e, $3 by construction"
}

# run_case NAME STATUS EXTRA COUNTS -- ARGS...: the program alone (it must end with
# STATUS: 0 when it checked itself, 159 for its death by SIGSYS) and under strace
# -f -c, then under systrace in each mode: the same status, the counts of strace
# plus EXTRA (the calls strace -c cannot count: they never return; NAME=? for calls
# whose number is timing's: a pthread_join's futex waits only if the thread has not
# exited yet), the same errors, consistent files, and COUNTS by construction
# (name=calls/errors, space-separated).
run_case() {
	_case=$1
	_status=$2
	_extra=$3
	_counts=$4
	_skip=$(echo "$_extra" | tr ' ' '\n' | grep '=?$' | tr '\n' ' ')
	shift 5
	timeout --foreground -k 10 "$RUN_TIMEOUT" strace -f -c -U name,calls,errors -o "$T/$_case.strace" -- \
		"$OF" "$@" >"$T/$_case.strace.out" 2>&1
	_native=$?
	timeout --foreground -k 10 "$RUN_TIMEOUT" "$OF" "$@" >"$T/$_case.native.out" 2>&1
	_alone=$?
	[ "$_alone" = "$_native" ] || fail "$_case: exits $_alone alone and $_native under strace"
	[ "$_native" = "$_status" ] || fail "$_case: exits $_native alone, not $_status: a broken test program?"
	for _m in default off log time; do
		_dir=$T/$_case-$_m
		echo "== $_case --patch=$_m: own_filter $* (natively: $_native)"
		if [ $_m = log ] || [ $_m = time ]; then
			ST_OPTS=--$_m st_run_mode default "$_dir" "$OF" "$@"
		else
			st_run_mode $_m "$_dir" "$OF" "$@"
		fi
		if [ "$ST_STATUS" != "$_native" ]; then
			check_problem "$_case ($_m): systrace exited $ST_STATUS, the program alone $_native"
			st_show_err "$_dir"
			continue
		fi
		# shellcheck disable=SC2086
		csvtool compare "$_dir" "$T/$_case.strace" x86_64 $_extra ||
			check_problem "$_case ($_m): per-syscall counts differ from strace -f -c (+ $_extra)"
		# shellcheck disable=SC2086
		csvtool compare-errors "$_dir" "$T/$_case.strace" $_skip ||
			check_problem "$_case ($_m): errors per syscall differ from strace -f -c"
		_any=--any-mode
		[ $_m = off ] && _any=
		# shellcheck disable=SC2086
		csvtool consistency "$_dir" $_any || check_problem "$_case ($_m): the files disagree"
		for _c in $_counts; do
			_name=${_c%=*}
			_v=${_c#*=}
			expect_count "$_dir" x86_64 "$_name" "${_v%/*}" "$_case ($_m)"
			expect_errors "$_dir" "$_name" "${_v#*/}" "$_case ($_m)"
		done
	done
}

# The extra calls, which strace -c does not count: exit_group and a thread's exit
# (they never return); kill-thread's getpid (its thread exits inside it) but not
# kill-process's (the kernel rolls the call back to raise its SIGSYS: strace sees
# it return), and there the main thread's read, in flight when the process dies.
# The polls of the kill modes (pread64, clock_nanosleep: blocked_in.h) are timing.
run_case errno 0 "exit_group=1" "getpriority=100/100 seccomp=1/0" -- errno 100
run_case errno-prctl 0 "exit_group=1" "getpriority=100/100 prctl=2/0" -- errno-prctl 100
run_case trap 0 "exit_group=1" "getppid=100/0 rt_sigreturn=100/0" -- trap 100
# a program's TRACE, with no tracer of its own (strace sets no PTRACE_O_TRACESECCOMP)
run_case log 0 "exit_group=1" "getpriority=100/0 seccomp=1/0" -- log 100
run_case trace 0 "exit_group=1" "getpriority=100/100" -- trace 100
run_case kill-process 159 "read=1 pread64=? clock_nanosleep=?" "getpid=1/0" -- kill-process
run_case kill-thread 0 "getpid=1 exit_group=1 pread64=? clock_nanosleep=? futex=?" "getpid=1/0" -- kill-thread
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
