#!/bin/sh
# --tracer-nice (tracer/tracer_nice.h): the thread that serves the stops runs at
# systrace's own nice plus N (default -20) where the system allows it, and no traced
# process inherits it. The command reads its own nice and that of each of its
# parent's threads (systrace's: the serving thread and the writer) from /proc, so
# the check needs no timing. Run under `nice -n 5`, so that the default shows as -15
# against the command's 5; then N = 0, a clamped N, an unprivileged user (whose
# nice cannot go down: it stays 5), and bad values.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || fail "this test runs as root (it checks a nice value below 0, then drops to nobody)"

# the command's own nice, then its parent's threads' nice values, sorted, on one line
SHOW='cut -d" " -f19 /proc/self/stat; sh -c "cut -d\" \" -f19 /proc/self/stat"; for t in /proc/$PPID/task/*; do cut -d" " -f19 $t/stat; done | sort -n | tr "\n" " "'

# run NAME EXPECT_TRACER EXPECT_COMMAND EXPECT_THREADS [OPTION...]
run() {
	_name=$1 _tracer=$2 _cmd=$3 _threads=$4
	shift 4
	D=$TMPDIR/$_name
	nice -n 5 "$SYSTRACE" "$@" -o "$D" -- sh -c "$SHOW" >"$D.out" 2>"$D.err"
	st=$?
	no_sanitizer_report "$D.err" "$_name"
	[ "$st" -eq 0 ] || { check_problem "$_name: systrace exited $st: $(head -3 "$D.err")"; return; }
	require_file "$D/summary.csv" "$_name" || return
	got=$(awk -F, '$1 == "tracer_nice" { print $2 }' "$D/summary.csv")
	[ "$got" = "$_tracer" ] || check_problem "$_name: summary.csv tracer_nice is '$got', expected $_tracer"
	# the command and a process it started: systrace's own nice, never the tracer's
	own=$(sed -n 1,2p "$D.out" | tr '\n' ' ')
	[ "$own" = "$_cmd $_cmd " ] ||
		check_problem "$_name: the traced processes' nice values are '$own', expected $_cmd for both"
	threads=$(sed -n 3p "$D.out")
	[ "$threads" = "$_threads" ] ||
		check_problem "$_name: systrace's threads' nice values are '$threads', expected '$_threads'"
}

echo "== default: -20 from systrace's 5, the serving thread alone"
run default -15 5 "-15 5 "
echo "== --tracer-nice=0: as it is"
run zero 5 5 "5 5 " --tracer-nice=0
echo "== --tracer-nice=-39: within -20"
run low -20 5 "-20 5 " --tracer-nice=-39
echo "== --tracer-nice=30: within 19"
run high 19 5 "5 19 " --tracer-nice=30

echo "== an unprivileged user: refused, the run goes on at its nice"
# (a folder of its own: the test's TMPDIR is root's alone)
U=$(mktemp -d /tmp/systrace-nice.XXXXXX) || fail "mktemp failed"
trap 'rm -rf "$U"' EXIT
chmod 777 "$U"
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$U" SYSTRACE_CACHE="$U/cache" \
	nice -n 5 "$SYSTRACE" -o "$U/out" -- sh -c "$SHOW" >"$TMPDIR/nobody.out" 2>"$TMPDIR/nobody.err"
st=$?
no_sanitizer_report "$TMPDIR/nobody.err" "nobody"
[ "$st" -eq 0 ] || check_problem "nobody: systrace exited $st: $(head -3 "$TMPDIR/nobody.err")"
if require_file "$U/out/summary.csv" "nobody"; then
	got=$(awk -F, '$1 == "tracer_nice" { print $2 }' "$U/out/summary.csv")
	[ "$got" = 5 ] || check_problem "nobody: summary.csv tracer_nice is '$got', expected 5 (not allowed lower)"
fi
[ "$(sed -n 3p "$TMPDIR/nobody.out")" = "5 5 " ] ||
	check_problem "nobody: systrace's threads' nice values are '$(sed -n 3p "$TMPDIR/nobody.out")', expected '5 5 '"

echo "== bad values: exit 125, naming the option"
for bad in x -40 40 "" 1.5; do
	"$SYSTRACE" --tracer-nice="$bad" -o "$TMPDIR/bad" -- true >/dev/null 2>"$TMPDIR/bad.err"
	st=$?
	[ "$st" -eq 125 ] || check_problem "--tracer-nice='$bad': exit $st, expected 125"
	grep -q -- "--tracer-nice" "$TMPDIR/bad.err" ||
		check_problem "--tracer-nice='$bad': the message does not name the option: $(cat "$TMPDIR/bad.err")"
done
finish
