#!/bin/sh
# Runs one e2e test for run-all.sh, which exports its environment and E2E_SCRATCH:
#   sh tests/e2e/run-one.sh tests/e2e/test_NAME.sh
# Writes E2E_SCRATCH/NAME.pass or .fail, and prints the test's result block in one
# write, so that lanes running side by side do not mix their lines.
t=$1
name=$(basename "$t" .sh)
dir="$E2E_SCRATCH/$name"
mkdir -p "$dir/tmp"
start=$(date +%s)
(cd "$dir" && TMPDIR="$dir/tmp" timeout -k 10 "$TEST_TIMEOUT" sh "$t") >"$dir/output" 2>&1
status=$?
secs=$(($(date +%s) - start))
if [ "$status" -eq 0 ]; then
	echo "PASS $name (${secs}s)" >"$E2E_SCRATCH/$name.pass"
	cat "$E2E_SCRATCH/$name.pass"
	rm -rf "$dir"
	exit 0
fi
{
	echo "FAIL $name"
	sed 's/^/    /' "$dir/output"
	if [ "$status" -eq 124 ]; then
		echo "    (timed out after ${TEST_TIMEOUT}s)"
	else
		echo "    (exit status $status after ${secs}s)"
	fi
} >"$E2E_SCRATCH/$name.fail"
cat "$E2E_SCRATCH/$name.fail"
exit 0
