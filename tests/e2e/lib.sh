# Shared helpers of the end-to-end tests; sourced by every tests/e2e/test_*.sh.
#
# Environment (set by run-all.sh):
#   SYSTRACE        the sanitized build (ASan + UBSan): used for correctness
#   SYSTRACE_PLAIN  the plain build: used for measurements
#   SYSTRACE_STATS  systrace-stats (the sanitized build), for the analyses' tests
#   PROGRAMS        the built tests/programs
#   TMPDIR          a fresh folder for this test
#
# Conventions: a test prints what it does, calls fail "message" on the first hard
# failure (exit 1), or check_problem "message" to record a failure and go on, then
# finish to exit with the verdict. A check never passes over a file that is not
# there: the expect_* helpers below record a missing file as a failure (naming it),
# and a test guards its own checks with require_file, never with `[ -f F ] &&`.

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

# require_file FILE WHAT: records a failure naming FILE when it is not there (the run
# that should have written it failed, or wrote it elsewhere), and returns 1: so that
# `require_file F WHAT && check F` never lets a check pass over a missing file.
require_file() {
	if [ ! -f "$1" ]; then
		check_problem "$2: $1 is missing (the run did not write it)"
		return 1
	fi
	return 0
}

# The build folder (the plain systrace's).
BUILD_DIR=$(cd "$(dirname "$SYSTRACE_PLAIN")" && pwd)

# st_run_mode MODE DIR CMD [ARG...]: runs `$ST_BIN --patch=MODE -o DIR -- CMD...`
# (ST_BIN defaults to $SYSTRACE; MODE `default` gives no --patch option), bounded by
# RUN_TIMEOUT, stdout to DIR.out, stderr to DIR.err; sets ST_STATUS; records a
# failure on a sanitizer report or a timeout. ST_OPTS adds options before --.
st_run_mode() {
	_mode=$1
	_dir=$2
	shift 2
	_patch=--patch=$_mode
	[ "$_mode" = default ] && _patch=
	rm -rf "$_dir"
	# shellcheck disable=SC2086 # ST_OPTS is a list of options; _patch one or none
	timeout --foreground -k 10 "$RUN_TIMEOUT" "${ST_BIN:-$SYSTRACE}" $_patch ${ST_OPTS:-} -o "$_dir" -- "$@" \
		>"$_dir.out" 2>"$_dir.err"
	ST_STATUS=$?
	if [ "$ST_STATUS" -eq 124 ]; then
		check_problem "systrace $_patch ${ST_OPTS:-} -o $_dir -- $* did not finish within ${RUN_TIMEOUT}s"
	fi
	no_sanitizer_report "$_dir.err" "systrace $_patch -- $*"
	return 0
}

# st_run_in_pidns DIR WHAT SCRIPT [ARG...]: SCRIPT (sh -c; its $1 is systrace, $2
# DIR, then the ARGs) in a pid namespace of its own with its own /proc, bounded as
# st_run_mode is; output in DIR.out and DIR.err, which must hold no sanitizer
# report; sets ST_STATUS. (Root only: the caller checks that unshare works.)
st_run_in_pidns() {
	_ns_dir=$1
	_ns_what=$2
	_ns_script=$3
	shift 3
	timeout --foreground -k 10 "$RUN_TIMEOUT" unshare --pid --fork --kill-child --mount-proc \
		sh -c "$_ns_script" sh "$SYSTRACE" "$_ns_dir" "$@" >"$_ns_dir.out" 2>"$_ns_dir.err"
	ST_STATUS=$?
	[ "$ST_STATUS" -eq 124 ] && check_problem "$_ns_what did not finish within ${RUN_TIMEOUT}s"
	no_sanitizer_report "$_ns_dir.err" "systrace -- $_ns_what"
	return 0
}

# log_check DIR WHAT: DIR's temporal log read back by tests/e2e/logtool.py and held
# to the CSV files of the same run (every entry there, each thread's in time
# order); a problem naming WHAT, with logtool's first lines, when it does not add up.
log_check() {
	SYSCALL_TABLE=$BUILD_DIR/gen/syscall_table.c python3 "$E2E_DIR/logtool.py" check "$1" >"$1.check" 2>&1 || {
		check_problem "$2: the log does not add up to the CSV files:"
		sed 's/^/    | /' "$1.check" | head -20
	}
}

# st_run DIR CMD [ARG...]: st_run_mode off DIR CMD...
st_run() {
	st_run_mode off "$@"
}

