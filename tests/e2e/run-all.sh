#!/bin/sh
# Runs every tests/e2e/test_*.sh (in name order) against the builds in BUILD:
#   sh tests/e2e/run-all.sh build
# Each test gets SYSTRACE (the ASan+UBSan build), SYSTRACE_PLAIN, SYSTRACE_STATS (the
# ASan+UBSan build of systrace-stats), PROGRAMS and a fresh TMPDIR; it passes when it
# exits 0. Prints PASS/FAIL per test with its seconds (and the test's output when it
# fails), then one line "N passed, N failed"; exits 1 if any test failed.
# A single test: sh tests/e2e/run-all.sh build test_exactness
BUILD=${1:-build}
ONLY=${2:-}
if [ ! -d "$BUILD" ]; then
	echo "run-all.sh: no build folder '$BUILD'" >&2
	exit 2
fi
BUILD=$(cd "$BUILD" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)

SYSTRACE=$BUILD/asan/systrace
SYSTRACE_PLAIN=$BUILD/systrace
SYSTRACE_STATS=$BUILD/asan/systrace-stats
PROGRAMS=$BUILD/tests/programs
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export SYSTRACE SYSTRACE_PLAIN SYSTRACE_STATS PROGRAMS ASAN_OPTIONS UBSAN_OPTIONS

for f in "$SYSTRACE" "$SYSTRACE_PLAIN"; do
	if [ ! -x "$f" ]; then
		echo "run-all.sh: '$f' is missing (make build/systrace build/asan/systrace)" >&2
		exit 2
	fi
done
if [ ! -d "$PROGRAMS" ]; then
	echo "run-all.sh: '$PROGRAMS' is missing (make programs)" >&2
	exit 2
fi

# Every test is bounded, so that a hang fails one test and not the whole suite.
TEST_TIMEOUT=${TEST_TIMEOUT:-240}
passed=0
failed=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/systrace-e2e.XXXXXX") || exit 2

LC_ALL=C
export LC_ALL
for t in "$HERE"/test_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "$ONLY" ] && [ "$name" != "$ONLY" ]; then
		continue
	fi
	dir="$scratch/$name"
	mkdir -p "$dir/tmp"
	start=$(date +%s)
	(cd "$dir" && TMPDIR="$dir/tmp" timeout -k 10 "$TEST_TIMEOUT" sh "$t") >"$dir/output" 2>&1
	status=$?
	secs=$(($(date +%s) - start))
	if [ "$status" -eq 0 ]; then
		echo "PASS $name (${secs}s)"
		passed=$((passed + 1))
		rm -rf "$dir"
	else
		echo "FAIL $name"
		sed 's/^/    /' "$dir/output"
		if [ "$status" -eq 124 ]; then
			echo "    (timed out after ${TEST_TIMEOUT}s)"
		else
			echo "    (exit status $status after ${secs}s)"
		fi
		failed=$((failed + 1))
	fi
done

if [ "$failed" -eq 0 ]; then
	rm -rf "$scratch"
else
	echo "(files of the failed tests are in $scratch)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
