#!/bin/sh
# A command that ignores termination requests: the first two SIGTERMs sent to
# systrace are passed on (and ignored); the third makes systrace stop, kill the
# command (PTRACE_O_EXITKILL), exit 128+15, and still write complete files in which
# the command's row says `running` and its calls so far are counted. Nothing is
# timed: the first SIGTERM goes once the command says it ignores them and made 200
# calls, each next one once systrace took the one before (none pending).
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/give_up
# pending SIG PID: SIG is pending for PID (SigPnd, ShdPnd in /proc/PID/status)
pending() {
	for _m in $(sed -n 's/^\(Sig\|Shd\)Pnd:[[:space:]]*//p' "/proc/$2/status" 2>/dev/null); do
		[ $(((0x$_m >> ($1 - 1)) & 1)) -eq 1 ] && return 0
	done
	return 1
}
"$SYSTRACE" --patch=off -o "$D" -- "$PROGRAMS/ignore_termination" "$D.ready" 2>"$D.err" &
pid=$!
# the command ignores the signals and made 200 calls: nothing left to time
i=0
while [ ! -e "$D.ready" ] && [ $i -lt $((RUN_TIMEOUT * 20)) ] && kill -0 "$pid" 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
done
[ -e "$D.ready" ] || check_problem "give up: ignore_termination did not start (systrace $(kill -0 "$pid" 2>/dev/null && echo running || echo gone))"
# one SIGTERM at a time: the next once systrace took the last (two pending ones
# would be one)
for _ in 1 2 3; do
	kill -TERM "$pid" 2>/dev/null
	i=0
	while pending 15 "$pid" && [ $i -lt $((RUN_TIMEOUT * 20)) ]; do
		sleep 0.05
		i=$((i + 1))
	done
done
wait "$pid"
status=$?
no_sanitizer_report "$D.err" "systrace -- ignore_termination"
[ "$status" -eq 143 ] || check_problem "give up: systrace exited $status, expected 143"
grep -q "interrupted three times" "$D.err" || check_problem "give up: no message saying why systrace stopped"
python3 - "$D/processes.csv" <<'PY' || check_problem "give up: processes.csv does not report the command as running with its calls"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
sys.exit(0 if len(rows) == 1 and rows[0]["exit"] == "running" and int(rows[0]["syscalls"]) > 100 else 1)
PY
csvtool consistency "$D" || check_problem "give up: CSV files inconsistent"
# it dies of the SIGKILL systrace's exit sends; give that the time a loaded machine takes
for _ in $(seq $((RUN_TIMEOUT * 20))); do
	pgrep -f "$PROGRAMS/ignore_termination" >/dev/null || break
	sleep 0.05
done
if pgrep -f "$PROGRAMS/ignore_termination" >/dev/null; then
	check_problem "give up: the command outlived systrace"
	pkill -KILL -f "$PROGRAMS/ignore_termination"
fi
finish
