#!/bin/sh
# Programs built with AddressSanitizer run under systrace as they run alone, with
# gcc's runtime (a shared library that must come first among the loaded objects)
# and clang's (linked in), in the default mode and with --patch=off. Their
# LeakSanitizer, at exit, stops the threads by ptrace-attaching them from a helper
# task, reads their registers and scans their stacks; under a tracer that already
# traces them it used to give up ("LeakSanitizer does not work under ptrace").
# leaks_CC (tests/programs/sanitized/leaks.c) keeps two threads blocked in read(),
# each holding the only pointer to a block on its stack; `leak` also loses a 77-byte
# block. For each compiler, argument and mode:
#  - the exit status is the native one (leak: LeakSanitizer's, clean: 0) and the
#    program printed "ran";
#  - leak: its stderr reports exactly the 77-byte block (one direct leak, the
#    summary line); clean: no sanitizer line at all (the threads' blocks were found
#    through their real stack pointers);
#  - the helper's ptrace calls are counted (at least an attach, a register read and
#    a detach per thread), and the files are consistent;
#  - default mode: every image keeps its in-process path (library `ready`): only the
#    waits of the program's memory (the helper's too) go back to stopping, and none
#    of the program's went in-process.
# And the same leak check in a pid namespace with its own /proc (the thread ids the
# helper reads there are the namespace's), when root can make one.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

check_report() { # WHAT ERRFILE leak|clean
	if [ "$3" = leak ]; then
		grep -q 'Direct leak of 77 byte(s) in 1 object(s)' "$2" &&
			grep -q 'SUMMARY: AddressSanitizer: 77 byte(s) leaked in 1 allocation(s)\.' "$2" ||
			{ check_problem "$1: no report of exactly the 77-byte leak"; sed 's/^/    err| /' "$2" | head -20; }
	elif grep -E 'Sanitizer|ASan|==[0-9]+==' "$2" >/dev/null; then
		check_problem "$1: a clean program's stderr has sanitizer output"
		sed 's/^/    err| /' "$2" | head -20
	fi
}

for cc in gcc clang; do
	prog=$P/leaks_$cc
	for arg in leak clean; do
		"$prog" "$arg" >"$T/native-$cc-$arg.out" 2>"$T/native-$cc-$arg.err"
		native=$?
		# the test programs themselves, natively: leak reports and fails, clean passes
		[ "$arg" = clean ] && [ "$native" -ne 0 ] && fail "leaks_$cc clean exits $native natively (a broken build?)"
		[ "$arg" = leak ] && [ "$native" -eq 0 ] && fail "leaks_$cc leak exits 0 natively: LeakSanitizer is off (ASAN_OPTIONS=$ASAN_OPTIONS)"
		check_report "leaks_$cc $arg natively" "$T/native-$cc-$arg.err" "$arg"
		for mode in default off; do
			name=$cc-$arg-$mode
			echo "== leaks_$cc $arg (--patch=$mode)"
			st_run_mode "$mode" "$T/$name" sh -c '"$0" "$1" 2>"$2"' "$prog" "$arg" "$T/$name.prog.err"
			[ "$ST_STATUS" -eq "$native" ] ||
				{ check_problem "leaks_$cc $arg --patch=$mode: exit status $ST_STATUS, natively $native"; st_show_err "$T/$name"; }
			grep -qx ran "$T/$name.out" || check_problem "leaks_$cc $arg --patch=$mode: the program did not run (no \"ran\")"
			check_report "leaks_$cc $arg --patch=$mode" "$T/$name.prog.err" "$arg"
			require_file "$T/$name/syscalls.csv" "leaks_$cc $arg --patch=$mode" || continue
			n=$(csvtool counts "$T/$name" x86_64 | awk '$1 == "ptrace" { print $2 }')
			[ "${n:-0}" -ge 9 ] ||
				check_problem "leaks_$cc $arg --patch=$mode: ${n:-0} ptrace calls counted, expected at least 9 (attach, registers, detach for 3 threads)"
			csvtool consistency "$T/$name" --any-mode || check_problem "leaks_$cc $arg --patch=$mode: the CSV files are inconsistent"
			[ "$mode" = default ] || continue
			csvtool library "$T/$name" ready >/dev/null ||
				check_problem "leaks_$cc $arg: an image is not ready (csvtool.py library $T/$name ready says which)"
			python3 - "$T/$name" "/leaks_$cc" <<'PY' || check_problem "leaks_$cc $arg: a wait4 of the program went in-process (above)"
import csv, sys
d, exe = sys.argv[1], sys.argv[2]
mine = {(r["pid"], r["image"]) for r in csv.DictReader(open(d + "/processes.csv", newline="")) if r["exe"].endswith(exe)}
rows = [r for r in csv.DictReader(open(d + "/syscalls.csv", newline=""))
        if r["syscall"] == "wait4" and (r["pid"], r["image"]) in mine]
for r in rows:
    print(f"    pid {r['pid']} image {r['image']}: wait4 {r['calls']}, in-process {r['inprocess']}")
sys.exit(1 if not rows or any(r["inprocess"] != "0" for r in rows) else 0)
PY
		done
	done
done

if [ "$(id -u)" -ne 0 ]; then
	echo "    the pid namespace case not run: it needs root (unshare -p)"
else
	echo "== leaks_clang leak in a pid namespace with its own /proc"
	st_run_mode default "$T/pidns" unshare -fp --mount-proc sh -c '"$0" leak 2>"$1"' "$P/leaks_clang" "$T/pidns.prog.err"
	[ "$ST_STATUS" -eq 1 ] || { check_problem "leaks_clang leak in a pid namespace: exit status $ST_STATUS, expected 1 (LeakSanitizer's)"; st_show_err "$T/pidns"; }
	check_report "leaks_clang leak in a pid namespace" "$T/pidns.prog.err" leak
fi
finish
