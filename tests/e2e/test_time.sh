#!/bin/sh
# --time (issue 15): the time each call spent in the kernel, per syscall (time_ns,
# min_ns, max_ns in syscalls.csv) and per site (time_ns in sites.csv). By
# construction (tests/programs/timed_calls.c), in-process (the default mode) and
# every call ptraced (--patch=off):
#  - 20 nanosleep(1 ms): 20 ms or more in all, min_ns 1 ms or more, max >= min;
#  - 1000 getppid: min_ns under 1 ms (a call that does not wait);
#  - a readv blocked 30 ms before an SA_RESTART handler interrupts it, restarted:
#    max_ns 30 ms or more (its time spans the restart; the part after it is short),
#    and systrace says it timed a call across a restart;
#  - a read blocked 30 ms before a handler without SA_RESTART: EINTR, 30 ms or more
#    (to the signal), one error; systrace says it timed a call to a handler's signal;
#  - in the default mode those sites ran in-process (their calls through the time
#    routine); the files agree (csvtool.py consistency: each image's syscalls.csv
#    time_ns add up to its sites.csv time_ns exactly, min <= time <= calls * max);
#  - the -c table is sorted by time under --time, and report --syscalls prints it
#    from the files to the byte;
#  - without --time the columns are there and empty; --time with --log is refused;
#  - log_signals (signals landing anywhere in the time routine) keeps its results
#    and counts exact;
#  - the hazard programs (registers and flags, red zone, threads racing the patch,
#    handlers in the gate, interrupted waits, restarts, clone with a new stack,
#    vfork, fork from threads, sigsys, JIT) pass their own checks under --time.
# Only lower bounds on times: a busy machine makes calls longer, never shorter.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR
require_library
MS=1000000

# at_least WHAT VALUE MIN
at_least() {
	if [ "$2" = - ] || [ "$2" -lt "$3" ]; then
		check_problem "$1 is $2, expected $3 or more by construction"
	fi
}