# compare_inprocess NAME MODE EXTRA CMD [ARG...]: runs CMD under systrace --patch=MODE
# (see st_run_mode) into $TMPDIR/NAME and under strace -f -c (the program alone:
# systrace loads nothing into it), and checks: systrace exited 0 (the program checks
# itself), the per-name counts equal strace's plus EXTRA (as compare_with_strace;
# name=? leaves a name to the caller's checks by construction), and the CSV files are
# consistent.
compare_inprocess() {
	_name=$1
	_mode=$2
	_extra=$3
	shift 3
	echo "== $_name (--patch=$_mode): $*"
	st_run_mode "$_mode" "$TMPDIR/$_name" "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		_how="exited $ST_STATUS"
		[ "$ST_STATUS" -gt 128 ] && [ "$ST_STATUS" -lt 160 ] &&
			_how="exited $ST_STATUS: the program was killed by signal $((ST_STATUS - 128)) ($(kill -l $((ST_STATUS - 128)) 2>/dev/null))"
		check_problem "$_name: systrace --patch=$_mode $_how; the program exits 0 natively and with --patch=off (non-zero: it found itself broken)"
		st_show_err "$TMPDIR/$_name"
		sed 's/^/    out| /' "$TMPDIR/$_name.out" | head -20
		return 1
	fi
	strace_count "$TMPDIR/$_name.strace" "$@"
	if [ "$STRACE_STATUS" -ne 0 ]; then
		check_problem "$_name: under strace the program exited $STRACE_STATUS (a broken test program?)"
		sed 's/^/    | /' "$TMPDIR/$_name.strace.out" | head -20
		return 1
	fi
	_ok=0
	# shellcheck disable=SC2086
	if ! csvtool compare "$TMPDIR/$_name" "$TMPDIR/$_name.strace" x86_64 $_extra; then
		check_problem "$_name (--patch=$_mode): per-syscall counts differ from strace -f -c (+ $_extra)"
		_ok=1
	fi
	if ! csvtool consistency "$TMPDIR/$_name" --any-mode; then
		check_problem "$_name (--patch=$_mode): the CSV files are inconsistent"
		_ok=1
	fi
	return $_ok
}

