#!/bin/sh
# --tracer-nice (tracer/tracer_nice.h): the thread that serves the stops runs at
# systrace's own nice plus N (default -20) where the system allows it, and no traced
# process inherits it. The command reads its own nice, a child's, and those of its
# parent's threads (systrace's: the serving thread and the writer) from /proc, so
# the check needs no timing. Runs start at nice 5, so that the default shows as -15
# against the command's 5; then N = 0, N clamped both ways, the same run without
# CAP_SYS_NICE (the nice cannot go down: it stays 5, and a --tracer-nice given
# says so), and bad values. Where this test itself cannot lower a nice value (no
# CAP_SYS_NICE), every run is the refused case.
. "$(dirname "$0")/lib.sh"

# the command's own nice, its child's, then its parent's threads' nice values,
# sorted, on one line
SHOW='cut -d" " -f19 /proc/self/stat; sh -c "cut -d\" \" -f19 /proc/self/stat"; for t in /proc/$PPID/task/*; do cut -d" " -f19 $t/stat; done | sort -n | tr "\n" " "'
# from this shell's nice to 5
TO5=$((5 - $(nice)))
if nice -n -1 true 2>/dev/null; then can_lower=1; else can_lower=0; fi
echo "(this shell at nice $(nice); may lower a nice value: $can_lower)"

# run NAME EXPECT_TRACER EXPECT_THREADS [WRAPPER... --] [OPTION...]: the command
# and its child must show 5; EXPECT_THREADS is systrace's threads' with one serving
# thread
run() {
	_name=$1 _tracer=$2 _threads=$3
	shift 3
	_wrap=
	if [ "${1:-}" = drop ]; then
		_wrap=drop
		shift
	fi
	D=$TMPDIR/$_name
	if [ "$_wrap" = drop ]; then
		prlimit --nice=0:0 setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice \
			nice -n "$TO5" timeout -k 10 "$RUN_TIMEOUT" "$SYSTRACE" "$@" -o "$D" -- sh -c "$SHOW" >"$D.out" 2>"$D.err"
	else
		nice -n "$TO5" timeout -k 10 "$RUN_TIMEOUT" "$SYSTRACE" "$@" -o "$D" -- sh -c "$SHOW" >"$D.out" 2>"$D.err"
	fi
	st=$?
	no_sanitizer_report "$D.err" "$_name"
	[ "$st" -eq 0 ] || { check_problem "$_name: systrace exited $st: $(head -3 "$D.err")"; return; }
	require_file "$D/summary.csv" "$_name" || return
	got=$(summary_value "$D" tracer_nice)
	[ "$got" = "$_tracer" ] || check_problem "$_name: summary.csv tracer_nice is '$got', expected $_tracer"
	# the command and a process it started: systrace's own nice, never the tracer's
	own=$(sed -n 1,2p "$D.out" | tr '\n' ' ')
	[ "$own" = "5 5 " ] || check_problem "$_name: the traced processes' nice values are '$own', expected 5 for both"
	# with several serving threads (summary.csv's tracer_threads), each at the
	# tracer's value
	n=$(summary_value "$D" tracer_threads)
	want=$({
		for v in $_threads; do echo "$v"; done
		i=1
		while [ "$i" -lt "${n:-1}" ]; do
			echo "$_tracer"
			i=$((i + 1))
		done
	} | sort -n | tr '\n' ' ')
	threads=$(sed -n 3p "$D.out")
	[ "$threads" = "$want" ] ||
		check_problem "$_name: systrace's threads' nice values are '$threads', expected '$want'"
}

if [ "$can_lower" -eq 1 ]; then
	echo "== default: -20 from systrace's 5, the serving thread alone"
	run default -15 "-15 5 "
	grep -q 'warning' "$TMPDIR/default.err" && check_problem "default: a warning: $(cat "$TMPDIR/default.err")"
	echo "== --tracer-nice=-39: within -20"
	run low -20 "-20 5 " --tracer-nice=-39
fi
echo "== --tracer-nice=0: as it is"
run zero 5 "5 5 " --tracer-nice=0
echo "== --tracer-nice=30: within 19 (going up needs no privilege)"
run high 19 "5 19 " --tracer-nice=30

echo "== without CAP_SYS_NICE (RLIMIT_NICE 0): refused, the run goes on at its nice"
run refused 5 "5 5 " drop
grep -q 'warning' "$TMPDIR/refused.err" &&
	check_problem "refused: the default's refusal is not the user's to hear: $(cat "$TMPDIR/refused.err")"
run refused_given 5 "5 5 " drop --tracer-nice=-3
grep -q 'warning: --tracer-nice=-3: .*nice 5' "$TMPDIR/refused_given.err" ||
	check_problem "refused_given: no warning naming --tracer-nice=-3 and the nice it serves at: $(cat "$TMPDIR/refused_given.err")"

echo "== bad values: exit 125, naming the option"
for bad in x -40 40 "" 1.5 " 5" 5x; do
	"$SYSTRACE" --tracer-nice="$bad" -o "$TMPDIR/bad" -- true >/dev/null 2>"$TMPDIR/bad.err"
	st=$?
	[ "$st" -eq 125 ] || check_problem "--tracer-nice='$bad': exit $st, expected 125"
	grep -q -- "--tracer-nice" "$TMPDIR/bad.err" ||
		check_problem "--tracer-nice='$bad': the message does not name the option: $(cat "$TMPDIR/bad.err")"
done
finish
