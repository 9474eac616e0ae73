#!/bin/sh
# The four --patch modes on race_threads (8 threads released together at one inline
# getppid site, race_site, and at glibc's getppid; see tests/programs/race_threads.c):
#  - every mode: the program exits 0 (it checks all 32,000 results);
#  - off, single, safe: the counts equal strace -f -c's, and getppid is exactly
#    2 * 8 * 2000 + 1;
#  - off: no site patched, no call in-process;
#  - single (patching that assumes one thread): race_site, only ever run by several
#    threads, is never patched (pending or unpatchable) and has no in-process call;
#  - safe: race_site is patched and counts in-process;
#  - unsafe (single-threaded patching applied anyway, for measurement): only the exit
#    status is required; its counts are printed.
# safe runs three times (races), with 8 and with 16 threads.
. "$(dirname "$0")/lib.sh"
T=$TMPDIR
PROG=$PROGRAMS/race_threads

echo "== race_threads --patch=off"
st_run_mode off "$T/off" "$PROG" 8 2000
if [ "$ST_STATUS" -ne 0 ]; then
	check_problem "race_threads --patch=off exited $ST_STATUS, expected 0"
	st_show_err "$T/off"
else
	strace_count "$T/off.strace" "$PROG" 8 2000
	csvtool compare "$T/off" "$T/off.strace" x86_64 exit=8 exit_group=1 ||
		check_problem "race_threads --patch=off: counts differ from strace -f -c"
	expect_count "$T/off" x86_64 getppid 32001 "race_threads --patch=off"
	csvtool consistency "$T/off" || check_problem "race_threads --patch=off: CSV files inconsistent (or something in-process)"
	if csvtool library "$T/off" off >/dev/null; then :; else
		check_problem "race_threads --patch=off: processes.csv library should say 'off' (csvtool.py library $T/off off)"
	fi
fi

run_exact() { # NAME MODE THREADS
	if compare_inprocess "$1" "$2" "exit=$3 exit_group=1" "$PROG" "$3" 2000; then
		expect_count "$T/$1" x86_64 getppid $((2 * $3 * 2000 + 1)) "race_threads --patch=$2 ($3 threads)"
		return 0
	fi
	return 1
}

if run_exact single single 8; then
	expect_site "$T/single" race_site not-patched "race_threads --patch=single (a site run only by several threads)"
fi

for round in 1 2 3; do
	if run_exact "safe$round" safe 8; then
		expect_site "$T/safe$round" race_site patched "race_threads --patch=safe (round $round)"
		expect_site_count "$T/safe$round" symbol=race_site 16000 "race_threads --patch=safe (round $round)"
	fi
done
if run_exact safe16 safe 16; then
	expect_site "$T/safe16" race_site patched "race_threads --patch=safe (16 threads)"
fi

echo "== race_threads --patch=unsafe"
st_run_mode unsafe "$T/unsafe" "$PROG" 8 2000
if [ "$ST_STATUS" -ne 0 ]; then
	check_problem "race_threads --patch=unsafe exited $ST_STATUS, expected 0 (unsafe is for measurement, but this program should survive it)"
	st_show_err "$T/unsafe"
elif require_file "$T/unsafe/syscalls.csv" "race_threads --patch=unsafe"; then
	echo "   (unsafe, not required to be exact) getppid: $(csvtool counts "$T/unsafe" | awk '$1 == "getppid" { print $2 }'), expected 32001"
	csvtool site "$T/unsafe" race_site any
fi
finish
