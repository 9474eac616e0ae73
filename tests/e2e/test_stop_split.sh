#!/bin/sh
# The lifecycle part of ptrace_stops, exactly, by construction. fork_loop N [exec]
# forks N children one after another (glibc's fork: a clone call), each exiting at
# once or execing getppid_loop 1, which exits. The lifecycle stops are:
#  - fork_loop (pid's image 1): 2N + 4. Its execve as systrace's launched child: the
#    seccomp stop and the exec event (the launcher's stops go to the command's image);
#    per child the clone's seccomp stop and the fork event (2N); exit_group's seccomp
#    stop and its exit event. In the default mode N + 5: the clone's site is patched
#    at the first fork, and a plain fork goes in-process from then on (its child
#    returns through the stub on its own copy of the stack): one clone stop;
#  - each child (image 0): its first stop (seized by the fork), then either exit_group
#    (at a site of fork_loop's own, which the parent never runs: one in libc that a
#    child taught the tracer could be written into the parent at its next trap there,
#    and the later children would inherit it) and its exit event (3), or execve's
#    seccomp stop and exec event (3: a successful execve is resumed past its exit
#    stop). In the default mode the first child's execve patches its site in its
#    own memory; fork_loop has it written at its next stop, the second fork's event,
#    after that child was copied: from the third on, the children inherit it, and
#    their execve goes in-process (2);
#  - each getppid_loop (image 1): exit_group's stop and the exit event (2); in the
#    default mode only the first one: the site of its exit_group (glibc's _Exit) is
#    patched then, and every later getppid_loop has it written at start, so its
#    exit_group stays in-process and only the exit event is left (1).
# Otherwise the same under --patch=off and the default mode (the library changes the
# early and late stops, not these; a call patching.c puts back after borrowing the
# thread is patching's stop, not the call's). Every row's split adds up to ptrace_stops, and
# under --patch=off no stop is late.
. "$(dirname "$0")/lib.sh"
N=7

# expect_lifecycle DIR WHAT ROOT CHILD EXECED LATER CHILD_LATER: the stops_lifecycle
# of the root row, the first fork children's rows (image 0: CHILD, a comma list, one
# value for each of the first ones) and the later ones' (CHILD_LATER), the first
# exec'd child's (image 1, not the root) and the later ones' (LATER).
expect_lifecycle() {
	python3 - "$@" "$N" <<'PY' || check_problem "$2: lifecycle stops (above)"
import sys
sys.path.insert(0, __import__("os").environ["E2E_DIR"])
import csvtool
d, what, root, child, execed, later, child_later, n = sys.argv[1:]
rows = csvtool.load_processes(d)
root_pid = min(int(r["pid"]) for r in rows if r["image"] == "1" and r["ppid"] not in {x["pid"] for x in rows})
first_exec = min((int(r["start_ns"]), r["pid"]) for r in rows
                 if r["image"] == "1" and int(r["pid"]) != root_pid) if execed != "-" else None
children = [r["pid"] for r in sorted((r for r in rows if r["image"] == "0"), key=lambda r: int(r["start_ns"]))]
first_children = [int(v) for v in child.split(",")]
want = {"root": int(root), "child": None, "execed": int(execed) if execed != "-" else None}
seen = {"root": 0, "child": 0, "execed": 0}
bad = 0
for r in rows:
    kind = "root" if int(r["pid"]) == root_pid else "child" if r["image"] == "0" else "execed"
    seen[kind] += 1
    if kind == "execed" and want[kind] is not None and first_exec[1] != r["pid"]:
        want_here = int(later)
    elif kind == "child":
        at = children.index(r["pid"])
        want_here = first_children[at] if at < len(first_children) else int(child_later)
    else:
        want_here = want[kind]
    if want_here is None or int(r["stops_lifecycle"]) != want_here:
        print(f"FAIL: {what}: pid {r['pid']} image {r['image']} ({kind}): stops_lifecycle {r['stops_lifecycle']}, expected {want_here}")
        bad = 1
expect = {"root": 1, "child": int(n), "execed": int(n) if want["execed"] is not None else 0}
if seen != expect:
    print(f"FAIL: {what}: rows {seen}, expected {expect}")
    bad = 1
sys.exit(bad)
PY
}
export E2E_DIR

run() { # NAME MODE ARGS...: runs fork_loop, which must exit 0, and checks its files
	name=$1 mode=$2
	shift 2
	echo "== $name: --patch=$mode fork_loop $*"
	ST_OPTS=--show-perf-stats st_run_mode "$mode" "$TMPDIR/$name" "$PROGRAMS/fork_loop" "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$name: systrace exited $ST_STATUS, fork_loop exits 0"
		st_show_err "$TMPDIR/$name"
		return 1
	fi
	_any=
	[ "$mode" = off ] || _any=--any-mode
	csvtool consistency "$TMPDIR/$name" $_any || check_problem "$name: the CSV files disagree (above)"
	csvtool perfstats "$TMPDIR/$name" "$TMPDIR/$name.err" || check_problem "$name: --show-perf-stats (above)"
}

for mode in off default; do
	later=2 root=$((2 * N + 4)) child_later=3
	[ "$mode" = default ] && later=1 root=$((N + 5)) child_later=2
	run "exec_$mode" "$mode" "$N" exec &&
		expect_lifecycle "$TMPDIR/exec_$mode" "fork_loop $N exec --patch=$mode" $root 3,3 2 $later $child_later
	run "exit_$mode" "$mode" "$N" &&
		expect_lifecycle "$TMPDIR/exit_$mode" "fork_loop $N --patch=$mode" $root 3 - - 3
done

finish
