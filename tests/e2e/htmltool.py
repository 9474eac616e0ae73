#!/usr/bin/env python3
"""Checks of systrace-stats html's page, as Chromium rendered it, against the CSV
files of the run, for the end-to-end tests:

  htmltool.py drive PAGE OUT
      OUT is PAGE with html_driver.js run after the page's own script (the user's
      drags, wheels and clicks; what the page showed after each, in <pre id=driver>).
  htmltool.py syscalls DOM DIR [--first-order]
      the table of syscalls in DOM (the page after its script ran): a row per name and
      ABI of DIR/syscalls.csv with its sums (calls, errors as known, time when the file
      has time_ns, in-process, ptraced, share), the total row their sums and
      summary.csv's, no warning; with --first-order, in the order the page starts
      with (by time when the file has times, else by calls, the most first).
  htmltool.py driven DOM DIR
      the driver's steps: every zoom showed the range it was asked for and exactly the
      processes of processes.csv that overlap it; each click on a header sorted the
      rows by that column, the other way on a second click.
  htmltool.py timed-copy SRC DST
      DST is SRC's run with a time_ns column in syscalls.csv and errors known for
      every call of most syscalls, for some calls of close and none of mmap.
  htmltool.py png FILE WIDTH HEIGHT
      FILE is a PNG of that size with at least 8 colours: a drawn page.

Exit status 1 on any failure, each named on a FAIL line.
"""
import collections
import csv
import decimal
import html
import html.parser
import json
import os
import re
import shutil
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvtool  # noqa: E402

DASH, AT_LEAST = "\u2013", "\u2265"
# the columns of the page's table, in its order
COLUMNS = ["name", "abi", "calls", "errors", "time", "inprocess", "ptraced", "share"]
NAME_COLUMNS = {"name", "abi"}


def fixed(x, decimals):
    """x as JavaScript's toFixed writes it (the exact double, halves up)."""
    return str(decimal.Decimal(x).quantize(decimal.Decimal(1).scaleb(-decimals), rounding=decimal.ROUND_HALF_UP))


def expected_cells(s, timed):
    """The cells of a row of sums s, as the page writes them."""
    errors = "" if s["known"] == 0 else (AT_LEAST if s["known"] < s["calls"] else "") + f"{s['errors']:,}"
    return [s["name"], s["abi"], f"{s['calls']:,}", errors,
            fixed(s["time"] / 1e6, 3) + " ms" if timed else DASH,
            f"{s['inprocess']:,}", f"{s['ptraced']:,}", fixed(100 * s["inprocess"] / s["calls"], 1) + "%"]


def syscall_sums(d):
    """(name, abi) -> the sums of its rows of syscalls.csv; and whether it has times."""
    rows = csvtool.load_syscalls(d)
    # a run without --time has the column, empty
    timed = any(r.get("time_ns", "") != "" for r in rows)
    sums = {}
    for r in rows:
        k = (r["syscall"], csvtool.row_abi(r))
        s = sums.setdefault(k, {"name": k[0], "abi": k[1], "calls": 0, "errors": 0, "known": 0, "time": 0,
                                "inprocess": 0, "ptraced": 0})
        where = f"syscalls.csv {r}"
        n = csvtool.to_int(r["calls"], where)
        s["calls"] += n
        s["ptraced"] += csvtool.to_int(r["ptraced"], where)
        s["inprocess"] += csvtool.to_int(r["inprocess"], where)
        if r["errors"] != "":
            s["errors"] += csvtool.to_int(r["errors"], where)
            s["known"] += n
        if timed:
            s["time"] += csvtool.to_int(r["time_ns"], where)
    return sums, timed


