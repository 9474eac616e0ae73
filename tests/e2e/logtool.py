#!/usr/bin/env python3
"""Reading the temporal log (common/log_format.h) on its own, for the end-to-end tests:
an independent reader of the binary file, to hold the tracer and the converter to.

  logtool.py check DIR
      every entry well formed; each thread's entries in time order; the entries add
      up to the CSV files of the same run: in total (syscalls, early, ptraced,
      inprocess), per pid (over its images), per pid and syscall (syscalls.csv), per
      pid and site (sites.csv, ptraced and inprocess apart).
  logtool.py calls DIR PID
      PID's entries in file order, one `tid syscall path early ret` line each (ret `-`
      when the entry has none).
  logtool.py csv DIR
      the entries as the converter's CSV rows (systrace-stats log2csv), for comparing.
"""
import collections
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import csvtool  # noqa: E402

HEADER = struct.Struct("<8sIIQi36x")
ENTRY = struct.Struct("<QqiiIHBB")
INPROCESS, EARLY, HAS_RET = 1, 2, 4
CHECK = 0xA5
ABI_NAMES = ["x86_64", "i386", "x32"]
NR_SPAN = 1024


def syscall_names():
    """index -> name, from the table the build generated (SYSCALL_TABLE, or build/'s)."""
    import re
    here = os.path.dirname(os.path.abspath(__file__))
    gen = os.environ.get("SYSCALL_TABLE") or os.path.join(here, "..", "..", "build", "gen", "syscall_table.c")
    if not os.path.exists(gen):
        # without names every call would be syscall_0x..., and the checks would fail
        # on the counts rather than say what is missing
        raise csvtool.CheckError(f"{gen}: missing (the syscall names: SYSCALL_TABLE)")
    names = {}
    abi = None
    for line in open(gen):
        m = re.match(r".*syscall_names_(\w+)\[", line)
        if m:
            abi = ABI_NAMES.index(m.group(1)) if m.group(1) in ABI_NAMES else None
        m = re.match(r'\s*\[(\d+)\]\s*=\s*"(\w+)"', line)
        if m and abi is not None:
            names[abi * NR_SPAN + int(m.group(1))] = m.group(2)
    return names


def read_log(d):
    """Yields (t, ret or None, pid, tid, (object, offset), index, inprocess, early)."""
    if not os.path.exists(os.path.join(d, "syscall-log.bin")):
        raise csvtool.CheckError(f"{d}/syscall-log.bin: missing")
    with open(os.path.join(d, "syscall-log.bin"), "rb") as f:
        head = f.read(HEADER.size)
        if len(head) < HEADER.size:
            raise csvtool.CheckError(f"{d}: log shorter than its header ({len(head)} bytes)")
        magic, version, entry_size, _start, _pid = HEADER.unpack(head)
        if magic != b"SYSTRLOG" or version != 1 or entry_size != ENTRY.size:
            raise csvtool.CheckError(f"{d}: bad log header {magic!r} {version} {entry_size}")
        sites = {0: ("", "")}
        for r in csvtool.read_csv(os.path.join(d, "syscall-log-sites.csv"), ["site", "object", "offset", "symbol"]):
            sites[int(r["site"])] = (r["object"], r["offset"])
        off = HEADER.size
        while True:
            block = f.read(ENTRY.size * 65536)
            if len(block) % ENTRY.size:
                raise csvtool.CheckError(f"{d}: log truncated in the entry at byte offset "
                                         f"{off + len(block) // ENTRY.size * ENTRY.size}")
            if not block:
                return
            for t, ret, pid, tid, site, index, flags, check in ENTRY.iter_unpack(block):
                if check != CHECK or flags & ~7 or pid <= 0 or tid <= 0 or site not in sites:
                    raise csvtool.CheckError(f"{d}: bad entry at byte offset {off}")
                off += ENTRY.size
                yield (t, ret if flags & HAS_RET else None, pid, tid, sites[site], index,
                       bool(flags & INPROCESS), bool(flags & EARLY))


def name_of(index, names):
    abi, nr = divmod(index, NR_SPAN)
    return names.get(index, f"syscall_{nr:#x}"), ABI_NAMES[abi]


