#!/bin/sh
# A command that ignores termination requests: the first two SIGTERMs sent to
# systrace are passed on (and ignored); the third makes systrace stop, kill the
# command (PTRACE_O_EXITKILL), exit 128+15, and still write complete files in which
# the command's row says `running` and its calls so far are counted.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/give_up
"$SYSTRACE" --patch=off -o "$D" -- "$PROGRAMS/ignore_termination" 2>"$D.err" &
pid=$!
sleep 0.5
for _ in 1 2 3; do
	kill -TERM "$pid"
	sleep 0.2
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
# it dies of the SIGKILL systrace's exit sends; give that a moment
for _ in 1 2 3 4 5 6 7 8 9 10; do
	pgrep -f "$PROGRAMS/ignore_termination" >/dev/null || break
	sleep 0.1
done
if pgrep -f "$PROGRAMS/ignore_termination" >/dev/null; then
	check_problem "give up: the command outlived systrace"
	pkill -KILL -f "$PROGRAMS/ignore_termination"
fi
finish
