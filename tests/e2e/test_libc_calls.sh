#!/bin/sh
# --libc-calls names in sites.csv the libc entry point that led to each site
# (tracer/libc_calls.h): tests/programs/libc_calls.c calls fopen, getpid, syscall()
# and exit, and makes an inline syscall of its own, a known number of times each.
#  1. --patch=off: every call stops and is attributed: each site's libc_functions is
#     exactly name:calls; the program's own site and the loader's have none;
#  2. the default mode, the program run twice (the second process execs after the
#     first's calls): the first process's sites are attributed at their first call;
#     the second's, patched at its start, never stop and show the entry point learned
#     from the first (libc_function set, libc_functions empty);
#  3. without --libc-calls both columns are empty;
#  4. a failed or cut walk never costs a count: threads (9 threads, more than the
#     unwinder keeps accessor state for) and JIT code count exactly what they count
#     without the option.
. "$(dirname "$0")/lib.sh"
# what a later image knows is what its serving thread learned from the earlier ones
# (each thread learns on its own: tracer/tracer_threads.h): one thread, whatever the
# suite's SYSTRACE_TEST_THREADS
SYSTRACE_TEST_THREADS=1
export SYSTRACE_TEST_THREADS
P=$PROGRAMS

# check_rows DIR MODE: the sites of the first process (pid of the command) in DIR.
check_rows() {
	require_file "$1/sites.csv" "$2" || return
	python3 - "$1" "$2" "$P/libc_calls" <<'PY' || check_problem "$2: sites.csv does not attribute the sites as constructed (above)"
import csv, os, sys
d, mode, prog = sys.argv[1], sys.argv[2], os.path.realpath(sys.argv[3])
rows = list(csv.DictReader(open(os.path.join(d, "sites.csv"), newline="")))
procs = list(csv.DictReader(open(os.path.join(d, "processes.csv"), newline="")))
root = min(int(p["pid"]) for p in procs)
mine = [r for r in rows if int(r["pid"]) == root and r["image"] == "1"]
bad = []

def is_libc(r):
    return os.path.basename(r["object"]) == "libc.so.6"

def expect(what, pick, name, calls):
    found = [r for r in mine if pick(r)]
    if len(found) != 1:
        bad.append(f"{what}: expected one row, got {len(found)}: {found}")
        return
    r = found[0]
    total = int(r["ptraced"]) + int(r["inprocess"])
    # patched after its first call in the default mode: only that one stops
    want = f"{name}:{calls if mode == 'off' else 1}"
    if total != calls or r["libc_function"] != name or r["libc_functions"] != want:
        bad.append(f"{what}: expected {calls} calls, libc_function {name}, libc_functions {want}; got "
                   f"{total}, {r['libc_function']!r}, {r['libc_functions']!r}")

expect("openat in libc", lambda r: is_libc(r) and r["syscall"] == "openat", "fopen", 3)
expect("getpid in libc", lambda r: is_libc(r) and r["syscall"] == "getpid", "getpid", 5)
expect("syscall() in libc", lambda r: is_libc(r) and r["symbol"].startswith("syscall+"), "syscall", 7)
expect("exit_group in libc", lambda r: is_libc(r) and r["syscall"] == "exit_group", "exit", 1)
own = [r for r in mine if r["object"] == prog]
if len(own) != 1 or own[0]["libc_function"] or own[0]["libc_functions"] or own[0]["ptraced"] == "0" and mode == "off":
    bad.append(f"the program's inline syscall: expected one row with no attribution, got {own}")
for r in rows:
    if not is_libc(r) and (r["libc_function"] or r["libc_functions"]):
        bad.append(f"a site outside libc is attributed: {r}")
    seen = [e.rsplit(":", 1) for e in r["libc_functions"].split(";")] if r["libc_functions"] else []
    if sum(int(c) for _, c in seen) > int(r["ptraced"]):
        bad.append(f"more attributed calls than ptraced ones: {r}")
    if seen and r["libc_function"] != max(seen, key=lambda e: int(e[1]))[0]:
        bad.append(f"libc_function is not the first of the most calls in libc_functions: {r}")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
}

