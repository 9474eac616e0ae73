#!/usr/bin/env python3
"""Reading systrace's CSV output and strace's -c tables, for the end-to-end tests.

Usable as a module (sys.path.insert(0, E2E_DIR); import csvtool) and as a command:

  csvtool.py counts DIR [ABI]
      per-syscall call counts (sum over every row of syscalls.csv), one `name calls`
      line each, for ABI (default x86_64).
  csvtool.py compare DIR STRACE_FILE [ABI] [name=N ...] [name=? ...]
      checks that DIR's per-name counts for ABI equal exactly strace's table for that
      ABI plus the listed extra calls (calls strace -c cannot see: those that never
      return, such as exit_group, or that were in flight when the process was killed).
      N may be negative; name=? leaves that name out of the comparison (for calls a
      signal restarts, which strace -c counts once per entry: the test checks those
      by construction instead).
  csvtool.py compare-errors DIR STRACE_FILE [ABI] [name=? ...]
      checks that DIR's errors per syscall name (syscalls.csv) equal exactly those of
      `strace -f -c -U name,calls,errors` (STRACE_FILE) for ABI; name=? leaves out a
      name whose errors depend on timing.
  csvtool.py rowcounts DIR NAME [ABI]
      the calls of NAME in each image (pid, image) that made any, sorted, on one line.
  csvtool.py site DIR SYMBOL[@SYSCALL] EXPECT
      the sites.csv rows whose symbol is SYMBOL (`func` matches any `func+0x..`,
      `func+0x12` only that one; @SYSCALL: only its sites of that syscall) must be: `patched` (at least one row patched with
      inprocess > 0, none unpatchable), `not-patched` (no row patched, inprocess 0
      in every row), `stops` (inprocess 0 in every row, patched or not) or `any`
      (only printed). Fails when no row has that symbol.
  csvtool.py sitecount DIR [symbol=S] [object=SUBSTRING] [syscall=NAME] [--list]
      the calls (ptraced + inprocess) at the sites.csv rows matching every filter,
      summed (--list: the rows instead; --time: their time_ns instead).
  csvtool.py times DIR NAME [--root]
      NAME's `calls errors time_ns min_ns max_ns` over the x86_64 rows of
      syscalls.csv (--root: of the command's own pid only): sums, the least min_ns,
      the most max_ns (`-` when no row has one). `consistency` checks the time
      columns (--time) too: all empty or all there, min <= time <= calls * max,
      each image's rows adding up to the same in both files.
  csvtool.py never-patched DIR NAME[,NAME...]
      no sites.csv row for one of these syscall names is patched or has in-process
      calls (clone3...: they must stop in the tracer), and clone, rt_sigreturn and
      vfork sites have in-process calls only in _Fork, __restore_rt and __vfork
      (or pop_vfork).
  csvtool.py library DIR EXPECT [EXE_SUFFIX] [--images N] [--inprocess MIN]
      every processes.csv row (or those whose exe ends with EXE_SUFFIX) has
      library == EXPECT; `unpatchable` in EXPECT's place means every sites.csv row of
      those images is unpatchable:<reason> with a reason. --images: there are
      exactly N such rows; --inprocess: each made at least MIN calls in-process.
  csvtool.py consistency DIR
      the cross-file invariants of one run (see check_consistency).
  csvtool.py known DIR [--learned EXE_SUFFIX ...]
      the known sites missed by each image started by an exec were known at its start
      (check_known_at_start); with --learned, the images of EXE_SUFFIX after the first
      missed none (a program that runs the same sites each time: check_learned).
  csvtool.py known-report DIR REPORT_TEXT REPORT_CSV
      systrace-stats report's section on the known sites (its text, and the output of
      --csv --table known) agrees with DIR's files (check_known_report).
  csvtool.py ctable TABLE_FILE DIR [--order KEY] [--strace STRACE_FILE [ABI] [name=N ...]]
      systrace -c's table (or report --syscalls') in TABLE_FILE: strace -c's layout
      with inprocess and ptraced after, total lines that sum the rows, every ABI's
      counts equal to DIR's syscalls.csv and its totals to summary.csv; with --order,
      the rows in the order of -S KEY; with --strace, the calls per name of ABI equal
      strace -f -c's table plus the extra calls (as compare).
  csvtool.py ctable-per-process TABLE_FILE DIR
      report --syscalls --per-process: a table per image with syscalls, most first,
      each headed with its processes.csv syscalls, adding up to the run's table.
  csvtool.py perfstats DIR STDERR_FILE
      the --show-perf-stats summary printed on stderr matches summary.csv.

Every check prints what it compared and, on a mismatch, what was expected and what
was found; the exit status is 1 on any failure.
"""
import collections
import csv
import os
import re
import sys

SUMMARY_KEYS = [
    "syscalls", "syscalls_early", "syscalls_ptraced", "syscalls_inprocess",
    "instrument_syscalls", "processes", "forks", "vforks", "threads", "execs", "exits",
    "sites", "sites_patched", "sites_unpatchable", "ptrace_stops", "ptrace_stops_lifecycle",
    "ptrace_stops_early", "ptrace_stops_late", "syscalls_restarted", "patches_written", "patches_known",
    "patch_ns", "known_unused", "known_missed", "batch_patch_ns", "miss_ns", "known_threshold_permille",
    "tracer_cpu_per_image_ns", "wall_ns", "tracer_cpu_ns", "tracer_maxrss_kb", "tracer_writer_cpu_ns",
    "tracer_serving_cpu_ns", "tracer_busy_permille", "tracer_nice", "tracer_threads", "tracer_handoffs", "tracer_handoff_ns",
]
# the serving thread's wait for a CPU: empty where the kernel keeps no schedstat
RUN_DELAY_KEYS = ["tracer_run_delay_ns"]
# the serving thread's time by kind of status (tracer/serve_times.h)
SERVE_KINDS = ["syscall", "exec", "create", "exit", "signal", "other", "reap"]
SERVE_KEYS = [f"tracer_serve_{k}_{x}" for k in SERVE_KINDS for x in ("count", "ns", "sampled")]
# ... and its CPU by kind, estimated from the serves sampled: empty for a kind
# served but never sampled
SERVE_CPU_KEYS = [f"tracer_serve_{k}_cpu_ns" for k in SERVE_KINDS]
# the most serves between two sampled (tracer/serve_times.h: strides of 1 to
# 2 * SERVE_SAMPLE_MEAN - 1)
SERVE_STRIDE_MAX = 15
# what systrace measured of a stop and of an in-process call before the command ran:
# empty when it did not (--patch=off, or the measurement failed)
COST_KEYS = ["stop_cost_ns", "inprocess_cost_ns", "saving_per_call_ns", "calibration_ns"]
# what follows from them for the patches written (stats/amortization.h): empty too
AMORTIZATION_KEYS = ["patch_cost_ns", "break_even_calls", "patches_not_amortized"]
# summary key -> processes.csv column whose sum it is
SUMMED_COLUMNS = {
    "syscalls": "syscalls", "syscalls_early": "early", "syscalls_ptraced": "ptraced",
    "syscalls_inprocess": "inprocess", "instrument_syscalls": "instrument_syscalls",
    "forks": "forks", "vforks": "vforks", "threads": "threads", "execs": "execs",
    "exits": "exits", "sites": "sites", "sites_patched": "sites_patched",
    "sites_unpatchable": "sites_unpatchable", "ptrace_stops": "ptrace_stops",
    "ptrace_stops_lifecycle": "stops_lifecycle", "ptrace_stops_early": "stops_early",
    "ptrace_stops_late": "stops_late",
    "syscalls_restarted": "restarted", "patches_written": "patches_written",
    "patches_known": "patches_known", "patch_ns": "patch_ns",
    "known_unused": "known_unused", "known_missed": "known_missed", "errors": "errors",
}
# the parts of processes.csv's ptrace_stops, which they add up to in every row
STOP_SPLIT = ["stops_lifecycle", "stops_early", "stops_late"]
PROCESSES_REQUIRED = [
    "pid", "image", "ppid", "exe", "start_ns", "end_ns", "syscalls", "early", "ptraced",
    "inprocess", "sites_patched", "exit",
]
SYSCALLS_REQUIRED = ["pid", "image", "syscall", "calls", "errors"]
SITES_REQUIRED = ["pid", "image", "object", "offset", "symbol", "syscall", "state",
                  "ptraced", "inprocess"]


class CheckError(Exception):
    pass


def read_csv(path, required=()):
    """Rows of an RFC 4180 file as dicts; checks the header has the required columns
    and every row has as many fields as the header."""
    if not os.path.exists(path):
        raise CheckError(f"{path}: missing")
    with open(path, newline="") as f:
        reader = csv.reader(f, strict=True)
        try:
            header = next(reader)
        except StopIteration:
            raise CheckError(f"{path}: empty (no header row)")
        missing = [c for c in required if c not in header]
        if missing:
            raise CheckError(f"{path}: header {header} lacks {missing}")
        if len(set(header)) != len(header):
            raise CheckError(f"{path}: duplicate columns in header {header}")
        rows = []
        for n, fields in enumerate(reader, start=2):
            if len(fields) != len(header):
                raise CheckError(f"{path}:{n}: {len(fields)} fields, header has {len(header)}: {fields}")
            rows.append(dict(zip(header, fields)))
    return rows


def to_int(value, where):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CheckError(f"{where}: {value!r} is not an integer")


def load_summary(d):
    rows = read_csv(os.path.join(d, "summary.csv"), ["metric", "value"])
    summary = {}
    for r in rows:
        if r["metric"] in summary:
            raise CheckError(f"summary.csv: metric {r['metric']} appears twice")
        summary[r["metric"]] = r["value"]
    missing = [k for k in SUMMARY_KEYS + COST_KEYS + AMORTIZATION_KEYS + RUN_DELAY_KEYS + SERVE_KEYS + SERVE_CPU_KEYS
               if k not in summary]
    if missing:
        raise CheckError(f"summary.csv lacks {missing}")
    return {k: None if k in COST_KEYS + AMORTIZATION_KEYS + RUN_DELAY_KEYS + SERVE_CPU_KEYS and v == ""
            else to_int(v, f"summary.csv {k}")
            for k, v in summary.items()}


