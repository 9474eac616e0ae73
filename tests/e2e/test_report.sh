#!/bin/sh
# systrace-stats report and export on a known run (the default mode: patching):
# getppid_loop 1 (its getppid site is patched at its first call and never called again:
# it cannot amortize), getppid_loop 500 (the same site, called 500 times) and fork_tree
# (15 processes), under a shell.
#  - report --csv: a row per row of processes.csv with the same counts, sites_not_amortized
#    = its rows of sites.csv with amortized=no; --sort and --limit;
#  - the text report: the TOTAL row and the amortization totals equal summary.csv and
#    sites.csv, and it says the totals agree;
#  - the one-call getppid site is listed as not amortized, and its function is ranked
#    among the short-lived processes' (all of them, with --short-ms 100000): the
#    containing symbol without --libc-calls, libc's syscall() with it;
#  - errors name the file and the problem (exit 1), usage errors exit 2;
#  - export gives valid JSON (json.load): a track and lifetime per process row,
#    patch events when sites.csv has patched_ns, and, for a run with --log, a syscall
#    event per logged call (ptraced, in-process and early events add up to summary.csv)
#    and --max-syscalls caps them, saying so.
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
[ -x "$SYSTRACE_STATS" ] || fail "$SYSTRACE_STATS is missing (make build/asan/systrace-stats)"
P=$PROGRAMS
D=$TMPDIR/run
export E2E_DIR D

echo "== the run"
st_run_clean known "$D" /bin/sh -c "$P/getppid_loop 1; $P/getppid_loop 500; $P/fork_tree"
[ -f "$D/summary.csv" ] || fail "no CSV files"
# with the temporal log, and with the libc functions named
ST_OPTS=--log st_run_clean known-log "$TMPDIR/logrun" /bin/sh -c "$P/getppid_loop 500"
ST_OPTS=--libc-calls st_run_clean known-libc "$TMPDIR/libcrun" "$P/getppid_loop" 1

echo "== report --csv: a row per process, as processes.csv says"
stats report-csv report --csv --sort pid:asc "$D"
[ "$STATS_STATUS" -eq 0 ] || check_problem "report --csv exited $STATS_STATUS: $(cat "$TMPDIR/report-csv.err")"
python3 - "$D" "$TMPDIR/report-csv.out" <<'PY' || check_problem "report --csv disagrees with the CSV files (above)"
import collections, csv, sys
d, out = sys.argv[1:]
procs = list(csv.DictReader(open(f"{d}/processes.csv")))
sites = list(csv.DictReader(open(f"{d}/sites.csv")))
rows = list(csv.DictReader(open(out)))
bad = 0
def fail(msg):
    global bad
    print("FAIL:", msg)
    bad = 1
if len(rows) != len(procs):
    fail(f"{len(rows)} rows, processes.csv has {len(procs)}")
cols = ["pid", "image", "ppid", "syscalls", "early", "ptraced", "inprocess", "ptrace_stops", "stops_lifecycle",
        "stops_early", "stops_late", "patches_written", "patches_not_amortized", "patch_ns", "exit", "exe"]
want = collections.Counter(tuple(p[c] for c in cols) for p in procs)
got = collections.Counter(tuple(r[c] for c in cols) for r in rows)
if want != got:
    fail(f"rows differ: missing {list((want - got).elements())[:3]}, extra {list((got - want).elements())[:3]}")
# sites_not_amortized: the image's rows of sites.csv with amortized=no (no pid reuse in so short a run)
unpaid = collections.Counter((s["pid"], s["image"]) for s in sites if s["amortized"] == "no")
for r in rows:
    if int(r["sites_not_amortized"]) != unpaid[(r["pid"], r["image"])]:
        fail(f"pid {r['pid']} image {r['image']}: sites_not_amortized {r['sites_not_amortized']}, sites.csv has {unpaid[(r['pid'], r['image'])]}")
    p = next(p for p in procs if (p["pid"], p["image"]) == (r["pid"], r["image"]))
    wall = (int(p["end_ns"]) - int(p["start_ns"])) / 1e6
    if abs(float(r["wall_ms"]) - wall) > 0.001:
        fail(f"pid {r['pid']}: wall_ms {r['wall_ms']}, processes.csv says {wall:.6f}")
pids = [int(r["pid"]) for r in rows]
if pids != sorted(pids):
    fail(f"--sort pid:asc gave pids {pids}")
# what the programs do: 15 fork_tree processes; a getppid_loop with at least 500 calls
if sum(1 for r in rows if r["exe"].endswith("/fork_tree")) != 15:
    fail("not 15 fork_tree rows")