echo "== --patch=off --libc-calls"
ST_OPTS=--libc-calls st_run_mode off "$TMPDIR/off" "$P/libc_calls"
[ "$ST_STATUS" -eq 0 ] || { check_problem "libc_calls exited $ST_STATUS under --patch=off --libc-calls"; st_show_err "$TMPDIR/off"; }
check_rows "$TMPDIR/off" off

echo "== --libc-calls (default mode), run twice"
ST_OPTS=--libc-calls st_run_mode default "$TMPDIR/twice" "$P/libc_calls" again
[ "$ST_STATUS" -eq 0 ] || { check_problem "libc_calls again exited $ST_STATUS with --libc-calls"; st_show_err "$TMPDIR/twice"; }
check_rows "$TMPDIR/twice" default
require_file "$TMPDIR/twice/sites.csv" "libc_calls again" &&
	{ python3 - "$TMPDIR/twice" <<'PY' || check_problem "the second process's sites do not show the entry points learned in the first (above)"; }
import csv, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "sites.csv"), newline="")))
procs = list(csv.DictReader(open(os.path.join(sys.argv[1], "processes.csv"), newline="")))
root = min(int(p["pid"]) for p in procs)
second = [r for r in rows if int(r["pid"]) != root and r["image"] == "1"
          and os.path.basename(r["object"]) == "libc.so.6"]
bad = []
for syscall, name, calls in (("getpid", "getpid", 5), ("openat", "fopen", 3)):
    found = [r for r in second if r["syscall"] == syscall]
    if len(found) != 1 or found[0]["ptraced"] != "0" or found[0]["inprocess"] != str(calls) \
       or found[0]["libc_function"] != name or found[0]["libc_functions"] != "":
        bad.append(f"{syscall}: expected one row patched at start (0 ptraced, {calls} in-process) "
                   f"with libc_function {name} learned and libc_functions empty; got {found}")
for b in bad:
    print("   ", b)
sys.exit(1 if bad else 0)
PY
echo "== without --libc-calls"
st_run_mode default "$TMPDIR/plain" "$P/libc_calls" again
[ "$ST_STATUS" -eq 0 ] || check_problem "libc_calls again exited $ST_STATUS without --libc-calls"
if require_file "$TMPDIR/plain/sites.csv" "without --libc-calls" && python3 - "$TMPDIR/plain/sites.csv" <<'PY'; then
import csv, sys
sys.exit(0 if any(r["libc_function"] or r["libc_functions"] for r in csv.DictReader(open(sys.argv[1], newline=""))) else 1)
PY
	check_problem "without --libc-calls, a site has a libc_function or libc_functions"
fi

# same_counts NAME MODE CMD...: the per-syscall counts with --libc-calls equal those without
same_counts() {
	_n=$1
	_m=$2
	shift 2
	echo "== $_n (--patch=$_m) with and without --libc-calls"
	ST_OPTS=--libc-calls st_run_mode "$_m" "$TMPDIR/$_n.with" "$@"
	_with=$ST_STATUS
	st_run_mode "$_m" "$TMPDIR/$_n.without" "$@"
	if [ "$_with" -ne 0 ] || [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$_n: exited $_with with --libc-calls, $ST_STATUS without (0 natively)"
		st_show_err "$TMPDIR/$_n.with"
		return
	fi
	require_file "$TMPDIR/$_n.with/syscalls.csv" "$_n with --libc-calls" || return
	require_file "$TMPDIR/$_n.without/syscalls.csv" "$_n without --libc-calls" || return
	csvtool counts "$TMPDIR/$_n.with" >"$TMPDIR/$_n.with.counts"
	csvtool counts "$TMPDIR/$_n.without" >"$TMPDIR/$_n.without.counts"
	if ! diff "$TMPDIR/$_n.with.counts" "$TMPDIR/$_n.without.counts" >"$TMPDIR/$_n.diff"; then
		check_problem "$_n: the syscall counts differ with --libc-calls (< with, > without)"
		sed 's/^/    /' "$TMPDIR/$_n.diff"
	fi
	csvtool consistency "$TMPDIR/$_n.with" --any-mode >/dev/null ||
		check_problem "$_n: the CSV files are inconsistent with --libc-calls"
}
same_counts threads off "$P/threads"
same_counts jit default "$P/jit" 200
finish
