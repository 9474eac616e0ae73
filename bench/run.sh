#!/bin/sh
# run.sh SYSTRACE [WORKLOAD...]: interleaved speed comparison of native runs,
# `SYSTRACE --patch=off` and `strace -f -c` on each workload (and, with
# PREPATCH=1, `SYSTRACE --patch=MODE --prepatch`; with LOG=1, `SYSTRACE
# --patch=MODE --log`, what the temporal log costs; with TIME=1, `SYSTRACE
# --patch=MODE --time`, what timing the calls costs).
#
# Workloads: libiberty (configure + make -j2 of libiberty, in a fresh build
# folder each run), spawn (a shell loop starting /bin/true 500 times),
# getppid (bench/getppid_loop.c making GETPPID_N raw getppid calls).
# Default: all three. The in-process path (native vs allow-all filter vs the
# patch modes) has its own script: bench/run-inprocess.sh.
#
# Environment: ROUNDS (default 5), BENCH_CACHE (default /var/tmp/systrace-bench),
# RESULTS (default $BENCH_CACHE/results-DATE), PATCH (systrace's --patch mode,
# default off, or safe when PREPATCH=1), PREPATCH (1: a fourth arm, systrace with
# the same --patch mode and --prepatch; it needs PATCH other than off), LOG (1: a
# fourth arm with --log instead; PATCH defaults to safe), TIME (1: a fourth arm
# with --time instead; PATCH defaults to safe), BASELINE (another
# systrace build: a fourth arm with the same --patch, to compare before and after),
# GETPPID_N (default 200000), TIMEOUT (seconds per run, default 1800).
# table.md ends with bench/stops.py on the last systrace output of each workload.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: sh bench/run.sh SYSTRACE [libiberty|spawn|getppid ...]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_tools run.sh "$1"
shift
[ $# -gt 0 ] || set -- libiberty spawn getppid

variant_arm=""
case ${PREPATCH:-0} in
    0|"") ;;
    1)
        variant_arm=--variant-arm=--prepatch
        PATCH=${PATCH:-safe}
        if [ "$PATCH" = off ]; then
            echo "run.sh: PREPATCH=1 needs PATCH=safe, single or unsafe (not off)" >&2
            exit 2
        fi
        ;;
    *) echo "run.sh: PREPATCH must be 0 or 1, not '$PREPATCH'" >&2; exit 2 ;;
esac
case ${LOG:-0} in
    0|"") ;;
    1)
        [ -z "$variant_arm" ] || { echo "run.sh: PREPATCH=1 and LOG=1 are both a fourth arm: one at a time" >&2; exit 2; }
        variant_arm=--variant-arm=--log
        PATCH=${PATCH:-safe}
        ;;
    *) echo "run.sh: LOG must be 0 or 1, not '$LOG'" >&2; exit 2 ;;
esac
case ${TIME:-0} in
    0|"") ;;
    1)
        [ -z "$variant_arm" ] || { echo "run.sh: TIME=1 is a fourth arm as PREPATCH=1 and LOG=1 are: one at a time" >&2; exit 2; }
        variant_arm=--variant-arm=--time
        PATCH=${PATCH:-safe}
        ;;
    *) echo "run.sh: TIME must be 0 or 1, not '$TIME'" >&2; exit 2 ;;
esac

cache=${BENCH_CACHE:-/var/tmp/systrace-bench}
results=${RESULTS:-$cache/results-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$cache" "$results"

libiberty_src=""
for w in "$@"; do
    case $w in
        libiberty) libiberty_src=$(sh "$here/prepare-libiberty.sh" "$cache") ;;
        getppid) bench_build getppid_loop ;;
        spawn) ;;
        *) echo "run.sh: unknown workload '$w' (libiberty, spawn, getppid)" >&2; exit 2 ;;
    esac
done

if [ -n "${BASELINE:-}" ]; then
    [ -z "$variant_arm" ] || { echo "run.sh: BASELINE and PREPATCH=1 or LOG=1 are each a fourth arm: one at a time" >&2; exit 2; }
    [ -x "$BASELINE" ] || { echo "run.sh: BASELINE '$BASELINE' is not an executable" >&2; exit 2; }
    variant_arm="--baseline=$BASELINE"
fi

exec python3 "$here/measure.py" \
    --systrace "$systrace" --patch "${PATCH:-off}" $variant_arm \
    --rounds "${ROUNDS:-5}" --timeout "${TIMEOUT:-1800}" \
    --results "$results" --libiberty-src "$libiberty_src" \
    --getppid "$cache/getppid_loop" --getppid-n "${GETPPID_N:-200000}" \
    "$@"
