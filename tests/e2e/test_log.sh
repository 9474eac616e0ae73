#!/bin/sh
# --log: the temporal log, read back by an independent reader (logtool.py) and held to
# the CSV files of the same run (every entry there, on the right path, phase, site
# and pid; each thread's entries in time order), and to what the programs are known
# to do:
#  - log_known: 5001 getppid returning the parent's pid (5000 at one inline site,
#    in-process: more than a thread's buffer, so it fills and is emptied), openat
#    -ENOENT, write 6, getpid the pid, exit_group last and without a result; the same
#    results with every call ptraced (--patch=off);
#  - log_signals: two threads making N = 100,000 calls each at one site, each
#    interrupted K = 1,000 times by a signal (a timer of its own, armed as it goes:
#    landing anywhere in its calls, the log routine's windows included) whose handler
#    calls at the same site and another: the site is lseek(+1) on a file of the
#    thread's own, so each thread's entries must return 1 .. N + K in the log's order
#    (none lost, doubled, misplaced or holding another's result); gettid 2K + 2, each
#    returning its thread; the sites' counts as constructed;
#  - the hazard programs (registers and flags, red zone, threads racing the patch,
#    handlers in the gate, interrupted waits, clone with a new stack, vfork, fork
#    from threads, sigsys, JIT) pass their own checks under --log, and their logs
#    add up;
#  - a process killed by SIGKILL in the middle of its calls, and a run interrupted
#    (SIGTERM to systrace) in the middle of its command's (both once the program
#    said it made 100,000): nothing lost.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR
LOGTOOL="python3 $E2E_DIR/logtool.py"
SYSCALL_TABLE=$BUILD_DIR/gen/syscall_table.c
export SYSCALL_TABLE

# calls_of NAME: NAME's entries as `tid syscall path early ret`
calls_of() {
	pid=$(csvtool_field "$T/$1/processes.csv" pid)
	$LOGTOOL calls "$T/$1" "$pid"
}

csvtool_field() { # FILE COLUMN: the column of the first row
	python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])' "$1" "$2"
}

for mode in default off; do
	name=known_$mode
	echo "== log_known, --patch=$mode"
	ST_OPTS=--log st_run_mode "$mode" "$T/$name" "$P/log_known"
	[ "$ST_STATUS" -eq 3 ] || check_problem "$name: exit status $ST_STATUS, not 3"
	log_check "$T/$name" "$name"
	pid=$(csvtool_field "$T/$name/processes.csv" pid)
	ppid=$(csvtool_field "$T/$name/processes.csv" ppid)
	$LOGTOOL calls "$T/$name" "$pid" >"$T/$name.calls"
	n=$(awk -v p="$ppid" '$2 == "getppid" && $5 == p' "$T/$name.calls" | wc -l)
	[ "$n" -eq 5001 ] || check_problem "$name: $n getppid entries returning $ppid, not 5001"
	# with --patch=off the library is never ready: every call is early
	early=0
	[ "$mode" = off ] && early=1
	grep -q "^$pid openat [a-z]* $early -2\$" "$T/$name.calls" || check_problem "$name: no openat entry with -2 (ENOENT)"
	grep -q "^$pid write [a-z]* $early 6\$" "$T/$name.calls" || check_problem "$name: no write entry returning 6"
	grep -q "^$pid getpid [a-z]* $early $pid\$" "$T/$name.calls" || check_problem "$name: no getpid entry returning $pid"
	last=$(tail -1 "$T/$name.calls")
	[ "$last" = "$pid exit_group ptraced $early -" ] || [ "$last" = "$pid exit_group inprocess $early -" ] ||
		check_problem "$name: the last entry is '$last', not exit_group without a result"
	early=$(awk '$4 == 1' "$T/$name.calls" | wc -l)
	[ "$early" -gt 0 ] || check_problem "$name: no early entry (the loader's calls)"
	if [ "$mode" = default ]; then
		inproc=$(awk '$2 == "getppid" && $3 == "inprocess"' "$T/$name.calls" | wc -l)
		[ "$inproc" -ge 4990 ] || check_problem "$name: only $inproc getppid entries in-process"
		flushes=$(sed -n 's/.* \([0-9]*\) stops to empty full buffers.*/\1/p' "$T/$name.err")
		[ "${flushes:-0}" -ge 2 ] || check_problem "$name: ${flushes:-no} buffer flushes for 5000 in-process calls (stderr: $(tail -1 "$T/$name.err"))"
	fi
	grep -q "^systrace: log: [0-9]* entries" "$T/$name.err" || check_problem "$name: the log's cost is not printed"
