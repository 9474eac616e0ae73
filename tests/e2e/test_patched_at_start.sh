#!/bin/sh
# Patches applied at start: every hazard program runs twice in one systrace run
# (`sh -c 'prog && prog'`), so that its second process finds the sites its first one
# patched already written when its in-process path comes up, before main, and
# never traps at them. For each program:
#  - both processes exit 0 (each checks its own results: registers, red zone,
#    returns, handlers, children);
#  - the calls of the two processes together, per syscall name (the shell's own
#    left out), are exactly twice those of a run of the program alone (but futex:
#    how often threads wait for each other is timing, not construction; and the
#    polls of a program that waits for a thread to block, named with it);
#  - each hot site named is patched in the second process with all its calls
#    in-process and none ptraced: it was patched at start, not at a trap;
#  - the second process's summary shows patches known from the first;
#  - a site the first process could not patch is refused in the second for the same
#    reason (what the tracer learned of the code, kept, not planned again).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

# twice NAME "SYMBOL..." "TIMING..." PROG [ARG...]: TIMING, the syscalls whose count
# is the program's waits (tests/programs/blocked_in.h), left out of the comparison
twice() {
	_name=$1
	_symbols=$2
	_timing=$3
	shift 3
	echo "== $_name, once and twice: $*"
	st_run_mode default "$T/$_name.once" "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$_name: alone under systrace it exited $ST_STATUS"
		st_show_err "$T/$_name.once"
		return
	fi
	st_run_mode default "$T/$_name.twice" sh -c '"$0" "$@" && "$0" "$@"' "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$_name: run twice under systrace it exited $ST_STATUS (the second process, with patches written at start, found itself broken?)"
		st_show_err "$T/$_name.twice"
		sed 's/^/    out| /' "$T/$_name.twice.out" | head -20
		return
	fi
	python3 - "$T/$_name.once" "$T/$_name.twice" "$1" "$_name" "futex $_timing" $_symbols <<'PY' || check_problem "$_name: see above"
import sys
sys.path.insert(0, __import__("os").environ["E2E_DIR"])
import csvtool

once, twice, prog, name, timing, symbols = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], set(sys.argv[5].split()), sys.argv[6:]
ok = True

def counts(d, keep):
    total = {}
    for r in csvtool.load_syscalls(d):
        if keep(r["pid"], r["image"]):
            total[r["syscall"]] = total.get(r["syscall"], 0) + int(r["calls"])
    return total

procs = csvtool.load_processes(twice)
pids = {p["pid"] for p in procs}
root = [p for p in procs if p["ppid"] not in pids][0]
shell = {(p["pid"], p["image"]) for p in procs if p["exe"] == root["exe"]}
alone = counts(once, lambda pid, image: True)
both = counts(twice, lambda pid, image: (pid, image) not in shell)
for sc in sorted((set(alone) | set(both)) - timing):
    if both.get(sc, 0) != 2 * alone.get(sc, 0):
        print(f"    {name}: {sc}: {both.get(sc, 0)} calls in the two processes, {alone.get(sc, 0)} alone (expected twice that)")
        ok = False

# the program's two top-level processes: the shell's children that ran it
tops = sorted((int(p["start_ns"]), p["pid"], p["image"]) for p in procs
              if (p["pid"], p["image"]) not in shell and p["ppid"] == root["pid"])
if len(tops) != 2:
    print(f"    {name}: expected 2 processes of the program under the shell, found {len(tops)}")
    sys.exit(1)
_, pid, image = tops[1]
second = [p for p in procs if p["pid"] == pid and p["image"] == image][0]
if int(second.get("patches_known") or 0) == 0:
    print(f"    {name}: its second process wrote no patch known from the first (patches_known 0)")
    ok = False
rows = [r for r in csvtool.load_sites(twice) if r["pid"] == pid and r["image"] == image]
for sym in symbols:
    mine = [r for r in rows if r["symbol"] == sym or r["symbol"].startswith(sym + "+")]
    if not mine:
        print(f"    {name}: no site {sym} in the second process")
        ok = False
    for r in mine:
        if r["state"] != "patched" or int(r["ptraced"]) != 0 or int(r["inprocess"]) == 0:
            print(f"    {name}: site {r['symbol']} in the second process: state {r['state']}, "
                  f"ptraced {r['ptraced']}, inprocess {r['inprocess']} (expected patched at start: "
                  f"patched, 0 ptraced, calls in-process)")
            ok = False
_, pid1, image1 = tops[0]
first = {(r["object"], r["offset"]): r["state"] for r in csvtool.load_sites(twice)
         if (r["pid"], r["image"]) == (pid1, image1)}
for r in rows:
    was = first.get((r["object"], r["offset"]), "")
    if was.startswith("unpatchable:") and r["state"] != was:
        print(f"    {name}: site {r['symbol']} was {was} in the first process, {r['state']} in the second")
        ok = False
sys.exit(0 if ok else 1)
PY
}

export E2E_DIR
POLLS="pread64 clock_nanosleep"
twice redzone "redzone_before redzone_after" "" "$P/redzone" 3000
twice regs "regs_fixed regs_runtime" "" "$P/regs" 10000
twice race_threads "race_site" "" "$P/race_threads" 8 2000
twice blocked_threads "before_read after_read" "$POLLS" "$P/blocked_threads" 2000
twice syscall_ret_next "srn_getpid srn_getppid_a" "" "$P/syscall_ret_next" 2000
twice branch_into "bb_before" "" "$P/branch_into" 2000
twice jit "" "" "$P/jit" 2000
twice sigsys "syscall" "" "$P/sigsys" 20000 300
twice clone_stack "" "" "$P/clone_stack" 2000
twice unmap_self "" "" "$P/unmap_self" 200
twice vfork_patched "" "" "$P/vfork_patched" 2000
twice fork_threads "site_getppid" "" "$P/fork_threads" 4 3000
twice handler_in_gate "" "$POLLS" "$P/handler_in_gate"
twice interrupted_waits "" "$POLLS" "$P/interrupted_waits"
finish
