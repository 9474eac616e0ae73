#!/bin/sh
# Dying the way the command died: when the command is killed by signal N, systrace
# writes its files and then dies by N itself (as strace and timeout do), without a
# core file of its own, so that its caller sees what it would have seen natively:
#  - Python's subprocess sees returncode -N (not 128+N) for `sh -c 'kill -N $$'`
#    with N = INT, QUIT, TERM, KILL, PIPE; with RLIMIT_CORE unlimited for systrace
#    (core_pattern permitting a file in the folder) its wait status has no core
#    flag and no core file appears; the files are complete (summary.csv, the sh row
#    with exit signal:N, consistent);
#  - a shell reports the death as a signal's: `sh -c 'systrace ...; echo $?'` prints
#    130 for SIGINT;
#  - an interactive bash on a pseudo-terminal behaves as natively (each line run
#    natively first, and the transcripts compared): after `systrace -- sh -c
#    'kill -INT $$'; echo next` and after Ctrl-C on `systrace -- sleep 30; echo next`
#    it does not go on to `echo next`; Ctrl-\ makes it print "Quit", SIGTERM
#    "Terminated" (and those go on, as natively).
# Every wait is bounded.
. "$(dirname "$0")/lib.sh"
export E2E_DIR

python3 - "$SYSTRACE" "$TMPDIR" <<'PY' || check_problem "signal death (above)"
import os, resource, signal, subprocess, sys
sys.path.insert(0, os.environ["E2E_DIR"])
import csvtool
from ptyshell import PtyShell

systrace, tmp = sys.argv[1:3]
problems = []
timeout = int(os.environ.get("RUN_TIMEOUT", "60"))

def sanitizer_free(err, what):
    for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "LeakSanitizer has encountered"):
        if marker in err:
            problems.append(f"{what}: sanitizer report on stderr:\n" + err[-3000:])

def check_files(d, what, want_exit):
    try:
        rows = csvtool.load_processes(d)
        csvtool.load_summary(d)
        mine = [r for r in rows if os.path.basename(r["exe"]) in ("sh", "dash", "bash")]
        if [r["exit"] for r in mine] != [want_exit]:
            problems.append(f"{what}: the sh row's exit is {[r['exit'] for r in mine]}, expected [{want_exit!r}]")
        for p in csvtool.check_consistency(d):
            problems.append(f"{what}: {p}")
    except csvtool.CheckError as e:
        problems.append(f"{what}: the files are not complete: {e}")

# subprocess's view, the raw wait status, and no core file
def unlimited_core():
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

try:
    with open("/proc/sys/kernel/core_pattern") as f:
        core_pattern = f.read().strip()
except OSError:
    core_pattern = "?"
for name in ("INT", "QUIT", "TERM", "KILL", "PIPE"):
    sig = getattr(signal, "SIG" + name)
    what = f"sh -c 'kill -{name} $$'"
    d = os.path.join(tmp, "sig_" + name)
    cwd = os.path.join(tmp, "cwd_" + name)
    os.makedirs(cwd)
    # the command keeps no core of its own: any core file would be systrace's
    p = subprocess.Popen([systrace, "--patch=off", "-o", d, "--", "sh", "-c", f"ulimit -c 0; kill -{name} $$"],
                         cwd=cwd, stderr=subprocess.PIPE, preexec_fn=unlimited_core)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        problems.append(f"{what}: systrace did not finish within {timeout} s")
        continue
    err = err.decode(errors="replace")
    sanitizer_free(err, what)
    if p.returncode != -sig:
        problems.append(f"{what}: subprocess sees returncode {p.returncode}, expected {-sig} "
                        f"(systrace dead of SIG{name}); stderr:\n{err[-2000:]}")
    else:
        print(f"ok   {what}: returncode {p.returncode}")
    left = os.listdir(cwd)
    if left:
        problems.append(f"{what}: files left in systrace's working folder (a core of its own? "
                        f"core_pattern {core_pattern!r}): {left}")
    check_files(d, what, f"signal:{int(sig)}")

