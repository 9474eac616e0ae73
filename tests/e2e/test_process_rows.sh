#!/bin/sh
# The rows of processes.csv are the right process images, with the right exe, exit,
# ppid and image numbers, and each image's syscalls.csv rows hold exactly what that
# image did (counts fixed by construction):
#   signals: the root exit:0, a child exit:3 with 5 getppid, a child signal:9 with 1 kill;
#   vfork_exec: a vfork child's image that ended in exec, then its getppid_loop image
#     (image + 1, same pid, getppid 77, exit:0); children exit:5 and exit:0 (3 getppid);
#   exec_from_thread: the image ended in exec with the thread's 3 gettid, the next
#     image (same pid) is getppid_loop with 33 getppid, exit:0;
#   fork_tree: 15 images, 40 getppid each, a tree of depth 3 and fanout 2 by ppid;
#   threads: one image with all 1000 getppid; clone_vm: the child 11, the parent 2;
#   closefds_noenv: 123 getppid, exec, 50 getppid;
#   exit_code: exit:3, signal:15, signal:11; kill_blocked: the child signal:9.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
export E2E_DIR P

run() {
	name=$1 want_status=$2
	shift 2
	st_run "$TMPDIR/$name" "$@"
	if [ "$ST_STATUS" -ne "$want_status" ]; then
		check_problem "$name: systrace exited $ST_STATUS, expected $want_status"
		st_show_err "$TMPDIR/$name"
	fi
}

run signals 0 "$P/signals"
run vfork_exec 0 "$P/vfork_exec"
run exec_from_thread 0 "$P/exec_from_thread"
run fork_tree 0 "$P/fork_tree"
run threads 0 "$P/threads"
run clone_vm 0 "$P/clone_vm"
run closefds_noenv 0 "$P/closefds_noenv"
run exit3 3 "$P/exit_code" exit 3
run sigterm 143 "$P/exit_code" kill 15
run segv 139 "$P/exit_code" segv
run kill_blocked 0 "$P/kill_blocked"

python3 - "$TMPDIR" <<'PY' || check_problem "process rows (above)"
import collections, os, sys
sys.path.insert(0, os.environ["E2E_DIR"])
import csvtool

T = sys.argv[1]
P = os.path.realpath(os.environ["P"])
problems = []

def prog(name):
    return os.path.join(P, name)

def rows(run):
    d = os.path.join(T, run)
    try:
        return d, csvtool.load_processes(d)
    except csvtool.CheckError as e:
        problems.append(f"{run}: {e}")
        return d, []

def show(run, rs):
    print(f"  {run}: processes.csv")
    for r in rs:
        print(f"    pid {r['pid']} image {r['image']} ppid {r['ppid']} exe {r['exe']} exit {r['exit']} syscalls {r['syscalls']}")

def want(cond, msg):
    if not cond:
        problems.append(msg)
    return cond

def calls(d, r, name):
    return csvtool.image_counts(d, r["pid"], r["image"]).get(name, 0)

def roots(rs):
    pids = {r["pid"] for r in rs}
    return [r for r in rs if r["ppid"] not in pids]

def check_exe(run, r, name):
    want(os.path.realpath(r["exe"]) == prog(name) if r["exe"] else False,
         f"{run}: pid {r['pid']} image {r['image']}: exe {r['exe']!r}, expected {prog(name)}")

# --- signals
d, rs = rows("signals")
show("signals", rs)
if want(len(rs) == 3, f"signals: {len(rs)} rows, expected 3"):
    root = roots(rs)
    if want(len(root) == 1, f"signals: {len(root)} rows whose ppid is outside the run, expected 1 (the root)"):
        root = root[0]
        want(root["exit"] == "exit:0", f"signals: root exit {root['exit']!r}, expected exit:0")
        want(calls(d, root, "rt_sigreturn") == 20, f"signals: root rt_sigreturn {calls(d, root, 'rt_sigreturn')}, expected 20")
        want(calls(d, root, "getppid") == 20, f"signals: root getppid {calls(d, root, 'getppid')}, expected 20")
        kids = [r for r in rs if r is not root]
        for k in kids:
            check_exe("signals", k, "signals")
            want(k["ppid"] == root["pid"], f"signals: child {k['pid']} ppid {k['ppid']}, expected {root['pid']}")
        e3 = [k for k in kids if k["exit"] == "exit:3"]
        s9 = [k for k in kids if k["exit"] == "signal:9"]
        if want(len(e3) == 1, f"signals: no single child row with exit:3 ({[k['exit'] for k in kids]})"):
            want(calls(d, e3[0], "getppid") == 5, f"signals: the exit:3 child's getppid = {calls(d, e3[0], 'getppid')}, expected 5")
            want(calls(d, e3[0], "exit_group") == 1, f"signals: the exit:3 child's exit_group = {calls(d, e3[0], 'exit_group')}, expected 1")
        if want(len(s9) == 1, f"signals: no single child row with signal:9 ({[k['exit'] for k in kids]})"):
            want(calls(d, s9[0], "kill") == 1, f"signals: the SIGKILLed child's kill = {calls(d, s9[0], 'kill')}, expected 1")
        check_exe("signals", root, "signals")

