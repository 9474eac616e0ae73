#!/bin/sh
# The known sites written at an image's start (docs/patching.md, "Which known sites
# are written") and the report's section on them, by construction, on a shell that
# runs, one after another: getppid_loop 1 (its libc syscall() site, which /bin/true
# never runs, is learned), /bin/true 100 times (that site ran in 1 of 101 images that
# mapped libc: 9.9 per mille, below P/M whatever P and M measure, since the
# threshold is never below 10 per mille, tracer/site_history.c), then a copy of
# getppid_loop (an executable not seen before) 10 calls six times, the last by exec:
#  - the CSV files agree (csvtool consistency: summary.csv's known_unused and
#    known_missed are their columns' sums; per row known_unused <= patches_known, so
#    that U + (W - U) = W, and (W - U) + known_missed <= the sites that ran, and
#    W - U >= the sites the image patched that ran without a trap; the threshold is
#    P/M);
#  - every site an image missed was known at its start: patched by another image
#    before it began, and trapped at in it (csvtool known);
#  - the copy's first image goes by all images that mapped libc: the syscall() site
#    is left out and missed (known_missed >= 1); the copy runs the same sites each
#    time, so from its second image on each of them ran in every earlier image (a
#    share of 1 >= P/M): none is missed (the same for /bin/true);
#  - the report's section: W, U, X over the images started by an exec, the rule's cost
#    P W + M X and the best in hindsight P (W - U + X) (M > P) as summary.csv's P and M
#    give them, the rule never below it, per executable in --csv --table known;
#  - an older run's files (without the columns) are reported, the section saying it
#    is not available; --table known exits 1 there;
#  - each of these checks fails on files broken on purpose.
#  - a site whose plan another process learned after an image started is not a miss
#    of that image's start (the first image of a run knows nothing at its start,
#    though its child patches the shell's exit_group first).
#  - a site a vfork child trapped at first, patched in the memory it shares with its
#    parent, runs in the parent without a trap though no batch wrote it (vfork_first,
#    run once to learn its sites, then with a vfork): not counted among the sites
#    written at the start that ran; the check fails once the patch falls outside
#    the child's life.
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
P=$PROGRAMS
D=$TMPDIR/loop

echo "== the run: getppid_loop 1, /bin/true 100 times, a copy of getppid_loop 10 six times"
cp "$P/getppid_loop" "$TMPDIR/getppid_again"
st_run_clean loop "$D" /bin/sh -c "$P/getppid_loop 1; i=0; while [ \$i -lt 100 ]; do /bin/true; i=\$((i + 1)); done
	for i in 1 2 3 4 5; do $TMPDIR/getppid_again 10; done; exec $TMPDIR/getppid_again 10"
require_file "$D/processes.csv" "the loop" || finish

echo "== the CSV files agree, the missed sites were known, the later images miss none"
csvtool consistency "$D" --any-mode || check_problem "the CSV files disagree (above)"
csvtool known "$D" --learned /getppid_again --learned /true || check_problem "the known sites' choice (above)"
python3 - "$D" <<'PY' || check_problem "the first image of the copy (above)"
import csv, sys
rows = sorted((r for r in csv.DictReader(open(f"{sys.argv[1]}/processes.csv")) if r["exe"].endswith("/getppid_again")),
              key=lambda r: int(r["start_ns"]))
trues = [r for r in csv.DictReader(open(f"{sys.argv[1]}/processes.csv")) if r["exe"].endswith("/true")]
if len(rows) != 6 or len(trues) != 100:
    print(f"FAIL: {len(rows)} images of the copy, {len(trues)} of true: expected 6 and 100")
    sys.exit(1)
if int(rows[0]["known_missed"]) < 1:
    print(f"FAIL: the copy's first image missed {rows[0]['known_missed']} known sites: its syscall() site ran in 1 "
          f"of the 101 earlier images that mapped libc, below the lowest P/M (10 per mille), and should have "
          f"been left out")
    sys.exit(1)
print(f"    the copy's first image missed {rows[0]['known_missed']}, the five after it "
      f"{[int(r['known_missed']) for r in rows[1:]]}")
PY

echo "== report: the section against the CSV files"
"$SYSTRACE_STATS" report "$D" >"$TMPDIR/text.out" 2>"$TMPDIR/text.err" ||
	check_problem "report exited $?: $(cat "$TMPDIR/text.err")"
[ -s "$TMPDIR/text.err" ] && check_problem "report warned: $(cat "$TMPDIR/text.err")"
"$SYSTRACE_STATS" report --csv --table known "$D" >"$TMPDIR/known.csv" 2>"$TMPDIR/known.err" ||
	check_problem "report --csv --table known exited $?: $(cat "$TMPDIR/known.err")"
sed -n '/^== Known sites/,/^== Top/p' "$TMPDIR/text.out"