for mode in default off; do
	name=timed-$mode
	echo "== timed_calls under --time, --patch=$mode"
	# (the program exits 0 when its calls return as they must)
	ST_OPTS="--time --show-perf-stats -c" st_run_ok $mode "$name" "$T/$name" "$P/timed_calls" 20 || continue
	_any=--any-mode
	[ $mode = off ] && _any=
	# shellcheck disable=SC2086
	csvtool consistency "$T/$name" $_any || check_problem "$name: the files disagree"
	# shellcheck disable=SC2046 # the fields of one line
	set -- $(csvtool times "$T/$name" nanosleep --root)
	[ "$1" = 20 ] || check_problem "$name: $1 nanosleep, 20 by construction"
	at_least "$name: nanosleep's time_ns" "$3" $((20 * MS))
	at_least "$name: nanosleep's min_ns" "$4" $MS
	at_least "$name: nanosleep's max_ns" "$5" "$4"
	# shellcheck disable=SC2046
	set -- $(csvtool times "$T/$name" getppid --root)
	[ "$1" = 1000 ] || check_problem "$name: $1 getppid, 1000 by construction"
	{ [ "$4" != - ] && [ "$4" -lt $MS ]; } || check_problem "$name: getppid's min_ns is $4, not under 1 ms"
	# shellcheck disable=SC2046
	set -- $(csvtool times "$T/$name" readv --root)
	at_least "$name: the restarted readv's time (max_ns)" "$5" $((30 * MS))
	# shellcheck disable=SC2046
	set -- $(csvtool times "$T/$name" read --root)
	[ "$2" = 1 ] || check_problem "$name: $2 read errors, 1 (EINTR) by construction"
	at_least "$name: the interrupted read's time (max_ns)" "$5" $((30 * MS))
	line=$(grep '^systrace: time: ' "$T/$name.err")
	echo "   $line"
	case $line in
	*"(0 to a handler's signal"*) check_problem "$name: no call timed to a handler's signal: $line" ;;
	"") check_problem "$name: no 'systrace: time:' line under --show-perf-stats" ;;
	esac
	case $line in
	*" 0 across a restart"*) check_problem "$name: no call timed across a restart: $line" ;;
	esac
	csvtool ctable "$T/$name.err" "$T/$name" --order time || check_problem "$name: the -c table (above)"
	if [ $mode = default ]; then
		for sym in readv __read getppid; do
			n=$(awk -F, -v s="$sym" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["symbol"] ~ "^" s "\\+" { n += $c["inprocess"] } END { print n + 0 }' "$T/$name/sites.csv")
			[ "$n" -ge 1 ] || check_problem "$name: no in-process call at $sym (the time routine untested)"
		done
	fi
done

echo "== -c under --time, and report --syscalls from the files: the same table"
ST_OPTS="--time -c" st_run_mode default "$T/table" "$P/timed_calls" 2
[ "$ST_STATUS" -eq 0 ] || check_problem "table: exit status $ST_STATUS"
if require_file "$T/table/syscalls.csv" table; then
	csvtool ctable "$T/table.err" "$T/table" --order time || check_problem "table: the -c table (above)"
	grep -q '^note: the times' "$T/table.err" && check_problem "table: a note that the times were not measured, under --time"
	stats table-report report --syscalls "$T/table"
	[ "$STATS_STATUS" -eq 0 ] || check_problem "report --syscalls exited $STATS_STATUS: $(cat "$T/table-report.err")"
	cmp -s "$T/table.err" "$T/table-report.out" || {
		check_problem "table: report --syscalls differs from the table systrace -c printed under --time:"
		diff "$T/table.err" "$T/table-report.out" | head -20 | sed 's/^/    /'
	}
fi

echo "== without --time: the columns, empty"
st_run_mode default "$T/untimed" "$P/timed_calls" 2
[ "$ST_STATUS" -eq 0 ] || check_problem "untimed: exit status $ST_STATUS"
if require_file "$T/untimed/syscalls.csv" untimed && require_file "$T/untimed/sites.csv" untimed; then
	csvtool consistency "$T/untimed" --any-mode || check_problem "untimed: the files disagree"
	for f in syscalls sites; do
		n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; if (!c["time_ns"]) print "none"; next }
			$c["time_ns"] != "" { n++ } END { print n + 0 }' "$T/untimed/$f.csv")
		[ "$n" = 0 ] || check_problem "untimed: $f.csv time_ns: $n (no column, or filled without --time)"
	done
fi

echo "== --time with --log: refused"
ST_OPTS="--time --log" st_run_mode default "$T/both" "$P/timed_calls" 2
[ "$ST_STATUS" -eq 125 ] || check_problem "--time --log: exit status $ST_STATUS, not 125"
grep -q -- '--time cannot go with --log' "$T/both.err" || check_problem "--time --log: no message naming them"

# signals landing anywhere in the time routine (tests/programs/log_signals.c, as
# test_log runs it): each thread's lseek results come once and in order, and the
# counts are as constructed; the rewinds (tracer/time_fixups.c) keep them so
echo "== log_signals under --time: signals inside the time routine"
N=100000
K=1000
M=$((N + K + K / 10 * 2100))
ST_OPTS=--time st_run_mode default "$T/signals" "$P/log_signals" $N $K
[ "$ST_STATUS" -eq 0 ] || { check_problem "log_signals under --time: exit status $ST_STATUS"; st_show_err "$T/signals"; }
[ "$(cat "$T/signals.out")" = "loop $((2 * N)) handler $((2 * (M - N + K)))" ] ||
	check_problem "log_signals under --time: printed '$(cat "$T/signals.out")', not the calls it makes by construction"
expect_site_count "$T/signals" symbol=seek_site $((2 * M)) "log_signals under --time"
csvtool consistency "$T/signals" --any-mode || check_problem "log_signals under --time: the files disagree"

for prog in regs redzone race_threads handler_in_gate interrupted_waits restarts restarts_in_gate clone_stack vfork_patched fork_threads sigsys jit; do
	echo "== $prog under --time"
	ST_OPTS=--time st_run_ok default "$prog --time" "$T/$prog" "$P/$prog" || continue
	csvtool consistency "$T/$prog" --any-mode || check_problem "$prog under --time: the files disagree"
done
finish
