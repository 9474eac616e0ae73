#!/bin/sh
# --tracer-threads=N (tracer/tracer_threads.h): several threads serve the stops,
# each its own tracees; a process moves to another at its exec event. Every count
# stays what one thread counts: against strace -f -c and by construction, with 4
# threads and every exec handed to the next thread (SYSTRACE_TEST_HANDOFF), and with
# 4 threads under the load rule alone; summary.csv says how many served and moved,
# and the serving CPU of all of them; --log with 4 threads, every image of the mix on
# the next: the log adds up to the CSV files, each thread's entries in time order;
# one serving thread per 8 CPUs by default (fewer under a cgroup's CPU quota: 3 on
# 64 CPUs with a quota of 20, in a cgroup made here); bad values are refused with a
# message.
# (`make check` also runs the whole e2e suite with 4 threads and every exec handed
# off: SYSTRACE_TEST_THREADS.)
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
unset SYSTRACE_TEST_THREADS SYSTRACE_TEST_HANDOFF

# expect_summary DIR KEY VALUE WHAT
expect_summary() {
	require_file "$1/summary.csv" "$4" || return
	[ "$(summary_value "$1" "$2")" = "$3" ] || check_problem "$4: summary.csv $2 is '$(summary_value "$1" "$2")', expected $3"
}

# a shell mix: processes, threads, vforks, a non-leader's exec, signals, each image
# of it on the next thread
MIX="$P/fork_tree && $P/threads && $P/vfork_exec && $P/exec_from_thread $P/getppid_loop && $P/signals"
export SYSTRACE_TEST_HANDOFF=every-exec
ST_OPTS=--tracer-threads=4
# (exit_group: fork_tree's 15, threads' 1, vfork_exec's 4, getppid_loop's 1,
# signals' 2 and the shell's; getppid: theirs and the shell's one)
if compare_inprocess mix default "exit_group=24 exit=8 kill=1" sh -c "$MIX"; then
	expect_count "$TMPDIR/mix" x86_64 getppid $((600 + 1000 + 80 + 33 + 25 + 1)) "the mix on 4 threads"
	expect_summary "$TMPDIR/mix" tracer_threads 4 "the mix"
	# every exec but the command's: fork_tree, threads, vfork_exec and its
	# getppid_loop, exec_from_thread and its getppid_loop, signals
	expect_summary "$TMPDIR/mix" tracer_handoffs 7 "the mix"
fi
if compare_with_strace chain "exit_group=2" "$P/exec_chain" 40; then
	expect_count "$TMPDIR/chain" x86_64 getppid 440 "exec_chain 40 on 4 threads (--patch=off)"
	expect_summary "$TMPDIR/chain" tracer_handoffs 39 "exec_chain 40 on 4 threads"
fi
# stopped and continued while the images cross threads
stopped_chain "$TMPDIR/stopped" 200 "exec_chain 200 stopped, 4 threads"
# the log, written by the four threads: every entry in the CSV files, each thread's
# in time order (logtool.py check), the mix's calls all there
ST_OPTS="--tracer-threads=4 --log" st_run_mode default "$TMPDIR/logged" sh -c "$MIX"
[ "$ST_STATUS" -eq 0 ] || check_problem "the mix under --log on 4 threads: exit status $ST_STATUS"
if require_file "$TMPDIR/logged/syscall-log.bin" "the mix under --log on 4 threads"; then
	log_check "$TMPDIR/logged" "the mix under --log on 4 threads"
	expect_count "$TMPDIR/logged" x86_64 getppid $((600 + 1000 + 80 + 33 + 25 + 1)) "the mix under --log on 4 threads"
	expect_summary "$TMPDIR/logged" tracer_handoffs 7 "the mix under --log"
fi
# the serving load is every thread's: 300 images, each served by the next of the 4
# threads, so that the first alone serves a quarter of them; the serving CPU is
# most of the tracer's CPU but the writer's (it was the first thread's only: 0.25-0.5
# of it, against 0.85-0.93 when all are summed, on the VM of 2026-12-06)
st_run_mode default "$TMPDIR/load" "$P/exec_chain" 300
[ "$ST_STATUS" -eq 0 ] || check_problem "exec_chain 300 on 4 threads: exit status $ST_STATUS"
if require_file "$TMPDIR/load/summary.csv" "exec_chain 300 on 4 threads"; then
	expect_summary "$TMPDIR/load" tracer_handoffs 299 "exec_chain 300 on 4 threads"
	awk -F, '$1 == "tracer_cpu_ns" { c = $2 } $1 == "tracer_writer_cpu_ns" { w = $2 }
		$1 == "tracer_serving_cpu_ns" { s = $2 }
		END { printf "    serving CPU %.1f ms of %.1f ms (the writer %.1f ms)\n", s / 1e6, c / 1e6, w / 1e6
		      exit !(c > w && s <= c - w && s >= 0.6 * (c - w)) }' "$TMPDIR/load/summary.csv" ||
		check_problem "exec_chain 300 on 4 threads: tracer_serving_cpu_ns is not the four threads' (above)"
fi

# the load rule alone: a busy shell loop (60 images, seq and the shell), whatever
# moves, counts the same
unset SYSTRACE_TEST_HANDOFF
if compare_inprocess loop default "exit_group=62" sh -c "for i in \$(seq 60); do $P/getppid_loop 20; done"; then
	expect_count "$TMPDIR/loop" x86_64 getppid 1201 "60 images on 4 threads (and the shell's one)"
	expect_summary "$TMPDIR/loop" tracer_threads 4 "60 images"
fi
ST_OPTS=

