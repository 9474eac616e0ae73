#!/bin/sh
# A signal sent to the process group of systrace and its command (kill -SIG -PGRP, as
# a shell's `kill %1` does) reaches the command once, as natively: systrace must not
# pass on a copy the kernel gave the command already. One sent to systrace alone
# still reaches it once. count_signals (which handles SIGTSTP, SIGTERM, SIGINT and
# SIGHUP and answers its counts to each line of input) runs in a session of its own,
# natively and under systrace --patch=off (systrace the group's leader, the command
# in its group); after each signal the test asks twice (the second answer comes after
# systrace's loop has passed on whatever it passes on) and compares the counts with
# the native run's. At the end of its input the program exits 0, and so must
# systrace, with complete files. Every wait is bounded.
. "$(dirname "$0")/lib.sh"
export E2E_DIR

python3 - "$SYSTRACE" "$PROGRAMS" "$TMPDIR" <<'PY' || check_problem "group-directed signals (above)"
import os, signal, subprocess, sys, threading
sys.path.insert(0, os.environ["E2E_DIR"])
import csvtool

systrace, programs, tmp = sys.argv[1:4]
problems = []
# (signal, sent to the whole group, or to the process started alone); at most two
# termination signals: a third makes systrace give up. A copy passed on twice shows
# in one round of 20 or so (it must come after the kernel's copy was taken, else
# the two merge), so there are 60.
steps = [(signal.SIGTSTP, "alone" if i % 5 == 4 else "group") for i in range(60)]
steps += [(signal.SIGTERM, "group"), (signal.SIGHUP, "group")]

def ask(p, what):
    """The program's counts, read within 30 s."""
    box = []
    def read():
        p.stdin.write(b"?\n")
        p.stdin.flush()
        box.append(p.stdout.readline())
    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(30)
    if not box or not box[0]:
        raise RuntimeError(f"{what}: no answer from count_signals within 30 s")
    return box[0].decode().strip()

def session(argv, what, err=None):
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, start_new_session=True)
    answers = [ask(p, what + ", at the start")]
    try:
        for sig, to in steps:
            if to == "group":
                os.killpg(p.pid, sig)
            else:
                os.kill(p.pid, sig)
            ask(p, what)
            answers.append(ask(p, f"{what}, after {sig.name} to the {to}"))
        p.stdin.close()
        rc = p.wait(timeout=60)
    except BaseException:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    return answers, rc

try:
    native, native_rc = session([f"{programs}/count_signals"], "native")
    d = os.path.join(tmp, "group")
    with open(d + ".err", "w") as err:
        traced, rc = session([systrace, "--patch=off", "-o", d, "--", f"{programs}/count_signals"], "systrace", err)
    labels = ["start"] + [f"{s.name} #{i} to {'the group' if to == 'group' else 'systrace alone'}"
                          for i, (s, to) in enumerate(steps, 1)]
    print(f"native: {native[-1]}; systrace: {traced[-1]}")
    if native_rc != 0 or native[-1] != "TSTP=60 TERM=1 INT=0 HUP=1":
        problems.append(f"premise: natively the program ended {native_rc} with {native[-1]!r}, "
                        "expected 0 and TSTP=3 TERM=1 INT=0 HUP=1")
    # the first difference (the counts after it differ too)
    for label, n, t in zip(labels, native, traced):
        if n != t:
            problems.append(f"after {label}: the program counted {t!r} under systrace, natively {n!r}")
            break
    if rc != 0:
        problems.append(f"systrace exited {rc}, expected 0 (the program's status)")
    rows = csvtool.load_processes(d)
    csvtool.load_summary(d)
    mine = [r for r in rows if os.path.basename(r["exe"]) == "count_signals"]
    if len(mine) != 1 or mine[0]["exit"] != "exit:0":
        problems.append(f"processes.csv: expected one count_signals row with exit:0, got {mine}")
    problems.extend(csvtool.check_consistency(d))
except (RuntimeError, csvtool.CheckError, subprocess.TimeoutExpired) as e:
    problems.append(str(e))
for p in problems:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
PY
if require_file "$TMPDIR/group.err" "systrace's stderr"; then
	no_sanitizer_report "$TMPDIR/group.err" "systrace -- count_signals"
fi
finish