class Page(html.parser.HTMLParser):
    """The cells of the table rows by the row's class, and the elements by class."""

    def __init__(self):
        super().__init__()
        self.rows = collections.defaultdict(list)
        self.classes = collections.Counter()
        self.sorted_by = None
        self.row = self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for c in (a.get("class") or "").split():
            self.classes[c] += 1
        if tag == "tr" and a.get("class"):
            self.row = []
            self.rows[a["class"]].append(self.row)
        elif tag == "td" and self.row is not None:
            self.cell = []
        elif tag == "th" and "aria-sort" in a:
            self.sorted_by = (a.get("data-key"), a["aria-sort"])

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append("".join(self.cell))
            self.cell = None
        elif tag == "tr":
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def parse_page(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    return p


def sort_value(column, text):
    """A cell's value as the page sorts it: unknown (blank, a dash) below all."""
    if column in NAME_COLUMNS:
        return text
    if text in ("", DASH):
        return -1
    return float(text.replace(AT_LEAST, "").replace(",", "").replace(" ms", "").replace("%", ""))


def order_problems(rows, column, descending, what):
    """The rows (lists of cells) are sorted by column in that direction."""
    i = COLUMNS.index(column)
    values = [sort_value(column, r[i]) for r in rows]
    for a, b in zip(values, values[1:]):
        if (a < b) if descending else (a > b):
            return [f"{what}: not sorted by {column} {'descending' if descending else 'ascending'}: "
                    f"{a!r} before {b!r} in {values}"]
    return []


def check_syscalls(dom, d, first_order=None):
    page = parse_page(dom)
    sums, timed = syscall_sums(d)
    summary = csvtool.load_summary(d)
    problems = []
    got = {}
    for cells in page.rows["syscall-stat"]:
        if len(cells) != len(COLUMNS):
            problems.append(f"a row of {len(cells)} cells, not {len(COLUMNS)}: {cells}")
            continue
        if (cells[0], cells[1]) in got:
            problems.append(f"{cells[0]} ({cells[1]}) has two rows")
        got[(cells[0], cells[1])] = cells
    for k in sorted(set(sums) | set(got)):
        want = expected_cells(sums[k], timed) if k in sums else None
        if got.get(k) != want:
            problems.append(f"{k[0]} ({k[1]}): the page shows {got.get(k)}, syscalls.csv sums to {want}")
    total = {"name": "total", "abi": ""}
    for field in ("calls", "errors", "known", "time", "inprocess", "ptraced"):
        total[field] = sum(s[field] for s in sums.values())
    for field, key in (("calls", "syscalls"), ("ptraced", "syscalls_ptraced"), ("inprocess", "syscalls_inprocess")):
        if total[field] != summary[key]:
            problems.append(f"syscalls.csv's {field} sum to {total[field]}, summary.csv {key} is {summary[key]}")
    foot = page.rows["syscall-total"]
    if foot != [expected_cells(total, timed)]:
        problems.append(f"the total row is {foot}, expected {[expected_cells(total, timed)]}")
    if page.classes["warning"]:
        problems.append("the page warns that the table disagrees with summary.csv")
    if first_order:
        first = "time" if timed else "calls"
        if page.sorted_by != (first, "descending"):
            problems.append(f"first sorted by {page.sorted_by}, expected ({first}, descending)")
        problems += order_problems(page.rows["syscall-stat"], first, True, "the first order")
    print(f"   {len(got)} syscall rows, {total['calls']} calls, {total['known']} with known errors"
          f"{', timed' if timed else ''}")
    return problems


def driver_steps(dom):
    text = open(dom, encoding="utf-8").read()
    start = text.rfind('<pre id="driver" hidden="">')
    if start < 0:
        raise csvtool.CheckError(f"{dom}: no <pre id=driver>: the driver did not finish (an exception?)")
    start = text.index(">", start) + 1
    return json.loads(html.unescape(text[start:text.index("</pre>", start)]))


def process_spans(d):
    """Each processes.csv row as (pid, image, start, end) in us since the first start."""
    rows = csvtool.load_processes(d)
    zero = min(int(r["start_ns"]) for r in rows)
    return [(r["pid"], r["image"], (int(r["start_ns"]) - zero) / 1000, (int(r["end_ns"]) - zero) / 1000)
            for r in rows]


def check_range(step, spans, problems):
    """The bars shown are the processes that overlap [t0, t1] (ties at its ends by
    less than a nanosecond may go either way), and the text says how many."""
    t0, t1, eps = step["t0"], step["t1"], 1e-3
    sure = collections.Counter((p, i) for p, i, s, e in spans if s <= t1 - eps and e >= t0 + eps)
    maybe = collections.Counter((p, i) for p, i, s, e in spans if s <= t1 + eps and e >= t0 - eps)
    shown = collections.Counter()
    for title in step["bars"]:
        m = re.search(r"\[pid (\d+) image (\d+)\]", title)
        if not m:
            problems.append(f"{step['step']}: a bar's title names no pid and image: {title!r}")
            continue
        shown[m.groups()] += 1
    if sure - shown or shown - maybe:
        problems.append(f"{step['step']}: [{t0}, {t1}] us shows {sum(shown.values())} bars; processes.csv has "
                        f"{sum(sure.values())} overlapping it; missing {dict(sure - shown)}, extra {dict(shown - maybe)}")
    if not step["range"].endswith(f": {len(step['bars'])} of {len(spans)} processes"):
        problems.append(f"{step['step']}: the range says {step['range']!r}, {len(step['bars'])} bars are drawn")


def check_zoom(steps, spans):
    """Each step of the timeline against what the driver did (html_driver.js)."""
    end = max(e for _, _, _, e in spans)
    problems = []
    prev = None

    def near(step, what, got, want, tolerance):
        if abs(got - want) > tolerance:
            problems.append(f"{step['step']}: {what} is {got}, expected {want} (within {tolerance})")

    for step in (s for s in steps if "bars" in s):
        check_range(step, spans, problems)
        name, span = step["step"], step["t1"] - step["t0"]
        print(f"   {name}: [{step['t0']:.1f}, {step['t1']:.1f}] us, {len(step['bars'])} bars")
        if name in ("whole", "wheel out on the axis", "reset"):
            near(step, "t0", step["t0"], 0, 1e-9)
            near(step, "t1", step["t1"], end, 1e-6 * end)
        elif name.startswith("dragged 40%-60%"):
            # the chart's margins are 4 of its 1100 pixels: under 0.4% of the run
            near(step, "t0", step["t0"], 0.4 * end, 0.005 * end)
            near(step, "t1", step["t1"], 0.6 * end, 0.005 * end)
        elif name in ("wheel in on the axis", "ctrl+wheel in on the bars"):
            # at the chart's middle: the time there stays there
            if span > 0.9 * (prev["t1"] - prev["t0"]):
                problems.append(f"{name}: the range is {span} us wide, was {prev['t1'] - prev['t0']}: no zoom")
            near(step, "the middle", (step["t0"] + step["t1"]) / 2, (prev["t0"] + prev["t1"]) / 2, 1e-6 * end)
        elif name == "wheel on the bars":
            if (step["t0"], step["t1"]) != (prev["t0"], prev["t1"]) or not step["default_allowed"]:
                problems.append(f"{name}: the plain wheel over the bars zoomed ({step['t0']}, {step['t1']}) or was "
                                f"kept from scrolling them (default allowed: {step['default_allowed']})")
        elif name == "shift+wheel":
            near(step, "the width", span, prev["t1"] - prev["t0"], 1e-6 * end)
            if step["t0"] <= prev["t0"]:
                problems.append(f"{name}: the range did not move later: t0 {step['t0']}, was {prev['t0']}")
        elif name == "shot":
            if not 0 < len(step["bars"]) <= 30 or step["labels"] != len(step["bars"]):
                problems.append(f"{name}: {len(step['bars'])} bars and {step['labels']} names: not a view "
                                "zoomed in far enough to name each bar")
        else:
            problems.append(f"a step this test does not know: {name}")
        if name not in ("whole", "wheel on the bars") and (step["t0"], step["t1"]) == (prev["t0"], prev["t1"]):
            problems.append(f"{name}: the range did not change")
        prev = step
    return problems


def check_sorting(steps, d):
    """Each step of the table: sorted by the column clicked, in the direction the
    clicks give (a new column: names from A, numbers from the largest; the same one
    again: the other way)."""
    sums, _ = syscall_sums(d)
    problems = []
    key = desc = None
    orders = collections.defaultdict(list)
    for step in (s for s in steps if "rows" in s):
        name, rows = step["step"], step["rows"]
        if sorted((r[0], r[1]) for r in rows) != sorted(sums):
            problems.append(f"{name}: the rows are not syscalls.csv's names: {[(r[0], r[1]) for r in rows]}")
        if name == "default order":
            key, desc = "calls", True
        else:
            clicked = name.split()[-1]
            desc = not desc if clicked == key else clicked not in NAME_COLUMNS
            key = clicked
        want = (key, "descending" if desc else "ascending")
        if (step["sorted_by"], step["order"]) != want:
            problems.append(f"{name}: the header says sorted by {step['sorted_by']} {step['order']}, expected {want}")
        problems += order_problems(rows, key, desc, name)
        orders[key].append([(r[0], r[1]) for r in rows])
        print(f"   {name}: {', '.join(r[0] for r in rows[:6])}{' ...' if len(rows) > 6 else ''}")
    # the second click on a column turns its order round, unless all its values are one
    for key, values in (("name", {k[0] for k in sums}), ("calls", {v["calls"] for v in sums.values()})):
        seen = orders[key]
        if len(values) > 1 and (len(seen) < 2 or seen[-1] == seen[-2]):
            problems.append(f"the second click on {key} did not change the order")
    return problems


def drive(page, out):
    text = open(page, encoding="utf-8").read()
    driver = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "html_driver.js")).read()
    if text.count("</body>") != 1:
        raise csvtool.CheckError(f"{page}: not one </body>")
    open(out, "w", encoding="utf-8").write(text.replace("</body>", "<script>\n" + driver + "</script>\n</body>"))


