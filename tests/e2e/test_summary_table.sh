#!/bin/sh
# systrace -c: strace -c's table on stderr at the end, and the same from the files
# (systrace-stats report --syscalls):
#  - the layout is strace's (its header and dashes begin ours, each cell in its
#    column), with inprocess and ptraced after; the total line sums the rows; every
#    count equals syscalls.csv's and the totals summary.csv's (csvtool.py ctable);
#  - getppid_loop 1000: the calls per name equal strace -f -c's of the same program
#    (exit_group, which strace counts at its exit, never comes: +1), with getppid
#    1000 by construction: all ptraced under --patch=off, in-process but for a
#    few stops in the default mode (compared with strace -f -c with the library
#    preloaded, as systrace runs the program);
#  - the order: by calls by default (times are not measured), -S name, errors,
#    inprocess, ptraced; -S time says it sorted by calls; a failed execve's error
#    is counted and the note says how many calls' errors are known;
#  - report --syscalls prints the live table to the byte, -S included; with
#    --per-process a table per process image (fork_tree: 15), most syscalls first,
#    adding up to the run's table; i386 calls get strace's 32-bit table;
#  - a bad -S key is a usage error (systrace 125, systrace-stats 2).
. "$(dirname "$0")/lib.sh"
: "${SYSTRACE_STATS:?SYSTRACE_STATS is not set (run tests through tests/e2e/run-all.sh BUILD)}"
P=$PROGRAMS

# same_table WHAT LIVE FILE: the live table (systrace's stderr) and report's are equal
same_table() {
	if ! cmp -s "$2" "$3"; then
		check_problem "$1: report --syscalls differs from the table systrace -c printed:"
		diff "$2" "$3" | head -20 | sed 's/^/    /'
	fi
}

# table_run NAME MODE CMD...: systrace -c under MODE into $TMPDIR/NAME (stderr: the table)
table_run() {
	_n=$1
	_m=$2
	shift 2
	ST_OPTS="${ST_OPTS:--c}" st_run_mode "$_m" "$TMPDIR/$_n" "$@"
	if [ "$ST_STATUS" -ne 0 ]; then
		check_problem "$_n: systrace ${ST_OPTS:--c} --patch=$_m exited $ST_STATUS, the program exits 0"
		st_show_err "$TMPDIR/$_n"
		return 1
	fi
	return 0
}

echo "== getppid_loop 1000, --patch=off: the table against strace -f -c"
D=$TMPDIR/off
if table_run off off "$P/getppid_loop" 1000; then
	strace_count "$D.strace" "$P/getppid_loop" 1000
	csvtool ctable "$D.err" "$D" --order calls --strace "$D.strace" x86_64 exit_group=1 ||
		check_problem "the table of --patch=off (above)"
	grep -Eq '^ +0\.00 +0\.000000 +0 +1000 +getppid +0 +1000$' "$D.err" ||
		check_problem "no row 'getppid 1000 calls, 0 in-process, 1000 ptraced': $(grep getppid "$D.err")"
	# strace's own layout (its default columns, not -U) begins every line of ours
	timeout -k 5 "$RUN_TIMEOUT" strace -f -c -o "$D.strace-default" "$P/getppid_loop" 1000 >/dev/null 2>&1
	for n in 1 2; do
		theirs=$(sed -n "${n}p" "$D.strace-default")
		ours=$(sed -n "${n}p" "$D.err")
		case "$ours" in
		"$theirs"*) ;;
		*) check_problem "line $n of the table: '$ours' does not begin with strace's '$theirs'" ;;
		esac
	done
	grep -q '^note: the times of the calls were not measured' "$D.err" ||
		check_problem "no note saying the times were not measured"
	stats off-report report --syscalls "$D"
	[ "$STATS_STATUS" -eq 0 ] || check_problem "report --syscalls exited $STATS_STATUS: $(cat "$TMPDIR/off-report.err")"
	same_table "--patch=off" "$D.err" "$TMPDIR/off-report.out"
fi

echo "== getppid_loop 1000, default mode: in-process calls, against strace -f -c"
D=$TMPDIR/inprocess
if table_run inprocess default "$P/getppid_loop" 1000; then
	strace_count "$D.strace" "$P/getppid_loop" 1000
	csvtool ctable "$D.err" "$D" --order calls --strace "$D.strace" x86_64 exit_group=1 ||
		check_problem "the table of the default mode (above)"
	row=$(grep -E ' getppid +[0-9]+ +[0-9]+$' "$D.err")
	inproc=$(echo "$row" | awk '{ print $(NF - 1) }')
	ptraced=$(echo "$row" | awk '{ print $NF }')
	if [ "$((inproc + ptraced))" -ne 1000 ] || [ "$inproc" -lt 990 ]; then
		check_problem "getppid: $inproc in-process + $ptraced ptraced; 1000 calls, nearly all in-process: '$row'"
	fi
	stats inprocess-report report --syscalls "$D"
	same_table "the default mode" "$D.err" "$TMPDIR/inprocess-report.out"