# bad values: a message naming the option, exit status 125, no output folder
for bad in 0 65 -1 two ""; do
	D=$TMPDIR/bad
	rm -rf "$D"
	"$SYSTRACE" --tracer-threads="$bad" -o "$D" -- true >"$D.out" 2>"$D.err"
	st=$?
	[ "$st" -eq 125 ] || check_problem "--tracer-threads='$bad': exit status $st, expected 125"
	grep -q "tracer-threads needs a number from 1 to 64 or 'auto', not '$bad'" "$D.err" ||
		check_problem "--tracer-threads='$bad': no message naming the option: $(cat "$D.err")"
	[ -e "$D" ] && check_problem "--tracer-threads='$bad': the output folder was made"
done
SYSTRACE_TEST_THREADS=many "$SYSTRACE" -o "$TMPDIR/env" -- true >/dev/null 2>"$TMPDIR/env.err"
[ $? -eq 125 ] || check_problem "SYSTRACE_TEST_THREADS=many: not refused with 125"
grep -q "SYSTRACE_TEST_THREADS needs a number from 1 to 64 or 'auto', not 'many'" "$TMPDIR/env.err" ||
	check_problem "SYSTRACE_TEST_THREADS=many: no message naming it"
# by default (auto) one thread per 8 CPUs the run may use, as nproc counts them
# (tracer_threads_for_cpus: the unit tests try other counts); one on one CPU
cpus=$(nproc)
auto=$(((cpus + 7) / 8))
[ "$auto" -gt 64 ] && auto=64
st_run_mode default "$TMPDIR/one" true
expect_summary "$TMPDIR/one" tracer_threads "$auto" "the default on $cpus CPUs"
ST_OPTS=--tracer-threads=auto st_run_mode default "$TMPDIR/auto" true
expect_summary "$TMPDIR/auto" tracer_threads "$auto" "--tracer-threads=auto on $cpus CPUs"
taskset -c 0 "$SYSTRACE" -o "$TMPDIR/cpu0" -- true || check_problem "systrace under taskset -c 0 failed"
expect_summary "$TMPDIR/cpu0" tracer_threads 1 "the default under taskset -c 0"
# as on larger machines (SYSTRACE_TEST_CPUS stands for the CPUs the run may use):
# 9 CPUs two threads, 64 eight, and the mix on 17 (three) counted as on one
SYSTRACE_TEST_CPUS=9 st_run_mode default "$TMPDIR/cpus9" true
expect_summary "$TMPDIR/cpus9" tracer_threads 2 "the default on 9 CPUs"
SYSTRACE_TEST_CPUS=64 st_run_mode default "$TMPDIR/cpus64" true
expect_summary "$TMPDIR/cpus64" tracer_threads 8 "the default on 64 CPUs"
SYSTRACE_TEST_CPUS=64 ST_OPTS=--tracer-threads=3 st_run_mode default "$TMPDIR/cpus64-3" true
expect_summary "$TMPDIR/cpus64-3" tracer_threads 3 "--tracer-threads=3 on 64 CPUs"
SYSTRACE_TEST_CPUS=17 st_run_mode default "$TMPDIR/cpus17" sh -c "$MIX"
[ "$ST_STATUS" -eq 0 ] || check_problem "the mix on 17 CPUs: exit status $ST_STATUS"
if require_file "$TMPDIR/cpus17/summary.csv" "the mix on 17 CPUs"; then
	expect_summary "$TMPDIR/cpus17" tracer_threads 3 "the mix on 17 CPUs"
	expect_count "$TMPDIR/cpus17" x86_64 getppid $((600 + 1000 + 80 + 33 + 25 + 1)) "the mix on 17 CPUs"
fi
# a cgroup's CPU quota of 20 CPUs on 64: three threads (tracer/cpus_allowed.h), in a
# cgroup made here (v2 where it has the cpu controller, else v1's)
cg=""
if [ "$(id -u)" -eq 0 ]; then
	if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
		{ grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control; } 2>/dev/null &&
		mkdir "/sys/fs/cgroup/systrace-test-$$" 2>/dev/null; then
		cg=/sys/fs/cgroup/systrace-test-$$
		echo "2000000 100000" >"$cg/cpu.max" || check_problem "cannot set $cg/cpu.max"
	elif [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] && mkdir "/sys/fs/cgroup/cpu/systrace-test-$$" 2>/dev/null; then
		cg=/sys/fs/cgroup/cpu/systrace-test-$$
		{ echo 100000 >"$cg/cpu.cfs_period_us" && echo 2000000 >"$cg/cpu.cfs_quota_us"; } ||
			check_problem "cannot set $cg's quota"
	fi
fi
if [ -n "$cg" ]; then
	printf '#!/bin/sh\necho $$ >"%s/cgroup.procs" && exec "%s" "$@"\n' "$cg" "$SYSTRACE" >"$TMPDIR/in-cgroup"
	chmod +x "$TMPDIR/in-cgroup"
	SYSTRACE_TEST_CPUS=64 ST_BIN=$TMPDIR/in-cgroup st_run_mode default "$TMPDIR/quota" true
	[ "$ST_STATUS" -eq 0 ] || check_problem "in a cgroup with a quota of 20 CPUs: exit status $ST_STATUS"
	expect_summary "$TMPDIR/quota" tracer_threads 3 "the default on 64 CPUs with a quota of 20"
	rmdir "$cg" || check_problem "cannot remove $cg"
else
	echo "    the cgroup quota case not run: it needs root and a cgroup cpu controller"
fi
# the suite's default, with --log too
SYSTRACE_TEST_THREADS=4 ST_OPTS=--log st_run_mode default "$TMPDIR/suite" true
[ "$ST_STATUS" -eq 0 ] || check_problem "--log under SYSTRACE_TEST_THREADS=4: exit status $ST_STATUS"
expect_summary "$TMPDIR/suite" tracer_threads 4 "--log under SYSTRACE_TEST_THREADS=4"

finish
