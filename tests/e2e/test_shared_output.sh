#!/bin/sh
# Two runs, one output folder: a run locks its folder for its whole length (an flock
# on DIR/.systrace.lock) and writes temporary files of its own (.NAME.csv.PID.partial):
#  - a second run with the same -o while the first's command runs is refused at
#    start: status 125, a message naming the folder, that it is in use and the
#    first's pid; its command never runs; the first exits 0 with whole files
#    (consistent) and leaves neither lock nor temporary file;
#  - the same for two runs without -o in one working folder (./systrace-out);
#  - two runs started at once, 3 times: exactly one runs, the other is refused;
#  - a run killed by SIGKILL (its lock dies with it) does not block the next, which
#    removes the temporary files the killed one left;
#  - files that cannot be written at the end keep the command's status visible: a
#    folder the command removes (the rename fails) and, where a tmpfs can be
#    mounted here, a full disk: status 125, stderr names the error and says the
#    command's status (3); a command killed by SIGTERM: systrace still dies by
#    SIGTERM (143 in the shell), saying so; no temporary file is left.
# Every wait is bounded.
. "$(dirname "$0")/lib.sh"
T=$TMPDIR

# wait_file FILE SECONDS: until FILE exists; 1 if it never did
wait_file() {
	_n=0
	while [ ! -e "$1" ]; do
		_n=$((_n + 1))
		[ "$_n" -gt $(($2 * 20)) ] && return 1
		sleep 0.05
	done
	return 0
}

# leftovers DIR WHAT: no lock file and no temporary file in DIR
leftovers() {
	for f in "$1"/.systrace.lock "$1"/.*.partial; do
		[ -e "$f" ] && check_problem "$2: left behind: $f"
	done
}

# holder DIR NAME: starts systrace -o DIR on a command that says it started
# ($T/NAME.started, holding its parent's pid: systrace's) and waits for $T/NAME.go;
# started_holder NAME then sets HOLDER to systrace's pid
holder() {
	rm -f "$T/$2.started" "$T/$2.go"
	timeout -k 10 "$RUN_TIMEOUT" "$SYSTRACE" -o "$1" -- sh -c \
		"echo \$PPID >'$T/$2.pid'; mv '$T/$2.pid' '$T/$2.started'; while [ ! -e '$T/$2.go' ]; do sleep 0.05; done" \
		>"$T/$2.out" 2>"$T/$2.err" &
	HOLDER_JOB=$!
}
started_holder() {
	wait_file "$T/$1.started" "$RUN_TIMEOUT" || check_problem "$1: the first run's command did not start"
	HOLDER=$(cat "$T/$1.started" 2>/dev/null)
}

# the holder's end: status 0, whole files with its rows alone
holder_done() {
	touch "$T/$2.go"
	wait "$HOLDER_JOB"
	_st=$?
	[ "$_st" -eq 0 ] || check_problem "$3: the first run exited $_st, expected 0"
	no_sanitizer_report "$T/$2.err" "$3 (first run)"
	if require_file "$1/summary.csv" "$3 (first run)"; then
		csvtool consistency "$1" --any-mode >"$T/$2.consistency" 2>&1 ||
			{ check_problem "$3: the first run's files are not consistent"; sed 's/^/    | /' "$T/$2.consistency"; }
		[ "$(grep -c '^[0-9]' "$1/processes.csv")" -ge 2 ] ||
			check_problem "$3: the first run's processes.csv has fewer rows than its sh and sleeps"
	fi
	leftovers "$1" "$3"
}

# refused DIR NAME WHAT [-o DIR or nothing]: a second run is refused
refused() {
	_d=$1 _name=$2 _what=$3
	shift 3
	rm -f "$T/$_name.never"
	timeout -k 10 "$RUN_TIMEOUT" "$SYSTRACE" "$@" -- sh -c "touch '$T/$_name.never'" >"$T/$_name.2.out" 2>"$T/$_name.2.err"
	_st=$?
	no_sanitizer_report "$T/$_name.2.err" "$_what (second run)"
	if [ "$_st" -ne 125 ]; then
		check_problem "$_what: the second run exited $_st, expected 125 (refused)"
		sed 's/^/    | /' "$T/$_name.2.err"
	elif ! grep -q "in use by another systrace run (pid $HOLDER)" "$T/$_name.2.err" ||
		! grep -qF "$_d" "$T/$_name.2.err"; then
		check_problem "$_what: the refusal does not name the folder, that it is in use, and pid $HOLDER:"
		sed 's/^/    | /' "$T/$_name.2.err"
	else
		echo "ok   $_what: refused: $(cat "$T/$_name.2.err")"
	fi
	[ -e "$T/$_name.never" ] && check_problem "$_what: the refused run's command ran"
}

echo "== the same -o"
holder "$T/same" same
started_holder same
refused "$T/same" same "same -o" -o "$T/same"
holder_done "$T/same" same "same -o"

echo "== no -o, one working folder"
mkdir -p "$T/cwd"
(cd "$T/cwd" && holder systrace-out cwd && wait "$HOLDER_JOB" && echo 0 >"$T/cwd.status") &
sub=$!
started_holder cwd
(cd "$T/cwd" && refused systrace-out cwd "no -o")
touch "$T/cwd.go"
wait "$sub"
[ -f "$T/cwd.status" ] || check_problem "no -o: the first run did not exit 0"
require_file "$T/cwd/systrace-out/summary.csv" "no -o (first run)" &&
	{ csvtool consistency "$T/cwd/systrace-out" --any-mode >/dev/null 2>&1 || check_problem "no -o: the first run's files are not consistent"; }
