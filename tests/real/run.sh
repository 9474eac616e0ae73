#!/bin/sh
# Real programs under systrace against running them natively (make check-real):
#
#   sh tests/real/run.sh [BUILD] [CASE...]
#
# CASEs (default all, in this order): pty (an interactive bash driven through a
# pseudo-terminal: Ctrl-C, Ctrl-Z, jobs, fg, Ctrl-D, exit 3), xz (-T2, compress and
# decompress generated text), sort (--parallel=2, in memory and merging temporary
# files), git (a scratch repository: commits, branches, a merge, a tag, gc, fsck,
# archive, clone), libiberty (configure + make -j2, bench/prepare-libiberty.sh),
# cpython (regression test modules of Debian's libpython3.11-testsuite: threads,
# subprocesses, signals, selectors, asyncio, multiprocessing), cargo (a Rust crate
# built by cargo --release -j2, then run).
# Each case runs BUILD/systrace (the plain build) and checks the same exit status and
# output as natively and, for calls whose number does not depend on timing, the same
# counts as `perf stat -e syscalls:sys_enter_NAME`; tests/real/real.py says how, and
# docs/reliability.md what was found. Prints PASS/FAIL per case with its time, then
# "N passed, N failed"; exits 1 if any case failed. Needs perf with the syscalls
# tracepoints (linux-perf) and the packages of `scripts/install-deps.sh real`.
BUILD=${1:-build}
[ $# -gt 0 ] && shift
CASES=${*:-pty xz sort git libiberty cpython cargo}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$BUILD/systrace" ]; then
	echo "run.sh: $BUILD/systrace is missing (make all)" >&2
	exit 2
fi
BUILD=$(cd "$BUILD" && pwd)
if ! perf stat -x, -o /dev/null -e syscalls:sys_enter_getppid true 2>/dev/null; then
	echo "run.sh: perf stat cannot count the syscalls:sys_enter_* tracepoints here (linux-perf, tracefs, root)" >&2
	exit 2
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/systrace-real.XXXXXX") || exit 2
passed=0
failed=0
all_start=$(date +%s)
for c in $CASES; do
	start=$(date +%s)
	python3 "$HERE/real.py" "$BUILD" "$scratch/$c" "$c" >"$scratch/$c.log" 2>&1
	status=$?
	secs=$(($(date +%s) - start))
	if [ "$status" -eq 0 ]; then
		echo "PASS $c (${secs}s)"
		passed=$((passed + 1))
	else
		echo "FAIL $c (${secs}s)"
		failed=$((failed + 1))
	fi
	sed 's/^/    /' "$scratch/$c.log"
	[ "$status" -eq 0 ] && rm -rf "${scratch:?}/$c"
done
echo "check-real took $(($(date +%s) - all_start))s"
echo "$passed passed, $failed failed"
if [ "$failed" -eq 0 ]; then
	rm -rf "$scratch"
else
	echo "(the failed cases' folders are kept in $scratch)"
fi
[ "$failed" -eq 0 ]
