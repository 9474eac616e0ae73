#!/bin/sh
# tracer_cpu.sh ARM...: interleaved rounds of the spawn loop (500 x /bin/true from
# sh), eight of them in parallel (spawn8: 8 x 300, more processes that stop often
# than CPUs), the compile loop (200 x cc -c of a one-line file: cc1's libraries include
# one of more than 2 MB, tracer/layouts.h), libiberty's configure + make -j2 and
# cargo's build of a small Rust crate (cargo: tests/real/shapes, from a clean target
# folder; rustc maps libraries of 150 MB), for each ARM: `native`, `floor`
# (bench/floor_tracer.c: a tracer told of each fork, exec, exit and signal that only
# resumes, the floor of any ptrace tracer here), or the path of a systrace build (its
# default mode). Per run: the wall time and, for the tracers, the tracer's CPU per
# process image, that of its thread that serves the stops (all of it but
# tracer_writer_cpu_ns: tracer/offload.h; all of it for a build before that) and the
# stops (summary.csv, or floor_tracer's file); then the
# medians per workload and arm. Quicker than bench/run.sh (no strace arm), for
# comparing builds of the tracer on what costs it per image; the arms' order turns
# each round.
#
# Environment: ROUNDS (default 4), WORKLOADS (default "spawn libiberty"),
# BENCH_CACHE (default /var/tmp/systrace-bench: libiberty's source is unpacked there
# by bench/prepare-libiberty.sh), OUT (default $BENCH_CACHE/tracer-cpu-DATE: a
# line per run in runs.txt, the medians in medians.txt).
set -eu

if [ $# -lt 1 ]; then
    echo "usage: sh bench/tracer_cpu.sh native|floor|SYSTRACE ..." >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
cache=${BENCH_CACHE:-/var/tmp/systrace-bench}
out=${OUT:-$cache/tracer-cpu-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
src=""
case " ${WORKLOADS:-spawn libiberty} " in
*" libiberty "*) src=$(sh "$here/prepare-libiberty.sh" "$cache") ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/tracer-cpu.XXXXXX")
case " $* " in
*" floor "*) ${CC:-cc} -O2 -Wall -Wextra -o "$work/floor_tracer" "$here/floor_tracer.c" ;;
esac

# one_run ROUND WORKLOAD ARM: a line of runs.txt
one_run() {
    case $2 in
    spawn) cmd='i=0; while [ $i -lt 500 ]; do /bin/true; i=$((i+1)); done' ;;
    spawn8) cmd='for k in 1 2 3 4 5 6 7 8; do sh -c '"'"'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done'"'"' & done; wait' ;;
    cc) cmd='echo "int f(void) { return 1; }" >f.c; i=0; while [ $i -lt 200 ]; do cc -c f.c; i=$((i+1)); done' ;;
    libiberty) cmd="$src/libiberty/configure >/dev/null 2>&1 && make -j2 >/dev/null 2>&1" ;;
    cargo) cmd="cargo build --offline --release -j2 -q --manifest-path '$here/../tests/real/shapes/Cargo.toml' --target-dir target" ;;
    *) echo "tracer_cpu.sh: unknown workload '$2' (spawn, spawn8, cc, libiberty, cargo)" >&2; exit 2 ;;
    esac
    rm -rf "$work/build" "$work/out"
    mkdir -p "$work/build"
    start=$(date +%s%N)
    if [ "$3" = native ]; then
        (cd "$work/build" && sh -c "$cmd")
    elif [ "$3" = floor ]; then
        (cd "$work/build" && "$work/floor_tracer" -o "$work/out" sh -c "$cmd")
    else
        (cd "$work/build" && "$3" -o "$work/out" -- sh -c "$cmd")
    fi
    wall_ms=$((($(date +%s%N) - start) / 1000000))
    if [ "$3" = native ]; then
        echo "$1 $2 $3 $wall_ms - - - -"
    elif [ "$3" = floor ]; then
        awk -v r="$1" -v w="$2" -v ms="$wall_ms" '{v[$1] = $2}
             END{c = v["tracer_cpu_ns"] / v["images"] / 1000
                 printf "%s %s floor %s %.0f %d %d %.0f\n", r, w, ms, c, v["stops"], v["images"], c}' "$work/out"
    else
        awk -F, -v r="$1" -v w="$2" -v a="$3" -v ms="$wall_ms" \
            '/^tracer_cpu_ns,/{c=$2} /^processes,/{p=$2} /^ptrace_stops,/{s=$2} /^tracer_writer_cpu_ns,/{wr=$2}
             END{printf "%s %s %s %s %.0f %d %d %.0f\n", r, w, a, ms, c / p / 1000, s, p, (c - wr) / p / 1000}' "$work/out/summary.csv"
    fi
}

echo "round workload arm wall_ms tracer_us_per_image stops images serving_us_per_image" >"$out/runs.txt"
r=0
while [ "$r" -lt "${ROUNDS:-4}" ]; do
    r=$((r + 1))
    # the arms in turn, starting one later each round
    set -- "$@" "$1"
    shift
    for w in ${WORKLOADS:-spawn libiberty}; do
        for arm in "$@"; do
            one_run "$r" "$w" "$arm" | tee -a "$out/runs.txt"
        done
    done
done
rm -rf "$work"
python3 - "$out/runs.txt" <<'PY' | tee "$out/medians.txt"
import collections, statistics, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
by = collections.defaultdict(list)
for r in rows:
    by[(r[1], r[2])].append(r)
native = {w: statistics.median(int(r[3]) for r in rs) for (w, a), rs in by.items() if a == "native"}
print("| workload | arm | runs | wall s (median) | / native | tracer us per image (median; runs) | its serving thread's | stops per image |")
print("|---|---|---:|---:|---:|---|---:|---:|")
for (w, a), rs in sorted(by.items()):
    wall = statistics.median(int(r[3]) for r in rs)
    ratio = f"{wall / native[w]:.2f}x" if w in native and a != "native" else ""
    cpu = [int(r[4]) for r in rs if r[4] != "-"]
    cpu_s = f"{statistics.median(cpu):.0f} ({', '.join(map(str, cpu))})" if cpu else ""
    serving = [int(r[7]) for r in rs if r[7] != "-"]
    serving_s = f"{statistics.median(serving):.0f}" if serving else ""
    stops = [int(r[5]) / int(r[6]) for r in rs if r[5] != "-"]
    print(f"| {w} | {a} | {len(rs)} | {wall / 1000:.3f} | {ratio} | {cpu_s} | {serving_s} | {statistics.median(stops):.2f} |"
          if stops else f"| {w} | {a} | {len(rs)} | {wall / 1000:.3f} | {ratio} | {cpu_s} | {serving_s} | |")
PY