# expect_site_count DIR FILTER... N WHAT: the calls (ptraced + inprocess) at the sites
# matching every FILTER (symbol=S, object=SUBSTRING, syscall=NAME) add up to N
# (DIR/sites.csv missing: a failure).
expect_site_count() {
	_d=$1
	shift
	_filters=
	while [ $# -gt 2 ]; do
		_filters="$_filters $1"
		shift
	done
	require_file "$_d/sites.csv" "$2" || return 1
	set -f # no globbing of the filters (object=[anon])
	# shellcheck disable=SC2086
	_got=$(csvtool sitecount "$_d" $_filters)
	if [ "$_got" != "$1" ]; then
		check_problem "$2: the sites matching$_filters have $_got calls, expected $1 by construction"
		# shellcheck disable=SC2086
		csvtool sitecount "$_d" $_filters --list | sed 's/^/    /'
		set +f
		return 1
	fi
	set +f
	return 0
}

# expect_site DIR SYMBOL EXPECT WHAT: see `csvtool.py site` (patched, not-patched, any;
# DIR/sites.csv missing: a failure).
expect_site() {
	require_file "$1/sites.csv" "$4" || return 1
	if ! csvtool site "$1" "$2" "$3"; then
		check_problem "$4: site $2 is not $3"
		return 1
	fi
	return 0
}

# expect_never_patched DIR WHAT: no clone3 site of the run is patched or has
# in-process calls, clone goes in-process only as glibc's fork, rt_sigreturn only
# at a restorer, and vfork only as glibc's vfork (DIR/sites.csv missing: a failure).
expect_never_patched() {
	require_file "$1/sites.csv" "$2" || return 1
	if ! csvtool never-patched "$1" clone3; then
		check_problem "$2: a site that changes the stack or never returns normally went in-process"
		return 1
	fi
	return 0
}

# expect_rows DIR NAME "N1 N2 ..." WHAT: the calls of NAME per image, sorted, are
# exactly these (each process's calls counted in its own row; DIR/syscalls.csv
# missing: a failure).
expect_rows() {
	require_file "$1/syscalls.csv" "$4" || return 1
	_got=$(csvtool rowcounts "$1" "$2")
	if [ "$_got" != "$3" ]; then
		check_problem "$4: $2 per image (sorted) is '$_got', expected '$3' by construction (calls counted in another process's row?)"
		return 1
	fi
	return 0
}

# st_show_err DIR: prints a run's stderr, indented (for failure messages).
st_show_err() {
	sed 's/^/    | /' "$1.err" | head -40
}

# st_run_ok MODE NAME DIR CMD [ARG...]: st_run_mode MODE DIR CMD..., then records a
# problem (with systrace's stderr) and returns 1 unless CMD exited 0 as it does
# natively.
st_run_ok() {
	_ok_mode=$1
	_ok_name=$2
	shift 2
	st_run_mode "$_ok_mode" "$@"
	[ "$ST_STATUS" -eq 0 ] && return 0
	check_problem "$_ok_name under --patch=$_ok_mode exited $ST_STATUS (natively 0)"
	st_show_err "$1"
	return 1
}

# st_run_clean NAME DIR CMD [ARG...]: st_run_ok in the default mode.
st_run_clean() {
	_clean_name=$1
	shift
	st_run_ok default "$_clean_name" "$@"
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

# stats NAME ARGS...: `$SYSTRACE_STATS ARGS...` (the sanitized systrace-stats),
# stdout to $TMPDIR/NAME.out, stderr to $TMPDIR/NAME.err; sets STATS_STATUS; records
# a failure on a sanitizer report.
stats() {
	_n=$1
	shift
	"${SYSTRACE_STATS:?SYSTRACE_STATS is not set}" "$@" >"$TMPDIR/$_n.out" 2>"$TMPDIR/$_n.err"
	STATS_STATUS=$?
	no_sanitizer_report "$TMPDIR/$_n.err" "systrace-stats $*"
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

# stopped_chain DIR IMAGES WHAT: runs `exec_chain IMAGES stopped` (a chain of IMAGES
# execs in a child that its parent stops and continues every 0.2 ms) into DIR and
# checks what holds whatever the timing: exit 0 (the chain checks its signal mask
# and a pending signal across every exec), its getppid and execve counts by
# construction, consistent files. Returns 1 if systrace did not exit 0.
stopped_chain() {
	st_run_mode default "$1" "$PROGRAMS/exec_chain" "$2" stopped
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$3: systrace exited $ST_STATUS (natively 0)"
		st_show_err "$1"
		return 1
	fi
	expect_count "$1" x86_64 getppid $((11 * $2)) "$3"
	expect_count "$1" x86_64 execve "$2" "$3"
	csvtool consistency "$1" --any-mode || check_problem "$3: the CSV files are inconsistent"
	return 0
}

# expect_unreachable_loop DIR WHAT N: the run just made (ST_STATUS) of a shell
# whose getppid_loop N could not be given the region exited 0, the program stayed
# on the slow path (library region-unreachable), and the getppid per image are the
# shell's one (for $PPID) and the program's N.
expect_unreachable_loop() {
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$2: exited $ST_STATUS (0 natively)"
		st_show_err "$1"
	elif require_file "$1/processes.csv" "$2"; then
		csvtool library "$1" region-unreachable /getppid_loop >/dev/null ||
			check_problem "$2: its library is not region-unreachable (csvtool.py library $1 region-unreachable /getppid_loop says why)"
		expect_rows "$1" getppid "1 $3" "$2"
	fi
}

# expect_count DIR ABI NAME N WHAT: systrace counted exactly N calls of NAME
# (DIR/syscalls.csv missing: a failure, even for N = 0).
expect_count() {
	require_file "$1/syscalls.csv" "$5" || return 1
	_got=$(csvtool counts "$1" "$2" | awk -v n="$3" '$1 == n { print $2 }')
	: "${_got:=0}"
	if [ "$_got" != "$4" ]; then
		check_problem "$5: $3 ($2) counted $_got times, expected $4 by construction"
		return 1
	fi
	return 0
}

# chromium_page dump|shot PAGE [PNG [WIDTH,HEIGHT]]: loads PAGE in headless Chromium
# (CHROMIUM, found by need_chromium) with no network (a proxy that does not exist):
# dump prints the DOM after the page's scripts ran, shot writes the window (default
# 1200,900) to PNG. Chromium's messages go to $TMPDIR/chromium.err.
chromium_page() {
	_how=--dump-dom
	[ "$1" = shot ] && _how=--screenshot="$3"
	timeout -k 10 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
		--proxy-server=127.0.0.1:9 --user-data-dir="$TMPDIR/chromium-profile" --window-size="${4:-1200,900}" \
		--virtual-time-budget=5000 "$_how" "file://$2" 2>"$TMPDIR/chromium.err"
}

# need_chromium: sets CHROMIUM, or fails the test: Chromium is a test dependency
# (scripts/install-deps.sh), and without it the HTML report is not checked.
need_chromium() {
	CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
		fail "chromium is not installed (scripts/install-deps.sh installs it): the HTML report cannot be checked"
}

# htmltool ARGS...: tests/e2e/htmltool.py (the HTML page's checks against the files).
htmltool() {
	python3 "$E2E_DIR/htmltool.py" "$@"
}

# summary_value DIR KEY: the value of KEY in DIR/summary.csv (empty when missing)
summary_value() {
	awk -F, -v k="$2" '$1 == k { print $2 }' "$1/summary.csv" 2>/dev/null
}

# make_jail DIR: a root for chroot at DIR with none of systrace's files nor /proc:
# the loader, libc, sh, getppid_loop (in /bin) and /dev/null (a shell's `&` opens it)
make_jail() {
	mkdir -p "$1/bin" "$1/dev" || fail "mkdir $1"
	for _f in $(ldd "$PROGRAMS/getppid_loop" /bin/sh | awk '/=>/ { print $3; next } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u); do
		mkdir -p "$1$(dirname "$_f")" && cp -L "$_f" "$1$_f" || fail "cannot copy $_f into the jail"
	done
	cp "$PROGRAMS/getppid_loop" "$1/bin/" && cp -L /bin/sh "$1/bin/sh" || fail "cannot copy the programs into the jail"
	mknod -m 666 "$1/dev/null" c 1 3 || fail "cannot make the jail's /dev/null"
	[ -e "$1/proc/self" ] && fail "the jail has a /proc"
}
