#!/bin/sh
# Rows stay distinct when the kernel reuses a pid within one run: in a new pid
# namespace whose pid_max is 400, fork_loop 1000 exec makes 2000 processes, so most
# pids are used several times. processes.csv must have 2001 rows (the root, and per
# child its fork image and its getppid_loop image), (pid, image, start_ns) unique, the
# images of one (pid, image) must not overlap in time, every getppid_loop image has
# its 1 getppid and exit:0, and the files must be consistent.
# Needs root (unshare --pid and a per-namespace pid_max, Linux >= 6.14); when that is
# not available the test says so and passes.
. "$(dirname "$0")/lib.sh"
export E2E_DIR
D=$TMPDIR/reuse

if ! unshare --pid --fork --mount-proc sh -c 'echo 400 > /proc/sys/kernel/pid_max' 2>/dev/null; then
	echo "skipped: cannot make a pid namespace with its own pid_max here"
	exit 0
fi
# shellcheck disable=SC2016 # the inner sh expands them
st_run_in_pidns "$D" "fork_loop 1000 exec" \
	'echo 400 > /proc/sys/kernel/pid_max && exec "$1" --patch=off -o "$2" -- "$3" 1000 exec' "$PROGRAMS/fork_loop"
if [ "$ST_STATUS" -ne 0 ]; then
	check_problem "systrace --patch=off -- fork_loop 1000 exec (pid_max 400) exited $ST_STATUS"
	st_show_err "$D"
fi
csvtool consistency "$D" || check_problem "the CSV files disagree (above)"
python3 - "$D" <<'PY' || check_problem "pid reuse (above)"
import collections, os, sys
sys.path.insert(0, os.environ["E2E_DIR"])
import csvtool
d = sys.argv[1]
problems = []
try:
    rows = csvtool.load_processes(d)
except csvtool.CheckError as e:
    print(f"FAIL: {e}")
    sys.exit(1)
pids = {r["pid"] for r in rows}
print(f"{len(rows)} rows, {len(pids)} distinct pids")
if len(rows) != 2001:
    problems.append(f"processes.csv has {len(rows)} rows, expected 2001")
if len(pids) >= len(rows) // 2:
    problems.append(f"only {len(rows)} rows for {len(pids)} pids: pids were not reused, the test proves nothing")
spans = collections.defaultdict(list)
for r in rows:
    spans[(r["pid"], r["image"])].append((int(r["start_ns"]), int(r["end_ns"])))
for k, v in spans.items():
    v.sort()
    for (s1, e1), (s2, e2) in zip(v, v[1:]):
        if s2 < e1:
            problems.append(f"pid {k[0]} image {k[1]}: rows overlap in time ({s1}..{e1} and {s2}..{e2})")
            break
loops = [r for r in rows if os.path.basename(r["exe"]) == "getppid_loop"]
if len(loops) != 1000:
    problems.append(f"{len(loops)} getppid_loop images, expected 1000")
bad_exit = [r for r in loops if r["exit"] != "exit:0"]
if bad_exit:
    problems.append(f"{len(bad_exit)} getppid_loop images did not end with exit:0, e.g. {bad_exit[0]}")
counts = csvtool.systrace_counts(d)
if counts.get("getppid") != 1000:
    problems.append(f"getppid counted {counts.get('getppid')} times, expected 1000")
for p in problems[:20]:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
PY
finish