loops = sorted(int(r["syscalls"]) for r in rows if r["exe"].endswith("/getppid_loop"))
if len(loops) != 2 or loops[1] < 500 or loops[1] - loops[0] != 499:
    fail(f"getppid_loop rows have {loops} syscalls: expected two, 499 apart (1 and 500 getppid calls)")
sys.exit(bad)
PY

stats sorted report --csv --sort wall_ms:asc --limit 3 "$D"
python3 - "$TMPDIR/sorted.out" <<'PY' || check_problem "--sort wall_ms:asc --limit 3 (above)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
walls = [float(r["wall_ms"]) for r in rows]
if len(rows) != 3 or walls != sorted(walls):
    print(f"FAIL: {len(rows)} rows with wall_ms {walls}: expected 3, ascending")
    sys.exit(1)
PY

echo "== the text report: totals and amortization against summary.csv and sites.csv"
stats text report --short-ms 100000 --top 1000 "$D"
[ "$STATS_STATUS" -eq 0 ] || check_problem "report exited $STATS_STATUS: $(cat "$TMPDIR/text.err")"
[ -s "$TMPDIR/text.err" ] && check_problem "report warned: $(cat "$TMPDIR/text.err")"
python3 - "$D" "$TMPDIR/text.out" <<'PY' || check_problem "the text report (above)"
import csv, re, sys
d, out = sys.argv[1:]
text = open(out).read()
summary = {r["metric"]: r["value"] for r in csv.DictReader(open(f"{d}/summary.csv"))}
sites = list(csv.DictReader(open(f"{d}/sites.csv")))
bad = 0
def fail(msg):
    global bad
    print("FAIL:", msg)
    bad = 1
for heading in ("== Run", "== Patches that did not amortize", "== Top 1000 functions to hook", "== Processes"):
    if heading not in text:
        fail(f"no section {heading!r}")
lines = text.splitlines()
header = next(l for l in lines if l.startswith("  pid") or l.startswith("pid"))
total = next(l for l in lines if l.startswith("TOTAL"))
names = header.split()
values = total.split()[1:]  # the TOTAL label, then the numeric columns (no exit, exe)
got = dict(zip(names[names.index("wall_ms"):], values))
for col, key in (("syscalls", "syscalls"), ("early", "syscalls_early"), ("ptraced", "syscalls_ptraced"),
                 ("inprocess", "syscalls_inprocess"), ("ptrace_stops", "ptrace_stops"),
                 ("stops_lifecycle", "ptrace_stops_lifecycle"), ("stops_early", "ptrace_stops_early"),
                 ("stops_late", "ptrace_stops_late"), ("patches_written", "patches_written"),
                 ("patches_not_amortized", "patches_not_amortized"), ("patch_ns", "patch_ns")):
    if got.get(col) != summary[key]:
        fail(f"TOTAL {col} = {got.get(col)}, summary.csv {key} = {summary[key]}")
unpaid_rows = sum(1 for s in sites if s["amortized"] == "no")
if got.get("sites_not_amortized") != str(unpaid_rows):
    fail(f"TOTAL sites_not_amortized = {got.get('sites_not_amortized')}, sites.csv has {unpaid_rows} rows amortized=no")
if "totals: equal to summary.csv" not in text:
    fail("no 'totals: equal to summary.csv'")
m = re.search(r"^(\d+) of (\d+) patches written .* in (\d+) of (\d+) processes", text, re.M)
if not m or m.group(1) != summary["patches_not_amortized"] or m.group(2) != summary["patches_written"] \
        or m.group(4) != summary["processes"]:
    fail(f"the amortization line {m and m.group(0)!r} disagrees with summary.csv")
m = re.search(r"^(\d+) of them at sites that ran", text, re.M)
if not m or int(m.group(1)) != unpaid_rows:
    fail(f"'N of them at sites that ran' is {m and m.group(1)}, sites.csv has {unpaid_rows}")
# the one-call getppid site: patched at its first call, never called in-process
one = [s for s in sites if s["syscall"] == "getppid" and s["state"] == "patched" and s["inprocess"] == "0"
       and s["amortized"] == "no"]
if not one:
    fail("sites.csv has no unpaid getppid site (getppid_loop 1): the run is not what this test expects")
else:
    s = one[0]
    if not re.search(rf"^\s*\d+\s+0\s+{s['break_even']}\s+\d+\s+{s['offset']}\s+getppid\s+{re.escape(s['symbol'])}\s",
                     text, re.M):
        fail(f"the unpaid getppid site {s['offset']} {s['symbol']} (break-even {s['break_even']}) is not listed")
    function = re.split(r"[+@]", s["symbol"])[0] + " (" + s["object"].rsplit("/", 1)[-1] + ")"
    if not re.search(rf"^\s*\d+\s+\d+\s+\d+\s+\d+\s+{re.escape(function)}$", text, re.M):
        fail(f"{function} is not ranked among the functions to hook")
