#!/bin/sh
# The hand-off of an image from one tracer thread to another at its exec event
# (tracer/handoff.h), run by SYSTRACE_TEST_HANDOFF=every-exec back to the same
# thread: every image but the command's is parked at its vDSO's `syscall` with every
# signal blocked, detached, seized again, given back its registers and mask, and set
# up. Nothing a program sees or systrace counts may change: counts against
# strace -f -c and by construction, a pending blocked signal and the mask carried
# across each exec (exec_chain checks both), every exec handed off
# (summary.csv's tracer_handoffs), and stops landing inside hand-offs.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS

# expect_handoffs DIR N WHAT
expect_handoffs() {
	require_file "$1/summary.csv" "$3" || return
	[ "$(summary_value "$1" tracer_handoffs)" = "$2" ] || check_problem "$3: tracer_handoffs is '$(summary_value "$1" tracer_handoffs)', expected $2"
}

export SYSTRACE_TEST_HANDOFF=every-exec

# 40 images in a chain, in a child of the command: 39 execs handed off, on the slow
# path and on the in-process path
if compare_with_strace chain "exit_group=2" "$P/exec_chain" 40; then
	expect_count "$TMPDIR/chain" x86_64 getppid 440 "exec_chain 40"
	expect_count "$TMPDIR/chain" x86_64 execve 40 "exec_chain 40"
	expect_handoffs "$TMPDIR/chain" 39 "exec_chain 40 (--patch=off)"
fi
if compare_inprocess chain_default default "exit_group=2" "$P/exec_chain" 40; then
	expect_handoffs "$TMPDIR/chain_default" 39 "exec_chain 40"
fi

# vfork + exec, and a non-leader thread's exec (the handed image takes the leader's
# tid)
if compare_inprocess vfork_exec default "exit_group=4" "$P/vfork_exec"; then
	expect_handoffs "$TMPDIR/vfork_exec" 1 vfork_exec
fi
# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
if compare_inprocess exec_from_thread default "exit_group=2" sh -c '"$0" "$1"; true' "$P/exec_from_thread" \
	"$P/getppid_loop"; then
	expect_count "$TMPDIR/exec_from_thread" x86_64 getppid 34 "exec_from_thread from sh (33, and the shell's one)"
	expect_handoffs "$TMPDIR/exec_from_thread" 2 "exec_from_thread from sh"
fi

# stopped and continued every 0.2 ms while 300 images exec: a stop that comes
# during a hand-off is served as it would be without one (the image then stays on
# the slow path); whatever the timing, the chain's checks hold and nothing is lost.
# How many hand-offs a stop meets depends on the machine's speed (all 299 beside a
# CPU hog and a CI run): at most 299 were taken.
if stopped_chain "$TMPDIR/stopped" 300 "exec_chain 300 stopped"; then
	got=$(summary_value "$TMPDIR/stopped" tracer_handoffs)
	[ -n "$got" ] && [ "$got" -le 299 ] ||
		check_problem "exec_chain 300 stopped: tracer_handoffs is '$got', expected 0 to 299"
fi
# and by construction: every parked image stopped (SIGSTOP, in its group stop
# before the seize) and continued once the seize found the stop
# (SYSTRACE_TEST_HANDOFF=every-exec-stopped): none is taken, nothing is lost
if SYSTRACE_TEST_HANDOFF=every-exec-stopped compare_with_strace chain_stopped "exit_group=2" "$P/exec_chain" 40; then
	expect_count "$TMPDIR/chain_stopped" x86_64 getppid 440 "exec_chain 40 stopped while parked"
	expect_handoffs "$TMPDIR/chain_stopped" 0 "exec_chain 40 stopped while parked"
fi

# a parked image killed and reaped, and its pid another process's before the
# receiving thread seizes it (tests/programs/handoff_reuse.c): that process goes on
# untouched, and the killed image ends as killed, named (/bin/true: read by the
# sender before it parked the image, since nothing of it can be read after). Its
# own pid namespace (the program chooses the next pid); root is needed for that.
R=$TMPDIR/reuse
if ! unshare --pid --fork --mount-proc sh -c 'echo 1 > /proc/sys/kernel/ns_last_pid' 2>/dev/null; then
	echo "    the reused pid case not run: it needs root (unshare -p, ns_last_pid)"
