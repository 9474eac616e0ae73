#!/bin/sh
# systrace-stats log2csv on real logs, held to the independent reader (logtool.py csv):
# the same CSV byte for byte, whatever -j; a row per syscall of summary.csv; no
# sanitizer report (the ASan build); a corrupt entry and a truncated file fail with
# the byte offset and leave no CSV; --salvage converts the whole entries before the
# cut; -o - writes the CSV to stdout. (-o to a device or pipe: the unit tests, with a
# FIFO.)
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
[ -x "$SYSTRACE_STATS" ] || fail "$SYSTRACE_STATS is missing (make build/asan/systrace-stats)"
P=$PROGRAMS
T=$TMPDIR
LOGTOOL="python3 $E2E_DIR/logtool.py"
SYSCALL_TABLE=$BUILD_DIR/gen/syscall_table.c
export SYSCALL_TABLE

# convert NAME DIR [OPTION...]: log2csv into DIR/syscall-log.csv, stderr to NAME.err;
# sets STATUS
convert() {
	_name=$1
	_dir=$2
	shift 2
	"$SYSTRACE_STATS" log2csv --no-progress "$@" "$_dir" 2>"$T/$_name.err"
	STATUS=$?
	no_sanitizer_report "$T/$_name.err" "systrace-stats log2csv $* $_dir"
}

# the logs of log_known (both paths, early calls, a call without a result), of
# fork_threads (processes and threads) and of i386_int80 (the i386 ABI), held to the reader
for prog in log_known fork_threads i386_int80; do
	echo "== $prog"
	ST_OPTS=--log st_run_mode default "$T/$prog" "$P/$prog"
	[ -f "$T/$prog/syscall-log.bin" ] || { check_problem "$prog: no log"; continue; }
	$LOGTOOL csv "$T/$prog" >"$T/$prog.expected" || check_problem "$prog: logtool.py csv failed"
	for j in 1 2 3; do
		convert "$prog-j$j" "$T/$prog" -j "$j"
		[ "$STATUS" -eq 0 ] || check_problem "$prog -j$j: exit $STATUS: $(cat "$T/$prog-j$j.err")"
		cmp -s "$T/$prog/syscall-log.csv" "$T/$prog.expected" ||
			check_problem "$prog -j$j: the CSV differs from logtool.py csv: $(diff "$T/$prog.expected" "$T/$prog/syscall-log.csv" | head -5)"
	done
	rows=$(($(wc -l <"$T/$prog/syscall-log.csv") - 1))
	syscalls=$(summary_value "$T/$prog" syscalls)
	[ "$rows" -eq "$syscalls" ] || check_problem "$prog: $rows rows, summary.csv says $syscalls syscalls"
	echo "   $rows rows"
done

D=$T/log_known
size=$(wc -c <"$D/syscall-log.bin")

echo "== a corrupt entry: exit 1, its byte offset, no CSV"
cp -r "$D" "$T/corrupt"
rm -f "$T/corrupt/syscall-log.csv"
# the check byte of the third entry (the last byte of its 32)
printf '\000' | dd of="$T/corrupt/syscall-log.bin" bs=1 seek=$((64 + 3 * 32 - 1)) conv=notrunc 2>/dev/null
convert corrupt "$T/corrupt"
[ "$STATUS" -eq 1 ] || check_problem "corrupt: exit $STATUS, not 1"
grep -q "syscall-log.bin: corrupt entry at byte offset 128: check byte 0x00, expected 0xa5" "$T/corrupt.err" ||
	check_problem "corrupt: message '$(cat "$T/corrupt.err")'"
[ -z "$(ls -A "$T/corrupt" | grep -E 'syscall-log\.csv')" ] || check_problem "corrupt: a CSV (or its temporary) was left"

echo "== a truncated log: exit 1 naming the offset; --salvage converts the whole entries"
cp -r "$D" "$T/cut"
rm -f "$T/cut/syscall-log.csv"
whole=$(((size - 64) / 32 - 1))
head -c $((64 + whole * 32 + 5)) "$D/syscall-log.bin" >"$T/cut/syscall-log.bin"
convert cut "$T/cut"
[ "$STATUS" -eq 1 ] || check_problem "truncated: exit $STATUS, not 1"
grep -q "truncated entry at byte offset $((64 + whole * 32)) " "$T/cut.err" || check_problem "truncated: message '$(cat "$T/cut.err")'"
convert salvage "$T/cut" --salvage
[ "$STATUS" -eq 0 ] || check_problem "--salvage: exit $STATUS: $(cat "$T/salvage.err")"
grep -q warning "$T/salvage.err" || check_problem "--salvage: no warning"
head -n $((whole + 1)) "$T/log_known.expected" | cmp -s - "$T/cut/syscall-log.csv" ||
	check_problem "--salvage: not the first $whole rows"

echo "== -o -"
"$SYSTRACE_STATS" log2csv -o - "$D" 2>"$T/stdout.err" | cmp -s - "$T/log_known.expected" ||
	check_problem "-o -: not the CSV on stdout"
finish
