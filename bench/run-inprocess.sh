#!/bin/sh
# run-inprocess.sh SYSTRACE [getppid|threads ...]: interleaved speed comparison of
# the in-process path (bench/inprocess.py says what each arm runs).
#
# getppid: 5,000,000 raw getppid calls at one site: natively, natively under
#   systrace's own seccomp filter with every outcome ALLOW (the fair baseline:
#   every syscall under any filter pays for it), under systrace (default safe),
#   and at SLOW_N calls under systrace --patch=off and strace -f -c.
# threads: THREADS threads x THREADS_M calls at one shared site: natively, under
#   the allow-all filter, under systrace --patch=safe and unsafe, and at
#   THREADS_SLOW_M calls per thread under --patch=single and off.
# Default: both.
#
# Environment: BASELINE (another systrace: getppid gets an arm `base` run under it,
# for a before/after comparison in the same rounds), TIME_ARMS (1: getppid gets arms
# `time` and `offtime`, safe and off with --time), ROUNDS (5), BENCH_CACHE (/var/tmp/systrace-bench), RESULTS
# ($BENCH_CACHE/results-inprocess-DATE), GETPPID_N (5000000), SLOW_N (200000),
# THREADS (4), THREADS_M (1250000), THREADS_SLOW_M (25000), TIMEOUT (600 s per run),
# QUIET_WAIT (0: on a shared machine, wait up to this many seconds before each run
# for a second in which other work uses less than 0.3 CPU).
set -eu

if [ $# -lt 1 ]; then
    echo "usage: sh bench/run-inprocess.sh SYSTRACE [getppid|threads ...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_tools run-inprocess.sh "$1"
shift
[ $# -gt 0 ] || set -- getppid threads

cache=${BENCH_CACHE:-/var/tmp/systrace-bench}
results=${RESULTS:-$cache/results-inprocess-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$cache" "$results"

# The allow-all baseline links systrace's own filter_build (tracer/filter.c).
for w in "$@"; do
    case $w in
        getppid) bench_build getppid_loop ;;
        threads) bench_build threads_loop -pthread ;;
        *) echo "run-inprocess.sh: unknown workload '$w' (getppid, threads)" >&2; exit 2 ;;
    esac
done

exec python3 "$here/inprocess.py" \
    --systrace "$systrace" --baseline "${BASELINE:-}" ${TIME_ARMS:+--time-arms} --rounds "${ROUNDS:-5}" --timeout "${TIMEOUT:-600}" \
    --results "$results" --quiet-wait "${QUIET_WAIT:-0}" \
    --getppid "$cache/getppid_loop" --threads "$cache/threads_loop" \
    --n "${GETPPID_N:-5000000}" --slow-n "${SLOW_N:-200000}" \
    --threads-t "${THREADS:-4}" --threads-m "${THREADS_M:-1250000}" \
    --threads-slow-m "${THREADS_SLOW_M:-25000}" \
    "$@"
