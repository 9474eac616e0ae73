# Sourced by bench/run.sh and bench/run-inprocess.sh, with `here` set to bench/.

# bench_tools SCRIPT SYSTRACE: sets systrace to SYSTRACE (made absolute when it
# names a path); exits 2, saying so as SCRIPT, when it or strace is missing.
bench_tools() {
    systrace=$2
    case $systrace in
        */*) systrace=$(cd "$(dirname "$systrace")" && pwd)/$(basename "$systrace") ;;
    esac
    if ! command -v "$systrace" >/dev/null 2>&1; then
        echo "$1: $systrace: not found (build it with make)" >&2
        exit 2
    fi
    command -v strace >/dev/null || { echo "$1: strace not installed" >&2; exit 2; }
}

# bench_build NAME [CFLAGS...]: compiles bench/NAME.c into $cache/NAME, linked
# with the allow-all baseline (allow_filter.c and systrace's own filter_build,
# tracer/filter.c).
bench_build() {
    name=$1
    shift
    ${CC:-cc} -O2 -Wall -Wextra -D_GNU_SOURCE -I"$here" -I"$here/../tracer" "$@" \
        -o "$cache/$name" "$here/$name.c" "$here/allow_filter.c" "$here/../tracer/filter.c"
}
