#!/bin/sh
# 32-bit syscalls (`int $0x80` from a 64-bit process) are counted under the i386 ABI
# with i386 names: i386_int80 makes 7 i386 getpid (number 20, writev on x86_64) and 1
# i386 getppid (number 64), and 5 x86_64 getpid + 1 getppid. Compared with strace -f -c,
# whose 32-bit table is separate. Passes (skipped) when the kernel has no IA32 emulation.
. "$(dirname "$0")/lib.sh"

"$PROGRAMS/i386_int80" probe
case $? in
0) ;;
77)
	echo "skipped: this kernel has no IA32 emulation (int \$0x80 gets SIGSEGV)"
	exit 0
	;;
*) fail "i386_int80 probe failed natively" ;;
esac

D=$TMPDIR/i386
if compare_with_strace i386 "exit_group=1" "$PROGRAMS/i386_int80"; then
	expect_count "$D" x86_64 getpid 5 "i386_int80"
	expect_count "$D" x86_64 writev 0 "i386_int80 (i386 getpid is number 20, x86_64's writev)"
	expect_count "$D" x86_64 semget 0 "i386_int80 (i386 getppid is number 64, x86_64's semget)"
	if ! csvtool compare "$D" "$D.strace" i386; then
		check_problem "i386 counts differ from strace's 32-bit table"
	fi
	expect_count "$D" i386 getpid 7 "i386_int80"
	expect_count "$D" i386 getppid 1 "i386_int80"
	head -1 "$D/syscalls.csv" | grep -q 'abi' || check_problem "syscalls.csv has no abi column"
fi
finish
