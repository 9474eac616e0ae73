#!/bin/sh
# tracer_profile.sh SYSTRACE OUT [COMMAND...]: where the tracer's CPU goes, by phase of
# a process image's life. Runs COMMAND (default: 1000 x /bin/true from sh) under
# SYSTRACE with perf recording the tracer thread alone (cpu-clock, DWARF call
# graphs; hardware counters are not needed), then folds the samples into phases
# (bench/tracer_phases.py) per image of the run. OUT: a folder for perf.data, the
# run's output folder (OUT/systrace-out) and the table (OUT/phases.md).
set -eu
if [ $# -lt 2 ]; then
    echo "usage: sh bench/tracer_profile.sh SYSTRACE OUT [COMMAND...]" >&2
    exit 2
fi
systrace=$1
out=$2
shift 2
[ $# -gt 0 ] || set -- sh -c 'i=0; while [ $i -lt 1000 ]; do /bin/true; i=$((i+1)); done'
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
# the tracer waits a moment for perf to attach before it starts the command
"$systrace" -o "$out/systrace-out" -- sh -c 'sleep 0.5; exec "$@"' sh "$@" &
tracer=$!
sleep 0.2
perf record -q -e cpu-clock --call-graph dwarf,8192 -p "$tracer" -o "$out/perf.data" 2>/dev/null &
perf_pid=$!
wait "$tracer" || true
wait "$perf_pid" 2>/dev/null || true
images=$(awk -F, '$1 == "processes" { print $2 }' "$out/systrace-out/summary.csv")
cpu=$(awk -F, '$1 == "tracer_cpu_ns" { print $2 }' "$out/systrace-out/summary.csv")
{
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $systrace: $images images, tracer CPU $((cpu / 1000)) us" \
         "($((cpu / images / 1000)) us per image, summary.csv)"
    echo
    python3 "$here/tracer_phases.py" "$out/perf.data" "$images"
} | tee "$out/phases.md"
