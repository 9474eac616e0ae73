#!/bin/sh
# The serving thread's load over the run (tracer/serving_load.h): summary.csv's
# tracer_serving_cpu_ns, tracer_busy_permille and tracer_run_delay_ns, and the line
# --show-perf-stats ends with.
#  - 50 x /bin/true from sh: the keys agree with one another and with the run
#    (csvtool: the thread's CPU is within the tracer's and within the run with its
#    wait, the share is that CPU over wall_ns), the printed keys and line say the
#    same, and the wait is known where the kernel keeps schedstat;
#  - the same with a CPU-bound loop on the one CPU the run may use (taskset): the
#    serving thread waits for that CPU at some of its wakeups (run delay > 0) and
#    cannot have had all of it (busy < 100%).
. "$(dirname "$0")/lib.sh"

LOOP='i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done'

# check_load DIR WHAT: the checks above, on DIR and DIR.err
check_load() {
	require_file "$1/summary.csv" "$2" || return
	csvtool consistency "$1" --any-mode || check_problem "$2: the files (above)"
	csvtool perfstats "$1" "$1.err" || check_problem "$2: --show-perf-stats (above)"
	if [ -r /proc/thread-self/schedstat ] && grep -q '^tracer_run_delay_ns,$' "$1/summary.csv"; then
		check_problem "$2: the kernel keeps schedstat, yet tracer_run_delay_ns is empty"
	fi
}

echo "== alone: 50 x /bin/true from sh"
ST_OPTS=--show-perf-stats st_run_clean "the loop" "$TMPDIR/alone" sh -c "$LOOP"
[ "$ST_STATUS" -eq 0 ] && check_load "$TMPDIR/alone" "alone"

echo "== beside a CPU-bound loop, both on CPU 0"
printf '#!/bin/sh\nexec taskset -c 0 "%s" "$@"\n' "$SYSTRACE" >"$TMPDIR/on_cpu0"
chmod +x "$TMPDIR/on_cpu0"
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
# (at its default nice of -20 the serving thread would hardly wait: the case is a
# thread at the hog's nice)
ST_BIN=$TMPDIR/on_cpu0 ST_OPTS="--show-perf-stats --tracer-nice=0" st_run_clean "the loop" "$TMPDIR/hog" sh -c "$LOOP"
kill "$hog"
wait "$hog" 2>/dev/null
if [ "$ST_STATUS" -eq 0 ]; then
	check_load "$TMPDIR/hog" "beside a CPU-bound loop"
	delay=$(summary_value "$TMPDIR/hog" tracer_run_delay_ns)
	busy=$(summary_value "$TMPDIR/hog" tracer_busy_permille)
	echo "tracer_run_delay_ns=$delay tracer_busy_permille=$busy"
	if [ -r /proc/thread-self/schedstat ] && ! [ "${delay:-0}" -gt 0 ]; then
		check_problem "beside a CPU-bound loop on its one CPU, the serving thread never waited for it (tracer_run_delay_ns '$delay')"
	fi
	[ "${busy:-1000}" -lt 1000 ] || check_problem "beside a CPU-bound loop on its one CPU, the serving thread was busy all the run ($busy)"
fi

finish