# --- vfork_exec
d, rs = rows("vfork_exec")
show("vfork_exec", rs)
if want(len(rs) == 5, f"vfork_exec: {len(rs)} rows, expected 5"):
    root = [r for r in rs if r["exit"] == "exit:0" and calls(d, r, "vfork") == 3]
    if want(len(root) == 1, "vfork_exec: no single row with the 3 vforks and exit:0"):
        root = root[0]
        check_exe("vfork_exec", root, "vfork_exec")
        kids = [r for r in rs if r is not root]
        for k in kids:
            want(k["ppid"] == root["pid"], f"vfork_exec: pid {k['pid']} image {k['image']} ppid {k['ppid']}, expected {root['pid']}")
        ex = [k for k in kids if k["exit"] == "exec"]
        if want(len(ex) == 1, f"vfork_exec: {len(ex)} child rows ended in exec, expected 1"):
            ex = ex[0]
            check_exe("vfork_exec", ex, "vfork_exec")
            nxt = [k for k in kids if k["pid"] == ex["pid"] and k["image"] == str(int(ex["image"]) + 1)]
            if want(len(nxt) == 1, f"vfork_exec: no image {int(ex['image']) + 1} of pid {ex['pid']} after its exec"):
                nxt = nxt[0]
                check_exe("vfork_exec", nxt, "getppid_loop")
                want(nxt["exit"] == "exit:0", f"vfork_exec: getppid_loop image exit {nxt['exit']!r}, expected exit:0")
                want(calls(d, nxt, "getppid") == 77, f"vfork_exec: getppid_loop image getppid {calls(d, nxt, 'getppid')}, expected 77")
            want(calls(d, ex, "getppid") == 0, f"vfork_exec: the image that exec'd has getppid {calls(d, ex, 'getppid')}, expected 0")
        e5 = [k for k in kids if k["exit"] == "exit:5"]
        want(len(e5) == 1, f"vfork_exec: {len(e5)} rows with exit:5, expected 1")
        e0 = [k for k in kids if k["exit"] == "exit:0" and calls(d, k, "getppid") == 3]
        want(len(e0) == 1, f"vfork_exec: {len(e0)} rows with exit:0 and 3 getppid, expected 1")
        want(calls(d, root, "getppid") == 0, f"vfork_exec: the parent image has getppid {calls(d, root, 'getppid')}, expected 0 (the vfork children's are theirs)")

# --- exec_from_thread
d, rs = rows("exec_from_thread")
show("exec_from_thread", rs)
if want(len(rs) == 2, f"exec_from_thread: {len(rs)} rows, expected 2"):
    a, b = sorted(rs, key=lambda r: int(r["image"]))
    want(a["pid"] == b["pid"], f"exec_from_thread: the two images have pids {a['pid']} and {b['pid']}, expected the same (the thread group's)")
    want(int(b["image"]) == int(a["image"]) + 1, f"exec_from_thread: images {a['image']} and {b['image']}, expected consecutive")
    want(a["exit"] == "exec", f"exec_from_thread: first image exit {a['exit']!r}, expected exec")
    want(b["exit"] == "exit:0", f"exec_from_thread: second image exit {b['exit']!r}, expected exit:0")
    check_exe("exec_from_thread", a, "exec_from_thread")
    check_exe("exec_from_thread", b, "getppid_loop")
    want(calls(d, a, "gettid") == 3, f"exec_from_thread: first image gettid {calls(d, a, 'gettid')}, expected 3")
    want(calls(d, b, "getppid") == 33, f"exec_from_thread: second image getppid {calls(d, b, 'getppid')}, expected 33")
    want(calls(d, a, "getppid") == 0, f"exec_from_thread: first image getppid {calls(d, a, 'getppid')}, expected 0")
    if "threads" in a:
        want(a["threads"] == "1", f"exec_from_thread: first image threads {a['threads']}, expected 1")