def load_processes(d):
    return read_csv(os.path.join(d, "processes.csv"), PROCESSES_REQUIRED)


def load_syscalls(d):
    return read_csv(os.path.join(d, "syscalls.csv"), SYSCALLS_REQUIRED)


def load_sites(d):
    return read_csv(os.path.join(d, "sites.csv"), SITES_REQUIRED)


def row_abi(r):
    # syscalls.csv has an `abi` column (x86_64, i386, x32); without it, all is x86_64
    return r.get("abi", "x86_64") or "x86_64"


def systrace_counts(d, abi="x86_64"):
    """name -> calls summed over every row of syscalls.csv with that ABI."""
    counts = collections.Counter()
    for r in load_syscalls(d):
        if row_abi(r) == abi:
            counts[r["syscall"]] += to_int(r["calls"], f"syscalls.csv {r}")
    return counts


def image_counts(d, pid, image, abi="x86_64"):
    counts = collections.Counter()
    for r in load_syscalls(d):
        if r["pid"] == str(pid) and r["image"] == str(image) and row_abi(r) == abi:
            counts[r["syscall"]] += to_int(r["calls"], f"syscalls.csv {r}")
    return counts


STRACE_MODE = re.compile(r"System call usage summary for (.*?)(?: mode)?:\s*$")


def strace_tables(path, field="calls"):
    """Parses `strace -c` output (the default table, or -U name,calls or
    name,calls,errors) into {abi: Counter(name -> field)}, field being calls or
    errors (strace leaves errors blank when there are none). The first table is
    x86_64; strace heads the others with 'System call usage summary for 32 bit
    mode:' (i386) or 'for x32 mode:'."""
    tables = {}
    abi = "x86_64"
    columns = None
    if not os.path.exists(path):
        raise CheckError(f"{path}: missing (strace did not run?)")
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = STRACE_MODE.match(line)
            if m:
                abi = {"32 bit": "i386", "x32": "x32", "64 bit": "x86_64"}.get(m.group(1), m.group(1))
                columns = None
                continue
            fields = line.split()
            if not fields:
                continue
            if fields[0] == "syscall" and "calls" in fields:
                columns = fields[1:]  # -U: the name first, then these
                if field not in columns:
                    raise CheckError(f"{path}: strace's table has no {field} column (-U name,calls,{field})")
                tables.setdefault(abi, collections.Counter())
                continue
            if fields[0] == "%" and fields[-1] == "syscall":
                columns = "default"
                tables.setdefault(abi, collections.Counter())
                continue
            if columns is None or set(line.strip()) <= set("- "):
                continue
            if columns == "default":
                name = fields[-1]
                values = {"calls": fields[3], "errors": fields[4] if len(fields) == 6 else "0"}
            else:
                name = fields[0]
                values = dict(zip(columns, fields[1:]))
            if name == "total":
                columns = None
                continue
            tables[abi][name] += int(values.get(field, "0"))
    if not tables:
        raise CheckError(f"{path}: no strace -c table found")
    return tables


def compare_errors(d, strace_file, abi="x86_64", out=sys.stdout, skip=()):
    """DIR's errors per syscall name (syscalls.csv, every row of abi) == strace's,
    but for the names in skip (errors that depend on timing)."""
    got = collections.Counter()
    for r in load_syscalls(d):
        if row_abi(r) == abi:
            if r["errors"] == "":
                raise CheckError(f"syscalls.csv: {r['syscall']} of pid {r['pid']} has no errors field")
            got[r["syscall"]] += to_int(r["errors"], f"syscalls.csv {r}")
    expected = strace_tables(strace_file, "errors").get(abi, collections.Counter())
    problems = []
    print(f"{'syscall':<20} {'errors':>9} {'strace':>9}   ({abi})", file=out)
    for name in sorted(set(got) | set(expected)):
        g, e = got.get(name, 0), expected.get(name, 0)
        if name in skip:
            print(f"{name:<20} {g:>9} {e:>9}   (not compared: timing)", file=out)
            continue
        print(f"{name:<20} {g:>9} {e:>9}{'' if g == e else '   <-- MISMATCH'}", file=out)
        if g != e:
            problems.append(f"{abi} {name}: systrace counted {g} errors, strace -c {e}")
    return problems


def compare(d, strace_file, abi="x86_64", extra=None, out=sys.stdout, skip=()):
    """DIR's counts for abi == strace's table for abi + extra, leaving out the names
    in skip. Returns a list of mismatch messages (empty when equal)."""
    return compare_counts(systrace_counts(d, abi), strace_file, abi, extra, out, skip)


def compare_counts(got, strace_file, abi="x86_64", extra=None, out=sys.stdout, skip=()):
    """compare(), with systrace's counts given (name -> calls)."""
    expected = collections.Counter(strace_tables(strace_file).get(abi, {}))
    for name, n in (extra or {}).items():
        expected[name] += n
    problems = []
    names = sorted(set(got) | set(expected))
    print(f"{'syscall':<20} {'systrace':>9} {'expected':>9}   ({abi}: strace -c + extra {extra or {}})", file=out)
    for name in names:
        g, e = got.get(name, 0), expected.get(name, 0)
        if name in skip:
            print(f"{name:<20} {g:>9} {e:>9}   (not compared: checked by construction)", file=out)
            continue
        mark = "" if g == e else "   <-- MISMATCH"
        print(f"{name:<20} {g:>9} {e:>9}{mark}", file=out)
        if g != e:
            problems.append(f"{abi} {name}: systrace counted {g}, strace -c + extra says {e}")
    return problems


# systrace -c's table (and report --syscalls'): strace -c's columns, then two more
CTABLE_COLUMNS = ["% time", "seconds", "usecs/call", "calls", "errors", "syscall", "inprocess", "ptraced"]
CTABLE_PROCESS = re.compile(r"^ (.*) \(pid (-?\d+), image (\d+)\), (\d+) syscalls, (\d+\.\d)%$")
CTABLE_ALL = re.compile(r"^ all processes \((\d+) with syscalls(, the first shown: --limit)?\), (\d+) syscalls$")


def ctable_cells(line, spans, where):
    """A line of the table cut by the dashes' columns: its cells, stripped; a cell
    that spills out of its column (or text between columns) is a layout error."""
    cells = []
    for k, (a, b) in enumerate(spans):
        if a and line[a - 1:a].strip():
            raise CheckError(f"{where}: text before column {CTABLE_COLUMNS[k]!r} in {line!r}")
        cells.append(line[a:b].strip())
    if line[spans[-1][1]:].strip():
        raise CheckError(f"{where}: text after the last column in {line!r}")
    return cells


def ctable_row(cells, where):
    def num(v, kind):
        if v == "":
            return None
        try:
            return kind(v)
        except ValueError:
            raise CheckError(f"{where}: {v!r} is not a number")
    r = {"percent": num(cells[0], float), "seconds": num(cells[1], float), "usecs": num(cells[2], int),
         "calls": num(cells[3], int), "errors_blank": cells[4] == "", "errors": num(cells[4], int) or 0,
         "name": cells[5], "inprocess": num(cells[6], int), "ptraced": num(cells[7], int)}
    if None in (r["percent"], r["seconds"], r["usecs"], r["calls"]) or not r["name"]:
        raise CheckError(f"{where}: a cell of % time, seconds, usecs/call, calls or syscall is empty: {cells}")
    return r


def ctables(text, where="the table"):
    """The tables of systrace -c in text, in order: a list of {abi, header, dashes,
    rows, total, heading} (heading: the --per-process line before it, or None), and
    the note lines. Checks the layout: each header label in its column (the numbers
    right-aligned under it, the name left-aligned), every line within the columns."""
    lines = text.splitlines()
    tables, notes = [], []
    abi, heading = "x86_64", None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = STRACE_MODE.match(line)
        if m:
            abi = {"32 bit": "i386", "x32": "x32", "64 bit": "x86_64"}.get(m.group(1), m.group(1))
            i += 1
            continue
        if CTABLE_PROCESS.match(line) or CTABLE_ALL.match(line):
            heading, abi = line, "x86_64"
            i += 1
            continue
        if line.startswith("note: "):
            notes.append(line)
        if not line.startswith("% time"):
            i += 1
            continue
        if i + 1 >= len(lines):
            raise CheckError(f"{where}: a header with no dashes under it")
        header, dashes = line, lines[i + 1]
        spans = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
        if len(spans) != len(CTABLE_COLUMNS):
            raise CheckError(f"{where}: {len(spans)} columns of dashes, expected {len(CTABLE_COLUMNS)}: {dashes!r}")
        for k, (label, (a, b)) in enumerate(zip(CTABLE_COLUMNS, spans)):
            cell = header[a:b]
            aligned = cell.startswith(label) if label == "syscall" else cell.endswith(label)
            if cell.strip() != label or not aligned:
                raise CheckError(f"{where}: header column {k + 1} is {cell!r}, expected {label!r} aligned as strace aligns it")
        rows = []
        j = i + 2
        while j < len(lines) and not set(lines[j]) <= set("- "):
            rows.append(ctable_row(ctable_cells(lines[j], spans, where), where))
            j += 1
        if j + 1 >= len(lines) or lines[j] != dashes:
            raise CheckError(f"{where}: a table with no dashes and total line at its end")
        total = ctable_row(ctable_cells(lines[j + 1], spans, where), where)
        if total["name"] != "total":
            raise CheckError(f"{where}: the line after the closing dashes is not the total: {lines[j + 1]!r}")
        tables.append({"abi": abi, "header": header, "dashes": dashes, "rows": rows, "total": total,
                       "heading": heading})
        i = j + 2
    if not tables:
        raise CheckError(f"{where}: no table (no line starting with '% time')")
    return tables, notes


