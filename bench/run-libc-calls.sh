#!/bin/sh
# run-libc-calls.sh SYSTRACE: what --libc-calls costs (bench/libc_calls.py), with
# bench/libc_loop.c built into BENCH_CACHE (/var/tmp/systrace-bench).
# Environment: ROUNDS (5), LOOP_N (20000 getpid calls), SPAWN_N (200 processes),
# LIBIBERTY=1: also the libiberty build (bench/prepare-libiberty.sh unpacks it).
set -eu
if [ $# -lt 1 ]; then
    echo "usage: sh bench/run-libc-calls.sh SYSTRACE" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
cache=${BENCH_CACHE:-/var/tmp/systrace-bench}
mkdir -p "$cache"
${CC:-cc} -O2 -Wall -Wextra -o "$cache/libc_loop" "$here/libc_loop.c"
set -- "$1" "$cache/libc_loop" "${ROUNDS:-5}" "${LOOP_N:-20000}" "${SPAWN_N:-200}"
if [ -n "${LIBIBERTY:-}" ]; then
    set -- "$@" "$(sh "$here/prepare-libiberty.sh" "$cache")/libiberty"
fi
exec python3 "$here/libc_calls.py" "$@"
