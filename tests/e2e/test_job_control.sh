#!/bin/sh
# Job control: in an interactive shell on a pseudo-terminal, run
#   systrace --patch=off -o D -- ticks 60 50
# (a tick every 50 ms), press Ctrl-Z after a few ticks: the shell reports the job
# stopped and no tick appears while it is stopped; `fg`: the ticks resume, the
# program finishes ("ticks done"), the status is 0 and the CSV files are complete
# (summary.csv, the ticks row with exit:0, consistent). Then, as natively:
#  - SIGTSTP to the job's process group from outside (as `kill -TSTP %1`): the job
#    stops, fg continues it, each tick once;
#  - Ctrl-Z on a program that ignores SIGTSTP, and on one that handles it, stops
#    nothing (it finishes, status 0, no "Stopped");
#  - after the command's exit, Ctrl-Z or a SIGTSTP to systrace stops nothing of what
#    it left running (`sh -c 'ticks 40 50 & exit 0'`: the ticks finish, systrace
#    exits 0, no "Stopped");
#  - a SIGCONT that comes after the command stopped, while systrace still serves a
#    busy child before it stops itself, continues the job (busy_child finishes,
#    status 0, no job left stopped);
#  - a command that stops itself (`sh -c 'kill -STOP $$; echo resumed'`, and -TSTP)
#    is shown stopped and goes on after `fg`;
#  - a background `cat` (SIGTTIN) and a background writer under `stty tostop`
#    (SIGTTOU) stop (`jobs` says "Stopped") and go on after `fg`;
#  - systrace's own summary (--show-perf-stats) at the end of a background job under
#    tostop is shown whole, and nothing stops.
# Every wait is bounded; on failure the terminal transcript is printed and the
# session's processes are killed. A key is typed only once the line it follows has
# been read whole, its newline included: Ctrl-Z flushes what the terminal has not
# yet passed on (no NOFLSH), and a newline still in flight would be lost, joining
# the next line to that one.
. "$(dirname "$0")/lib.sh"
export E2E_DIR

python3 - "$SYSTRACE" "$PROGRAMS" "$TMPDIR" <<'PY' || check_problem "job control (above)"
import os, re, signal, sys, time
sys.path.insert(0, os.environ["E2E_DIR"])
import csvtool
from ptyshell import PtyShell, proc_stat

systrace, programs, tmp = sys.argv[1:4]
outdir = os.path.join(tmp, "jobctl")
sh = PtyShell()
problems = []
expect, send, read_some = sh.expect, sh.send, sh.read_some

def ticks_after(offset):
    return [int(x) for x in re.findall(rb"^tick (\d+)\r?$", sh.transcript[offset:], re.M)]

def comm(pid):
    st = proc_stat(pid)
    return st[0] if st else ""

def stat_of(pid):
    """The fields of /proc/PID/stat after the command name (state first), or []."""
    st = proc_stat(pid)
    return st[1] if st else []

def ppid(pid):
    fields = stat_of(pid)
    return int(fields[1]) if fields else 0

def done(ok):
    if not ok:
        for p in problems:
            print("FAIL: " + p)
        print("--- terminal transcript ---")
        print(sh.text())
        print("---------------------------")
    sh.close()
    sys.exit(0 if ok else 1)