# the core flag of the wait status itself, with os.fork (subprocess does not show it)
d = os.path.join(tmp, "sig_core_flag")
pid = os.fork()
if pid == 0:
    try:
        unlimited_core()
        os.chdir(os.path.join(tmp, "cwd_QUIT"))
        os.execv(systrace, [systrace, "--patch=off", "-o", d, "--", "sh", "-c", "ulimit -c 0; kill -QUIT $$"])
    finally:
        os._exit(127)
_, st = os.waitpid(pid, 0)
if not (os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGQUIT and not os.WCOREDUMP(st)):
    problems.append(f"SIGQUIT: systrace's wait status is {st:#x}: expected a death by SIGQUIT without a core dump")
else:
    print("ok   SIGQUIT: death by SIGQUIT, no core dumped")

# the shell reports 128+N, as for the command itself
d = os.path.join(tmp, "sh_status")
out = subprocess.run(["sh", "-c", f"'{systrace}' --patch=off -o '{d}' -- sh -c 'kill -INT $$'; echo \"status=$?\""],
                     capture_output=True, text=True, timeout=timeout)
sanitizer_free(out.stderr, "sh -c 'systrace ...; echo $?'")
if out.stdout.strip() != "status=130":
    problems.append(f"sh -c 'systrace -- sh -c \"kill -INT $$\"; echo $?' printed {out.stdout!r}, expected status=130")
else:
    print("ok   the shell reports status 130")

# an interactive shell: each line natively, then under systrace; the same transcript
sh = PtyShell()
def session(line, keys, wait_for, what):
    """The terminal's text for line (keys typed once its sleep runs), up to the next
    prompt."""
    mark = sh.mark()
    sh.send(line + "\n")
    ready = True
    if keys:
        # the key is for the command: typed once sleep waits in its nanosleep in the
        # terminal's foreground group (natively as under systrace, which set up its
        # signal handlers before starting it), not to bash reading the line nor to
        # systrace starting up
        ready = sh.wait_for(lambda: sh.asleep_in_foreground("sleep"), 30)
        if not ready:
            problems.append(f"{what}: no `sleep` asleep in the terminal's foreground group "
                            f"within 30 s of typing `{line}`")
        sh.send(keys)
    if not sh.expect(r"PROMPT> ", wait_for, mark + 1):
        problems.append(f"{what}: no prompt within {wait_for} s after `{line}`")
        return None
    if not ready:
        return None
    # the text after the echoed line, systrace's path taken out
    return sh.text(mark).split("\n", 1)[-1]

try:
    if not sh.expect(r"PROMPT> ", 20):
        problems.append("the interactive shell printed no prompt within 20 s")
    else:
        out = os.path.join(tmp, "pty")
        cases = [
            ("sh -c 'kill -INT $$'; echo next", "", "an interrupted job stops the line"),
            ("sleep 30; echo next", "\x03", "Ctrl-C stops the line"),
            ("sleep 30; echo next", "\x1c", "Ctrl-\\ prints Quit"),
            ("sh -c 'kill -TERM $$'; echo next", "", "SIGTERM prints Terminated"),
        ]
        for i, (line, keys, what) in enumerate(cases):
            native = session(line, keys, 30, what + " (natively)")
            traced = session(f"{systrace} --patch=off -o {out}{i} -- {line}", keys, timeout, what)
            if native is None or traced is None:
                continue
            if traced != native:
                problems.append(f"{what}: under systrace the terminal shows {traced!r}, natively {native!r}")
            else:
                print(f"ok   {what}: {native!r} as natively")
            if "next" in native and keys != "\x1c" and "TERM" not in line:
                problems.append(f"{what}: natively bash went on to `echo next` ({native!r}): the test's premise is wrong here")
            sanitizer_free(traced, what)
            try:
                csvtool.load_summary(out + str(i))
            except csvtool.CheckError as e:
                problems.append(f"{what}: the files are not complete: {e}")
finally:
    if problems:
        print("--- terminal transcript ---")
        print(sh.text())
        print("---------------------------")
    sh.close()

for p in problems:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
PY
finish
