#!/usr/bin/env python3
"""Where the ptrace stops of one systrace run come from.

Usage: python3 bench/stops.py OUTDIR   (a `systrace -o OUTDIR` folder)

Reads processes.csv, sites.csv and summary.csv and prints, as plain text:
the run's totals; per executable (the 10 with the most stops) its images and
stops per image (and their split into lifecycle, early and late stops); the
ptraced calls per syscall name and per object, split by the state of the site
they were made at and by phase (early, late, or undetermined where the
per-image counts cannot tell); and the 15 sites with the most ptraced calls.
Each section says what its numbers mean. Columns that an older systrace does
not write (stops_lifecycle, stops_early, stops_late, library) are left out.
"""
import collections
import csv
import os
import sys
import textwrap

TOP_EXES = 10
TOP_SITES = 15
TOP_SYSCALLS = 30
TOP_OBJECTS = 10
WIDTH = 100

# Site states, grouped by why a call made there stopped in the tracer.
CLASSES = [
    ("pending", "site never patched: with --patch=safe/unsafe it ran only before the "
     "library was ready (loader, libc start); with single, it may wait for its patch"),
    ("no-lib", "unpatchable:library-* or patching-off: the image had no ready library "
     "(static, --patch=off, ...), so each of its calls is early"),
    ("must-stop", "unpatchable:syscall-*: calls that always stop (execve, clone, vfork, "
     "rt_sigreturn, ...), early or late"),
    ("refused", "any other unpatchable:* reason: the patcher could not patch the site"),
    ("patched", "the site was patched in that image; its ptraced calls came before the "
     "patch was written (the trap that patched it, early calls) or from threads past "
     "the jump"),
]
EARLY_CLASSES = ("pending", "no-lib")


def site_class(state):
    if state == "pending":
        return "pending"
    if state == "patched":
        return "patched"
    if state.startswith("unpatchable:library-") or state == "unpatchable:patching-off":
        return "no-lib"
    if state.startswith("unpatchable:syscall-"):
        return "must-stop"
    return "refused"


def read_csv(outdir, name):
    path = os.path.join(outdir, name)
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return None


def num(row, *keys):
    """The first of keys present and non-empty in row, as an int; None if none is."""
    for k in keys:
        v = row.get(k)
        if v not in (None, ""):
            try:
                return int(v)
            except ValueError:
                return None
    return None


def has(rows, *keys):
    return bool(rows) and any(k in rows[0] for k in keys)


def n(v):
    return "" if v is None else f"{v:,}"


def per(a, b, spec=",.1f"):
    return "" if a is None or not b else format(a / b, spec)


def pct(a, b):
    return "" if a is None or not b else f"{100 * a / b:.1f}%"


def legend(key, width, text):
    """key, then text wrapped to WIDTH, its following lines indented under the text."""
    lead = "  " + key.ljust(width) + "  "
    return textwrap.wrap(text, WIDTH, initial_indent=lead,
                         subsequent_indent=" " * len(lead))


