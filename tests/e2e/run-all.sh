#!/bin/sh
# Runs every tests/e2e/test_*.sh (in name order) against the builds in BUILD:
#   sh tests/e2e/run-all.sh build
# Each test gets SYSTRACE (the ASan+UBSan build), SYSTRACE_PLAIN, SYSTRACE_STATS (the
# ASan+UBSan build of systrace-stats), PROGRAMS and a fresh TMPDIR; it passes when it
# exits 0. Prints PASS/FAIL per test with its seconds (and the test's output when it
# fails), then one line "N passed, N failed"; exits 1 if any test failed.
# A single test: sh tests/e2e/run-all.sh build test_exactness
# E2E_JOBS=2 runs two tests at a time (tests/e2e/run-one.sh runs each).
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

# Every test is bounded, so that a hang fails one test and not the whole suite; the
# bound is for hangs, not speed (test_memory_bounded took 197 s on a 2-core VM
# beside a CPU hog, the stress runs and the other lane).
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
# Tests run in E2E_JOBS lanes side by side (default 1); each test is bounded by
# counts, not by speed, so a busy lane beside it changes no result.
E2E_JOBS=${E2E_JOBS:-1}
case $E2E_JOBS in
'' | *[!0-9]* | 0)
	echo "run-all.sh: E2E_JOBS must be a positive number, not '$E2E_JOBS'" >&2
	exit 2
	;;
esac
E2E_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/systrace-e2e.XXXXXX") || exit 2
LC_ALL=C
export LC_ALL TEST_TIMEOUT E2E_SCRATCH

for t in "$HERE"/test_*.sh; do
	[ -f "$t" ] || continue
	if [ -n "$ONLY" ] && [ "$(basename "$t" .sh)" != "$ONLY" ]; then
		continue
	fi
	echo "$t"
done >"$E2E_SCRATCH/list"
total=$(wc -l <"$E2E_SCRATCH/list")
if [ "$total" -eq 0 ]; then
	echo "run-all.sh: no test to run${ONLY:+ (none named '$ONLY')}" >&2
	rm -rf "$E2E_SCRATCH"
	exit 2
fi
xargs -P "$E2E_JOBS" -n 1 sh "$HERE/run-one.sh" <"$E2E_SCRATCH/list"

passed=$(find "$E2E_SCRATCH" -maxdepth 1 -name '*.pass' | wc -l)
failed=$(find "$E2E_SCRATCH" -maxdepth 1 -name '*.fail' | wc -l)
# a test whose runner died wrote neither file: it did not pass
unknown=$((total - passed - failed))
if [ "$unknown" -ne 0 ]; then
	echo "FAIL $unknown test(s) left no result"
	failed=$((failed + unknown))
fi
if [ "$failed" -eq 0 ]; then
	rm -rf "$E2E_SCRATCH"
else
	echo "(files of the failed tests are in $E2E_SCRATCH)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