done

echo "== log_signals: signals inside the log routine"
# N calls and K signals per loop thread; every tenth handler makes 2100 calls more
# (tests/programs/log_signals.c): per thread M lseek in all
N=100000 K=1000
M=$((N + K + K / 10 * 2100))
ST_OPTS=--log st_run_mode default "$T/signals" "$P/log_signals" $N $K
[ "$ST_STATUS" -eq 0 ] || { check_problem "log_signals: exit status $ST_STATUS"; st_show_err "$T/signals"; }
[ "$(cat "$T/signals.out")" = "loop $((2 * N)) handler $((2 * (M - N + K)))" ] ||
	check_problem "log_signals: printed '$(cat "$T/signals.out")', not the calls it makes by construction"
if require_file "$T/signals/processes.csv" log_signals && require_file "$T/signals/syscall-log.bin" log_signals; then
	log_check "$T/signals" signals
	pid=$(csvtool_field "$T/signals/processes.csv" pid)
	$LOGTOOL calls "$T/signals" "$pid" >"$T/signals.calls"
	# each thread's lseek entries, in the file's order, return 1, 2, ..., M: none
	# lost, none doubled, none out of order, none with another call's result
	awk -v want=$M -v tids_want=$((2 * K + 2)) '
		$2 == "lseek" {
			n[$1]++
			if ($5 != last[$1] + 1 && breaks[$1]++ < 3)
				printf "    thread %s: lseek entry %d returns %s after %s\n", $1, n[$1], $5, last[$1]
			last[$1] = $5
		}
		$2 == "gettid" { tids++; own += $5 == $1 }
		END {
			for (t in n) {
				threads++
				wrong += n[t] != want || last[t] != want || breaks[t]
				printf "    thread %s: %d lseek entries, the last returning %s, %d breaks in the sequence\n", t, n[t], last[t], breaks[t]
			}
			printf "    %d gettid entries, %d returning their own thread\n", tids, own
			exit !(threads == 2 && !wrong && tids == tids_want && own == tids)
		}' "$T/signals.calls" ||
		check_problem "log_signals: the log does not hold the calls as made (by construction: per thread $M lseek entries returning 1 to $M in order; $((2 * K + 2)) gettid entries returning their thread)"
	expect_site_count "$T/signals" symbol=seek_site $((2 * M)) "log_signals (the loops and the handlers)"
	expect_site_count "$T/signals" symbol=handler_site $((2 * K)) "log_signals (the handlers)"
fi

for prog in regs redzone race_threads handler_in_gate interrupted_waits clone_stack vfork_patched fork_threads sigsys jit; do
	echo "== $prog under --log"
	ST_OPTS=--log st_run_mode default "$T/$prog" "$P/$prog"
	[ "$ST_STATUS" -eq 0 ] || { check_problem "$prog: exit status $ST_STATUS under --log"; sed 's/^/    | /' "$T/$prog.err" | tail -5; }
	log_check "$T/$prog" "$prog"
done

# getppid_loop N 0 FIFO writes a line into FIFO after N calls and goes on calling
# until it is killed: the kills below come in the middle of its calls, whatever the
# machine's speed
echo "== killed by SIGKILL in its calls"
mkfifo "$T/killed.ready"
# shellcheck disable=SC2016 # the traced shell expands them
ST_OPTS=--log st_run_mode default "$T/killed" sh -c '"$0" 100000 0 "$1" & read -r _ <"$1"; kill -9 $!; wait' \
	"$P/getppid_loop" "$T/killed.ready"
log_check "$T/killed" killed
require_file "$T/killed/processes.csv" killed &&
	{ grep -q ',signal:9,' "$T/killed/processes.csv" || check_problem "killed: no process row ended by signal 9"; }

echo "== systrace interrupted (SIGTERM; a background job ignores SIGINT)"
rm -rf "$T/int"
mkfifo "$T/int.ready"
"$SYSTRACE" --log -o "$T/int" -- "$P/getppid_loop" 100000 0 "$T/int.ready" >"$T/int.out" 2>"$T/int.err" &
st=$!
if timeout "$RUN_TIMEOUT" sh -c 'read -r _ <"$1"' sh "$T/int.ready"; then
	kill -TERM $st
else
	check_problem "interrupted: getppid_loop did not make its 100000 calls within ${RUN_TIMEOUT}s"
	kill -KILL $st
fi
wait $st
status=$?
no_sanitizer_report "$T/int.err" "systrace --log, interrupted"
[ "$status" -eq 143 ] || check_problem "interrupted: exit status $status, not 143"
log_check "$T/int" int
finish