if "has no column 'libc_function'" not in text and "has an empty column" not in text and \
        not any(s.get("libc_function") for s in sites):
    fail("the fallback to the symbol is not said")
sys.exit(bad)
PY

echo "== --libc-calls: the ranking is by libc function, and names syscall() for getppid_loop 1"
stats libc report --csv --table libc --short-ms 100000 --top 1000 "$TMPDIR/libcrun"
python3 - "$TMPDIR/libcrun" "$TMPDIR/libc.out" <<'PY' || check_problem "the libc ranking (above)"
import collections, csv, sys
d, out = sys.argv[1:]
sites = list(csv.DictReader(open(f"{d}/sites.csv")))
ranked = {r["function"]: r for r in csv.DictReader(open(out))}
bad = 0
# what the ranking must be: the unpaid sites of the (short) run grouped by libc_function
want = collections.Counter(s["libc_function"] or "(unknown)" for s in sites if s["amortized"] == "no")
got = {f: int(r["sites"]) for f, r in ranked.items()}
if got != dict(want) or any(r["named_by"] != "libc_function" for r in ranked.values()):
    print(f"FAIL: ranking {got} (named by {set(r['named_by'] for r in ranked.values())}), sites.csv gives {dict(want)}")
    bad = 1
one = [s for s in sites if s["syscall"] == "getppid" and s["amortized"] == "no"]
if not one or one[0]["libc_function"] != "syscall" or "syscall" not in ranked:
    print(f"FAIL: getppid_loop 1's one getppid goes through syscall(): sites.csv {one}, ranked {list(ranked)[:10]}")
    bad = 1
sys.exit(bad)
PY

echo "== a summary.csv that disagrees with the rows is warned about"
cp -r "$D" "$TMPDIR/off"
sed -i 's/^ptrace_stops_late,\([0-9]*\)$/ptrace_stops_late,1\1/' "$TMPDIR/off/summary.csv"
stats off report "$TMPDIR/off"
grep -q "^WARNING: ptrace_stops_late: the rows of processes.csv sum to" "$TMPDIR/off.out" &&
	grep -q "warning: ptrace_stops_late" "$TMPDIR/off.err" && ! grep -q "^totals: equal" "$TMPDIR/off.out" ||
	check_problem "a summary.csv with ptrace_stops_late changed: no warning (exit $STATS_STATUS, $(cat "$TMPDIR/off.err"))"

echo "== errors name the file and the problem"
stats missing report "$TMPDIR/no-such-dir"
[ "$STATS_STATUS" -eq 1 ] && grep -q "no-such-dir" "$TMPDIR/missing.err" ||
	check_problem "a missing folder: exit $STATS_STATUS, '$(cat "$TMPDIR/missing.err")'"
stats usage report --sort nosuchcolumn "$D"
[ "$STATS_STATUS" -eq 2 ] || check_problem "--sort nosuchcolumn: exit $STATS_STATUS, expected 2"
stats usage2 report
[ "$STATS_STATUS" -eq 2 ] || check_problem "no DIR: exit $STATS_STATUS, expected 2"
cp -r "$D" "$TMPDIR/nocol"
sed -i '1s/,ptrace_stops,/,stops,/' "$TMPDIR/nocol/processes.csv"
stats nocol report "$TMPDIR/nocol"
[ "$STATS_STATUS" -eq 1 ] && grep -q "processes.csv: no column 'ptrace_stops'" "$TMPDIR/nocol.err" ||
	check_problem "a missing column: exit $STATS_STATUS, '$(cat "$TMPDIR/nocol.err")'"
cp -r "$D" "$TMPDIR/badcsv"
printf '1,0,"unterminated\n' >>"$TMPDIR/badcsv/sites.csv"
stats badcsv report "$TMPDIR/badcsv"
lines=$(wc -l <"$TMPDIR/badcsv/sites.csv")
[ "$STATS_STATUS" -eq 1 ] && grep -q "sites.csv:$lines: malformed CSV" "$TMPDIR/badcsv.err" ||
	check_problem "a malformed sites.csv: exit $STATS_STATUS, '$(cat "$TMPDIR/badcsv.err")' (expected line $lines)"