fi

echo "== several processes, a failed execve: -S orders, errors, --per-process"
D=$TMPDIR/mix
mix="$P/getppid_loop 300; $P/fork_tree; /nonexistent/program 2>/dev/null; $P/getppid_loop 20"
if table_run mix default /bin/sh -c "$mix; true"; then
	csvtool ctable "$D.err" "$D" --order calls || check_problem "the table of the shell's run (above)"
	grep -Eq ' 1 execve ' "$D.err" || check_problem "execve's failure is not in the errors column: $(grep execve "$D.err")"
	for key in name errors inprocess ptraced time; do
		stats "mix-$key" report --syscalls -S "$key" "$D"
		csvtool ctable "$TMPDIR/mix-$key.out" "$D" --order "$key" || check_problem "report -S $key (above)"
	done
	grep -q '^note: .*(sorted by calls, not by time)$' "$TMPDIR/mix-time.out" ||
		check_problem "-S time without times: no note that it sorted by calls"
	stats mix-pp report --syscalls --per-process "$D"
	[ "$STATS_STATUS" -eq 0 ] || check_problem "report --per-process exited $STATS_STATUS: $(cat "$TMPDIR/mix-pp.err")"
	csvtool ctable-per-process "$TMPDIR/mix-pp.out" "$D" || check_problem "report --per-process (above)"
	# the run's table, at the end, is report --syscalls'
	sed -n '/^ all processes (/,$p' "$TMPDIR/mix-pp.out" | tail -n +3 >"$TMPDIR/mix-pp.tail"
	same_table "--per-process's last table" "$D.err" "$TMPDIR/mix-pp.tail"
fi
# the same run with -S name: the live order is the report's
if ST_OPTS="-S name" table_run mix-name default /bin/sh -c "$mix; true"; then
	csvtool ctable "$TMPDIR/mix-name.err" "$TMPDIR/mix-name" --order name || check_problem "systrace -S name (above)"
	stats mix-name-report report --syscalls -S name "$TMPDIR/mix-name"
	same_table "-S name" "$TMPDIR/mix-name.err" "$TMPDIR/mix-name-report.out"
fi

echo "== fork_tree: 15 tables with --per-process, --limit"
D=$TMPDIR/tree
if table_run tree default "$P/fork_tree"; then
	stats tree-pp report --per-process "$D"
	csvtool ctable-per-process "$TMPDIR/tree-pp.out" "$D" || check_problem "fork_tree --per-process (above)"
	n=$(grep -c '^ fork_tree (pid ' "$TMPDIR/tree-pp.out")
	[ "$n" -eq 15 ] || check_problem "fork_tree: $n process tables, the program makes 15 processes"
	stats tree-limit report --per-process --limit 3 "$D"
	n=$(grep -c '^ fork_tree (pid ' "$TMPDIR/tree-limit.out")
	[ "$n" -eq 3 ] || check_problem "--limit 3: $n process tables"
	grep -q '^ all processes (15 with syscalls, the first shown: --limit), ' "$TMPDIR/tree-limit.out" ||
		check_problem "--limit 3: the last heading does not say the list was cut"
fi

echo "== -c with --show-perf-stats: both, neither in the other's way"
D=$TMPDIR/both
if ST_OPTS="-c --show-perf-stats" table_run both off "$P/getppid_loop" 10; then
	csvtool perfstats "$D" "$D.err" || check_problem "--show-perf-stats with -c (above)"
	csvtool ctable "$D.err" "$D" || check_problem "-c with --show-perf-stats (above)"
fi

echo "== i386 calls: strace's 32-bit table"
"$P/i386_int80" probe
if [ $? -eq 0 ]; then
	D=$TMPDIR/i386
	if table_run i386 off "$P/i386_int80"; then
		strace_count "$D.strace" "$P/i386_int80"
		grep -q '^System call usage summary for 32 bit mode:$' "$D.err" || check_problem "no 32-bit table"
		csvtool ctable "$D.err" "$D" --strace "$D.strace" i386 || check_problem "the 32-bit table (above)"
	fi
else
	echo "skipped: no IA32 emulation"
fi

echo "== bad keys"
"$SYSTRACE" -S fastest -- true >"$TMPDIR/bad.out" 2>"$TMPDIR/bad.err"
st=$?
[ "$st" -eq 125 ] || check_problem "systrace -S fastest exited $st, expected 125"
grep -q "time, calls, name, errors, inprocess or ptraced" "$TMPDIR/bad.err" ||
	check_problem "systrace -S fastest does not name the keys: $(cat "$TMPDIR/bad.err")"
stats bad-report report -S fastest "$TMPDIR/off"
[ "$STATS_STATUS" -eq 2 ] || check_problem "report -S fastest exited $STATS_STATUS, expected 2"
stats bad-csv report --syscalls --csv "$TMPDIR/off"
[ "$STATS_STATUS" -eq 2 ] || check_problem "report --syscalls --csv exited $STATS_STATUS, expected 2"

finish
