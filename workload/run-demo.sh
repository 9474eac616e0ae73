#!/bin/sh
# run-demo.sh SYSTRACE: builds the bundled demo project (workload/project)
# in a fresh temporary copy under systrace and leaves the CSVs in $OUT
# (default ./systrace-out). Exits with systrace's status.
set -u

if [ $# -ne 1 ]; then
    echo "usage: OUT=DIR sh workload/run-demo.sh SYSTRACE" >&2
    exit 2
fi
systrace=$1
out=${OUT:-systrace-out}
project=$(cd "$(dirname "$0")/project" && pwd) || exit 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/systrace-demo.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
cp -R "$project/." "$tmp/" || exit 2

echo "demo: $systrace --show-perf-stats -o $out -- make -j2 -C $tmp" >&2
"$systrace" --show-perf-stats -o "$out" -- make -j2 -C "$tmp"
status=$?

echo "demo: systrace exited with status $status" >&2
echo "demo: CSV files in $out/:" >&2
for f in "$out"/*.csv; do
    [ -e "$f" ] && echo "  $f" >&2
done
exit "$status"