def ctable_counts(tables, abi="x86_64", field="calls"):
    """name -> field summed over the tables of abi."""
    counts = collections.Counter()
    for t in tables:
        if t["abi"] == abi:
            for r in t["rows"]:
                counts[r["name"]] += r[field] or 0
    return counts


def check_ctable_totals(tables):
    """Each table's total line sums its rows; % time adds up to 100 where there is time."""
    problems = []
    for t in tables:
        for field in ("calls", "errors", "inprocess", "ptraced"):
            s = sum(r[field] or 0 for r in t["rows"])
            if s != (t["total"][field] or 0):
                problems.append(f"{t['abi']} table: the rows' {field} sum to {s}, the total line says {t['total'][field]}")
        for r in t["rows"]:
            if r["inprocess"] is not None and r["inprocess"] + r["ptraced"] != r["calls"]:
                problems.append(f"{r['name']}: inprocess {r['inprocess']} + ptraced {r['ptraced']} != calls {r['calls']}")
        if t["total"]["percent"] != 100.0:
            problems.append(f"{t['abi']} table: the total's % time is {t['total']['percent']}, not 100.00")
        if t["total"]["seconds"] and abs(sum(r["percent"] for r in t["rows"]) - 100) > 0.01 * len(t["rows"]) + 0.01:
            problems.append(f"{t['abi']} table: % time adds up to {sum(r['percent'] for r in t['rows'])}")
    return problems


def check_ctable_files(text, d):
    """The table(s) against DIR's files: per ABI and name, calls, in-process, ptraced
    and the errors known equal the sums of syscalls.csv; the totals equal summary.csv;
    the errors note counts the calls whose errors are known."""
    tables, notes = ctables(text)
    problems = check_ctable_totals(tables)
    want = collections.defaultdict(collections.Counter)
    known = calls = 0
    for r in load_syscalls(d):
        k = (row_abi(r), r["syscall"])
        n = to_int(r["calls"], f"syscalls.csv {r}")
        want[k]["calls"] += n
        want[k]["ptraced"] += to_int(r["ptraced"], f"syscalls.csv {r}")
        want[k]["inprocess"] += to_int(r["inprocess"], f"syscalls.csv {r}")
        want[k]["errors"] += to_int(r["errors"] or "0", f"syscalls.csv {r}")
        known += n if r["errors"] != "" else 0
        calls += n
    got = collections.defaultdict(collections.Counter)
    for t in tables:
        for r in t["rows"]:
            for field in ("calls", "ptraced", "inprocess", "errors"):
                got[(t["abi"], r["name"])][field] += r[field] or 0
    for k in sorted(set(want) | set(got)):
        if want[k] != got[k]:
            problems.append(f"{k[0]} {k[1]}: the table has {dict(got[k])}, syscalls.csv sums to {dict(want[k])}")
    summary = load_summary(d)
    for field, key in (("calls", "syscalls"), ("ptraced", "syscalls_ptraced"), ("inprocess", "syscalls_inprocess")):
        s = sum(t["total"][field] for t in tables)
        if s != summary[key]:
            problems.append(f"the total lines' {field} add up to {s}, summary.csv {key} is {summary[key]}")
    note = [n for n in notes if n.startswith("note: errors are known for ")]
    if known < calls and not any(f"for {known} of the {calls} calls" in n for n in note):
        problems.append(f"no note 'errors are known for {known} of the {calls} calls': {notes}")
    if known == calls and note:
        problems.append(f"a note on unknown errors, but every row of syscalls.csv has its errors: {note}")
    return problems


def check_ctable_order(text, key):
    """Every table's rows in the order of -S KEY: numbers largest first, names in
    byte order (`name`); by calls for `time` when no time was measured."""
    tables, _ = ctables(text)
    problems = []
    for t in tables:
        timed = any(r["seconds"] for r in t["rows"])
        field = {"time": "seconds" if timed else "calls"}.get(key, key)
        values = [r["name"] if field == "name" else (r[field] or 0) for r in t["rows"]]
        if field == "name":
            ok = values == sorted(values, key=lambda v: v.encode())
        else:
            ok = values == sorted(values, reverse=True)
        if not ok:
            problems.append(f"{t['abi']} table: not in the order of -S {key}: {values}")
    return problems


def check_ctable_per_process(text, d):
    """report --syscalls --per-process: a table per process image with syscalls (a
    heading `NAME (pid P, image I), N syscalls, X%` above, N its total's calls and
    its processes.csv row's syscalls), most syscalls first, then `all processes`:
    the run's table, whose every row is the sum of the processes' rows."""
    tables, _ = ctables(text)
    problems = []
    blocks = collections.OrderedDict()
    for t in tables:
        if t["heading"] is None:
            problems.append("a table with no heading line above it")
            continue
        blocks.setdefault(t["heading"], []).append(t)
    headings = list(blocks)
    if not headings or not CTABLE_ALL.match(headings[-1]):
        return problems + [f"the last table is not headed ' all processes (N with syscalls), M syscalls': {headings[-1:]}"]
    all_tables = blocks.pop(headings[-1])
    per_key = collections.Counter()
    sizes = []
    summed = collections.defaultdict(collections.Counter)
    for h, ts in blocks.items():
        m = CTABLE_PROCESS.match(h)
        if not m:
            problems.append(f"heading {h!r} is not 'NAME (pid P, image I), N syscalls, X%'")
            continue
        n = int(m.group(4))
        total = sum(t["total"]["calls"] for t in ts)
        if total != n:
            problems.append(f"{h}: its tables' totals add up to {total} calls")
        per_key[(m.group(2), m.group(3))] += n
        sizes.append(n)
        for t in ts:
            for r in t["rows"]:
                for field in ("calls", "errors", "inprocess", "ptraced"):
                    summed[(t["abi"], r["name"])][field] += r[field] or 0
    if sizes != sorted(sizes, reverse=True):
        problems.append(f"the processes are not most syscalls first: {sizes}")
    rows = collections.Counter()
    for r in load_processes(d):
        rows[(r["pid"], r["image"])] += to_int(r["syscalls"], "processes.csv syscalls")
    rows = collections.Counter({k: v for k, v in rows.items() if v})
    if rows != per_key:
        problems.append(f"the headings' syscalls per (pid, image) {dict(per_key)} are not processes.csv's {dict(rows)}")
    m = CTABLE_ALL.match(headings[-1])
    if int(m.group(1)) != sum(1 for r in load_processes(d) if r["syscalls"] != "0") and not m.group(2):
        problems.append(f"{headings[-1]}: processes.csv has {sum(1 for r in load_processes(d) if r['syscalls'] != '0')} rows with syscalls")
    whole = collections.defaultdict(collections.Counter)
    for t in all_tables:
        for r in t["rows"]:
            for field in ("calls", "errors", "inprocess", "ptraced"):
                whole[(t["abi"], r["name"])][field] += r[field] or 0
    if not m.group(2):
        for k in sorted(set(whole) | set(summed)):
            if whole[k] != summed[k]:
                problems.append(f"{k[0]} {k[1]}: the processes' tables add up to {dict(summed[k])}, the run's table has {dict(whole[k])}")
    return problems + check_ctable_totals(all_tables)


def row_counts(d, name, abi="x86_64"):
    """Sorted list of the calls of name in each image that made any."""
    per = collections.Counter()
    for r in load_syscalls(d):
        if r["syscall"] == name and row_abi(r) == abi:
            per[(r["pid"], r["image"])] += to_int(r["calls"], f"syscalls.csv {r}")
    return sorted(n for n in per.values() if n)


def symbol_matches(symbol, want):
    if "+" in want:
        return symbol == want
    return symbol.split("+", 1)[0] == want


def describe_site(r):
    return (f"pid {r['pid']} image {r['image']} {os.path.basename(r['object']) or '?'} {r['symbol'] or r['offset']} "
            f"({r['syscall']}): state {r['state']}, ptraced {r['ptraced']}, inprocess {r['inprocess']}")


def check_site(d, want, expect):
    """Problems with the sites of symbol want against expect (see the usage)."""
    want_symbol, _, want_syscall = want.partition("@")
    rows = [r for r in load_sites(d) if symbol_matches(r["symbol"], want_symbol)
            and (not want_syscall or r["syscall"] == want_syscall)]
    if not rows:
        return [f"sites.csv has no site with symbol {want} (did the program run it? is the symbol read?)"]
    for r in rows:
        print("    " + describe_site(r))
    if expect == "patched":
        unpatchable = [r for r in rows if r["state"].startswith("unpatchable")]
        hot = [r for r in rows if r["state"] == "patched" and to_int(r["inprocess"], "sites.csv inprocess") > 0]
        if unpatchable:
            return [f"{want}: expected patched, but " + "; ".join(describe_site(r) for r in unpatchable)]
        if not hot:
            return [f"{want}: expected a patched site with in-process calls, got " +
                    "; ".join(describe_site(r) for r in rows)]
    elif expect == "not-patched":
        bad = [r for r in rows if r["state"] == "patched" or to_int(r["inprocess"], "sites.csv inprocess") != 0]
        if bad:
            return [f"{want}: must never be patched (a patch there corrupts the program or the counts), but " +
                    "; ".join(describe_site(r) for r in bad)]
    elif expect == "stops":
        bad = [r for r in rows if to_int(r["inprocess"], "sites.csv inprocess") != 0]
        if bad:
            return [f"{want}: every call must stop in the tracer (patched or not), but " +
                    "; ".join(describe_site(r) for r in bad)]
    elif expect != "any":
        return [f"unknown expectation {expect!r} (patched, not-patched, stops, any)"]
    return []