def check(d):
    problems = []
    names = syscall_names()
    summary = csvtool.load_summary(d)
    procs = csvtool.load_processes(d)
    last = {}
    per_pid = collections.defaultdict(collections.Counter)
    calls = collections.Counter()
    at_sites = collections.Counter()
    nentries = 0
    for t, _ret, pid, tid, site, index, inprocess, early in read_log(d):
        nentries += 1
        if t < last.get(tid, 0) and len(problems) < 3:
            problems.append(f"thread {tid}: entry {nentries - 1} at {t} after one at {last[tid]}")
        last[tid] = t
        c = per_pid[pid]
        c["syscalls"] += 1
        c["inprocess"] += inprocess
        c["early"] += early
        calls[(pid, index)] += 1
        at_sites[(pid,) + site + ("inprocess" if inprocess else "ptraced",)] += 1
    got = collections.Counter()
    for c in per_pid.values():
        got.update(c)
    totals = dict(syscalls=got["syscalls"], syscalls_inprocess=got["inprocess"], syscalls_early=got["early"],
                  syscalls_ptraced=got["syscalls"] - got["inprocess"])
    for k, v in totals.items():
        want = csvtool.to_int(summary[k], f"summary {k}")
        print(f"log {k}: {v} (summary.csv {want})")
        if v != want:
            problems.append(f"log {k} {v} != summary.csv {want}")
    want_pid = collections.defaultdict(collections.Counter)
    for r in procs:
        for col in ("syscalls", "inprocess", "early"):
            want_pid[int(r["pid"])][col] += csvtool.to_int(r[col], "processes.csv " + col)
    for pid in set(per_pid) | set(want_pid):
        if +per_pid[pid] != +want_pid[pid]:
            problems.append(f"pid {pid}: log {dict(per_pid[pid])} != processes.csv {dict(want_pid[pid])}")
    named = collections.Counter()
    for (pid, index), n in calls.items():
        named[(pid,) + name_of(index, names)] += n
    want_calls = collections.Counter()
    for r in csvtool.load_syscalls(d):
        want_calls[(int(r["pid"]), r["syscall"], csvtool.row_abi(r))] += int(r["calls"])
    for k in set(named) | set(want_calls):
        if named[k] != want_calls[k]:
            problems.append(f"pid {k[0]} {k[1]} ({k[2]}): log {named[k]} != syscalls.csv {want_calls[k]}")
    want_sites = collections.Counter()
    for r in csvtool.load_sites(d):
        for path in ("ptraced", "inprocess"):
            if int(r[path]):
                want_sites[(int(r["pid"]), r["object"], r["offset"], path)] += int(r[path])
    for k in set(at_sites) | set(want_sites):
        if at_sites[k] != want_sites[k]:
            problems.append(f"pid {k[0]} site {k[1]}:{k[2]} {k[3]}: log {at_sites[k]} != sites.csv {want_sites[k]}")
    print(f"log: {nentries} entries, {len(per_pid)} processes, {len(last)} threads")
    return problems[:20]


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if argv[1] == "check":
            return csvtool.report(check(argv[2]))
        # a line per entry: through a buffer of its own, whatever PYTHONUNBUFFERED says
        # (unbuffered, a write per field: minutes for a few million entries)
        if argv[1] == "calls":
            names = syscall_names()
            with open(sys.stdout.fileno(), "w", buffering=1 << 16, closefd=False) as out:
                for _t, ret, pid, tid, _site, index, inprocess, early in read_log(argv[2]):
                    if pid == int(argv[3]):
                        out.write(f"{tid} {name_of(index, names)[0]} {'inprocess' if inprocess else 'ptraced'} "
                                  f"{int(early)} {'-' if ret is None else ret}\n")
            return 0
        if argv[1] == "csv":
            names = syscall_names()
            with open(sys.stdout.fileno(), "w", buffering=1 << 16, closefd=False) as out:
                out.write("t_ns,pid,tid,syscall,path,early,object,offset,ret\n")
                for t, ret, pid, tid, (obj, offset), index, inprocess, early in read_log(argv[2]):
                    if any(c in obj for c in ',"\n\r'):
                        obj = '"' + obj.replace('"', '""') + '"'
                    out.write(f"{t},{pid},{tid},{name_of(index, names)[0]},{'inprocess' if inprocess else 'ptraced'},"
                              f"{int(early)},{obj},{offset},{'' if ret is None else ret}\n")
            return 0
    except csvtool.CheckError as e:
        print(f"FAIL: {e}")
        return 1
    print(f"unknown command {argv[1]}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
