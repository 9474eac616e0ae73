#!/bin/sh
# What a stop and an in-process call cost, as systrace measures them before the
# command starts (tracer/calibrate.c):
#  - default mode: summary.csv has stop_cost_ns > inprocess_cost_ns > 0,
#    saving_per_call_ns = their difference, calibration_ns > 0, and
#    --show-perf-stats prints the same; the measuring child is no part of the run
#    (one process, the program's exact getppid count) and no warning is printed;
#  - --patch=off: nothing is measured, the keys are there and empty, no warning.
. "$(dirname "$0")/lib.sh"
export E2E_DIR

echo "== default mode: getppid_loop 10"
ST_OPTS=--show-perf-stats st_run_clean default "$TMPDIR/on" "$PROGRAMS/getppid_loop" 10
if [ "$ST_STATUS" -eq 0 ]; then
	csvtool perfstats "$TMPDIR/on" "$TMPDIR/on.err" || check_problem "default mode: --show-perf-stats (above)"
	expect_count "$TMPDIR/on" x86_64 getppid 10 "the measuring child's getppid calls are not the program's"
	python3 - "$TMPDIR/on" <<'PY' || check_problem "default mode: the measured costs (above)"
import sys
sys.path.insert(0, __import__("os").environ["E2E_DIR"])
import csvtool
s = csvtool.load_summary(sys.argv[1])
stop, inproc, saving, took = (s[k] for k in csvtool.COST_KEYS)
print(f"stop_cost_ns={stop} inprocess_cost_ns={inproc} saving_per_call_ns={saving} calibration_ns={took}")
bad = 0
if None in (stop, inproc, saving, took):
    print("FAIL: a cost key is empty: the measurement failed (see systrace's warning)")
    sys.exit(1)
if not stop > inproc > 0:
    print(f"FAIL: expected stop_cost_ns > inprocess_cost_ns > 0")
    bad = 1
if saving != max(stop - inproc, 1):
    print(f"FAIL: saving_per_call_ns {saving} != stop_cost_ns - inprocess_cost_ns")
    bad = 1
if not took > 0:
    print("FAIL: calibration_ns is 0")
    bad = 1
if s["processes"] != 1:
    print(f"FAIL: processes = {s['processes']}: the measuring child must not be a row")
    bad = 1
sys.exit(bad)
PY
	if grep -q "warning" "$TMPDIR/on.err"; then
		check_problem "default mode: systrace warned:"
		st_show_err "$TMPDIR/on"
	fi
fi

echo "== --patch=off: getppid_loop 10"
ST_OPTS=--show-perf-stats st_run_mode off "$TMPDIR/off" "$PROGRAMS/getppid_loop" 10
if [ "$ST_STATUS" -ne 0 ]; then
	check_problem "--patch=off exited $ST_STATUS"
	st_show_err "$TMPDIR/off"
else
	csvtool perfstats "$TMPDIR/off" "$TMPDIR/off.err" || check_problem "--patch=off: --show-perf-stats (above)"
	python3 - "$TMPDIR/off" <<'PY' || check_problem "--patch=off: the cost keys (above)"
import sys
sys.path.insert(0, __import__("os").environ["E2E_DIR"])
import csvtool
s = csvtool.load_summary(sys.argv[1])
filled = [k for k in csvtool.COST_KEYS if s[k] is not None]
if filled:
    print(f"FAIL: --patch=off measures nothing, yet {filled} have values")
    sys.exit(1)
PY
	if grep -q "warning" "$TMPDIR/off.err"; then
		check_problem "--patch=off: systrace warned:"
		st_show_err "$TMPDIR/off"
	fi
fi

finish
