#!/bin/sh
# run.sh SYSTRACE [WORKLOAD...]: interleaved speed comparison of native runs,
# `SYSTRACE --patch=off` and `strace -f -c` on each workload.
#
# Workloads: libiberty (configure + make -j2 of libiberty, in a fresh build
# folder each run), spawn (a shell loop starting /bin/true 500 times),
# getppid (bench/getppid_loop.c making GETPPID_N raw getppid calls).
# Default: all three. The in-process path (native vs allow-all filter vs the
# patch modes) has its own script: bench/run-inprocess.sh.
#
# Environment: ROUNDS (default 5), BENCH_CACHE (default /var/tmp/systrace-bench),
# RESULTS (default $BENCH_CACHE/results-DATE), PATCH (systrace's --patch mode,
# default off), GETPPID_N (default 200000), TIMEOUT (seconds per run, default 1800).
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

exec python3 "$here/measure.py" \
    --systrace "$systrace" --patch "${PATCH:-off}" \
    --rounds "${ROUNDS:-5}" --timeout "${TIMEOUT:-1800}" \
    --results "$results" --libiberty-src "$libiberty_src" \
    --getppid "$cache/getppid_loop" --getppid-n "${GETPPID_N:-200000}" \
    "$@"
