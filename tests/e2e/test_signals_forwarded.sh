#!/bin/sh
# Signals sent to systrace reach the traced program, and the CSV files are complete:
#  - kill -TERM / -INT / -HUP to systrace's pid while wait_signal (which handles them,
#    writes the signal's name and exits 0) runs: the program gets that signal, systrace
#    exits 0, processes.csv has its row with exit:0, the files are consistent;
#  - the same to the whole process group (as a terminal's Ctrl-C does): the program
#    gets SIGINT, systrace exits 0;
#  - kill -TERM / -INT to systrace's pid while /bin/sleep (default dispositions) runs:
#    sleep dies of it, systrace exits 128+N, the row says signal:N, files complete.
# Every wait is bounded.
. "$(dirname "$0")/lib.sh"
export E2E_DIR

python3 - "$SYSTRACE" "$PROGRAMS" "$TMPDIR" <<'PY' || check_problem "signal forwarding (above)"
import os, signal, subprocess, sys, time
sys.path.insert(0, os.environ["E2E_DIR"])
import csvtool

systrace, programs, tmp = sys.argv[1:4]
problems = []

def wait_for(cond, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()

def children_of(pid):
    kids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    stat = f.read()
                if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                    kids.append(int(p))
            except (OSError, ValueError, IndexError):
                pass
    return kids

def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""

def sanitizer_free(err_path, what):
    with open(err_path, errors="replace") as f:
        err = f.read()
    for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "LeakSanitizer has encountered"):
        if marker in err:
            problems.append(f"{what}: sanitizer report on stderr:\n" + err[-3000:])
            return

def finish_run(p, name, what, want_status, exe_name, want_exit):
    try:
        status = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        problems.append(f"{what}: systrace did not exit within 60 s of the signal")
        return
    rc = status if status >= 0 else 128 - status
    d = os.path.join(tmp, name)
    sanitizer_free(d + ".err", what)
    if rc != want_status:
        with open(d + ".err", errors="replace") as f:
            problems.append(f"{what}: systrace exited {rc}, expected {want_status}; stderr:\n{f.read()[-2000:]}")
    try:
        rows = csvtool.load_processes(d)
        csvtool.load_summary(d)
        mine = [r for r in rows if os.path.basename(r["exe"]) == exe_name]
        if len(mine) != 1:
            problems.append(f"{what}: processes.csv has {len(mine)} rows for {exe_name}, expected 1: {rows}")
        elif mine[0]["exit"] != want_exit:
            problems.append(f"{what}: the {exe_name} row has exit {mine[0]['exit']!r}, expected {want_exit}")
        for pr in csvtool.check_consistency(d):
            problems.append(f"{what}: {pr}")
    except csvtool.CheckError as e:
        problems.append(f"{what}: the CSV files are not complete: {e}")
    print(f"{what}: systrace exited {rc}")

def start(name, cmd):
    d = os.path.join(tmp, name)
    err = open(d + ".err", "w")
    p = subprocess.Popen([systrace, "--patch=off", "-o", d, "--"] + cmd,
                         stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
    err.close()
    return p

# A program that handles the signal
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    for target in ("pid", "group") if sig == signal.SIGINT else ("pid",):
        name = f"handled_{sig.name}_{target}"
        what = f"kill -{sig.name[3:]} to systrace's {'pid' if target == 'pid' else 'process group'} (program handles it)"
        marker = os.path.join(tmp, name + ".marker")
        p = start(name, [os.path.join(programs, "wait_signal"), marker])
        if not wait_for(lambda: os.path.exists(marker + ".ready") or p.poll() is not None, 60):
            problems.append(f"{what}: wait_signal did not start within 60 s")
        if p.poll() is not None:
            problems.append(f"{what}: systrace exited ({p.returncode}) before the signal was sent")
            continue
        time.sleep(0.2)
        if target == "pid":
            os.kill(p.pid, sig)
        else:
            os.killpg(p.pid, sig)
        finish_run(p, name, what, 0, "wait_signal", "exit:0")
        try:
            with open(marker) as f:
                got = f.read().strip()
        except OSError:
            got = None
        if got != sig.name:
            problems.append(f"{what}: the program received {got!r}, expected {sig.name}")

# A program with the default dispositions: it dies of the signal
for sig in (signal.SIGTERM, signal.SIGINT):
    name = f"default_{sig.name}"
    what = f"kill -{sig.name[3:]} to systrace's pid (program: sleep, default disposition)"
    p = start(name, ["/bin/sleep", "30"])
    def sleeping():
        kids = children_of(p.pid)
        return any(comm(k) == "sleep" for k in kids)
    if not wait_for(lambda: sleeping() or p.poll() is not None, 60):
        problems.append(f"{what}: sleep did not start within 60 s")
    time.sleep(0.3)
    if p.poll() is not None:
        problems.append(f"{what}: systrace exited ({p.returncode}) before the signal was sent")
        continue
    os.kill(p.pid, sig)
    finish_run(p, name, what, 128 + sig, "sleep", f"signal:{int(sig)}")

for pr in problems:
    print("FAIL: " + pr)
sys.exit(1 if problems else 0)
PY
finish
