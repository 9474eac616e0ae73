# shellcheck shell=sh
# Sourced by test_own_filter.sh and test_own_filter_launch.sh (split for the
# per-test time bound on a busy machine): run_case and its checks.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR
OF=$P/own_filter

# expect_errors DIR NAME N WHAT: NAME's errors (x86_64, every row) are exactly N.
expect_errors() {
	require_file "$1/syscalls.csv" "$4" || return 1
	_e=$(awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["syscall"] == n && $c["abi"] != "i386" { e += $c["errors"] } END { print e + 0 }' "$1/syscalls.csv")
	[ "$_e" = "$3" ] || check_problem "$4: $2 errors $_e, $3 by construction"
}

# run_case NAME STATUS EXTRA COUNTS -- ARGS...: the program alone (it must end with
# STATUS: 0 when it checked itself, 159 for its death by SIGSYS) and under strace
# -f -c, then under systrace in each mode: the same status, the counts of strace
# plus EXTRA (the calls strace -c cannot count: they never return; NAME=? for calls
# whose number is timing's: a pthread_join's futex waits only if the thread has not
# exited yet), the same errors, consistent files, and COUNTS by construction
# (name=calls/errors, space-separated).
run_case() {
	_case=$1
	_status=$2
	_extra=$3
	_counts=$4
	_skip=$(echo "$_extra" | tr ' ' '\n' | grep '=?$' | tr '\n' ' ')
	shift 5
	timeout --foreground -k 10 "$RUN_TIMEOUT" strace -f -c -U name,calls,errors -o "$T/$_case.strace" -- \
		"$OF" "$@" >"$T/$_case.strace.out" 2>&1
	_native=$?
	timeout --foreground -k 10 "$RUN_TIMEOUT" "$OF" "$@" >"$T/$_case.native.out" 2>&1
	_alone=$?
	[ "$_alone" = "$_native" ] || fail "$_case: exits $_alone alone and $_native under strace"
	[ "$_native" = "$_status" ] || fail "$_case: exits $_native alone, not $_status: a broken test program?"
	for _m in default off log time; do
		_dir=$T/$_case-$_m
		echo "== $_case --patch=$_m: own_filter $* (natively: $_native)"
		if [ $_m = log ] || [ $_m = time ]; then
			ST_OPTS=--$_m st_run_mode default "$_dir" "$OF" "$@"
		else
			st_run_mode $_m "$_dir" "$OF" "$@"
		fi
		if [ "$ST_STATUS" != "$_native" ]; then
			check_problem "$_case ($_m): systrace exited $ST_STATUS, the program alone $_native"
			st_show_err "$_dir"
			continue
		fi
		# shellcheck disable=SC2086
		csvtool compare "$_dir" "$T/$_case.strace" x86_64 $_extra ||
			check_problem "$_case ($_m): per-syscall counts differ from strace -f -c (+ $_extra)"
		# shellcheck disable=SC2086
		csvtool compare-errors "$_dir" "$T/$_case.strace" $_skip ||
			check_problem "$_case ($_m): errors per syscall differ from strace -f -c"
		_any=--any-mode
		[ $_m = off ] && _any=
		# shellcheck disable=SC2086
		csvtool consistency "$_dir" $_any || check_problem "$_case ($_m): the files disagree"
		for _c in $_counts; do
			_name=${_c%=*}
			_v=${_c#*=}
			expect_count "$_dir" x86_64 "$_name" "${_v%/*}" "$_case ($_m)"
			expect_errors "$_dir" "$_name" "${_v#*/}" "$_case ($_m)"
		done
	done
}