# The functions where a call of these numbers may go in-process: a plain fork (clone
# with no new stack, no shared memory: glibc's fork), a signal handler's return
# through a restorer (`mov $15,%rax; syscall`, whose stub moves no stack) and a
# vfork whose number is fixed (`mov $58,%eax; syscall`: glibc's, and
# tests/programs/vfork_signals.c's own), whose stub comes back through the slot,
# not the stack.
INPROCESS_ONLY_IN = {"clone": {"_Fork"}, "rt_sigreturn": {"__restore_rt"}, "vfork": {"__vfork", "pop_vfork"}}


def check_never_patched(d, names):
    """names never patched, nor in-process; clone, rt_sigreturn and vfork in-process
    only in the functions of INPROCESS_ONLY_IN."""
    problems = []
    for r in load_sites(d):
        inprocess = to_int(r["inprocess"], "sites.csv inprocess")
        only_in = INPROCESS_ONLY_IN.get(r["syscall"])
        if r["syscall"] in names and (r["state"] == "patched" or inprocess != 0):
            problems.append(f"a {r['syscall']} site must stop in the tracer, but " + describe_site(r))
        elif only_in and inprocess and r["symbol"].split("+")[0] not in only_in:
            problems.append(f"a {r['syscall']} site may go in-process only in {', '.join(sorted(only_in))}, but "
                            + describe_site(r))
    return problems


def check_library(d, expect, exe_suffix=None, images=None, inprocess=None):
    procs = load_processes(d)
    if procs and "library" not in procs[0]:
        return [f"processes.csv has no `library` column (columns: {', '.join(procs[0])}): the in-process path has not landed"]
    rows = [r for r in procs if exe_suffix is None or r["exe"].endswith(exe_suffix)]
    if not rows:
        return [f"processes.csv has no row whose exe ends with {exe_suffix!r}"]
    problems = []
    if images is not None and len(rows) != images:
        problems.append(f"{len(rows)} images whose exe ends with {exe_suffix!r}, expected {images}")
    for r in rows:
        print(f"    pid {r['pid']} image {r['image']} {r['exe']}: library {r['library']!r}, "
              f"syscalls {r['syscalls']}, ptraced {r['ptraced']}, inprocess {r['inprocess']}")
        if r["library"] != expect:
            problems.append(f"pid {r['pid']} image {r['image']} ({r['exe']}): library is {r['library']!r}, expected {expect!r}")
        if inprocess is not None and to_int(r["inprocess"], "processes.csv inprocess") < inprocess:
            problems.append(f"pid {r['pid']} image {r['image']} ({r['exe']}): {r['inprocess']} calls in-process, "
                            f"expected at least {inprocess}")
    return problems


def check_all_unpatchable(d, exe_suffix=None):
    """Every site of the matching images is unpatchable:<reason> with a reason."""
    keys = {(r["pid"], r["image"]) for r in load_processes(d)
            if exe_suffix is None or r["exe"].endswith(exe_suffix)}
    problems = []
    for r in load_sites(d):
        if (r["pid"], r["image"]) not in keys:
            continue
        st = r["state"]
        if not st.startswith("unpatchable:") or not st[len("unpatchable:"):]:
            problems.append("expected unpatchable:<reason>: " + describe_site(r))
    return problems


