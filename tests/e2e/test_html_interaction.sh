#!/bin/sh
# The HTML report as a user works it, in headless Chromium, on a run of thousands of
# short processes (fork_loop 1000 exec: 2001 images, after fork_tree's 15): a script
# the test adds to a copy of the page (html_driver.js) drags across the timeline,
# turns the wheel over its axis and over its bars (with Ctrl, with Shift, without)
# and resets it, then clicks the headers of the table of syscalls. After each step
# the timeline must show the range asked for (a drag's 40%-60% of the run; the
# wheel keeps the time under the pointer; Shift moves the range along; the plain
# wheel over the bars scrolls and does not zoom) and exactly the processes of
# processes.csv that overlap it, and the table must be sorted by the column clicked,
# the other way on a second click, with the rows and sums of syscalls.csv. The
# driver ends zoomed in until each bar has its name: that view's screenshot is
# timeline-zoomed.png in the test's folder.
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
[ -x "$SYSTRACE_STATS" ] || fail "$SYSTRACE_STATS is missing (make build/asan/systrace-stats)"
need_chromium
P=$PROGRAMS
D=$TMPDIR/run

echo "== the run"
st_run_clean many "$D" /bin/sh -c "$P/fork_tree; $P/fork_loop 1000 exec"
require_file "$D/processes.csv" "the run" || finish
rows=$(($(wc -l <"$D/processes.csv") - 1))
echo "   $rows process rows"
[ "$rows" -gt 2000 ] || check_problem "$rows process rows: not the thousands this test is about"

echo "== the page, and a copy that the driver works"
"$SYSTRACE_STATS" html -o "$TMPDIR/report.html" "$D" 2>"$TMPDIR/html.err" ||
	check_problem "html exited $?: $(cat "$TMPDIR/html.err")"
no_sanitizer_report "$TMPDIR/html.err" "systrace-stats html"
htmltool drive "$TMPDIR/report.html" "$TMPDIR/driven.html" || fail "cannot add the driver to the page"

echo "== the driven page's DOM: each step against the files"
chromium_page dump "$TMPDIR/driven.html" "" 1200,1000 >"$TMPDIR/dom.html" ||
	check_problem "chromium --dump-dom failed: $(tail -5 "$TMPDIR/chromium.err")"
htmltool driven "$TMPDIR/dom.html" "$D" || check_problem "the zoom or the sorting (above)"
htmltool syscalls "$TMPDIR/dom.html" "$D" || check_problem "the table of syscalls after the clicks (above)"

echo "== the zoomed view's screenshot"
chromium_page shot "$TMPDIR/driven.html" "$TMPDIR/timeline-zoomed.png" 1200,1000 >/dev/null ||
	check_problem "chromium --screenshot failed: $(tail -5 "$TMPDIR/chromium.err")"
htmltool png "$TMPDIR/timeline-zoomed.png" 1200 1000 || check_problem "the screenshot (above)"
finish