def render(headers, rows, left=()):
    """Aligned text columns; the columns in left are left-aligned, others right."""
    cells = [headers] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for r in cells:
        out.append("  ".join(c.ljust(w) if i in left else c.rjust(w)
                             for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join("  " + line for line in out)


# processes.csv may name the split stops_* or ptrace_stops_*.
SPLIT = [("lifecycle", ("stops_lifecycle", "ptrace_stops_lifecycle")),
         ("early", ("stops_early", "ptrace_stops_early")),
         ("late", ("stops_late", "ptrace_stops_late"))]


def totals(procs, summary):
    out = []
    sy = sum(num(p, "syscalls") or 0 for p in procs)
    pt = sum(num(p, "ptraced") or 0 for p in procs)
    ip = sum(num(p, "inprocess") or 0 for p in procs)
    ea = sum(num(p, "early") or 0 for p in procs)
    st = sum(num(p, "ptrace_stops") or 0 for p in procs) if has(procs, "ptrace_stops") \
        else num(summary, "ptrace_stops")
    np = len(procs)
    lines = [
        ("process images", n(np), ""),
        ("syscalls", n(sy), ""),
        ("  ptraced (stopped in the tracer)", n(pt), pct(pt, sy)),
        ("  in-process (patched site, no stop)", n(ip), pct(ip, sy)),
        ("  early (before the library was ready, either path)", n(ea), pct(ea, sy)),
        ("ptrace stops (every stop the tracer handled)", n(st), f"{per(st, np)} per image"),
    ]
    split = [(label, keys) for label, keys in SPLIT if has(procs, *keys)]
    for label, keys in split:
        v = sum(num(p, *keys) or 0 for p in procs)
        lines.append((f"  {label}", n(v), f"{per(v, np)} per image"))
    if st is not None:
        if not split:
            lines.append(("  beyond one per ptraced syscall", n(st - pt),
                          f"{per(st - pt, np)} per image"))
        else:
            rest = st - sum(sum(num(p, *keys) or 0 for p in procs) for _, keys in split)
            if rest:
                lines.append(("  not in the split above", n(rest), ""))
    w0 = max(len(a) for a, _, _ in lines)
    w1 = max(len(b) for _, b, _ in lines)
    out.append("Totals (processes.csv; a process image is a row: a fork, or an execve)")
    for a, b, c in lines:
        out.append(f"  {a.ljust(w0)}  {b.rjust(w1)}  {c}".rstrip())
    if split:
        out += textwrap.wrap("lifecycle: fork/exec/exit events, signals and the like; "
                             "early/late: syscall stops before/after the image's library "
                             "was ready.", WIDTH, initial_indent="  ",
                             subsequent_indent="  ")
    elif st is not None:
        out += textwrap.wrap("stops beyond one per ptraced syscall (ptrace_stops - "
                             "ptraced): fork/exec/exit events, signals, an execve's "
                             "second stop, the calls systrace's own library makes that "
                             "stop. This systrace writes no stops_lifecycle/early/late "
                             "columns.", WIDTH, initial_indent="  ", subsequent_indent="  ")
    return out


def per_exe(procs):
    split = [(label, keys) for label, keys in SPLIT if has(procs, *keys)]
    groups = collections.defaultdict(list)
    for p in procs:
        groups[p.get("exe") or "(unknown)"].append(p)
    total_stops = sum(num(p, "ptrace_stops") or 0 for p in procs)
    rows = []
    for exe, ps in groups.items():
        stops = sum(num(p, "ptrace_stops") or 0 for p in ps)
        k = len(ps)
        forks = sum(1 for p in ps if p.get("image") == "0")
        row = [exe, n(k), n(forks), n(stops), pct(stops, total_stops), per(stops, k)]
        row += [per(sum(num(p, *keys) or 0 for p in ps), k) for _, keys in split]
        row += [per(sum(num(p, c) or 0 for p in ps), k)
                for c in ("syscalls", "ptraced", "early", "inprocess")]
        if has(procs, "library"):
            lib = collections.Counter(p.get("library") or "?" for p in ps)
            row.append(", ".join(f"{s} {c}" if len(lib) > 1 else s
                                 for s, c in lib.most_common()))
        rows.append((stops, row))
    rows.sort(key=lambda r: -r[0])
    headers = ["exe", "images", "forked", "stops", "of all", "stops/img"]
    headers += [f"{label} st./img" for label, _ in split]
    headers += ["calls/img", "ptraced/img", "early calls/img", "inproc/img"]
    if has(procs, "library"):
        headers.append("library")
    out = textwrap.wrap(
        f"Per executable, the {min(TOP_EXES, len(rows))} of {len(rows)} with the most stops. "
        "/img: average over its images; forked: images made by fork (they keep the "
        "parent's exe); st.: stops; calls: syscalls; early calls: syscalls before the "
        "image's library was ready, either path; inproc: syscalls made in-process.", WIDTH)
    out.append(render(headers, [r for _, r in rows[:TOP_EXES]],
                      left=(0, len(headers) - 1) if has(procs, "library") else (0,)))
    return out


# Calls the loader and libc's start never make: late in an image that has a library.
LATE_ONLY = ("exit", "exit_group", "clone", "clone3", "fork", "vfork", "rt_sigreturn")
EXECS = ("execve", "execveat")
PHASES = ("early", "late", "undet.")


def phases(sites, procs):
    """Splits each site row's ptraced calls into early, late and undetermined (undet.).

    Whether a call came before the library was ready is counted only per image
    (processes.csv `early`, every path), so a site row's calls are placed by counting,
    image by image:
    - an image whose calls are all early (no library: static, --patch=off) or none:
      every call is placed;
    - otherwise: the execve that began the image is its first call, early (its site
      also holds the image's failed execve calls: late); LATE_ONLY calls are late;
      calls at pending and no-lib sites are early; the image's remaining early count R
      then covers none of its other ptraced calls (late), all of them (early), or some
      (undet.);
    - an image whose counts contradict these rules (R below 0 or above the calls left;
      a pid reused within the run merges two images) has its calls undet.
    Returns (per site row, a Counter of the three phases; early calls among undet.;
    images contradicting the rules; images with undet. calls)."""
    info = {}
    for p in procs:
        key = (p.get("pid"), p.get("image"))
        e, c, x = info.get(key, (0, 0, 0))
        info[key] = (e + (num(p, "early") or 0), c + (num(p, "syscalls") or 0),
                     x + ((num(p, "execs") or 0) if has(procs, "execs")
                          else int(p.get("image") != "0")))
    rows_of = collections.defaultdict(list)
    for i, s in enumerate(sites):
        rows_of[(s.get("pid"), s.get("image"))].append(i)
    placed = [collections.Counter() for _ in sites]
    undet_early = bad = unsure = 0
    for key, idx in rows_of.items():
        def put(i, phase, k):
            if k:
                placed[i][phase] += k

        if key not in info:
            bad += 1
            for i in idx:
                put(i, "undet.", num(sites[i], "ptraced") or 0)
            continue
        early, calls, execs = info[key]
        if early in (0, calls):
            for i in idx:
                put(i, "early" if early else "late", num(sites[i], "ptraced") or 0)
            continue
        fixed, other = [], []   # (row, early calls, late calls) placed by rule; the rest
        for i in idx:
            s = sites[i]
            k = num(s, "ptraced") or 0
            if s.get("syscall") in EXECS:
                first = min(k, execs)
                execs -= first
                fixed.append((i, first, k - first))
            elif s.get("syscall") in LATE_ONLY:
                fixed.append((i, 0, k))
            elif site_class(s.get("state", "")) in EARLY_CLASSES:
                fixed.append((i, k, 0))
            else:
                other.append(i)
        R = early - sum(e for _, e, _ in fixed)
        K = sum(num(sites[i], "ptraced") or 0 for i in other)
        if R < 0 or R > K:
            bad += 1
            verdict = None
        else:
            verdict = "late" if R == 0 else "early" if R == K else "undet."
        for i, e, l in fixed:
            put(i, "early" if verdict else "undet.", e)
            put(i, "late" if verdict else "undet.", l)
        for i in other:
            put(i, verdict or "undet.", num(sites[i], "ptraced") or 0)
        if verdict in (None, "undet."):
            unsure += 1
            if verdict:
                undet_early += R
    return placed, undet_early, bad, unsure


def breakdown(sites, placed, keyfn):
    """key -> Counter of ptraced calls by site class and by phase, and inprocess."""
    out = collections.defaultdict(collections.Counter)
    for s, ph in zip(sites, placed):
        c = out[keyfn(s)]
        c[site_class(s.get("state", ""))] += num(s, "ptraced") or 0
        c.update(ph)
        c["inprocess"] += num(s, "inprocess") or 0
    return out


def breakdown_table(first, groups, top):
    """Rows of the largest groups by ptraced calls, then the rest, then all."""
    def ptraced(c):
        return sum(c[k] for k, _ in CLASSES)

    total = sum(ptraced(c) for c in groups.values())

    def row(label, c):
        return [label, n(ptraced(c)), pct(ptraced(c), total)] \
            + [n(c[k]) for k, _ in CLASSES] + [n(c[p]) for p in PHASES] + [n(c["inprocess"])]

    ranked = sorted(((k, c) for k, c in groups.items() if ptraced(c)),
                    key=lambda kc: (-ptraced(kc[1]), kc[0]))
    rows = [row(k, c) for k, c in ranked[:top]]
    rest = ranked[top:]
    if rest:
        rows.append(row(f"({len(rest)} others)", sum((c for _, c in rest),
                                                      collections.Counter())))
    rows.append(row("all", sum(groups.values(), collections.Counter())))
    headers = [first, "ptraced", "of all"] + [k for k, _ in CLASSES] + list(PHASES) \
        + ["inprocess"]
    return render(headers, rows, left=(0,))


def per_syscall(sites, procs):
    placed, undet_early, bad, unsure = phases(sites, procs)
    out = textwrap.wrap(
        "Ptraced calls (the syscalls that stopped) over the whole run, by the state of "
        "the site they were made at (sites.csv):", WIDTH)
    w = max(len(k) for k, _ in CLASSES + [("inprocess", "")])
    for k, text in CLASSES:
        out += legend(k, w, text)
    out += textwrap.wrap(
        "and by phase. Whether a call came before the library was ready is counted only "
        "per image (processes.csv `early`), so it is placed per site by counting, image by "
        "image: all calls are early in an image without a library, all late in one with "
        "no early calls; otherwise the execve that began the image is early (failed "
        "execve calls late), exit, exit_group, clone, clone3, fork, vfork and rt_sigreturn "
        "late (the loader makes none), calls at pending and no-lib sites "
        "early, and the image's remaining early count covers either none of its other "
        "ptraced calls (late), or all (early), or some: those are undet.", WIDTH)
    w2 = max(len(p) for p in PHASES + ("inprocess",))
    out += legend("early", w2, "made before the image's library was ready")
    out += legend("late", w2, "made after")
    images = f"{unsure:,} image" + ("s" if unsure != 1 else "")
    out += legend("undet.", w2, f"not known which of them: in {images}; {undet_early:,} "
                  "of them were early by the images' counts")
    out += legend("inprocess", w2, "calls at the same sites that did not stop")
    if bad:
        out += textwrap.wrap(
            f"{bad:,} images have counts these rules contradict (fewer early calls than "
            "placed as early, or more than the calls left; or no processes.csv row; a pid "
            "reused within the run merges two images): their calls are undet.", WIDTH,
            initial_indent="  ", subsequent_indent="  ")
    out.append("")
    out.append(f"Per syscall name (the {TOP_SYSCALLS} with the most ptraced calls):")
    out.append(breakdown_table("syscall", breakdown(
        sites, placed, lambda s: s.get("syscall") or "?"), TOP_SYSCALLS))
    out.append("")
    out.append(f"Per object (the {TOP_OBJECTS} with the most ptraced calls):")
    out.append(breakdown_table("object", breakdown(
        sites, placed, lambda s: os.path.basename(s.get("object") or "")
        or s.get("object") or "(unmapped)"), TOP_OBJECTS))
    return out


def top_sites(sites):
    agg = {}
    for s in sites:
        key = (s.get("object", ""), s.get("offset", ""))
        a = agg.setdefault(key, {"ptraced": 0, "inprocess": 0, "images": 0,
                                 "symbol": collections.Counter(),
                                 "syscall": collections.Counter(),
                                 "state": collections.Counter()})
        a["ptraced"] += num(s, "ptraced") or 0
        a["inprocess"] += num(s, "inprocess") or 0
        a["images"] += 1
        a["symbol"][s.get("symbol", "")] += 1
        a["syscall"][s.get("syscall", "")] += 1
        a["state"][s.get("state", "")] += 1
    ranked = sorted(agg.items(), key=lambda kv: (-kv[1]["ptraced"], kv[0]))[:TOP_SITES]
    rows = []
    for (obj, off), a in ranked:
        if not a["ptraced"]:
            break
        states = a["state"].most_common()
        state = states[0][0] if len(states) == 1 else \
            ", ".join(f"{s} {c}" for s, c in states)
        rows.append([n(a["ptraced"]), n(a["images"]), per(a["ptraced"], a["images"]),
                     n(a["inprocess"]), os.path.basename(obj) or obj or "(unmapped)",
                     off, a["symbol"].most_common(1)[0][0],
                     "/".join(x for x, _ in a["syscall"].most_common()), state])
    out = textwrap.wrap(
        f"The {len(rows)} sites with the most ptraced calls (a site: object and offset, "
        "summed over the images it ran in; state: in how many images it had each).", WIDTH)
    out.append(render(["ptraced", "images", "per img", "inprocess", "object", "offset",
                       "symbol", "syscall", "state"], rows, left=(4, 5, 6, 7, 8)))
    return out


def report(outdir):
    procs = read_csv(outdir, "processes.csv")
    sites = read_csv(outdir, "sites.csv")
    summ = read_csv(outdir, "summary.csv") or []
    if procs is None:
        return f"stops.py: no processes.csv in {outdir}\n"
    summary = {r.get("metric"): r.get("value") for r in summ}
    out = [f"Where the stops come from: {outdir}", ""]
    out += totals(procs, summary) + [""]
    out += per_exe(procs) + [""]
    if sites is None:
        out.append("(no sites.csv: no per-syscall or per-site view)")
    else:
        out += per_syscall(sites, procs) + [""]
        out += top_sites(sites)
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    text = report(sys.argv[1])
    if text.startswith("stops.py: no processes.csv"):
        sys.stderr.write(text)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