# --- fork_tree
d, rs = rows("fork_tree")
if want(len(rs) == 15, f"fork_tree: {len(rs)} rows, expected 15"):
    root = roots(rs)
    if want(len(root) == 1, f"fork_tree: {len(root)} roots, expected 1"):
        kids = collections.defaultdict(list)
        for r in rs:
            kids[r["ppid"]].append(r)
        depth = {root[0]["pid"]: 0}
        todo = [root[0]["pid"]]
        while todo:
            p = todo.pop()
            for k in kids[p]:
                depth[k["pid"]] = depth[p] + 1
                todo.append(k["pid"])
        per_depth = collections.Counter(depth.values())
        want(per_depth == {0: 1, 1: 2, 2: 4, 3: 8}, f"fork_tree: processes per depth {dict(per_depth)}, expected {{0: 1, 1: 2, 2: 4, 3: 8}}")
    for r in rs:
        want(r["exit"] == "exit:0", f"fork_tree: pid {r['pid']} exit {r['exit']!r}, expected exit:0")
        want(calls(d, r, "getppid") == 40, f"fork_tree: pid {r['pid']} getppid {calls(d, r, 'getppid')}, expected 40")
        check_exe("fork_tree", r, "fork_tree")
        if "forks" in r:
            n = len(kids[r["pid"]]) if len(root) == 1 else None
            want(n is None or r["forks"] == str(n), f"fork_tree: pid {r['pid']} forks {r['forks']}, it has {n} children")

# --- threads
d, rs = rows("threads")
if want(len(rs) == 1, f"threads: {len(rs)} rows, expected 1"):
    want(calls(d, rs[0], "getppid") == 1000, f"threads: getppid {calls(d, rs[0], 'getppid')}, expected 1000")
    want(rs[0]["exit"] == "exit:0", f"threads: exit {rs[0]['exit']!r}")
    if "threads" in rs[0]:
        want(rs[0]["threads"] == "8", f"threads: threads column {rs[0]['threads']}, expected 8")

# --- clone_vm
d, rs = rows("clone_vm")
show("clone_vm", rs)
if want(len(rs) == 2, f"clone_vm: {len(rs)} rows, expected 2"):
    root = roots(rs)
    if want(len(root) == 1, "clone_vm: no single root"):
        child = [r for r in rs if r is not root[0]][0]
        want(child["ppid"] == root[0]["pid"], f"clone_vm: child ppid {child['ppid']}, expected {root[0]['pid']}")
        want(calls(d, child, "getppid") == 11, f"clone_vm: child getppid {calls(d, child, 'getppid')}, expected 11")
        want(calls(d, root[0], "getppid") == 2, f"clone_vm: parent getppid {calls(d, root[0], 'getppid')}, expected 2")
        want(child["exit"] == "exit:0", f"clone_vm: child exit {child['exit']!r}, expected exit:0")
        check_exe("clone_vm", child, "clone_vm")

# --- closefds_noenv
d, rs = rows("closefds_noenv")
show("closefds_noenv", rs)
if want(len(rs) == 2, f"closefds_noenv: {len(rs)} rows, expected 2"):
    a, b = sorted(rs, key=lambda r: int(r["image"]))
    want(a["exit"] == "exec" and b["exit"] == "exit:0", f"closefds_noenv: exits {a['exit']!r}, {b['exit']!r}, expected exec, exit:0")
    want(calls(d, a, "getppid") == 123, f"closefds_noenv: first image getppid {calls(d, a, 'getppid')}, expected 123")
    want(calls(d, b, "getppid") == 50, f"closefds_noenv: second image getppid {calls(d, b, 'getppid')}, expected 50")
    check_exe("closefds_noenv", b, "getppid_loop")

# --- exit_code and kill_blocked
for run, exit_ in (("exit3", "exit:3"), ("sigterm", "signal:15"), ("segv", "signal:11")):
    d, rs = rows(run)
    if want(len(rs) == 1, f"{run}: {len(rs)} rows, expected 1"):
        want(rs[0]["exit"] == exit_, f"{run}: exit {rs[0]['exit']!r}, expected {exit_}")
        want(calls(d, rs[0], "getppid") == 7, f"{run}: getppid {calls(d, rs[0], 'getppid')}, expected 7")
        check_exe(run, rs[0], "exit_code")
d, rs = rows("kill_blocked")
show("kill_blocked", rs)
if want(len(rs) == 2, f"kill_blocked: {len(rs)} rows, expected 2"):
    root = roots(rs)
    if want(len(root) == 1, "kill_blocked: no single root"):
        child = [r for r in rs if r is not root[0]][0]
        want(root[0]["exit"] == "exit:0", f"kill_blocked: parent exit {root[0]['exit']!r}, expected exit:0")
        want(child["exit"] == "signal:9", f"kill_blocked: child exit {child['exit']!r}, expected signal:9")
        want(calls(d, child, "read") >= 1, f"kill_blocked: the child's read (it was killed in) is not counted")

for p in problems:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
PY

finish
