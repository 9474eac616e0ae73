#!/bin/sh
# run-libc-calls.sh SYSTRACE: what --libc-calls costs (bench/libc_calls.py), with
# bench/libc_loop.c built into BENCH_CACHE (/var/tmp/systrace-bench).
# Environment: ROUNDS (5), LOOP_N (20000 getpid calls), SPAWN_N (200 processes).
set -eu
if [ $# -lt 1 ]; then
    echo "usage: sh bench/run-libc-calls.sh SYSTRACE" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
cache=${BENCH_CACHE:-/var/tmp/systrace-bench}
mkdir -p "$cache"
${CC:-cc} -O2 -Wall -Wextra -o "$cache/libc_loop" "$here/libc_loop.c"
exec python3 "$here/libc_calls.py" "$1" "$cache/libc_loop" "${ROUNDS:-5}" "${LOOP_N:-20000}" "${SPAWN_N:-200}"
