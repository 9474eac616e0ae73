#!/bin/sh
# The first call at a site returns its own result, whatever the tracer does at that
# stop (tests/programs/first_call.c checks it and exits non-zero otherwise). A
# failure here comes and goes: the program runs 150 times under systrace in its
# default mode (safe). Apart from test_inprocess_exact.sh, whose hazard programs
# and these runs together came near the per-test bound on a busy machine.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

echo "== first_call, 150 runs"
fc_bad=0
i=0
while [ $i -lt 150 ]; do
	i=$((i + 1))
	st_run_mode default "$T/first_call" "$P/first_call"
	if [ "$ST_STATUS" -ne 0 ]; then
		fc_bad=$((fc_bad + 1))
		[ $fc_bad -le 3 ] && sed 's/^/    | /' "$T/first_call.err" | head -5
	fi
done
[ $fc_bad -eq 0 ] || check_problem "first_call: $fc_bad of 150 runs had a first call return a wrong value (or fail): the value of something the tracer made the thread do at that stop?"

finish
