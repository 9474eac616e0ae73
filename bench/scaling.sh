#!/bin/sh
# scaling.sh SYSTRACE: many processes, one tracer. N parallel spawn loops, each
# `sh -c 'i=0; while [ $i -lt M ]; do /bin/true; i=$((i+1)); done'`, for each N
# natively, under `SYSTRACE --patch=PATCH` and under `strace -f -c`, interleaved
# (every N each round, the arms back to back in an order that rotates), with
# bench/stop_probe.c timing the round trip of a stop beside the loops (N = 0: the
# probe alone). Reports per N the images per second of each arm and the slowdown
# (within each round), the tracer's busy fraction and run-queue wait, its CPU per
# image and per stop, and the queueing delay: the probes' round trip with N loops
# minus their round trip alone. docs/benchmarks.md ("Scaling: many processes, one
# tracer") reads the figures and docs/scaling.md models them.
#
# Environment: NS (the loop counts, default "1 2 4 8"), M (iterations per loop,
# default 200: 2M+2 images a loop), K (calls per probe beside the loops, default
# 2000), K0 (calls per probe alone, default 1000), GAP_US (mean pause between a
# probe's calls, exponential, default 1000), ROUNDS (default 3), PATCH (systrace's
# --patch, default safe), STRACE (0: no strace arm; default 1), FREE (1: a fourth
# arm, systrace with the loops' CPU affinity their own, so that its placement
# leaves them where the scheduler puts them; default 0), BENCH_CACHE (default
# /var/tmp/systrace-bench: the probe is built there), RESULTS (default
# $BENCH_CACHE/results-scaling-DATE), TIMEOUT (seconds per run, default 600).
# Writes RESULTS/raw.csv (a row per run), RESULTS/table.md, RESULTS/scaling.log
# (the runs' output) and the systrace output of the last round's largest N
# (systrace-out-nN, free-out-nN).
set -eu

if [ $# -ne 1 ]; then
    echo "usage: sh bench/scaling.sh SYSTRACE" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_tools scaling.sh "$1"

cache=${BENCH_CACHE:-/var/tmp/systrace-bench}
results=${RESULTS:-$cache/results-scaling-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$cache" "$results"
${CC:-cc} -O2 -Wall -Wextra -o "$cache/stop_probe" "$here/stop_probe.c" -lm

extra=""
case ${STRACE:-1} in
    1) ;;
    0) extra="--no-strace" ;;
    *) echo "scaling.sh: STRACE must be 0 or 1, not '$STRACE'" >&2; exit 2 ;;
esac
case ${FREE:-0} in
    0) ;;
    1) extra="$extra --free-arm" ;;
    *) echo "scaling.sh: FREE must be 0 or 1, not '$FREE'" >&2; exit 2 ;;
esac

exec python3 "$here/scaling.py" --systrace "$systrace" --probe "$cache/stop_probe" \
    --patch "${PATCH:-safe}" --ns "${NS:-1 2 4 8}" --m "${M:-200}" --k "${K:-2000}" \
    --k0 "${K0:-1000}" --gap-us "${GAP_US:-1000}" --rounds "${ROUNDS:-3}" \
    --timeout "${TIMEOUT:-600}" --results "$results" $extra