try:
    if not expect(r"PROMPT> ", 20):
        problems.append("the interactive shell printed no prompt within 20 s")
        done(False)
    mark = sh.mark()
    send(f"{systrace} --patch=off -o {outdir} -- {programs}/ticks 60 50\n")
    if not expect(r"^tick 5\r?\n", 60, mark):
        problems.append("no 'tick 5' within 60 s of starting systrace")
        done(False)
    send("\x1a")  # Ctrl-Z
    m = expect(r"Stopped|stopped|Suspended", 20, mark)
    if not m:
        problems.append("after Ctrl-Z the shell did not report the job stopped within 20 s")
        done(False)
    read_some(0.3)
    stopped_at = sh.mark()
    last = max(ticks_after(mark))
    end = time.monotonic() + 1.0  # one second stopped: 20 ticks if it were running
    while time.monotonic() < end:
        read_some(0.1)
    more = ticks_after(stopped_at)
    if more:
        problems.append(f"the ticks went on while the job was stopped: {more} after tick {last}")
    print(f"stopped after tick {last}")
    mark2 = sh.mark()
    send("fg\n")
    if not expect(r"^ticks done\r?$", 60, mark2):
        problems.append("after fg the program did not finish ('ticks done') within 60 s")
        done(False)
    if not expect(r"PROMPT> ", 30, mark2):
        problems.append("no prompt within 30 s after the program finished (systrace did not exit?)")
        done(False)
    mark3 = sh.mark()
    send('echo "RC=$?"\n')
    m = expect(r"^RC=(\d+)\r?$", 10, mark3)
    if not m:
        problems.append("could not read the job's exit status")
        done(False)
    rc = int(m.group(1))
    resumed = ticks_after(mark2)
    print(f"resumed with ticks {resumed[:1]}..{resumed[-1:]}, status {rc}")
    if rc != 0:
        problems.append(f"systrace's status after fg is {rc}, expected 0")
    all_ticks = ticks_after(mark)
    if sorted(set(all_ticks)) != list(range(1, 61)):
        problems.append(f"the ticks are not 1..60 once each: {all_ticks}")
    text = sh.text()
    for marker in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
        if marker in text:
            problems.append(f"sanitizer report in the terminal output ({marker})")
    try:
        rows = csvtool.load_processes(outdir)
        csvtool.load_summary(outdir)
        mine = [r for r in rows if os.path.basename(r["exe"]) == "ticks"]
        if len(mine) != 1:
            problems.append(f"processes.csv has {len(mine)} rows for ticks, expected 1")
        elif mine[0]["exit"] != "exit:0":
            problems.append(f"the ticks row has exit {mine[0]['exit']!r}, expected exit:0")
        counts = csvtool.systrace_counts(outdir)
        if counts.get("write", 0) != 61:
            problems.append(f"ticks made 61 writes, systrace counted {counts.get('write', 0)}")
        problems.extend(csvtool.check_consistency(outdir))
    except csvtool.CheckError as e:
        problems.append(f"the CSV files are not complete: {e}")

    # SIGTSTP to the job's process group from elsewhere (as `kill -TSTP %1` from
    # another shell of the session): the command gets it once, stops, and systrace
    # with it; fg continues both
    mark = sh.mark()
    send(f"{systrace} --patch=off -o {outdir}-pgrp -- {programs}/ticks 40 50\n")
    if not expect(r"^tick 5\r?\n", 60, mark):
        problems.append("group SIGTSTP: no 'tick 5' within 60 s of starting systrace")
        done(False)
    tracers = [p for p in sh.session_pids() if comm(p) == "systrace"]
    if len(tracers) != 1:
        problems.append(f"group SIGTSTP: expected one systrace in the session, found {tracers}")
        done(False)
    os.killpg(os.getpgid(tracers[0]), signal.SIGTSTP)
    end = expect(r"Stopped|stopped|Suspended", 20, mark)
    if not end or not expect(r"PROMPT> ", 20, end.end()):
        problems.append("group SIGTSTP: the shell did not report the job stopped within 20 s")
        done(False)
    mark2 = sh.mark()
    send("fg\n")
    end = expect(r"^ticks done\r?$", 60, mark2)
    if not end or not expect(r"PROMPT> ", 30, end.end()):
        problems.append("group SIGTSTP: after fg the program did not finish within 60 s")
        done(False)
    rc = sh.status()
    got = ticks_after(mark)
    if rc != 0 or sorted(set(got)) != list(range(1, 41)) or len(got) != 40:
        problems.append(f"group SIGTSTP: status {rc} (expected 0), ticks {got} (expected 1..40 once each)")
    print(f"group SIGTSTP: stopped, went on after fg, status {rc}")

    # Ctrl-Z on a command that ignores or handles SIGTSTP: natively nothing stops,
    # so nothing may stop under systrace (in-process path and --patch=off)
    for how, mode in (("ignore", "--patch=off"), ("handle", "")):
        mark = sh.mark()
        send(f"{systrace} {mode} -o {outdir}-{how} -- {programs}/ticks 30 50 {how}\n")
        if not expect(r"^tick 5\r?\n", 60, mark):
            problems.append(f"{how}: no 'tick 5' within 60 s of starting systrace")
            done(False)
        send("\x1a")
        if how == "handle" and not expect(r"caught SIGTSTP\r?$", 20, mark):
            problems.append("handle: the program's SIGTSTP handler did not run within 20 s of Ctrl-Z")
        if not expect(r"^ticks done\r?$", 60, mark) or not expect(r"PROMPT> ", 30, mark):
            problems.append(f"{how}: after Ctrl-Z the program did not finish within 60 s (the job stopped?)")
            done(False)
        rc = sh.status()
        if re.search(r"Stopped|stopped|Suspended", sh.text(mark)):
            problems.append(f"{how}: the shell reported the job stopped, natively nothing stops")
        if rc != 0:
            problems.append(f"{how}: status {rc}, expected 0")
        print(f"SIGTSTP {how}d ({mode or 'default mode'}): not stopped, status {rc}")

    # After the command's exit, what it left (still traced: systrace waits for it)
    # is no job: natively the shell has the command's status and the terminal back,
    # and no stop reaches those processes. Neither Ctrl-Z nor a SIGTSTP sent to
    # systrace may stop them (stopped, nobody would continue them: systrace hung)
    for how in ("Ctrl-Z", "kill -TSTP systrace"):
        mark = sh.mark()
        send(f"{systrace} -o {outdir}-left -- sh -c '{programs}/ticks 40 50 & exit 0'\n")
        if not expect(r"^tick 5\r?\n", 60, mark):
            problems.append(f"left behind, {how}: no 'tick 5' within 60 s of starting systrace")
            done(False)
        # only once systrace has reaped the command (sh) are the ticks left behind;
        # before, the stop is the command's and applies (as natively)
        def left_behind():
            pids = sh.session_pids()
            tracers = {p for p in pids if comm(p) == "systrace"}
            shells = [p for p in pids if comm(p) in ("sh", "dash") and ppid(p) in tracers]
            ticks = [p for p in pids if comm(p) == "ticks"]
            return bool(tracers) and bool(ticks) and not shells
        if not sh.wait_for(left_behind, 30):
            pids = sh.session_pids()
            problems.append(f"left behind, {how}: within 30 s of 'tick 5', never systrace's command (sh) reaped "
                            f"with its ticks still running; the session (pid, comm, ppid): "
                            f"{[(p, comm(p), ppid(p)) for p in pids]}")
            done(False)
        if how == "Ctrl-Z":
            send("\x1a")
        else:
            tracers = [p for p in sh.session_pids() if comm(p) == "systrace"]
            if len(tracers) != 1:
                problems.append(f"left behind: expected one systrace in the session, found {tracers}")
                done(False)
            os.kill(tracers[0], signal.SIGTSTP)
        # (the prompt after it: one may come before, after a line typed ahead)
        end = expect(r"^ticks done\r?$", 60, mark)
        if not end or not expect(r"PROMPT> ", 30, end.end()):
            problems.append(f"left behind, {how}: the program left running did not finish within 60 s, "
                            "or systrace did not exit after it (stopped, or hung)")
            done(False)
        rc = sh.status()
        if re.search(r"Stopped|stopped|Suspended", sh.text(mark)):
            problems.append(f"left behind, {how}: the shell reported a stopped job")
        if rc != 0:
            problems.append(f"left behind, {how}: status {rc}, expected 0 (sh's)")
        # (the terminal echoes ^Z at the start of the line the next tick ends)
        left = [int(x) for x in re.findall(rb"^(?:\^Z)?tick (\d+)\r?$", sh.transcript[mark:], re.M)]
        if sorted(set(left)) != list(range(1, 41)) or len(left) != 40:
            problems.append(f"left behind, {how}: the ticks are not 1..40 once each: {left}")
        print(f"left behind, {how}: not stopped, finished, status {rc}")

    # A SIGCONT that comes after the command stopped but before systrace stopped
    # itself (it first serves its other tracees: here a child that ignores SIGTSTP
    # and makes calls until a file exists) continues the job: natively the command
    # goes on, so systrace must not stop afterwards, with nobody to continue it
    marker = os.path.join(tmp, "busy-marker")
    mark = sh.mark()
    send(f"{systrace} --patch=off -o {outdir}-cont -- {programs}/busy_child {marker}\n")
    if not expect(r"^child started\r?\n", 60, mark):
        problems.append("SIGCONT: no 'child started' within 60 s of starting systrace")
        done(False)
    send("\x1a")
    # the command's group-stop, taken by systrace: the command stays stopped ('t')
    # while systrace serves 50 of the child's stops (its voluntary context
    # switches), which it serves in turn with the command's
    def switches(pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                return int(next(l.split()[1] for l in f if l.startswith("voluntary_ctxt_switches")))
        except (OSError, StopIteration, ValueError):
            return None
    stopped_for, base, end = False, None, time.monotonic() + 30
    while not stopped_for and time.monotonic() < end:
        roots = [p for p in sh.session_pids() if comm(p) == "busy_child" and comm(ppid(p)) == "systrace"]
        kids = [p for p in sh.session_pids() if roots and ppid(p) == roots[0]]
        now = switches(kids[0]) if len(roots) == 1 and len(kids) == 1 and stat_of(roots[0])[:1] == ["t"] else None
        if now is None:
            base = None
        elif base is None:
            base = now
        else:
            stopped_for = now - base >= 50
        sh.drain(0.05)
    if not stopped_for:
        problems.append("SIGCONT: the command was not seen stopped, its child served, within 30 s of Ctrl-Z")
        done(False)
    tracers = [p for p in sh.session_pids() if comm(p) == "systrace"]
    os.killpg(os.getpgid(tracers[0]), signal.SIGCONT)  # as `bg` or `fg` would
    with open(marker, "w"):
        pass
    end = expect(r"^(?:\^Z)?busy_child done\r?$", 60, mark)
    if not end or not expect(r"PROMPT> ", 30, end.end()):
        problems.append("SIGCONT: the command did not finish within 60 s of SIGCONT")
        done(False)
    rc = sh.status()
    jobs = sh.run("jobs", 10)
    if rc != 0 or jobs is None or re.search(r"Stopped|stopped|Suspended", sh.text(mark)):
        problems.append(f"SIGCONT: systrace stopped after the job was continued (status {rc}, "
                        "expected 0; see `jobs` in the transcript)")
    print(f"SIGCONT before systrace stopped: finished, status {rc}")

    # A command that stops itself (kill -STOP $$, kill -TSTP $$): natively the shell
    # shows the job stopped, and fg continues it
    for how in ("STOP", "TSTP"):
        mark = sh.mark()
        send(f"{systrace} -o {outdir}-self -- sh -c 'kill -{how} $$; echo resumed'\n")
        end = expect(r"Stopped|stopped|Suspended", 20, mark)
        if not end or not expect(r"PROMPT> ", 20, end.end()):
            problems.append(f"self-stop ({how}): the shell did not report the job stopped within 20 s")
            done(False)
        mark2 = sh.mark()
        send("fg\n")
        end = expect(r"^resumed\r?$", 30, mark2)
        if not end or not expect(r"PROMPT> ", 30, end.end()):
            problems.append(f"self-stop ({how}): after fg the command did not go on within 30 s")
            done(False)
        rc = sh.status()
        if rc != 0:
            problems.append(f"self-stop ({how}): status {rc} after fg, expected 0")
        print(f"self-stop ({how}): shown stopped, went on after fg, status {rc}")

    # A background job that reads the terminal (SIGTTIN) or writes to it with tostop
    # (SIGTTOU) stops, as natively; fg lets it go on
    def stopped_in_background(what, kind, command):
        end = time.monotonic() + 30
        while time.monotonic() < end:
            mark = sh.run("jobs", 10)
            if mark is not None and re.search(r"Stopped.*" + re.escape(command), sh.text(mark)):
                return True
            sh.drain(0.3)
        problems.append(f"{what}: `jobs` never showed the background job ({kind}) stopped within 30 s")
        return False

    mark = sh.mark()
    if sh.run(f"{systrace} -o {outdir}-ttin -- cat &", 20) is None or not stopped_in_background("SIGTTIN", "tty input", "-- cat"):
        done(False)
    mark = sh.mark()
    send("fg\n")
    # bash prints the job's command line as it takes it to the foreground, then
    # continues it: the line is typed once cat waits in its read, in the terminal's
    # foreground group (typed before bash read `fg`, it would not be echoed)
    if not expect(r"-- cat\r?$", 20, mark):
        problems.append("SIGTTIN: bash did not print the job's command line within 20 s of `fg`")
        done(False)
    if not sh.wait_for(lambda: sh.asleep_in_foreground("cat"), 30):
        problems.append("SIGTTIN: after fg, cat was not seen waiting in its read (state S, in the "
                        "terminal's foreground group) within 30 s")
        done(False)
    send("typed to cat\n")
    # the terminal's echo of the line, then cat's copy of it
    if not expect(r"^typed to cat\r?\n(?:[^\n]*\n)*?typed to cat\r?$", 20, mark):
        problems.append("SIGTTIN: after fg, cat did not copy the typed line within 20 s")
    send("\x04")
    if not expect(r"PROMPT> ", 30, mark):
        problems.append("SIGTTIN: no prompt within 30 s of Ctrl-D to cat")
        done(False)
    rc = sh.status()
    if rc != 0:
        problems.append(f"SIGTTIN: status {rc} after fg and Ctrl-D, expected 0")
    print(f"SIGTTIN: stopped in the background, went on after fg, status {rc}")

    if sh.run("stty tostop", 10) is None:
        problems.append("stty tostop gave no prompt back")
        done(False)
    if sh.run(f"{systrace} -o {outdir}-ttou -- {programs}/ticks 3 10 &", 20) is None or not stopped_in_background("SIGTTOU", "tty output", "ticks 3 10"):
        done(False)
    mark = sh.mark()
    send("fg\n")
    if not expect(r"^ticks done\r?$", 60, mark) or not expect(r"PROMPT> ", 30, mark):
        problems.append("SIGTTOU: after fg the program did not finish within 60 s")
        done(False)
    rc = sh.status()
    if rc != 0:
        problems.append(f"SIGTTOU: status {rc} after fg, expected 0")
    print(f"SIGTTOU: stopped in the background, finished after fg, status {rc}")
    # systrace's own messages (--show-perf-stats at the end of a background job,
    # under tostop): none lost, nothing stopped (its write must not send the group
    # SIGTTOU, nor fail with EINTR in systrace's handler)
    mark = sh.mark()
    if sh.run(f"{systrace} --show-perf-stats -o {outdir}-own -- true &", 20) is None:
        problems.append("own messages: no prompt within 20 s of starting systrace in the background")
        done(False)
    # (its status read back, not the next prompt: the one bash printed after "[1] PID"
    # may come after the line typed)
    waited = sh.mark()
    send('wait %1; echo "WAITED=$?"\n')
    m = expect(r"^WAITED=(\d+)\r?$", 60, waited)
    if not m or m.group(1) != b"0":
        problems.append(f"own messages: the background job did not end with status 0 within 60 s "
                        f"({m.group(0).decode().strip() if m else 'no status'})")
        done(False)
    try:
        metrics = csvtool.load_summary(f"{outdir}-own")
    except csvtool.CheckError as e:
        problems.append(f"own messages: the CSV files are not complete: {e}")
        metrics = {}
    shown = set(re.findall(r"^(\w+):", sh.text(mark), re.M))
    lost = [k for k in metrics if k not in shown]
    if lost or not metrics:
        problems.append(f"own messages: {len(lost)} of the summary's {len(metrics)} lines missing on the terminal: {lost[:5]}")
    if re.search(r"Stopped|stopped|Suspended", sh.text(mark)):
        problems.append("own messages: the shell reported the job stopped")
    print(f"own messages under tostop: {len(metrics) - len(lost)} of {len(metrics)} summary lines shown, status 0")
    sh.run("stty -tostop", 10)
    send("exit\n")
    done(not problems)
except SystemExit:
    raise
except BaseException as e:
    problems.append(f"unexpected error: {e!r}")
    done(False)
PY
finish