csvtool known-report "$D" "$TMPDIR/text.out" "$TMPDIR/known.csv" ||
	check_problem "the report's section disagrees with the CSV files (above)"

echo "== an older run's files: the section is not available"
cp -r "$D" "$TMPDIR/old"
python3 - "$TMPDIR/old" <<'PY'
import csv, sys
d = sys.argv[1]
rows = list(csv.reader(open(f"{d}/processes.csv")))
drop = {rows[0].index(c) for c in ("known_unused", "known_missed")}
with open(f"{d}/processes.csv", "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows([[v for i, v in enumerate(r) if i not in drop] for r in rows])
new = ("known_unused", "known_missed", "batch_patch_ns", "miss_ns", "known_threshold_permille", "tracer_cpu_per_image_ns")
lines = [l for l in open(f"{d}/summary.csv") if l.split(",")[0] not in new]
open(f"{d}/summary.csv", "w").writelines(lines)
PY
"$SYSTRACE_STATS" report "$TMPDIR/old" >"$TMPDIR/old.out" 2>"$TMPDIR/old.err"
status=$?
[ "$status" -eq 0 ] && [ ! -s "$TMPDIR/old.err" ] && grep -q "^== Processes" "$TMPDIR/old.out" &&
	grep -q "^not available for this run: processes.csv has no column 'known_unused'" "$TMPDIR/old.out" ||
	check_problem "an older run: exit $status, stderr '$(cat "$TMPDIR/old.err")', $(grep -A1 '^== Known' "$TMPDIR/old.out")"
"$SYSTRACE_STATS" report --csv --table known "$TMPDIR/old" >"$TMPDIR/old-known.out" 2>"$TMPDIR/old-known.err"
status=$?
[ "$status" -eq 1 ] && grep -q "not available" "$TMPDIR/old-known.err" ||
	check_problem "--table known of an older run: exit $status (expected 1), '$(cat "$TMPDIR/old-known.err")'"

echo "== each check fails on files broken on purpose"
# broken NAME PYTHON: a copy of the run as $TMPDIR/NAME, edited by PYTHON (rows: the
# rows of processes.csv as dicts, summary: summary.csv's as a dict; both written back)
broken() {
	cp -r "$D" "$TMPDIR/$1"
	python3 - "$TMPDIR/$1" "$2" <<'PY'
import csv, sys
d, edit = sys.argv[1:]
with open(f"{d}/processes.csv") as f:
    reader = csv.DictReader(f)
    header, rows = reader.fieldnames, list(reader)
summary = {r["metric"]: r["value"] for r in csv.DictReader(open(f"{d}/summary.csv"))}
loops = sorted((r for r in rows if r["exe"].endswith("/getppid_again")), key=lambda r: int(r["start_ns"]))
exec(edit)
with open(f"{d}/processes.csv", "w", newline="") as f:
    w = csv.DictWriter(f, header, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
with open(f"{d}/summary.csv", "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows([["metric", "value"]] + list(summary.items()))
PY
}
# expect_caught WHAT MESSAGE COMMAND...: COMMAND fails, saying MESSAGE
expect_caught() {
	_n=$1
	_msg=$2
	shift 2
	if _out=$("$@" 2>&1); then
		check_problem "$_n: not caught: '$*' passed"
		return
	fi
	case $_out in
	*"$_msg"*) echo "    caught: $_n" ;;
	*) check_problem "$_n: not caught as expected ('$_msg'): $(echo "$_out" | tail -3)" ;;
	esac
}
broken sum 'summary["known_missed"] = str(int(summary["known_missed"]) + 1)'
expect_caught "summary known_missed off by one" "summary known_missed=" csvtool consistency "$TMPDIR/sum" --any-mode
broken sum2 'summary["known_unused"] = str(int(summary["known_unused"]) + 1)'
expect_caught "summary known_unused off by one" "summary known_unused=" csvtool consistency "$TMPDIR/sum2" --any-mode
"$SYSTRACE_STATS" report "$TMPDIR/sum2" >"$TMPDIR/sum2.out" 2>&1
grep -q "^WARNING: known_unused: the rows of processes.csv sum to" "$TMPDIR/sum2.out" ||
	check_problem "report: no WARNING for summary.csv's known_unused off by one"
broken over 'r = loops[0]; r["known_unused"] = str(int(r["patches_known"]) + 1); summary["known_unused"] = str(sum(int(x["known_unused"]) for x in rows))'
expect_caught "known_unused above patches_known" "> patches_known" csvtool consistency "$TMPDIR/over" --any-mode
broken all 'r = loops[1]; r["known_unused"] = r["patches_known"]; summary["known_unused"] = str(sum(int(x["known_unused"]) for x in rows))'
expect_caught "every site written counted unused" "ran without a trap (written in a batch)" csvtool consistency "$TMPDIR/all" --any-mode
broken ran 'r = loops[1]; r["known_missed"] = str(int(r["sites"]) + 1); summary["known_missed"] = str(sum(int(x["known_missed"]) for x in rows))'
expect_caught "more sites run than the image ran" "(distinct sites that ran)" csvtool consistency "$TMPDIR/ran" --any-mode
broken fork 'r = next(x for x in rows if x["image"] == "0"); r["known_missed"] = "1"; summary["known_missed"] = str(sum(int(x["known_missed"]) for x in rows))'
expect_caught "a fork child with a miss" "a fork child with" csvtool consistency "$TMPDIR/fork" --any-mode
broken thr 'summary["known_threshold_permille"] = str(int(summary["known_threshold_permille"]) + 1)'
expect_caught "a threshold that is not P/M" "summary known_threshold_permille=" csvtool consistency "$TMPDIR/thr" --any-mode
broken later 'loops[-1]["known_missed"] = "1"'
expect_caught "a later image that missed a site" "which every earlier image of it ran" csvtool known "$TMPDIR/later" --learned /getppid_again
broken first 'r = min(rows, key=lambda x: int(x["start_ns"])); r["known_missed"] = str(int(r["known_missed"]) + 1)'
expect_caught "a miss in the run's first image, which knows nothing at its start" "it counts sites learned after it started" csvtool known "$TMPDIR/first"
# the report's figures: a table whose rule is below its optimum, a cost that is not P W + M X
awk -F, 'NR == 1 { print; next } { t = $6; $6 = $7; $7 = t; $8 = 0; print }' OFS=, "$TMPDIR/known.csv" >"$TMPDIR/swapped.csv"
expect_caught "a rule below the optimum" "is below the best in hindsight" csvtool known-report "$D" "$TMPDIR/text.out" "$TMPDIR/swapped.csv"
sed 's/^\(the rule P x W + M x X = \)[0-9]*/\1999/' "$TMPDIR/text.out" >"$TMPDIR/text-bad.out"
expect_caught "a total that is not P W + M X" "the files give" csvtool known-report "$D" "$TMPDIR/text-bad.out" "$TMPDIR/known.csv"

echo "== a site learned after an image started is not a miss of its start"
st_run_clean first-image "$TMPDIR/first-image" /bin/sh -c "$P/getppid_loop 1; exit 0"
if require_file "$TMPDIR/first-image/processes.csv" "the first image's run"; then
	if ! csvtool known "$TMPDIR/first-image" >"$TMPDIR/first-image.check"; then
		cat "$TMPDIR/first-image.check"
		check_problem "the first image of a run counts a missed site, though nothing is known at its start"
	fi
fi

echo "== a site a vfork child patched first runs in its parent without a trap, written in no batch"
V=$TMPDIR/vfork-first
st_run_clean vfork-first "$V" /bin/sh -c "$P/vfork_first; $P/vfork_first 5"
if require_file "$V/sites.csv" "the vfork_first run"; then
	csvtool consistency "$V" --any-mode || check_problem "vfork_first: the CSV files disagree (above)"
	python3 - "$V" <<'PY' || check_problem "vfork_first: the parent's site (above)"
import csv, sys
d = sys.argv[1]
parents = [r for r in csv.DictReader(open(f"{d}/processes.csv")) if r["exe"].endswith("/vfork_first") and r["vforks"] == "1"]
if len(parents) != 1:
    sys.exit(f"FAIL: {len(parents)} images of vfork_first that vforked, expected 1")
p = parents[0]
rows = [s for s in csv.DictReader(open(f"{d}/sites.csv"))
        if (s["pid"], s["start_ns"]) == (p["pid"], p["start_ns"]) and s["symbol"].startswith("site_getppid+")]
if len(rows) != 1 or (rows[0]["ptraced"], rows[0]["inprocess"]) != ("0", "5") or not rows[0]["patch_ns"]:
    sys.exit(f"FAIL: the parent's site_getppid rows {[(s['ptraced'], s['inprocess'], s['patch_ns']) for s in rows]}: "
             f"expected one, patched, ptraced 0, inprocess 5 (its vfork child trapped there first)")
print(f"    the parent ran site_getppid 5 times without a trap; patches_known {p['patches_known']}, "
      f"known_unused {p['known_unused']}")
PY
	# the child's lifetime shrunk to its start: the patch is no longer its, and the
	# parent has one site more run without a trap than its batch wrote
	D=$V broken vfork-moved 'c = next(x for x in rows if x["exe"].endswith("/vfork_first") and x["image"] == "0"); c["end_ns"] = c["start_ns"]'
	expect_caught "a site patched outside the vfork child's life" "ran without a trap (written in a batch)" csvtool consistency "$TMPDIR/vfork-moved" --any-mode
fi
finish
