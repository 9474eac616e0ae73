#!/bin/sh
# The tracer holds descriptors that grow with the run: /proc/PID/mem of every live
# address space, perf counters per image, objects kept open by its pin cache. It
# raises its soft RLIMIT_NOFILE to the hard limit, gives the command the soft limit it
# was given, and gives pins up when descriptors run short:
#  - the soft limit at 32 (the hard one as it is): 40 shells alive at once, each
#    then running getppid_loop 100 while all of them wait (a count-based barrier
#    through two fifos, no sleep): all 40 loops' calls go in-process (>= 99 each:
#    the tracer had a descriptor for each of the 80 memories); and the command
#    sees the soft and hard limits it sees natively (32, and the hard one);
#  - both limits at 40 (nothing to raise): 60 distinct copies of getppid_loop run
#    twice each, one after another (each copy is pinned at its second run, more
#    than the limit allows): every site of the run is named with its object (the
#    lookups, which open /proc/PID/maps, found a descriptor: the pins gave way),
#    and every image of a copy has its calls in-process (>= 99);
#  - 150 distinct copies of many_symbols (a symbol table left for its first
#    lookup, a descriptor of the file kept till then) run once each: at the end
#    the tracer holds at most 64 of them open twice (a pin each, and at most 64
#    tables waiting: tracer/objects.c), and every copy's calls are in-process
#    (>= 99).
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt 200 ]; then
	check_problem "the hard limit of descriptors is $hard here: this test needs 200 (the first case needs the tracer above 80)"
	finish
fi

# in_process DIR PATTERN N WHAT: the N images whose exe contains PATTERN made >= 99
# of their calls each in-process
in_process() {
	python3 - "$1" "$2" "$3" <<'PY' || check_problem "$4 (above)"
import csv, sys
d, pattern, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [r for r in csv.DictReader(open(f"{d}/processes.csv")) if pattern in r["exe"]]
short = [r for r in rows if int(r["inprocess"]) < 99]
print(f"    {len(rows)} images of *{pattern}*, {len(rows) - len(short)} with >= 99 calls in-process")
for r in short[:5]:
    print(f"    {r['exe']} pid {r['pid']}: inprocess {r['inprocess']}, ptraced {r['ptraced']}, library {r['library']}")
sys.exit(0 if len(rows) == n and not short else 1)
PY
}

echo "== soft limit 32: 40 shells, then 40 loops, alive at once"
D=$TMPDIR/soft
cat >"$TMPDIR/many.sh" <<EOF
ulimit -Sn
ulimit -Hn
mkfifo "$TMPDIR/ready" "$TMPDIR/go"
exec 4<>"$TMPDIR/go" 5<>"$TMPDIR/ready"
i=0
while [ \$i -lt 40 ]; do
	sh -c 'echo >&5; read x <&4; "\$0" 100; exit \$?' "$P/getppid_loop" &
	i=\$((i + 1))
done
i=0
while [ \$i -lt 40 ]; do read x <&5; i=\$((i + 1)); done
i=0
while [ \$i -lt 40 ]; do echo >&4; i=\$((i + 1)); done
wait
EOF
(ulimit -Sn 32 && st_run_mode default "$D" sh "$TMPDIR/many.sh" && exit "$ST_STATUS") ||
	check_problem "the 40 shells under a soft limit of 32 exited $?"
sed 's/^/    | /' "$D.err" | head -5
[ "$(sed -n 1p "$D.out")" = 32 ] && [ "$(sed -n 2p "$D.out")" = "$hard" ] ||
	check_problem "the command saw the limits '$(tr '\n' ' ' <"$D.out")', natively '32 $hard'"
require_file "$D/processes.csv" "soft limit 32" &&
	in_process "$D" /getppid_loop 40 "under a soft limit of 32 loops were lost, or their calls ptraced: the tracer ran out of descriptors"

echo "== both limits 40: 60 copies of getppid_loop, twice each"
D=$TMPDIR/hard
cat >"$TMPDIR/copies.sh" <<EOF
i=0
while [ \$i -lt 60 ]; do
	cp "$P/getppid_loop" "$TMPDIR/copy\$i" && "$TMPDIR/copy\$i" 100 && "$TMPDIR/copy\$i" 100 || exit 1
	i=\$((i + 1))
done
EOF
(ulimit -n 40 && st_run_mode default "$D" sh "$TMPDIR/copies.sh" && exit "$ST_STATUS") ||
	check_problem "the copies under a limit of 40 exited $?"
sed 's/^/    | /' "$D.err" | head -5
require_file "$D/processes.csv" "limit 40" &&
	in_process "$D" "$TMPDIR/copy" 120 "a copy's calls were ptraced under a limit of 40: pins kept the descriptors"
require_file "$D/sites.csv" "limit 40" && python3 - "$D" <<'PY' || check_problem "sites not named under a limit of 40 (above): pins kept the descriptors"
import csv, sys
rows = list(csv.DictReader(open(f"{sys.argv[1]}/sites.csv")))
unnamed = [r for r in rows if not r["object"]]
print(f"    {len(rows)} sites, {len(unnamed)} without their object")
for r in unnamed[:3]:
    print(f"    pid {r['pid']} image {r['image']} {r['address']} ({r['syscall']})")
sys.exit(1 if unnamed or not rows else 0)
PY

echo "== 150 copies of many_symbols, once each"
D=$TMPDIR/tables
cat >"$TMPDIR/tables.sh" <<EOF
i=0
while [ \$i -lt 150 ]; do
	cp "$P/many_symbols" "$TMPDIR/table\$i" && "$TMPDIR/table\$i" 100 || exit 1
	i=\$((i + 1))
done
for f in /proc/\$PPID/fd/*; do readlink "\$f"; done | grep "^$TMPDIR/table[0-9]*\\\$" | sort | uniq -c |
	awk '\$1 > 1 { n++ } END { print n + 0 }'
EOF
st_run_mode default "$D" sh "$TMPDIR/tables.sh"
[ "$ST_STATUS" -eq 0 ] || check_problem "the many_symbols copies exited $ST_STATUS"
twice=$(tail -n 1 "$D.out")
[ "$twice" -le 64 ] ||
	check_problem "systrace holds $twice of the 150 copies open twice at their end (a pin, and a table waiting for a lookup): more than 64 tables wait"
require_file "$D/processes.csv" "150 copies" &&
	in_process "$D" "$TMPDIR/table" 150 "a many_symbols copy's calls were ptraced"
finish
