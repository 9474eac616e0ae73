#!/bin/sh
# glibc.sh SYSTRACE [native|systrace|both]: a full glibc build (Debian's
# glibc-source: configure, then make -j2), natively and/or under
# `SYSTRACE --show-perf-stats`, each step timed; then the build folder's
# testrun.sh runs /bin/echo against the new libc, and the native and systrace
# build folders are compared file by file.
#
# Each build runs in the same fresh folder, WORK/build (so both builds see the
# same paths), which is then renamed WORK/build-MODE; testrun.sh is run before
# the rename. Under systrace the CSV files go to
# WORK/systrace-out-configure and WORK/systrace-out-make; logs to WORK/MODE-STEP.log;
# the file comparison to WORK/compare.txt.
#
# Environment: GLIBC_WORK (WORK, default /var/tmp/systrace-glibc), JOBS (make -j,
# default 2), TIMEOUT (seconds per step, default 1500; a step past it is killed
# with its process group and counts as failed). Exit status 1 when a build or
# its testrun.sh check failed.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: sh bench/glibc.sh SYSTRACE [native|systrace|both]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_tools glibc.sh "$1"
case ${2:-both} in
    native|systrace) modes=$2 ;;
    both) modes="native systrace" ;;
    *) echo "glibc.sh: unknown mode '$2' (native, systrace, both)" >&2; exit 2 ;;
esac

work=${GLIBC_WORK:-/var/tmp/systrace-glibc}
src=$(sh "$here/prepare-glibc.sh" "$work")
work=$(cd "$work" && pwd)
src=$work/$(basename "$src")
limit=${TIMEOUT:-1500}

# step MODE NAME CMD...: runs CMD in WORK/build (under systrace in systrace
# mode), output to WORK/MODE-NAME.log, wall seconds to WORK/MODE-NAME.time.
# timeout(1) runs CMD in a process group of its own and kills that group.
step() {
    m=$1 s=$2
    shift 2
    if [ "$m" = systrace ]; then
        rm -rf "$work/systrace-out-$s"
        set -- "$systrace" --show-perf-stats -o "$work/systrace-out-$s" -- "$@"
    fi
    echo "glibc.sh: $m $s started $(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    rc=0
    t0=$(date +%s.%N)
    (cd "$work/build" && timeout -k 30 "$limit" "$@") >"$work/$m-$s.log" 2>&1 || rc=$?
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$work/$m-$s.time"
    echo "glibc.sh: $m $s: $(cat "$work/$m-$s.time") s, exit $rc (log $work/$m-$s.log)" >&2
    return $rc
}

# testrun MODE: WORK/build/testrun.sh /bin/echo hi must print hi, and echo must
# run with the new libc.so.6 (LD_DEBUG=libs shows which one the loader
# initialises; testrun.sh's own bash and env show the system's).
testrun() {
    out=$(LD_DEBUG=libs "$work/build/testrun.sh" /bin/echo hi 2>"$work/$1-testrun.log") || true
    if [ "$out" = hi ] && grep -q "calling init: $work/build/libc.so.6\$" "$work/$1-testrun.log"; then
        echo "ok (with $work/build/libc.so.6)" >"$work/$1-testrun.result"
    else
        echo "FAILED (output '$out', see $work/$1-testrun.log)" >"$work/$1-testrun.result"
        status=1
    fi
}

status=0
for m in $modes; do
    rm -rf "$work/build" "$work/build-$m" "$work/$m-"*
    mkdir "$work/build"
    if step "$m" configure "$src/configure" --prefix=/usr --disable-werror CFLAGS=-O2 &&
       step "$m" make make -j"${JOBS:-2}"; then
        testrun "$m"
    else
        echo "FAILED (build failed)" >"$work/$m-testrun.result"
        status=1
    fi
    mv "$work/build" "$work/build-$m"
done

# The comparison: names present in one build only, and files (or symlink
# targets) whose contents differ (the first ten named here, all in compare.txt).
verdict="not compared (needs both build-native and build-systrace)"
if [ -d "$work/build-native" ] && [ -d "$work/build-systrace" ]; then
    (cd "$work" && diff -rq --no-dereference build-native build-systrace) >"$work/compare.txt" || true
    nfiles=$(find "$work/build-native" ! -type d | wc -l)
    only=$(grep -c '^Only in' "$work/compare.txt" || true)
    differ=$(grep -c ' differ$' "$work/compare.txt" || true)
    verdict="$nfiles files in build-native, $only names in one build only, $differ files differ"
    [ "$only$differ" = 00 ] && verdict="IDENTICAL: $verdict"
    names=$(sed -n 's/^\(Files\|Symbolic links\) build-native\/\(.*\) and .* differ$/\2/p' "$work/compare.txt" |
            head -n 10 | tr '\n' ' ')
    [ -z "$names" ] || verdict="$verdict: $names"
fi

secs() { cat "$work/$1-$2.time" 2>/dev/null || echo "-"; }
sum() { awk -F, -v k="$2" '$1 == k { print $2 }' "$work/systrace-out-$1/summary.csv" 2>/dev/null; }
total() { awk -v a="$(secs "$1" configure)" -v b="$(secs "$1" make)" 'BEGIN { print a + b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", b / a; else print "-" }'; }

echo "== glibc $(basename "$src"), make -j${JOBS:-2}, $work"
for m in native systrace; do
    [ -f "$work/$m-configure.time" ] || continue
    echo "$m: configure $(secs "$m" configure) s, make $(secs "$m" make) s, total $(total "$m") s;" \
         "testrun.sh /bin/echo hi: $(cat "$work/$m-testrun.result")"
done
if [ -f "$work/native-make.time" ] && [ -f "$work/systrace-make.time" ]; then
    echo "systrace/native: configure $(ratio "$(secs native configure)" "$(secs systrace configure)")," \
         "make $(ratio "$(secs native make)" "$(secs systrace make)")," \
         "total $(ratio "$(total native)" "$(total systrace)")"
fi
for s in configure make; do
    n=$(sum "$s" syscalls)
    [ -n "$n" ] || continue
    echo "systrace $s: syscalls $n, in-process $(sum "$s" syscalls_inprocess)" \
         "($(awk -v a="$(sum "$s" syscalls_inprocess)" -v b="$n" 'BEGIN { printf "%.1f%%", 100 * a / b }'))," \
         "ptrace_stops $(sum "$s" ptrace_stops), processes $(sum "$s" processes)"
done
echo "files: $verdict"
exit $status
