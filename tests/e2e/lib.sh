# Shared helpers of the end-to-end tests; sourced by every tests/e2e/test_*.sh.
#
# Environment (set by run-all.sh):
#   SYSTRACE        the sanitized build (ASan + UBSan): used for correctness
#   SYSTRACE_PLAIN  the plain build: used for measurements
#   PROGRAMS        the built tests/programs
#   TMPDIR          a fresh folder for this test
#
# Conventions: a test prints what it does, calls fail "message" on the first hard
# failure (exit 1), or check_problem "message" to record a failure and go on, then
# finish to exit with the verdict.

E2E_DIR=$(cd "$(dirname "$0")" && pwd)
CSVTOOL="$E2E_DIR/csvtool.py"
: "${SYSTRACE:?SYSTRACE is not set (run tests through tests/e2e/run-all.sh BUILD)}"
: "${SYSTRACE_PLAIN:=$SYSTRACE}"
: "${PROGRAMS:?PROGRAMS is not set}"
: "${TMPDIR:=/tmp}"
# Leaks are failures too; the reports go to stderr, which the helpers check.
: "${ASAN_OPTIONS:=detect_leaks=1:abort_on_error=0}"
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export ASAN_OPTIONS UBSAN_OPTIONS
# Upper bound on one traced run, so that a hung tracer fails the test, not the suite.
: "${RUN_TIMEOUT:=60}"

PROBLEMS=0

fail() {
	echo "FAIL: $*"
	exit 1
}

check_problem() {
	echo "FAIL: $*"
	PROBLEMS=$((PROBLEMS + 1))
}

finish() {
	if [ "$PROBLEMS" -ne 0 ]; then
		echo "$PROBLEMS problem(s)"
		exit 1
	fi
	echo "ok"
	exit 0
}

# no_sanitizer_report FILE WHAT: records a failure when FILE (a stderr capture) holds
# an AddressSanitizer, LeakSanitizer or UBSan report.
no_sanitizer_report() {
	if grep -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|LeakSanitizer has encountered' "$1" >/dev/null 2>&1; then
		check_problem "sanitizer report while running $2:"
		sed 's/^/    | /' "$1" | head -60
		return 1
	fi
	return 0
}

# st_run DIR CMD [ARG...]: runs `$SYSTRACE --patch=off -o DIR -- CMD...` (bounded by
# RUN_TIMEOUT), stdout to DIR.out, stderr to DIR.err; sets ST_STATUS; records a
# failure on a sanitizer report or a timeout. ST_OPTS adds options before --.
st_run() {
	_dir=$1
	shift
	rm -rf "$_dir"
	# shellcheck disable=SC2086 # ST_OPTS is a list of options
	timeout --foreground -k 10 "$RUN_TIMEOUT" "$SYSTRACE" --patch=off ${ST_OPTS:-} -o "$_dir" -- "$@" \
		>"$_dir.out" 2>"$_dir.err"
	ST_STATUS=$?
	if [ "$ST_STATUS" -eq 124 ]; then
		check_problem "systrace --patch=off -o $_dir -- $* did not finish within ${RUN_TIMEOUT}s"
	fi
	no_sanitizer_report "$_dir.err" "systrace -- $*"
	return 0
}

# st_show_err DIR: prints a run's stderr, indented (for failure messages).
st_show_err() {
	sed 's/^/    | /' "$1.err" | head -40
}

# strace_count FILE CMD [ARG...]: `strace -f -c -U name,calls -o FILE CMD...`; the
# command's own output goes to FILE.out. Sets STRACE_STATUS.
strace_count() {
	_file=$1
	shift
	timeout --foreground -k 10 "$RUN_TIMEOUT" strace -f -c -U name,calls -o "$_file" -- "$@" >"$_file.out" 2>&1
	STRACE_STATUS=$?
	return 0
}

# csvtool SUBCOMMAND ARGS...: see csvtool.py.
csvtool() {
	python3 "$CSVTOOL" "$@"
}

# compare_with_strace NAME EXTRA CMD [ARG...]: runs CMD under systrace --patch=off and
# under strace -f -c, and checks that systrace's per-syscall counts (x86_64, summed
# over every row of syscalls.csv) equal strace's plus EXTRA, a space-separated list
# of name=N: the calls strace -c cannot count because they never return (exit,
# exit_group) or were in flight when their process was killed.
compare_with_strace() {
	_name=$1
	_extra=$2
	shift 2
	echo "== $_name: $*"
	st_run "$TMPDIR/$_name" "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$_name: systrace exited $ST_STATUS, the program exits 0"
		st_show_err "$TMPDIR/$_name"
		return 1
	fi
	strace_count "$TMPDIR/$_name.strace" "$@"
	if [ "$STRACE_STATUS" -ne 0 ]; then
		check_problem "$_name: under strace the program exited $STRACE_STATUS (a broken test program?)"
		return 1
	fi
	# shellcheck disable=SC2086
	if ! csvtool compare "$TMPDIR/$_name" "$TMPDIR/$_name.strace" x86_64 $_extra; then
		check_problem "$_name: per-syscall counts differ from strace -f -c (+ $_extra)"
		return 1
	fi
	return 0
}

# expect_count DIR ABI NAME N WHAT: systrace counted exactly N calls of NAME.
expect_count() {
	_got=$(csvtool counts "$1" "$2" | awk -v n="$3" '$1 == n { print $2 }')
	: "${_got:=0}"
	if [ "$_got" != "$4" ]; then
		check_problem "$5: $3 ($2) counted $_got times, expected $4 by construction"
		return 1
	fi
	return 0
}