def timed_copy(src, dst):
    shutil.copytree(src, dst)
    rows = csvtool.load_syscalls(src)
    with open(os.path.join(dst, "syscalls.csv"), "w", newline="") as f:
        keys = list(rows[0].keys())
        w = csv.DictWriter(f, keys + ["time_ns"] * ("time_ns" not in keys), lineterminator="\n")
        w.writeheader()
        for n, r in enumerate(rows):
            calls = int(r["calls"])
            r["time_ns"] = str(calls * 1500 + n * 37 % 1000)
            if r["syscall"] == "mmap" or (r["syscall"] == "close" and n % 2):
                r["errors"] = ""
            elif r["errors"] == "":
                r["errors"] = str(min(calls, n % 3))
            w.writerow(r)


def png(path, width, height):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return [f"{path}: not a PNG"]
    # decode the PNG (8-bit RGB or RGBA, no interlace: what Chromium writes) and count colours
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = {2: 3, 6: 4}[ctype]
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colours = bytearray(stride), set()
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            colours.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp * 2))
        prev = line
    print(f"   {path}: {w}x{h}, {len(colours)} distinct colours (sampled)")
    if (w, h) != (width, height) or len(colours) < 8:
        return [f"{path}: not the {width}x{height} picture of a drawn page"]
    return []


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "drive":
            drive(*args)
            return 0
        if cmd == "timed-copy":
            timed_copy(*args)
            return 0
        if cmd == "syscalls":
            return csvtool.report(check_syscalls(args[0], args[1], "--first-order" in args[2:]))
        if cmd == "driven":
            steps = driver_steps(args[0])
            return csvtool.report(check_zoom(steps, process_spans(args[1])) + check_sorting(steps, args[1]))
        if cmd == "png":
            return csvtool.report(png(args[0], int(args[1]), int(args[2])))
    except csvtool.CheckError as e:
        return csvtool.report([str(e)])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
