#!/bin/sh
# A process with many supplementary groups has a Groups: line in /proc/PID/status
# long enough (400 ten-digit gids: 4.4 KB) to push the Sig* lines past the first
# 4 KiB, which the tracer reads at many stops (a signal pending for a thread, whether
# it has a handler). Under 400 such groups, systrace and the command set by a
# wrapper (setgroups, then exec):
#  - the construction: the command's own status has its SigCgt line past 4096 bytes;
#  - restarts (--patch=off, tests/programs/restarts.c): exit 0, readv 4, wait4 6,
#    getppid 4 (the restarts counted once each) and at least 4 restarts, as
#    test_restarts checks without the groups;
#  - interrupted_waits (as test_interrupted_waits): exit 0 within the run's bound
#    (it hung), epoll_wait 1, rt_sigtimedwait 1, getppid 6;
#  - handler_in_gate (as test_handler_in_gate): exit 0, blocking_read 1001 reads.
# Setting supplementary groups needs root (CAP_SETGID); the reading itself is the
# procfs unit suite's, which needs nothing.
. "$(dirname "$0")/lib.sh"
require_library
if [ "$(id -u)" -ne 0 ]; then
	echo "    not run: setting 400 supplementary groups needs root (the procfs unit tests read such a file)"
	finish
fi
W=$TMPDIR/groups400
cat >"$W" <<'SH'
#!/bin/sh
exec python3 -c 'import os, sys; os.setgroups(range(10**9, 10**9 + 400)); os.execvp(sys.argv[1], sys.argv[1:])' "$@"
SH
chmod +x "$W"
"$W" python3 -c 'import sys; t = open("/proc/self/status").read(); sys.exit(0 if t.index("\nSigCgt:") > 4096 else 1)' ||
	check_problem "the construction: under the wrapper, SigCgt lies within the first 4 KiB of /proc/self/status"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$W" "$SYSTRACE" >"$TMPDIR/systrace400"
chmod +x "$TMPDIR/systrace400"
ST_BIN=$TMPDIR/systrace400
export ST_BIN

echo "== restarts (--patch=off)"
D=$TMPDIR/restarts
st_run "$D" "$PROGRAMS/restarts"
[ "$ST_STATUS" -eq 0 ] || check_problem "restarts exited $ST_STATUS, expected 0"
expect_count "$D" x86_64 readv 4 restarts
expect_count "$D" x86_64 wait4 6 restarts
expect_count "$D" x86_64 getppid 4 restarts
if require_file "$D/processes.csv" restarts; then
	restarted=$(python3 -c 'import csv,sys; print(sum(int(r["restarted"]) for r in csv.DictReader(open(sys.argv[1], newline=""))))' "$D/processes.csv")
	[ "$restarted" -ge 4 ] || check_problem "restarts: restarted = $restarted, expected at least 4"
fi

echo "== interrupted_waits"
D=$TMPDIR/waits
st_run_clean interrupted_waits "$D" "$PROGRAMS/interrupted_waits"
expect_count "$D" x86_64 epoll_wait 1 interrupted_waits
expect_count "$D" x86_64 rt_sigtimedwait 1 interrupted_waits
expect_count "$D" x86_64 getppid 6 interrupted_waits

echo "== handler_in_gate"
D=$TMPDIR/handler_in_gate
st_run_clean handler_in_gate "$D" "$PROGRAMS/handler_in_gate"
expect_site_count "$D" symbol=blocking_read 1001 handler_in_gate
finish