def check_amortization(summary, procs, sites, problems):
    """The break-even figures follow from the measured saving: per site
    ceil(patch_ns / saving_per_call_ns), and for the run from the mean patch cost;
    patches_not_amortized is the sum of its column, empty with the costs unknown. A
    site's patched_ns is there with its patch_ns, within its image's lifetime."""
    # an image is its pid, number and start (a pid reused within the run has several)
    with_start = bool(sites) and "start_ns" in sites[0]

    def image_of(r):
        return (r["pid"], r["image"], r["start_ns"] if with_start else None)

    lifetimes = {image_of(r): (int(r["start_ns"]), int(r["end_ns"])) for r in procs}
    for r in sites:
        if (r["patched_ns"] == "") != (r["patch_ns"] == ""):
            problems.append(f"sites.csv {r['address']}: patched_ns {r['patched_ns']!r} with patch_ns {r['patch_ns']!r}")
        elif r["patched_ns"] and not lifetimes[image_of(r)][0] <= int(r["patched_ns"]) <= lifetimes[image_of(r)][1]:
            problems.append(f"sites.csv {r['address']}: patched at {r['patched_ns']}, outside its image's lifetime")
    saving = summary["saving_per_call_ns"]
    written = summary["patches_written"]
    mean = summary["patch_ns"] // written if written else 0
    if summary["patch_cost_ns"] not in (None, mean):
        problems.append(f"summary patch_cost_ns={summary['patch_cost_ns']} but patch_ns / patches_written = {mean}")
    if saving is None:
        if any(summary[k] is not None for k in ("break_even_calls", "patches_not_amortized")):
            problems.append("summary: break-even figures without a measured saving")
        return
    if summary["break_even_calls"] != -(-mean // saving):
        problems.append(f"summary break_even_calls={summary['break_even_calls']} but ceil({mean} / {saving}) = {-(-mean // saving)}")
    total = sum(to_int(r["patches_not_amortized"], "processes.csv patches_not_amortized") for r in procs)
    if total != summary["patches_not_amortized"]:
        problems.append(f"summary patches_not_amortized={summary['patches_not_amortized']} but its column sums to {total}")
    unpaid_rows = collections.Counter(image_of(r) for r in sites if r["amortized"] == "no")
    for r in procs:
        if to_int(r["patches_not_amortized"], "patches_not_amortized") > to_int(r["patches_written"], "patches_written"):
            problems.append(f"processes.csv pid {r['pid']} image {r['image']}: more patches not amortized than written")
        # its rows that did not pay, and the patches it wrote whose sites never ran
        if unpaid_rows[image_of(r)] > int(r["patches_not_amortized"]):
            problems.append(f"processes.csv pid {r['pid']} image {r['image']}: patches_not_amortized "
                            f"{r['patches_not_amortized']} but {unpaid_rows[image_of(r)]} rows of sites.csv say amortized=no")
    for r in sites:
        if r["patch_ns"] == "":
            if r["break_even"] != "" or r["amortized"] != "":
                problems.append(f"sites.csv {r['address']}: a break_even or amortized without a patch_ns")
            continue
        want = -(-int(r["patch_ns"]) // saving)
        if int(r["break_even"]) != want:
            problems.append(f"sites.csv {r['address']}: break_even {r['break_even']} but ceil({r['patch_ns']} / {saving}) = {want}")
        paid = "yes" if int(r["inprocess"]) >= want else "no"
        if r["amortized"] != paid:
            problems.append(f"sites.csv {r['address']}: amortized {r['amortized']!r} but {r['inprocess']} in-process calls against a break-even of {want}")


def permille(part, whole):
    """part in thousandths of whole, rounded half up, at most 1000 (stats/summary.c)."""
    return min(1000, (part * 1000 + whole // 2) // whole) if whole else 0


def check_serving_load(summary, problems):
    """The serving threads over the run (tracer/serving_load.h; N of them, each
    its own CPU time and run queue wait, summed): their CPU is the tracer's and
    within N runs, busy_permille is that CPU over N times wall_ns, and their CPU
    and their wait for one add up to no more than N runs (all read inside
    wall_ns's window; 1 ms and 0.1% for clocks that tick apart)."""
    n = summary.get("tracer_threads") or 1
    wall, cpu, delay = summary["wall_ns"], summary["tracer_serving_cpu_ns"], summary["tracer_run_delay_ns"]
    within_run = n * (wall + wall // 1000 + 1000000)
    if cpu > summary["tracer_cpu_ns"]:
        problems.append(f"summary tracer_serving_cpu_ns={cpu} is more than all the tracer's, "
                        f"tracer_cpu_ns={summary['tracer_cpu_ns']}")
    if cpu == 0:
        problems.append("summary tracer_serving_cpu_ns=0: the thread that serves every stop took no CPU")
    if summary["tracer_busy_permille"] != permille(cpu, n * wall):
        problems.append(f"summary tracer_busy_permille={summary['tracer_busy_permille']} but "
                        f"tracer_serving_cpu_ns / ({n} x wall_ns) = {cpu} / {n * wall}")
    if cpu + (delay or 0) > within_run:
        problems.append(f"summary tracer_serving_cpu_ns={cpu} + tracer_run_delay_ns={delay} > {n} x wall_ns={wall}")
    # the statuses served, by kind: each creation and exec event once; their times
    # one after another within the run. (Not ptrace_stops: that also counts the
    # stops a serve takes inside itself, borrowing a thread or stopping the threads
    # of a memory to patch it, and not a status a nested tracer's or an unplaced
    # thread's.)
    count = {k: summary[f"tracer_serve_{k}_count"] for k in SERVE_KINDS}
    spent = sum(summary[f"tracer_serve_{k}_ns"] for k in SERVE_KINDS)
    if count["exec"] != summary["execs"]:
        problems.append(f"summary tracer_serve_exec_count={count['exec']} but execs={summary['execs']}")
    created = summary["forks"] + summary["vforks"] + summary["threads"]
    if count["create"] != created:
        problems.append(f"summary tracer_serve_create_count={count['create']} but forks + vforks + threads = {created}")
    if spent > within_run:
        problems.append(f"summary: the serving times by kind add up to {spent} ns, more than {n} x wall_ns={wall}")
    for k in SERVE_KINDS:
        if count[k] == 0 and summary[f"tracer_serve_{k}_ns"]:
            problems.append(f"summary: no {k} status served, yet tracer_serve_{k}_ns={summary[f'tracer_serve_{k}_ns']}")
    # the CPU by kind, from a sample at strides of at most SERVE_STRIDE_MAX serves:
    # empty exactly where a kind was served and never sampled, nothing where none
    sampled = {k: summary[f"tracer_serve_{k}_sampled"] for k in SERVE_KINDS}
    for k in SERVE_KINDS:
        cpu = summary[f"tracer_serve_{k}_cpu_ns"]
        if sampled[k] > count[k]:
            problems.append(f"summary tracer_serve_{k}_sampled={sampled[k]} > tracer_serve_{k}_count={count[k]}")
        if (cpu is None) != (count[k] > 0 and sampled[k] == 0):
            problems.append(f"summary tracer_serve_{k}_cpu_ns={cpu!r} with {count[k]} served, {sampled[k]} sampled")
        elif count[k] == 0 and cpu:
            problems.append(f"summary: no {k} status served, yet tracer_serve_{k}_cpu_ns={cpu}")
    if sum(sampled.values()) < sum(count.values()) // SERVE_STRIDE_MAX:
        problems.append(f"summary: {sum(sampled.values())} serves sampled of {sum(count.values())}, fewer than one "
                        f"in {SERVE_STRIDE_MAX}")


def check_known_choice(summary, procs, sites, problems):
    """The choice of the known sites written at an image's start (docs/patching.md,
    "Which known sites are written"): the threshold is P/M clamped to 1..100%, and in
    every row the sites written at the start that never ran (known_unused) are among
    those written (patches_known). A fork child (image 0) makes no such choice: both
    are 0. In an image started by an exec whose library came up (`ready`), where the
    tracer tells U and X, the sites written that ran (W - U) and the known sites left
    out that ran (X) are distinct sites that ran: at most the row's `sites`; and the
    sites the image patched (sites.csv patch_ns) that ran without a trap (ptraced 0)
    were written before their first call, in a batch: at least that many of W ran;
    but for a site a child sharing the memory (a vfork child, image 0) trapped at
    while it lived, at the time it was patched: that trap patched it for both.
    (A fork child's patches_known, written in batches at traps, and an image whose
    library never came up have no U to subtract.)"""
    p, m = summary["batch_patch_ns"], summary["miss_ns"]
    want = min(1000, max(10, 1000 * p // m)) if m else 1000
    if summary["known_threshold_permille"] != want:
        problems.append(f"summary known_threshold_permille={summary['known_threshold_permille']} but P/M = "
                        f"1000 x {p} / {m}, within 10..1000, is {want}")
    n = summary["processes"]
    if summary["tracer_writer_cpu_ns"] > summary["tracer_cpu_ns"]:
        problems.append(f"summary tracer_writer_cpu_ns={summary['tracer_writer_cpu_ns']} is more than all the tracer's, "
                        f"tracer_cpu_ns={summary['tracer_cpu_ns']}")
    if summary["tracer_cpu_per_image_ns"] != (summary["tracer_cpu_ns"] // n if n else 0):
        problems.append(f"summary tracer_cpu_per_image_ns={summary['tracer_cpu_per_image_ns']} but tracer_cpu_ns / "
                        f"processes = {summary['tracer_cpu_ns']} / {n}")
    for r in procs:
        where = f"processes.csv pid {r['pid']} image {r['image']}"
        w, u, x = (to_int(r[c], f"{where} {c}") for c in ("patches_known", "known_unused", "known_missed"))
        if u > w:
            problems.append(f"{where}: known_unused {u} > patches_known {w} (unused sites are among those written)")
        if r["image"] == "0" and (u or x):
            problems.append(f"{where}: a fork child with known_unused {u}, known_missed {x} (no choice at its start)")
        if r["image"] != "0" and r.get("library", "ready") == "ready" and \
                max(w - u, 0) + x > to_int(r["sites"], f"{where} sites"):
            problems.append(f"{where}: written and run (patches_known - known_unused = {w - u}) + known_missed {x} "
                            f"> sites {r['sites']} (distinct sites that ran)")
    # the traps of fork children (image 0), by parent and address: (start, end)
    life = {(r["pid"], r["start_ns"]): r for r in procs if r["image"] == "0"}
    child_traps = collections.defaultdict(list)
    for s in sites:
        c = life.get((s["pid"], s["start_ns"]))
        if c and s["ptraced"] != "0":
            child_traps[(c["ppid"], s["address"])].append((int(c["start_ns"]), int(c["end_ns"])))

    def patched_by_child(s):
        t = s["patched_ns"] and int(s["patched_ns"])
        return any(a <= t <= b for a, b in child_traps.get((s["pid"], s["address"]), ()))
    # per pid and image (the rows of a reused pid together)
    ran_in_batch = collections.Counter((s["pid"], s["image"]) for s in sites
                                       if s["patch_ns"] and s["ptraced"] == "0" and s["inprocess"] != "0"
                                       and not patched_by_child(s))
    by_key = collections.defaultdict(list)
    for r in procs:
        by_key[(r["pid"], r["image"])].append(r)
    for k, rows in by_key.items():
        if k[1] == "0" or any(r.get("library", "ready") != "ready" for r in rows):
            continue
        ran = sum(int(r["patches_known"]) - int(r["known_unused"]) for r in rows)
        if ran < ran_in_batch[k]:
            problems.append(f"processes.csv pid {k[0]} image {k[1]}: patches_known - known_unused = {ran}, but "
                            f"{ran_in_batch[k]} of its sites were patched by it and ran without a trap (written in a batch)")


def check_consistency(d, patch_off=True):
    """Returns a list of problems with the cross-file invariants of DIR."""
    problems = []
    summary = load_summary(d)
    procs = load_processes(d)
    syscalls = load_syscalls(d)
    sites = load_sites(d)

    # summary totals are the sums of processes.csv columns
    if summary["processes"] != len(procs):
        problems.append(f"summary processes={summary['processes']} but processes.csv has {len(procs)} rows")
    for key, col in SUMMED_COLUMNS.items():
        if procs and col not in procs[0]:
            problems.append(f"processes.csv has no column {col} (summary {key} is its sum)")
            continue
        total = sum(to_int(r[col], f"processes.csv {col} of pid {r['pid']}") for r in procs)
        if total != summary[key]:
            problems.append(f"summary {key}={summary[key]} but sum of processes.csv {col} = {total}")

    check_amortization(summary, procs, sites, problems)
    check_serving_load(summary, problems)
    if procs and "known_unused" in procs[0]:
        check_known_choice(summary, procs, sites, problems)

    split = sum(summary[k] for k in ("ptrace_stops_lifecycle", "ptrace_stops_early", "ptrace_stops_late"))
    if split != summary["ptrace_stops"]:
        problems.append(f"summary ptrace_stops_lifecycle + _early + _late = {split} != ptrace_stops {summary['ptrace_stops']}")

    # identity of rows
    keys = collections.Counter((r["pid"], r["image"], r["start_ns"]) for r in procs)
    for k, n in keys.items():
        if n > 1:
            problems.append(f"processes.csv: (pid, image, start_ns) = {k} appears {n} times")

    # per row
    by_image = collections.defaultdict(list)
    for r in procs:
        where = f"processes.csv pid {r['pid']} image {r['image']}"
        sc = to_int(r["syscalls"], where)
        pt = to_int(r["ptraced"], where)
        ip = to_int(r["inprocess"], where)
        early = to_int(r["early"], where)
        if sc != pt + ip:
            problems.append(f"{where}: syscalls {sc} != ptraced {pt} + inprocess {ip}")
        if early > sc:
            problems.append(f"{where}: early {early} > syscalls {sc}")
        stops = [to_int(r[c], where) for c in STOP_SPLIT if c in r]
        if len(stops) == len(STOP_SPLIT) and sum(stops) != to_int(r["ptrace_stops"], where):
            problems.append(f"{where}: stops_lifecycle + stops_early + stops_late = {' + '.join(map(str, stops))} != ptrace_stops {r['ptrace_stops']}")
        if to_int(r["start_ns"], where) > to_int(r["end_ns"], where):
            problems.append(f"{where}: start_ns {r['start_ns']} > end_ns {r['end_ns']}")
        if not re.fullmatch(r"exit:\d+|signal:\d+|exec|running", r["exit"]):
            problems.append(f"{where}: exit {r['exit']!r} is not exit:N, signal:N, exec or running")
        if "exits" in r:
            ended = r["exit"].startswith(("exit:", "signal:"))
            if to_int(r["exits"], where) != int(ended):
                problems.append(f"{where}: exits {r['exits']} but exit is {r['exit']!r}")
        if patch_off:
            if ip != 0:
                problems.append(f"{where}: --patch=off but inprocess = {ip} (every syscall must be a ptrace stop)")
            if to_int(r["sites_patched"], where) != 0:
                problems.append(f"{where}: --patch=off but sites_patched = {r['sites_patched']}")
            if "stops_late" in r and to_int(r["stops_late"], where) != 0:
                problems.append(f"{where}: --patch=off but stops_late = {r['stops_late']} (no library is ever ready: every stop is lifecycle or early)")
            if "ptrace_stops" in r and to_int(r["ptrace_stops"], where) < pt:
                problems.append(f"{where}: ptrace_stops {r['ptrace_stops']} < ptraced {pt} (each ptraced syscall is a stop)")
        by_image[(r["pid"], r["image"])].append(r)

    # an image that ended in exec is followed by the next image of the same pid
    for r in procs:
        if r["exit"] == "exec":
            nxt = by_image.get((r["pid"], str(int(r["image"]) + 1)))
            if not nxt:
                problems.append(f"processes.csv pid {r['pid']} image {r['image']} ended in exec but there is no image {int(r['image']) + 1}")
            elif "execs" in nxt[0] and nxt[0]["execs"] != "1":
                problems.append(f"processes.csv pid {r['pid']} image {int(r['image']) + 1} follows an exec but execs = {nxt[0]['execs']}")

    # syscalls.csv per image sums to the row's syscalls (and, where the file has the
    # columns, its ptraced and inprocess to the row's)
    sc_sum = collections.Counter()
    sc_pt = collections.Counter()
    sc_ip = collections.Counter()
    sc_pt_by_name = collections.Counter()  # (pid, image, name) -> ptraced, ABIs together
    sc_errors = collections.Counter()
    paths = bool(syscalls) and "ptraced" in syscalls[0]
    for r in syscalls:
        where = f"syscalls.csv pid {r['pid']} image {r['image']} {r['syscall']}"
        n = to_int(r["calls"], where)
        if n <= 0:
            problems.append(f"{where}: calls {n} (rows are only for syscalls that occurred)")
        if r["errors"] != "" and not (0 <= to_int(r["errors"], where) <= n):
            problems.append(f"{where}: errors {r['errors']} not within 0..calls {n}")
        sc_sum[(r["pid"], r["image"])] += n
        if r["errors"] != "":
            sc_errors[(r["pid"], r["image"])] += to_int(r["errors"], where)
        if paths:
            pt, ip = to_int(r["ptraced"], where), to_int(r["inprocess"], where)
            if pt + ip != n or pt < 0 or ip < 0:
                problems.append(f"{where}: ptraced {pt} + inprocess {ip} != calls {n}")
            if patch_off and ip != 0:
                problems.append(f"{where}: --patch=off but inprocess = {ip}")
            sc_pt[(r["pid"], r["image"])] += pt
            sc_ip[(r["pid"], r["image"])] += ip
            sc_pt_by_name[(r["pid"], r["image"], r["syscall"])] += pt
    row_keys = collections.Counter((r["pid"], r["image"], row_abi(r), r["syscall"]) for r in syscalls)
    for k, n in row_keys.items():
        if n > 1 and len(by_image.get(k[:2], [])) <= 1:
            problems.append(f"syscalls.csv: {k} has {n} rows (one per image and syscall)")

    # sites.csv per image: ptraced + inprocess sums to the row's
    site_pt = collections.Counter()
    site_ip = collections.Counter()
    site_rows = collections.Counter()
    site_patched = collections.Counter()
    site_unpatchable = collections.Counter()
    site_pt_by_name = collections.Counter()  # (pid, image, name) -> ptraced at its sites
    site_varies = set()  # (pid, image) with a site of several numbers (`?`)
    site_errors = collections.Counter()
    has_site_errors = bool(sites) and "errors" in sites[0]
    for r in sites:
        where = f"sites.csv pid {r['pid']} image {r['image']} offset {r['offset']}"
        k = (r["pid"], r["image"])
        site_pt[k] += to_int(r["ptraced"], where)
        if has_site_errors:
            e = to_int(r["errors"], where)
            site_errors[k] += e
            if e > to_int(r["ptraced"], where) + to_int(r["inprocess"], where):
                problems.append(f"{where}: errors {e} more than its calls")
        if r["syscall"] == "?":
            site_varies.add(k)
        else:
            site_pt_by_name[k + (r["syscall"],)] += to_int(r["ptraced"], where)
        site_ip[k] += to_int(r["inprocess"], where)
        site_rows[k] += 1
        site_patched[k] += r["state"] == "patched"
        site_unpatchable[k] += r["state"].startswith("unpatchable")
        if not (r["state"] in ("patched", "pending") or r["state"].startswith("unpatchable:")):
            problems.append(f"{where}: state {r['state']!r} is not patched, pending or unpatchable:<reason>")
        if not re.fullmatch(r"(0x)?[0-9a-fA-F]+", r["offset"]):
            problems.append(f"{where}: offset {r['offset']!r} is not hex")
        if patch_off and r["state"] == "patched":
            problems.append(f"{where}: --patch=off but the site is patched")

    for k, rows in by_image.items():
        where = f"processes.csv pid {k[0]} image {k[1]}"
        sc = sum(int(r["syscalls"]) for r in rows)
        pt = sum(int(r["ptraced"]) for r in rows)
        ip = sum(int(r["inprocess"]) for r in rows)
        if sc_sum[k] != sc:
            problems.append(f"{where}: syscalls {sc} but its syscalls.csv rows sum to {sc_sum[k]}")
        if paths and (sc_pt[k] != pt or sc_ip[k] != ip):
            problems.append(f"{where}: ptraced/inprocess {pt}/{ip} but its syscalls.csv rows sum to {sc_pt[k]}/{sc_ip[k]}")
        if site_pt[k] + site_ip[k] != sc:
            problems.append(f"{where}: syscalls {sc} but its sites.csv ptraced+inprocess sum to {site_pt[k] + site_ip[k]}")
        if site_pt[k] != pt or site_ip[k] != ip:
            problems.append(f"{where}: ptraced/inprocess {pt}/{ip} but sites.csv says {site_pt[k]}/{site_ip[k]}")
        if "errors" in rows[0] and sum(int(r["errors"]) for r in rows) != sc_errors[k]:
            problems.append(f"{where}: errors {rows[0]['errors']} but its syscalls.csv rows sum to {sc_errors[k]}")
        if has_site_errors and site_errors[k] != sc_errors[k]:
            problems.append(f"{where}: its syscalls.csv errors sum to {sc_errors[k]}, its sites.csv errors to {site_errors[k]}")
        if "sites" in rows[0] and sum(int(r["sites"]) for r in rows) != site_rows[k]:
            problems.append(f"{where}: sites {rows[0]['sites']} but sites.csv has {site_rows[k]} rows for it")
        if sum(int(r["sites_patched"]) for r in rows) != site_patched[k]:
            problems.append(f"{where}: sites_patched {rows[0]['sites_patched']} but sites.csv has {site_patched[k]} patched rows")
        if "sites_unpatchable" in rows[0] and sum(int(r["sites_unpatchable"]) for r in rows) != site_unpatchable[k]:
            problems.append(f"{where}: sites_unpatchable {rows[0]['sites_unpatchable']} but sites.csv has {site_unpatchable[k]} such rows")
    # the ptraced calls of a syscall: at the sites of that syscall, all of them (a
    # site that saw several numbers, `?`, holds some of them where there is one)
    if paths:
        for k in set(sc_pt_by_name) | set(site_pt_by_name):
            at_sites, counted = site_pt_by_name[k], sc_pt_by_name[k]
            where = f"pid {k[0]} image {k[1]} {k[2]}"
            if at_sites > counted or (at_sites != counted and k[:2] not in site_varies):
                problems.append(f"{where}: syscalls.csv has {counted} ptraced calls, its sites in sites.csv {at_sites}")
    for k in set(sc_sum) | set(site_rows):
        if k not in by_image:
            problems.append(f"syscalls.csv/sites.csv have rows for pid {k[0]} image {k[1]}, which processes.csv lacks")
    # each sites.csv row joins exactly one processes.csv row by (pid, image, start_ns)
    if sites and "start_ns" in sites[0]:
        for r in sites:
            n = keys.get((r["pid"], r["image"], r["start_ns"]), 0)
            if n != 1:
                problems.append(f"sites.csv pid {r['pid']} image {r['image']} offset {r['offset']}: start_ns {r['start_ns']} joins {n} processes.csv rows")
    elif sites:
        problems.append("sites.csv has no start_ns column (INTERFACE.md: a row joins one processes.csv row by it)")
    check_times(syscalls, sites, problems)
    return problems


def check_times(syscalls, sites, problems):
    """--time's columns: all empty (not measured) or all there in each file; per
    syscalls.csv row min <= max, min <= time_ns <= calls * max (min and max empty
    only for calls none of which had a time, then time_ns 0); per image, its
    syscalls.csv rows' time_ns add up to its sites.csv rows' exactly."""
    if not syscalls or "time_ns" not in syscalls[0]:
        problems.append("syscalls.csv has no time_ns column")
        return
    timed = {r["time_ns"] != "" for r in syscalls}
    if sites and "time_ns" not in sites[0]:
        problems.append("sites.csv has no time_ns column")
        return
    timed_sites = {r["time_ns"] != "" for r in sites}
    if len(timed) > 1 or len(timed_sites) > 1 or (sites and timed != timed_sites):
        problems.append(f"time_ns is empty in some rows only (syscalls.csv: {timed}, sites.csv: {timed_sites})")
        return
    if timed == {False}:
        for r in syscalls:
            if r["min_ns"] != "" or r["max_ns"] != "":
                problems.append(f"syscalls.csv pid {r['pid']} {r['syscall']}: min_ns/max_ns without time_ns")
        return
    by_image = collections.Counter()
    for r in syscalls:
        where = f"syscalls.csv pid {r['pid']} image {r['image']} {r['syscall']}"
        t = to_int(r["time_ns"], where)
        by_image[(r["pid"], r["image"])] += t
        if (r["min_ns"] == "") != (r["max_ns"] == ""):
            problems.append(f"{where}: min_ns {r['min_ns']!r} and max_ns {r['max_ns']!r}: one empty")
            continue
        if r["min_ns"] == "":
            if t:
                problems.append(f"{where}: time_ns {t} with no call timed (min_ns empty)")
            continue
        lo, hi, calls = to_int(r["min_ns"], where), to_int(r["max_ns"], where), to_int(r["calls"], where)
        if not lo <= hi or not lo <= t <= calls * hi:
            problems.append(f"{where}: min_ns {lo}, max_ns {hi}, time_ns {t} for {calls} calls: not min <= max, min <= time <= calls * max")
    at_sites = collections.Counter()
    for r in sites:
        at_sites[(r["pid"], r["image"])] += to_int(r["time_ns"], f"sites.csv pid {r['pid']} time_ns")
    for k in set(by_image) | set(at_sites):
        if by_image[k] != at_sites[k]:
            problems.append(f"pid {k[0]} image {k[1]}: syscalls.csv time_ns adds up to {by_image[k]}, sites.csv to {at_sites[k]}")


def root_pids(d):
    """The pids of processes.csv whose parent is no process of the run."""
    procs = load_processes(d)
    pids = {r["pid"] for r in procs}
    return {r["pid"] for r in procs if r["ppid"] not in pids}


def times_of(d, name, abi="x86_64", pids=None):
    """NAME's calls, errors, time_ns summed, min_ns the least, max_ns the most (None
    when no row has one) over the syscalls.csv rows of ABI (of pids, if given)."""
    calls = errors = total = 0
    lo = hi = None
    for r in load_syscalls(d):
        if r["syscall"] != name or row_abi(r) != abi or (pids is not None and r["pid"] not in pids):
            continue
        where = f"syscalls.csv pid {r['pid']} {name}"
        calls += to_int(r["calls"], where)
        errors += to_int(r["errors"] or "0", where)
        total += to_int(r["time_ns"], where) if r["time_ns"] != "" else 0
        if r["min_ns"] != "":
            lo = min(lo, to_int(r["min_ns"], where)) if lo is not None else to_int(r["min_ns"], where)
            hi = max(hi, to_int(r["max_ns"], where)) if hi is not None else to_int(r["max_ns"], where)
    return calls, errors, total, lo, hi


def check_known_at_start(d):
    """known_missed counts the sites "whose plan was known at the start, left out, and
    run: patched at their trap". A plan is learned when a site is first planned, at a
    trap, so a site known at an image's start had its patch written (sites.csv
    patched_ns) by another image before that start, and the image trapped at it
    (ptraced > 0): known_missed is at most the number of such sites. (Loader sites,
    planned before the library is ready and not written, are written at every exec,
    so never missed.) Rows are matched by pid and image: the run must not reuse pids."""
    problems = []
    procs = load_processes(d)
    sites = load_sites(d)
    keys = collections.Counter((r["pid"], r["image"]) for r in procs)
    if any(n > 1 for n in keys.values()):
        return [f"{d}: a pid and image with several rows: this check needs a run without pid reuse"]
    first_patch = {}
    for s in sites:
        if s["patched_ns"]:
            k = (s["object"], s["offset"])
            first_patch.setdefault(k, [])
            first_patch[k].append((int(s["patched_ns"]), (s["pid"], s["image"])))
    trapped = collections.defaultdict(list)
    for s in sites:
        if to_int(s["ptraced"], "sites.csv ptraced") > 0:
            trapped[(s["pid"], s["image"])].append(s)
    for r in procs:
        if r["image"] == "0":
            continue
        me, start = (r["pid"], r["image"]), int(r["start_ns"])
        known = [s for s in trapped[me]
                 if any(t < start and who != me for t, who in first_patch.get((s["object"], s["offset"]), []))]
        x = to_int(r["known_missed"], "processes.csv known_missed")
        print(f"    pid {r['pid']} image {r['image']} {os.path.basename(r['exe'])}: known_missed {x}, "
              f"trapped at {len(known)} sites patched by other images before its start")
        if x > len(known):
            problems.append(f"pid {r['pid']} image {r['image']} ({r['exe']}): known_missed {x}, but only {len(known)} "
                            f"of the sites it trapped at were patched by another image before its start "
                            f"({r['start_ns']}): it counts sites learned after it started")
    return problems


def check_learned(d, exe_suffix):
    """The images of a program that runs the same sites each time, after its first:
    every site they run ran in every earlier image of the program, a share of 1 >=
    P/M, so it is written at the start: known_missed is 0 (docs/patching.md)."""
    rows = sorted((r for r in load_processes(d) if r["image"] != "0" and r["exe"].endswith(exe_suffix)),
                  key=lambda r: int(r["start_ns"]))
    if len(rows) < 2:
        return [f"{d}: {len(rows)} images of {exe_suffix}: at least 2 are needed"]
    problems = []
    for i, r in enumerate(rows):
        print(f"    {exe_suffix} image {i + 1} of {len(rows)} (pid {r['pid']}): patches_known {r['patches_known']}, "
              f"known_unused {r['known_unused']}, known_missed {r['known_missed']}")
        if i and to_int(r["known_missed"], "known_missed") != 0:
            problems.append(f"{exe_suffix}: its image {i + 1} (pid {r['pid']}) missed {r['known_missed']} known sites, "
                            f"which every earlier image of it ran")
    return problems


def ms_text(ns):
    """ns as systrace-stats report prints milliseconds, cut to the microsecond."""
    return f"{ns // 1000000}.{ns // 1000 % 1000:03d} ms"


def check_known_report(d, text_file, csv_file):
    """systrace-stats report's section on the known sites (its text, and its
    --csv --table known) against the run's files, by construction: over the images
    started by an exec, W, U, X are the sums of patches_known, known_unused and
    known_missed, the rule costs P W + M X and the best in hindsight min(P, M) (W - U
    + X), with summary.csv's P and M, in total and per executable, never above the
    rule; the table has every executable once, most excess first."""
    problems = []
    text = open(text_file).read()
    summary = load_summary(d)
    rows = read_csv(csv_file, ["exe", "images", "written", "unused", "missed", "rule_ns", "optimum_ns", "excess_ns"])
    p, m = summary["batch_patch_ns"], summary["miss_ns"]
    per = collections.defaultdict(lambda: collections.Counter())
    for r in load_processes(d):
        if r["image"] != "0":
            c = per[r["exe"]]
            c["images"] += 1
            for key, col in (("written", "patches_known"), ("unused", "known_unused"), ("missed", "known_missed")):
                c[key] += to_int(r[col], f"processes.csv {col}")
    for c in per.values():
        c["rule_ns"] = p * c["written"] + m * c["missed"]
        c["optimum_ns"] = min(p, m) * (c["written"] - c["unused"] + c["missed"])
    t = sum(per.values(), collections.Counter())
    w, u, x = t["written"], t["unused"], t["missed"]
    print(f"    from the files: W {w}, U {u}, X {x}; P {p} ns, M {m} ns: the rule {t['rule_ns']} ns, "
          f"the best in hindsight {t['optimum_ns']} ns")
    if "== Known sites written at start" not in text:
        problems.append("report: no section '== Known sites written at start'")
    if not re.search(rf"^written at start {w} \(W\): {w - u} ran, {u} never ran .* left out and run {x} \(missed",
                     text, re.M):
        problems.append(f"report: no line 'written at start {w} (W): {w - u} ran, {u} never ran ... left out and run {x}'")
    g = re.search(r"^the rule P x W \+ M x X = (\d+\.\d{3} ms); best in hindsight . x \(W - U \+ X\) = (\d+\.\d{3} ms)",
                  text, re.M)
    if not g:
        problems.append("report: no line 'the rule P x W + M x X = ... ms; best in hindsight ...'")
    else:
        if (g.group(1), g.group(2)) != (ms_text(t["rule_ns"]), ms_text(t["optimum_ns"])):
            problems.append(f"report: the costs {g.group(1)} and {g.group(2)}, the files give "
                            f"{ms_text(t['rule_ns'])} and {ms_text(t['optimum_ns'])}")
        if float(g.group(1).split()[0]) < float(g.group(2).split()[0]):
            problems.append(f"report: the rule's cost {g.group(1)} is below the best in hindsight {g.group(2)}")
    if f"known_threshold_permille {summary['known_threshold_permille']})" not in text:
        problems.append("report: the threshold used is not shown")
    got = {}
    for r in rows:
        n = {k: to_int(r[k], f"{csv_file} {k}") for k in ("images", "written", "unused", "missed", "rule_ns",
                                                          "optimum_ns", "excess_ns")}
        got[r["exe"]] = n
        if n["rule_ns"] < n["optimum_ns"]:
            problems.append(f"{r['exe']}: the rule's cost {n['rule_ns']} is below the best in hindsight {n['optimum_ns']}")
        if n["excess_ns"] != n["rule_ns"] - n["optimum_ns"]:
            problems.append(f"{r['exe']}: excess {n['excess_ns']} is not rule - optimum")
    for exe, c in per.items():
        if exe not in got or any(got[exe][k] != c[k] for k in got.get(exe, {}) if k != "excess_ns"):
            problems.append(f"{exe}: the table has {got.get(exe)}, the files give {dict(c)}")
    if set(got) != set(per):
        problems.append(f"the table's executables {sorted(got)} are not those of the images started by an exec {sorted(per)}")
    excess = [got[r["exe"]]["excess_ns"] for r in rows]
    if excess != sorted(excess, reverse=True):
        problems.append(f"the table is not by excess, most first: {excess}")
    return problems


PERCENT = re.compile(r"^(.+): (\d+)\.(\d\d)%$")
KEYVALUE = re.compile(r"^([a-z_0-9]+): (-?\d+)$")
EMPTY_KEYVALUE = re.compile(r"^([a-z_0-9]+):$")
STOPS_PER_PROCESS = re.compile(
    r"^stops per process: (\d+\.\d) \(lifecycle (\d+\.\d), early (\d+\.\d), late (\d+\.\d)\)$")
SERVING_KIND = re.compile(
    r"^  serving ([a-z]+): (\d+) in (\d+\.\d) ms, (\d+\.\d) us each(?:; CPU (\d+\.\d) us each \((\d+) sampled\))?$")
SERVING_OUTSIDE = re.compile(r"^  outside the serves \(waitpid, placement, start and end\): CPU (\d+\.\d) ms$")
# one serving thread, or N (their mean share)
SERVING_LOAD = re.compile(r"^tracer serving (?:thread: busy|threads \((\d+)\): each busy) (\d+)\.(\d)% of the run"
                          r"(?: on average)?(?:, waiting for a CPU (\d+)\.(\d)%)?$")


def check_perfstats(d, stderr_file):
    """The summary on stderr: a `key: value` line for every summary key, equal to
    summary.csv; percentage pairs that add up to 100.00%."""
    problems = []
    summary = load_summary(d)
    printed = {}
    percents = []
    per_process = None
    serving = None
    by_kind = {}
    cpu_each = {}
    outside = []
    with open(stderr_file, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = STOPS_PER_PROCESS.match(line)
            if m:
                per_process = [float(g) for g in m.groups()]
                continue
            m = SERVING_KIND.match(line)
            if m:
                by_kind[m.group(1)] = (int(m.group(2)), int(m.group(6) or 0))
                cpu_each[m.group(1)] = m.group(5)
                continue
            m = SERVING_OUTSIDE.match(line)
            if m:
                outside.append(m.group(1))
                continue
            m = SERVING_LOAD.match(line)
            if m:
                serving = [None if g is None else int(g) for g in m.groups()]
                continue
            m = KEYVALUE.match(line)
            if m:
                printed[m.group(1)] = int(m.group(2))
                continue
            m = EMPTY_KEYVALUE.match(line)
            if m:
                printed[m.group(1)] = None
                continue
            m = PERCENT.match(line)
            if m:
                percents.append((m.group(1), int(m.group(2)) * 100 + int(m.group(3))))
    for k in SUMMARY_KEYS:
        if k not in printed:
            problems.append(f"--show-perf-stats: no '{k}: value' line on stderr")
        elif k not in ("wall_ns", "tracer_cpu_ns", "tracer_cpu_per_image_ns", "tracer_maxrss_kb",
                       "tracer_writer_cpu_ns") and printed[k] != summary[k]:
            problems.append(f"--show-perf-stats: {k}: {printed[k]} but summary.csv says {summary[k]}")
    for k in COST_KEYS + AMORTIZATION_KEYS + RUN_DELAY_KEYS + SERVE_KEYS + SERVE_CPU_KEYS:
        if k not in printed:
            problems.append(f"--show-perf-stats: no '{k}: value' (or empty '{k}:') line on stderr")
        elif printed[k] != summary[k]:
            problems.append(f"--show-perf-stats: {k}: {printed[k]} but summary.csv says {summary[k]!r}")
    idx = [i for i, (name, _) in enumerate(percents) if name.startswith("syscalls ptraced")]
    if not idx:
        problems.append("--show-perf-stats: no 'syscalls ptraced (slow): X%' line")
    else:
        i = idx[0]
        if i + 1 >= len(percents):
            problems.append("--show-perf-stats: the 'syscalls ptraced' percentage has no partner line after it")
        else:
            (a, pa), (b, pb) = percents[i], percents[i + 1]
            if pa + pb != 10000:
                problems.append(f"--show-perf-stats: '{a}' {pa / 100:.2f}% + '{b}' {pb / 100:.2f}% != 100.00%")
            if summary["syscalls"] and summary["syscalls_inprocess"] == 0 and pa != 10000:
                problems.append(f"--show-perf-stats: no syscall in-process, yet '{a}' is {pa / 100:.2f}%")
    # the stops per process, in all and by kind: the totals over the rows, to 0.1
    if per_process is None:
        problems.append("--show-perf-stats: no 'stops per process: N (lifecycle N, early N, late N)' line")
    else:
        n = summary["processes"] or 1
        for got, key in zip(per_process, ("ptrace_stops", "ptrace_stops_lifecycle", "ptrace_stops_early", "ptrace_stops_late")):
            if abs(got - summary[key] / n) > 0.05 + 1e-9:
                problems.append(f"--show-perf-stats: stops per process {got} for {key}, but summary.csv gives {summary[key]} / {n} processes")
    # the serving thread's load, in tenths of a percent of the run
    if serving is None:
        problems.append("--show-perf-stats: no 'tracer serving thread: busy X% of the run[, waiting for a CPU Y%]' "
                        "or 'tracer serving threads (N): each busy X% of the run on average[, ...]' line")
    else:
        delay, n = summary["tracer_run_delay_ns"], summary.get("tracer_threads") or 1
        want = [None if n == 1 else n, summary["tracer_busy_permille"] // 10, summary["tracer_busy_permille"] % 10]
        want += [None, None] if delay is None else [permille(delay, n * summary["wall_ns"]) // 10,
                                                    permille(delay, n * summary["wall_ns"]) % 10]
        if serving != want:
            problems.append(f"--show-perf-stats: the serving thread's line says {serving}, summary.csv gives {want}")
    # a line per kind of status served, for those that were, with its sampled
    # serves and its CPU per serve (as stats/summary.c formats it); then the CPU
    # outside the serves
    want = {k: (summary[f"tracer_serve_{k}_count"], summary[f"tracer_serve_{k}_sampled"])
            for k in SERVE_KINDS if summary[f"tracer_serve_{k}_count"]}
    if by_kind != want:
        problems.append(f"--show-perf-stats: the 'serving KIND: N in ...' lines give (served, sampled) {by_kind}, "
                        f"summary.csv {want}")
    for k, (count, sampled) in want.items():
        cpu = summary[f"tracer_serve_{k}_cpu_ns"]
        expect = f"{cpu / 1e3 / count:.1f}" if sampled else None
        if k in cpu_each and cpu_each[k] != expect:
            problems.append(f"--show-perf-stats: serving {k}: CPU {cpu_each[k]} us each, summary.csv gives {expect}")
    kinds_cpu = sum(summary[f"tracer_serve_{k}_cpu_ns"] or 0 for k in SERVE_KINDS)
    expect = f"{max(summary['tracer_serving_cpu_ns'] - kinds_cpu, 0) / 1e6:.1f}"
    if outside != [expect]:
        problems.append(f"--show-perf-stats: 'outside the serves (...): CPU X ms' lines {outside}, "
                        f"summary.csv gives [{expect!r}]")
    # every pair of percentage lines adds up to 100.00
    if len(percents) % 2 == 0:
        for i in range(0, len(percents), 2):
            (a, pa), (b, pb) = percents[i], percents[i + 1]
            if pa + pb != 10000:
                problems.append(f"--show-perf-stats: '{a}' {pa / 100:.2f}% + '{b}' {pb / 100:.2f}% != 100.00%")
    return problems


def report(problems):
    for p in problems:
        print("FAIL: " + p)
    return 1 if problems else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == "counts":
            for name, n in sorted(systrace_counts(args[0], args[1] if len(args) > 1 else "x86_64").items()):
                print(name, n)
            return 0
        if cmd == "compare":
            d, strace_file = args[0], args[1]
            abi = "x86_64"
            extra = {}
            skip = set()
            for a in args[2:]:
                if "=" in a:
                    name, n = a.split("=", 1)
                    if n == "?":
                        skip.add(name)
                    else:
                        extra[name] = extra.get(name, 0) + int(n)
                else:
                    abi = a
            return report(compare(d, strace_file, abi, extra, skip=skip))
        if cmd == "compare-errors":
            skip = {a[:-2] for a in args[2:] if a.endswith("=?")}
            abis = [a for a in args[2:] if not a.endswith("=?")]
            return report(compare_errors(args[0], args[1], abis[0] if abis else "x86_64", skip=skip))
        if cmd == "rowcounts":
            print(" ".join(str(n) for n in row_counts(args[0], args[1], args[2] if len(args) > 2 else "x86_64")))
            return 0
        if cmd == "site":
            return report(check_site(args[0], args[1], args[2]))
        if cmd == "sitecount":
            rows = load_sites(args[0])
            for a in args[1:]:
                if a in ("--list", "--time"):
                    continue
                key, _, value = a.partition("=")
                if key == "symbol":
                    rows = [r for r in rows if symbol_matches(r["symbol"], value)]
                elif key == "object":
                    rows = [r for r in rows if value in r["object"]]
                elif key == "syscall":
                    rows = [r for r in rows if r["syscall"] == value]
                else:
                    raise CheckError(f"sitecount: unknown filter {a!r}")
            if "--list" in args:
                for r in rows:
                    print(describe_site(r))
            elif "--time" in args:
                print(sum(to_int(r["time_ns"], "sites.csv time_ns") for r in rows))
            else:
                print(sum(to_int(r["ptraced"], "sites.csv ptraced") + to_int(r["inprocess"], "sites.csv inprocess")
                          for r in rows))
            return 0
        if cmd == "times":
            # times DIR NAME [--root]: `calls errors time_ns min_ns max_ns` (- for none)
            pids = root_pids(args[0]) if "--root" in args else None
            print(" ".join("-" if v is None else str(v) for v in times_of(args[0], args[1], pids=pids)))
            return 0
        if cmd == "never-patched":
            return report(check_never_patched(args[0], set(args[1].split(","))))
        if cmd == "library":
            # library DIR EXPECT [EXE_SUFFIX] [--images N] [--inprocess MIN]
            opts = {a: int(args[i + 1]) for i, a in enumerate(args) if a in ("--images", "--inprocess")}
            plain = [a for i, a in enumerate(args) if a not in opts and (i == 0 or args[i - 1] not in opts)]
            exe = plain[2] if len(plain) > 2 else None
            if plain[1] == "unpatchable":
                return report(check_all_unpatchable(plain[0], exe))
            return report(check_library(plain[0], plain[1], exe, opts.get("--images"), opts.get("--inprocess")))
        if cmd == "consistency":
            return report(check_consistency(args[0], patch_off="--any-mode" not in args))
        if cmd == "known":
            problems = check_known_at_start(args[0])
            for i, a in enumerate(args):
                if a == "--learned":
                    problems += check_learned(args[0], args[i + 1])
            return report(problems)
        if cmd == "known-report":
            return report(check_known_report(*args[:3]))
        if cmd == "ctable":
            # ctable TABLE_FILE DIR [--order KEY] [--strace STRACE_FILE [ABI] [name=N ...]]
            text = open(args[0], errors="replace").read()
            problems = check_ctable_files(text, args[1])
            rest = args[2:]
            if rest[:1] == ["--order"]:
                problems += check_ctable_order(text, rest[1])
                rest = rest[2:]
            if rest[:1] == ["--strace"]:
                abi, extra = "x86_64", {}
                for a in rest[2:]:
                    if "=" in a:
                        name, n = a.split("=", 1)
                        extra[name] = extra.get(name, 0) + int(n)
                    else:
                        abi = a
                problems += compare_counts(ctable_counts(ctables(text)[0], abi), rest[1], abi, extra)
            return report(problems)
        if cmd == "ctable-per-process":
            return report(check_ctable_per_process(open(args[0], errors="replace").read(), args[1]))
        if cmd == "perfstats":
            return report(check_perfstats(args[0], args[1]))
    except CheckError as e:
        print(f"FAIL: {e}")
        return 1
    print(f"unknown command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