else
	# reuse_run DIR WHAT STATUSES SCRIPT ARG...: SCRIPT (sh -c, its $1 systrace and
	# $2 DIR) in a pid namespace of its own, under the reused-pid test mode; exit 0
	# (STATUSES: what the others mean) and the one hand-off killed
	reuse_run() {
		_d=$1 _what=$2 _statuses=$3 _script=$4
		shift 4
		SYSTRACE_TEST_HANDOFF=every-exec-after-reuse st_run_in_pidns "$_d" "$_what" "$_script" "$@"
		if [ "$ST_STATUS" -ne 0 ]; then
			check_problem "$_what: exited $ST_STATUS ($_statuses)"
			st_show_err "$_d"
		fi
		expect_handoffs "$_d" 0 "$_what (the one hand-off killed)"
	}
	# shellcheck disable=SC2016 # the inner sh expands them
	reuse_run "$R" handoff_reuse "1: the process at the reused pid was killed; 2: the construction does not hold" \
		'exec "$1" --tracer-threads=2 -o "$2" -- "$3"' "$P/handoff_reuse"
	require_file "$R/processes.csv" "handoff_reuse" &&
		[ "$(awk -F, '$12 == "signal:9"' "$R/processes.csv" | wc -l)" = 1 ] ||
		check_problem "handoff_reuse: not one image ended by signal:9 (the parked one)"
	killed_exe=$(awk -F, '$12 == "signal:9" { print $4 }' "$R/processes.csv")
	[ "$killed_exe" = "$(readlink -f /bin/true)" ] ||
		check_problem "handoff_reuse: the image killed while parked is named '$killed_exe', expected $(readlink -f /bin/true)"
	csvtool consistency "$R" --any-mode || check_problem "handoff_reuse: CSV files inconsistent"

	# the same, the pid taken by a process systrace does not trace (made by a forker
	# started in the namespace before systrace): the receiver's seize succeeds, and
	# it lets the process go, untraced (tracer/handoff.c, release_stranger); the
	# process, given SIGCONT, checks it is traced by nobody
	S=$TMPDIR/stranger
	mkfifo "$S.req" "$S.ans"
	# shellcheck disable=SC2016 # the inner sh expands them
	reuse_run "$S" "handoff_reuse stranger" \
		"1: the untraced process at the reused pid was killed; 3: it was left traced; 2: the construction does not hold" \
		'"$3" forker "$4" "$5" & exec "$1" --tracer-threads=2 -o "$2" -- "$3" stranger "$4" "$5"' \
		"$P/handoff_reuse" "$S.req" "$S.ans"
	require_file "$S/processes.csv" "handoff_reuse stranger" &&
		[ "$(wc -l <"$S/processes.csv")" = 4 ] ||
		check_problem "handoff_reuse stranger: processes.csv has rows for more than the command, its child and /bin/true"
	csvtool consistency "$S" --any-mode || check_problem "handoff_reuse stranger: CSV files inconsistent"
fi

# without the variable, none; with an unknown mode, none and a warning
unset SYSTRACE_TEST_HANDOFF
st_run_mode default "$TMPDIR/none" "$P/exec_chain" 5
[ "$ST_STATUS" -eq 0 ] || check_problem "exec_chain 5 without hand-offs: systrace exited $ST_STATUS"
expect_handoffs "$TMPDIR/none" 0 "exec_chain 5 without SYSTRACE_TEST_HANDOFF"
SYSTRACE_TEST_HANDOFF=every-other st_run_mode default "$TMPDIR/bogus" "$P/exec_chain" 5
[ "$ST_STATUS" -eq 0 ] || check_problem "exec_chain 5, SYSTRACE_TEST_HANDOFF=every-other: systrace exited $ST_STATUS"
expect_handoffs "$TMPDIR/bogus" 0 "exec_chain 5, SYSTRACE_TEST_HANDOFF=every-other"
grep -q 'SYSTRACE_TEST_HANDOFF=every-other: the modes are every-exec, every-exec-after-reuse, every-exec-stopped and every-exec-slow' "$TMPDIR/bogus.err" ||
	check_problem "SYSTRACE_TEST_HANDOFF=every-other: no warning naming the variable and the one mode"

finish
