#!/bin/sh
# systrace-stats html on a known run (fork_tree: 15 processes, and vfork_exec under a
# shell), loaded in headless Chromium: the page draws, by its own script, a timeline
# bar per row of processes.csv, the summary figures, a syscall row per process (the
# 40 busiest, then one for the rest) and the functions to hook as `report --table
# libc` ranks them; the screenshot is a real picture. The page
# must need no network: it is loaded from a file with every request outside it
# refused. Chromium is a test dependency (scripts/install-deps.sh): its absence fails.
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
[ -x "$SYSTRACE_STATS" ] || fail "$SYSTRACE_STATS is missing (make build/asan/systrace-stats)"
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	fail "chromium is not installed (scripts/install-deps.sh installs it): the HTML report cannot be checked"
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

# chromium DUMP|SHOT OUTPUT: loads the page headless; no network (a proxy that does not exist)
chromium_run() {
	_how=--dump-dom
	[ "$1" = shot ] && _how=--screenshot="$2"
	timeout -k 10 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
		--proxy-server=127.0.0.1:9 --user-data-dir="$TMPDIR/chromium-profile" --window-size=1200,900 \
		--virtual-time-budget=5000 "$_how" "file://$TMPDIR/report.html" 2>"$TMPDIR/chromium.err"
}

# the functions to hook, as the report ranks them (its defaults: under 100 ms, top 10)
"$SYSTRACE_STATS" report --csv --table libc "$D" >"$TMPDIR/libc.csv" 2>>"$TMPDIR/html.err" ||
	check_problem "report --table libc failed: $(cat "$TMPDIR/html.err")"
hooks=$(($(wc -l <"$TMPDIR/libc.csv") - 1))

echo "== the DOM after the page's script ran"
chromium_run dump >"$TMPDIR/dom.html" || check_problem "chromium --dump-dom failed: $(tail -5 "$TMPDIR/chromium.err")"
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

echo "== the screenshot"
chromium_run shot "$TMPDIR/report.png" >/dev/null || check_problem "chromium --screenshot failed: $(tail -5 "$TMPDIR/chromium.err")"
python3 - "$TMPDIR/report.png" <<'PY' || check_problem "the screenshot (above)"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("FAIL: not a PNG")
    sys.exit(1)
# decode the PNG (8-bit RGB or RGBA, no interlace: what Chromium writes) and count colours
pos, idat, width = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride = zlib.decompress(idat), width * bpp
prev, colours = bytearray(stride), set()
for y in range(height):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp * 2))
    prev = line
print(f"   {width}x{height}, {len(colours)} distinct colours (sampled)")
if (width, height) != (1200, 900) or len(colours) < 8:
    print("FAIL: not the 1200x900 picture of a drawn page")
    sys.exit(1)
PY
finish
