#!/bin/sh
# Programs that remove what the in-process path could be reached through: env_cleared
# clears its environment and closes every descriptor, calls syscall(SYS_getppid) 2000
# times, then execs getppid_loop 3000 with an empty environment and no descriptors
# (closefds_noenv does the same with 123 and 50). Under the default mode:
#  - both exit 0, the counts equal strace -f -c's, and the getppid counts are exact
#    per image (2001 then 3000; 123 then 50);
#  - the in-process path is up (library `ready`) in every image: in the first one
#    after the environment and descriptors are gone (its site is patched and counts
#    in-process after that), in the exec'd one because its set-up at exec needs
#    neither (tracer/early.c);
#  - getppid_loop's syscall() site is patched and counts in-process.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS

check_run() { # NAME FIRST_CALLS EXEC_CALLS CMD...
	_n=$1
	_first=$2
	_second=$3
	shift 3
	compare_inprocess "$_n" default "exit_group=1" "$@" || return
	D=$TMPDIR/$_n
	expect_count "$D" x86_64 getppid $((_first + _second)) "$_n"
	expect_count "$D" x86_64 execve 2 "$_n"
	expect_rows "$D" getppid "$(printf '%s\n' "$_first" "$_second" | sort -n | tr '\n' ' ' | sed 's/ $//')" "$_n"
	csvtool consistency "$D" --any-mode || check_problem "$_n: CSV files inconsistent"
	csvtool library "$D" ready || check_problem "$_n: the library is not ready in every image (see above)"
	expect_site "$D" syscall patched "$_n (glibc syscall(), in both images)"
	python3 - "$D" <<'PY' || check_problem "$_n: getppid_loop (exec'd with an empty environment) made no call in-process"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1] + "/processes.csv", newline=""))
        if r["exe"].endswith("/getppid_loop")]
for r in rows:
    print(f"    getppid_loop: syscalls {r['syscalls']}, inprocess {r['inprocess']}, library {r.get('library')}")
sys.exit(0 if rows and all(int(r["inprocess"]) > 0 for r in rows) else 1)
PY
}

check_run env_cleared 2001 3000 "$P/env_cleared" 2000 3000
check_run closefds_noenv 123 50 "$P/closefds_noenv"
finish
