#!/bin/sh
# systrace-stats html on a known run (fork_tree: 15 processes, and vfork_exec under a
# shell), loaded in headless Chromium: the page draws, by its own script, a timeline
# bar per row of processes.csv, the summary figures, the table of syscalls (a row per
# name and ABI with syscalls.csv's sums, a total row equal to summary.csv's, first
# sorted by calls; by time on a copy of the run with times, whose errors are known
# for all, some or none of a syscall's calls), a syscall row per process (the 40
# busiest, then one for the rest) and the functions to hook as `report --table libc`
# ranks them; the screenshot is a real picture. The page must need no network: it is
# loaded from a file with every request outside it refused. Chromium is a test
# dependency (scripts/install-deps.sh): its absence fails. (Zooming and sorting:
# test_html_interaction.)
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
[ -x "$SYSTRACE_STATS" ] || fail "$SYSTRACE_STATS is missing (make build/asan/systrace-stats)"
need_chromium
P=$PROGRAMS
D=$TMPDIR/run

echo "== the run"
st_run_clean html "$D" /bin/sh -c "$P/fork_tree; $P/vfork_exec"
[ -f "$D/processes.csv" ] || fail "no CSV files"
rows=$(($(wc -l <"$D/processes.csv") - 1))
echo "   $rows process rows"

echo "== systrace-stats html"
"$SYSTRACE_STATS" html -o "$TMPDIR/report.html" "$D" 2>"$TMPDIR/html.err" ||
	check_problem "html exited $?: $(cat "$TMPDIR/html.err")"
no_sanitizer_report "$TMPDIR/html.err" "systrace-stats html"
grep -Eiq '(src|href)="(https?:)?//' "$TMPDIR/report.html" && check_problem "the page refers to something on the network"
"$SYSTRACE_STATS" html "$TMPDIR/no-such-dir" >/dev/null 2>"$TMPDIR/missing.err"
[ $? -eq 1 ] && grep -q no-such-dir "$TMPDIR/missing.err" || check_problem "html of a missing folder: '$(cat "$TMPDIR/missing.err")'"
# the table needs syscalls.csv: a folder without it is refused, naming it
mkdir "$TMPDIR/no-syscalls" && cp "$D/processes.csv" "$D/summary.csv" "$D/sites.csv" "$TMPDIR/no-syscalls/"
"$SYSTRACE_STATS" html "$TMPDIR/no-syscalls" >/dev/null 2>"$TMPDIR/missing.err"
[ $? -eq 1 ] && grep -q 'syscalls.csv' "$TMPDIR/missing.err" ||
	check_problem "html of a folder without syscalls.csv: '$(cat "$TMPDIR/missing.err")'"

# the functions to hook, as the report ranks them (its defaults: under 100 ms, top 10)
"$SYSTRACE_STATS" report --csv --table libc "$D" >"$TMPDIR/libc.csv" 2>>"$TMPDIR/html.err" ||
	check_problem "report --table libc failed: $(cat "$TMPDIR/html.err")"
hooks=$(($(wc -l <"$TMPDIR/libc.csv") - 1))

echo "== the DOM after the page's script ran"
chromium_page dump "$TMPDIR/report.html" >"$TMPDIR/dom.html" || check_problem "chromium --dump-dom failed: $(tail -5 "$TMPDIR/chromium.err")"
python3 - "$TMPDIR/dom.html" "$rows" "$TMPDIR/libc.csv" <<'PY' || check_problem "the rendered page (above)"
import csv, html, html.parser, sys
dom, rows = open(sys.argv[1]).read(), int(sys.argv[2])
hooks = list(csv.DictReader(open(sys.argv[3])))
class Count(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.classes = {}
    def handle_starttag(self, tag, attrs):
        for c in (dict(attrs).get("class") or "").split():
            self.classes[c] = self.classes.get(c, 0) + 1
c = Count()
c.feed(dom)
want = {"proc-bar": rows, "figure": 10, "syscall-row": min(rows, 40) + (rows > 40),
        "seg-ptraced": min(rows, 40) + (rows > 40), "mark-early": min(rows, 40) + (rows > 40),
        "hook-row": len(hooks)}
bad = 0
for k, n in want.items():
    if c.classes.get(k, 0) != n:
        print(f"FAIL: {c.classes.get(k, 0)} elements of class {k}, expected {n}")
        bad = 1
if not hooks:
    print("FAIL: the run has no function to hook: the table is not tested (the run is not what this test expects)")
    bad = 1
for h in hooks:
    # the DOM as serialized: text with & < > escaped
    cell = f'<td class="name">{html.escape(h["function"], quote=False)}</td><td>{h["sites"]}</td>'
    if cell not in dom:
        print(f"FAIL: no row for {h['function']} with {h['sites']} sites")
        bad = 1
if "processes (images)" not in dom or f">{rows}<" not in dom:
    print(f"FAIL: the figure of {rows} processes is not shown")
    bad = 1
sys.exit(bad)
PY

echo "== the table of syscalls"
htmltool syscalls "$TMPDIR/dom.html" "$D" --first-order || check_problem "the table of syscalls (above)"
htmltool timed-copy "$D" "$TMPDIR/timed" || fail "cannot make the copy of the run with times"
"$SYSTRACE_STATS" html -o "$TMPDIR/timed.html" "$TMPDIR/timed" 2>"$TMPDIR/timed.err" ||
	check_problem "html of the run with times exited $?: $(cat "$TMPDIR/timed.err")"
no_sanitizer_report "$TMPDIR/timed.err" "systrace-stats html (times)"
chromium_page dump "$TMPDIR/timed.html" >"$TMPDIR/timed-dom.html" ||
	check_problem "chromium --dump-dom failed: $(tail -5 "$TMPDIR/chromium.err")"
htmltool syscalls "$TMPDIR/timed-dom.html" "$TMPDIR/timed" --first-order ||
	check_problem "the table of syscalls of the run with times (above)"

echo "== the screenshot"
chromium_page shot "$TMPDIR/report.html" "$TMPDIR/report.png" >/dev/null ||
	check_problem "chromium --screenshot failed: $(tail -5 "$TMPDIR/chromium.err")"
htmltool png "$TMPDIR/report.png" 1200 900 || check_problem "the screenshot (above)"
finish
