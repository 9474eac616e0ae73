#!/bin/sh
# log2csv.sh SYSTRACE_STATS [ENTRIES]: how fast `systrace-stats log2csv` converts a
# made-up temporal log of ENTRIES entries (default 50,000,000; bench/gen_log.c: 4,000
# processes of 4 threads, 3,000 sites in 150 objects with long paths, both paths,
# early calls, failures). -j1 and -j2 interleaved, ROUNDS each (default 3), into a
# file next to the log, then into /dev/null (the converter alone, no page cache or
# disk). Prints each run (wall and CPU time), then the median entries/s per arm and
# the -j2/-j1 speed-up. Needs /usr/bin/time (scripts/install-deps.sh installs it).
#
# Environment: ROUNDS, WORK (default /var/tmp/systrace-log2csv-bench: the log and
# the CSV, about 1.6 GB and 6.6 GB at 50 million entries; removed at the end unless
# KEEP=1), CC (for the generator).
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh bench/log2csv.sh SYSTRACE_STATS [ENTRIES]" >&2
    exit 2
fi
stats=$1
entries=${2:-50000000}
rounds=${ROUNDS:-3}
work=${WORK:-/var/tmp/systrace-log2csv-bench}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$stats" ] || { echo "log2csv.sh: $stats: not found (make build/systrace-stats)" >&2; exit 2; }

mkdir -p "$work"
if [ "${KEEP:-0}" != 1 ]; then
    trap 'rm -rf "$work"' EXIT
    trap 'exit 130' INT TERM # through the EXIT trap: gigabytes are not left behind
fi
${CC:-cc} -O2 -Wall -Wextra -I"$here/../common" -o "$work/gen_log" "$here/gen_log.c"
echo "generating $entries entries in $work"
"$work/gen_log" "$work" "$entries"
echo "log: $(wc -c < "$work/syscall-log.bin") bytes; $(nproc) CPUs; $(uname -r)"

results=$work/results
: > "$results"
# $1 arm name, $2 threads, $3 output: one timed conversion, appended to results
# (wall seconds; the CPU seconds say how much of the machine the run had)
run() {
    rm -f "$work/syscall-log.csv"
    sync # the last run's dirty pages are not this one's to write
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$stats" log2csv --no-progress -j "$2" -o "$3" "$work"
    awk -v arm="$1" -v n="$entries" '{
        printf "%-8s %8.2f s wall %7.2f s CPU %8.2f M entries/s\n", arm, $1, $2 + $3, n / $1 / 1e6
        printf "%s %s\n", arm, $1 >> (ENVIRON["results_file"])
    }' "$work/time"
}
export results_file="$results"

for round in $(seq "$rounds"); do
    echo "round $round"
    run file-j1 1 "$work/syscall-log.csv"
    run file-j2 2 "$work/syscall-log.csv"
    [ "$round" != "$rounds" ] || ls -l "$work/syscall-log.csv" | awk '{ print "csv: " $5 " bytes" }'
done
rm -f "$work/syscall-log.csv"
for round in $(seq "$rounds"); do
    echo "round $round"
    run null-j1 1 /dev/null
    run null-j2 2 /dev/null
done

echo "median of $rounds rounds ($entries entries):"
for out in file null; do
    awk -v out="$out" -v n="$entries" '
        $1 == out "-j1" { one[++a] = $2 }
        $1 == out "-j2" { two[++b] = $2 }
        function median(v, k,   i, j, t) {
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        }
        END {
            m1 = median(one, a); m2 = median(two, b)
            printf "  %-4s -j1 %6.3f s %6.2f M entries/s   -j2 %6.3f s %6.2f M entries/s   speed-up %.2fx\n",
                out == "file" ? "file" : "null", m1, n / m1 / 1e6, m2, n / m2 / 1e6, m1 / m2
        }' "$results"
done