leftovers "$T/cwd/systrace-out" "no -o"

echo "== two runs started at once"
for try in 1 2 3; do
	d=$T/race$try
	# race_run R: one of the two runs (a or b), in the background
	race_run() {
		rm -f "$T/race$try$1.started"
		timeout -k 10 "$RUN_TIMEOUT" "$SYSTRACE" -o "$d" -- sh -c \
			"touch '$T/race$try$1.started'; while [ ! -e '$T/race$try.go' ]; do sleep 0.05; done" \
			>"$T/race$try$1.out" 2>"$T/race$try$1.err"
	}
	race_run a &
	pid_a=$!
	race_run b &
	pid_b=$!
	# one of them starts its command; the other is refused (and so has exited)
	n=0
	while :; do
		started=0
		for r in a b; do [ -e "$T/race$try$r.started" ] && started=$((started + 1)); done
		refused_one=0
		grep -qs "in use by another systrace run" "$T/race${try}a.err" "$T/race${try}b.err" && refused_one=1
		[ "$started" -ge 1 ] && [ "$refused_one" -eq 1 ] && break
		n=$((n + 1))
		[ "$n" -gt $((RUN_TIMEOUT * 20)) ] && break
		sleep 0.05
	done
	touch "$T/race$try.go"
	wait "$pid_a"
	st_a=$?
	wait "$pid_b"
	st_b=$?
	for r in a b; do no_sanitizer_report "$T/race$try$r.err" "race $try ($r)"; done
	case "$st_a:$st_b" in
	0:125 | 125:0) echo "ok   race $try: statuses $st_a and $st_b" ;;
	*)
		check_problem "race $try: statuses $st_a and $st_b, expected one 0 and one 125"
		sed 's/^/    | /' "$T/race${try}a.err" "$T/race${try}b.err"
		;;
	esac
	require_file "$d/summary.csv" "race $try" &&
		{ csvtool consistency "$d" --any-mode >/dev/null 2>&1 || check_problem "race $try: the files are not consistent"; }
	leftovers "$d" "race $try"
done

echo "== a run killed by SIGKILL does not block the next"
holder "$T/killed" killed
started_holder killed
kill -KILL "$HOLDER"
wait "$HOLDER_JOB"
left=0
for f in "$T/killed"/.*.partial; do [ -e "$f" ] && left=1; done
[ "$left" -eq 1 ] || check_problem "killed: the killed run left no temporary file (the test proves nothing)"
timeout -k 10 "$RUN_TIMEOUT" "$SYSTRACE" -o "$T/killed" -- true >"$T/killed.next.out" 2>"$T/killed.next.err"
st=$?
no_sanitizer_report "$T/killed.next.err" "after a killed run"
if [ "$st" -ne 0 ]; then
	check_problem "after a killed run: the next run in its folder exited $st, expected 0"
	sed 's/^/    | /' "$T/killed.next.err"
fi
require_file "$T/killed/summary.csv" "after a killed run"
leftovers "$T/killed" "after a killed run"

# unwritable DIR NAME WHAT WANT_STATUS MENTION COMMAND: the files cannot be written
unwritable() {
	_d=$1 _name=$2 _what=$3 _want=$4 _mention=$5
	shift 5
	timeout -k 10 "$RUN_TIMEOUT" "$SYSTRACE" -o "$_d" -- sh -c "$1" >"$T/$_name.out" 2>"$T/$_name.err"
	_st=$?
	no_sanitizer_report "$T/$_name.err" "$_what"
	if [ "$_st" -ne "$_want" ]; then
		check_problem "$_what: systrace exited $_st, expected $_want"
		sed 's/^/    | /' "$T/$_name.err"
	elif ! grep -qF "$_mention" "$T/$_name.err"; then
		check_problem "$_what: stderr does not say '$_mention':"
		sed 's/^/    | /' "$T/$_name.err"
	else
		echo "ok   $_what: status $_st; $(tr '\n' ' ' <"$T/$_name.err")"
	fi
	[ -d "$_d" ] && leftovers "$_d" "$_what"
}

echo "== files that cannot be written at the end"
unwritable "$T/removed" removed "folder removed by the command" 125 "the command exited with status 3" \
	"rm -rf '$T/removed'; exit 3"
grep -q "cannot rename" "$T/removed.err" || check_problem "folder removed: stderr does not name the failed rename"
unwritable "$T/removed2" removed2 "folder removed, command killed by SIGTERM" 143 "killed by signal 15" \
	"rm -rf '$T/removed2'; kill -TERM \$\$"

mkdir -p "$T/full"
if mount -t tmpfs -o size=16k systrace-test "$T/full" 2>"$T/mount.err"; then
	# 100 processes: processes.csv and sites.csv outgrow 16 KiB
	unwritable "$T/full/o" full "full disk" 125 "the command exited with status 3" \
		'for i in 1 2 3 4 5 6 7 8 9 10; do for j in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done; done; exit 3'
	grep -q "No space left on device" "$T/full.err" || check_problem "full disk: stderr does not say 'No space left on device'"
	umount "$T/full"
else
	echo "skip full disk: cannot mount a tmpfs here ($(cat "$T/mount.err"))"
fi

finish
