#!/bin/sh
# A process killed between making a child and reporting it: the child's first stop
# comes with no creator event. systrace must place it from /proc and let it run
# (holding it for the event would leave it stopped forever and systrace waiting),
# and the files must stay consistent. 200 rounds, so that the window is hit.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/fork_killed
st_run "$D" "$PROGRAMS/fork_killed" 200
if [ "$ST_STATUS" -ne 0 ]; then
	check_problem "fork_killed: systrace exited $ST_STATUS (124: it hung), expected 0"
	st_show_err "$D"
	pkill -KILL -f "$PROGRAMS/fork_killed"
else
	grep -q "done 200 rounds" "$D.out" || check_problem "fork_killed: the program did not finish"
	csvtool consistency "$D" || check_problem "fork_killed: CSV files inconsistent"
	if require_file "$D/processes.csv" fork_killed; then
		running=$(grep -c ',running,' "$D/processes.csv")
		[ "$running" = 0 ] || check_problem "fork_killed: $running images still running at the end"
	fi
fi
finish