echo "== export: trace-event JSON"
# check_export NAME DIR log|nolog: DIR's run was made with --log or without it
check_export() {
	stats "export-$1" export -o "$TMPDIR/$1.json" "$2"
	[ "$STATS_STATUS" -eq 0 ] || check_problem "export $2 exited $STATS_STATUS: $(cat "$TMPDIR/export-$1.err")"
	python3 - "$2" "$TMPDIR/$1.json" "$3" <<'PY' || check_problem "export of $2 (above)"
import csv, json, os, sys
d, out, log = sys.argv[1:]
trace = json.load(open(out))
procs = list(csv.DictReader(open(f"{d}/processes.csv")))
sites = list(csv.DictReader(open(f"{d}/sites.csv")))
ev = trace["traceEvents"]
bad = 0
def fail(msg):
    global bad
    print("FAIL:", msg)
    bad = 1
names = [e for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
lives = [e for e in ev if e["ph"] == "X" and e.get("cat") == "process"]
if len(names) != len(procs) or len({e["pid"] for e in names}) != len(procs):
    fail(f"{len(names)} process tracks ({len({e['pid'] for e in names})} distinct), processes.csv has {len(procs)} rows")
if len(lives) != len(procs):
    fail(f"{len(lives)} lifetimes, {len(procs)} rows")
base = min(int(p["start_ns"]) for p in procs)
want = sorted(((int(p["start_ns"]) - base) / 1000, (int(p["end_ns"]) - int(p["start_ns"])) / 1000, int(p["pid"]),
               int(p["syscalls"])) for p in procs)
got = sorted((e["ts"], e["dur"], e["args"]["pid"], e["args"]["syscalls"]) for e in lives)
if want != got:
    fail(f"lifetimes differ from processes.csv: {want[:2]} vs {got[:2]}")
if min(e["ts"] for e in lives) != 0:
    fail("times are not relative to the earliest start")
patches = [e for e in ev if e.get("cat") == "patch"]
if "patched_ns" in (sites[0] if sites else {}):
    n = sum(1 for s in sites if s["patched_ns"])
    if len(patches) != n:
        fail(f"{len(patches)} patch events, sites.csv has {n} patched_ns")
elif patches or "no patched_ns" not in trace["otherData"]["patch_events"]:
    fail("patch events without sites.csv patched_ns, or the absence not said")
calls = [e for e in ev if e.get("cat") in ("ptraced", "inprocess")]
if os.path.exists(f"{d}/syscall-log.bin") != (log == "log"):
    fail(f"{d}/syscall-log.bin is {'missing' if log == 'log' else 'there'}: the run was made {'with' if log == 'log' else 'without'} --log")
elif log == "log":
    other = trace["otherData"]
    if len(calls) != other["syscall_events"] or other["capped"]:
        fail(f"{len(calls)} syscall events, metadata {other}")
    # the log has an entry per syscall: the events add up to the summary's counts
    summary = {r["metric"]: int(r["value"] or 0) for r in csv.DictReader(open(f"{d}/summary.csv"))}
    for what, n in (("syscalls_ptraced", sum(1 for e in calls if e["cat"] == "ptraced")),
                    ("syscalls_inprocess", sum(1 for e in calls if e["cat"] == "inprocess")),
                    ("syscalls_early", sum(e["args"]["early"] for e in calls))):
        if n != summary[what]:
            fail(f"{n} events for {what}, summary.csv says {summary[what]}")
    if sum(1 for e in calls if e["name"] == "getppid") < 500:
        fail("fewer than the 500 getppid calls of getppid_loop 500 as events")
    if any(e["args"]["early"] not in (0, 1) for e in calls):
        fail("an early that is not 0 or 1")
elif calls or "no temporal log" not in trace["otherData"]["syscall_events"]:
    fail("syscall events without a log, or the absence not said")
sys.exit(bad)
PY
}
check_export known "$D" nolog
if require_file "$TMPDIR/logrun/syscall-log.bin" "the run with --log"; then
	check_export logrun "$TMPDIR/logrun" log
	stats capped export --max-syscalls 10 -o "$TMPDIR/capped.json" "$TMPDIR/logrun"
	python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))
calls = [e for e in t['traceEvents'] if e.get('cat') in ('ptraced', 'inprocess')]
sys.exit(0 if len(calls) == 10 and t['otherData']['capped'] and 'capped' in t['otherData']['note'] else 1)
" "$TMPDIR/capped.json" || check_problem "--max-syscalls 10: not 10 events with the cap noted"
	grep -q "capped" "$TMPDIR/capped.err" || check_problem "--max-syscalls 10: no note on stderr"
fi
stats export-missing export "$TMPDIR/no-such-dir"
[ "$STATS_STATUS" -eq 1 ] && grep -q "no-such-dir" "$TMPDIR/export-missing.err" ||
	check_problem "export of a missing folder: exit $STATS_STATUS, '$(cat "$TMPDIR/export-missing.err")'"
finish
