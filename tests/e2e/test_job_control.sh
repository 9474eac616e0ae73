#!/bin/sh
# Job control: in an interactive shell on a pseudo-terminal, run
#   systrace --patch=off -o D -- ticks 60 50
# (a tick every 50 ms), press Ctrl-Z after a few ticks: the shell reports the job
# stopped and no tick appears while it is stopped; `fg`: the ticks resume, the
# program finishes ("ticks done"), the status is 0 and the CSV files are complete
# (summary.csv, the ticks row with exit:0, consistent). Every wait is bounded; on
# failure the terminal transcript is printed and the session's processes are killed.
. "$(dirname "$0")/lib.sh"
export E2E_DIR

python3 - "$SYSTRACE" "$PROGRAMS" "$TMPDIR" <<'PY' || check_problem "job control (above)"
import os, re, sys, time
sys.path.insert(0, os.environ["E2E_DIR"])
import csvtool
from ptyshell import PtyShell

systrace, programs, tmp = sys.argv[1:4]
outdir = os.path.join(tmp, "jobctl")
sh = PtyShell()
problems = []
expect, send, read_some = sh.expect, sh.send, sh.read_some

def ticks_after(offset):
    return [int(x) for x in re.findall(rb"^tick (\d+)\r?$", sh.transcript[offset:], re.M)]

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
    if not expect(r"^tick 5\r?$", 60, mark):
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
    send("exit\n")
    done(not problems)
except SystemExit:
    raise
except BaseException as e:
    problems.append(f"unexpected error: {e!r}")
    done(False)
PY
finish
