#!/bin/sh
# The in-process path, exactly: every hazard program (tests/programs: redzone, regs,
# race_threads, blocked_threads, branch_into, syscall_ret_next, jit, sigsys,
# clone_stack, unmap_self, vfork_patched, vfork_signals, fork_threads; and the older clone_vm, vfork_exec,
# fork_from_thread, exec_from_thread, signals, nested_handlers) runs under systrace in its default mode
# (safe; first_call, run 150 times, has test_first_call.sh):
#  - exits 0: each program checks its own results and exits non-zero when a patch
#    broke it (a clobbered register or red zone, a wrong return, a crash);
#  - its per-syscall counts equal strace -f -c's for the same program run alone
#    (plus the calls strace -c cannot see: exit, exit_group; a call restarted by a
#    signal is left to the counts by construction, since strace counts each
#    entry), and the counts each program makes by
#    construction are there, per site and, where processes share memory (vfork,
#    CLONE_VM, fork), per image;
#  - its hot sites, fixed-number or run-time-number sites in the program or libc
#    with room for a patch, are `patched` with in-process calls; the sites that a
#    patch would break (a branch target inside, `syscall; ret; next function`) are
#    never patched; no clone3 site ever is, clone goes in-process only as
#    a plain fork (glibc's _Fork, whose child returns through the stub on its own
#    copy of the stack): a clone on a new stack always stops; rt_sigreturn only
#    at glibc's restorer, whose stub moves no stack; and vfork only at a fixed
#    number (glibc's __vfork, vfork_signals' own), whose stub comes back through
#    the slot.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS
T=$TMPDIR

# after a run: the generic checks
common() {
	require_file "$T/$1/processes.csv" "$1" || return 1
	expect_never_patched "$T/$1" "$1"
	csvtool library "$T/$1" ready "/$2" >/dev/null ||
		check_problem "$1: the library is not ready in $2 (csvtool.py library $T/$1 ready /$2 says why)"
}

# the red zone below %rsp, kept across `mov $110,%eax; syscall` (BEFORE) and
# `xor %eax,%eax; syscall; cmp` (AFTER)
if compare_inprocess redzone default "exit_group=1" "$P/redzone" 3000; then
	expect_count "$T/redzone" x86_64 getppid 3001 redzone
	expect_site_count "$T/redzone" symbol=redzone_before 3000 redzone
	expect_site_count "$T/redzone" symbol=redzone_after 3000 redzone
fi
expect_site "$T/redzone" redzone_before patched "redzone (fixed number, BEFORE shape)"
expect_site "$T/redzone" redzone_after patched "redzone (AFTER shape, as glibc's read)"
common redzone redzone

# every register but rax, rcx, r11, the flags, MXCSR, the vector registers
if compare_inprocess regs default "exit_group=1" "$P/regs" 10000; then
	expect_count "$T/regs" x86_64 getppid 13335 regs
	expect_count "$T/regs" x86_64 getpid 3334 regs
	expect_count "$T/regs" x86_64 gettid 3334 regs
	expect_site_count "$T/regs" symbol=regs_fixed 10000 regs
	expect_site_count "$T/regs" symbol=regs_runtime 10000 regs
fi
expect_site "$T/regs" regs_fixed patched "regs (fixed number)"
expect_site "$T/regs" regs_runtime patched "regs (number known at run time)"
common regs regs

# 8 threads released together at one unpatched site
if compare_inprocess race_threads default "exit=8 exit_group=1" "$P/race_threads" 8 2000; then
	expect_count "$T/race_threads" x86_64 getppid 32001 race_threads
	expect_site_count "$T/race_threads" symbol=race_site 16000 race_threads
	expect_site_count "$T/race_threads" object=libc.so symbol=getppid 16000 "race_threads (glibc getppid)"
fi
expect_site "$T/race_threads" race_site patched "race_threads (8 threads at once)"
common race_threads race_threads

# threads blocked in read at sites patched meanwhile, three of them interrupted by a
# handler and restarted (strace counts those reads twice: read is checked per site);
# the main thread polls until they are blocked (pread64, clock_nanosleep: timing)
if compare_inprocess blocked_threads default "exit=9 exit_group=1 read=? pread64=? clock_nanosleep=?" "$P/blocked_threads" 2000; then
	expect_site_count "$T/blocked_threads" symbol=before_read 2001 blocked_threads
	expect_site_count "$T/blocked_threads" symbol=after_read 2003 blocked_threads
	expect_site_count "$T/blocked_threads" object=libc.so syscall=read 2005 "blocked_threads (glibc read)"
	expect_count "$T/blocked_threads" x86_64 write 9 blocked_threads
	expect_count "$T/blocked_threads" x86_64 rt_sigreturn 3 blocked_threads
	expect_count "$T/blocked_threads" x86_64 getppid 3 blocked_threads
fi
expect_site "$T/blocked_threads" before_read patched "blocked_threads (BEFORE shape, a thread blocked in it)"
expect_site "$T/blocked_threads" after_read patched "blocked_threads (AFTER shape, threads blocked in it)"
common blocked_threads blocked_threads

# branches into the bytes around a syscall
if compare_inprocess branch_into default "exit_group=1" "$P/branch_into" 2000; then
	expect_count "$T/branch_into" x86_64 getppid 8001 branch_into
	expect_count "$T/branch_into" x86_64 getpid 4001 branch_into
	expect_site_count "$T/branch_into" symbol=ba_after 2000 branch_into
	expect_site_count "$T/branch_into" symbol=ba_after_fixed 2000 branch_into
	expect_site_count "$T/branch_into" symbol=bb_before 4000 branch_into
	expect_site_count "$T/branch_into" symbol=bd_target_is_site 4000 branch_into
fi
expect_site "$T/branch_into" ba_after not-patched "branch_into (a branch target right after the syscall, no room before)"
expect_site "$T/branch_into" ba_after_fixed not-patched "branch_into (the same, fixed number)"
expect_site "$T/branch_into" bb_before any "branch_into"
expect_site "$T/branch_into" bd_target_is_site any "branch_into"
# bd_target_is_site's syscall runs with getpid (through the mov before it) and with
# getppid (the branch skips the mov): sites.csv must say `?`, not the mov's number
if require_file "$T/branch_into/sites.csv" branch_into; then
	nr=$(python3 -c 'import csv, sys
print(" ".join(r["syscall"] for r in csv.DictReader(open(sys.argv[1], newline="")) if r["symbol"].startswith("bd_target_is_site+")))' "$T/branch_into/sites.csv")
	[ "$nr" = "?" ] || check_problem "branch_into: sites.csv names bd_target_is_site's syscall '$nr'; it saw getpid and getppid, so '?'"
fi
common branch_into branch_into

# `syscall; ret` followed by the next function
if compare_inprocess syscall_ret_next default "exit_group=1" "$P/syscall_ret_next" 2000; then
	expect_count "$T/syscall_ret_next" x86_64 getpid 4001 syscall_ret_next
	expect_count "$T/syscall_ret_next" x86_64 getppid 4001 syscall_ret_next
	for s in srn_getpid srn_getppid_a srn_runtime+0x2 srn_runtime+0xa; do
		expect_site_count "$T/syscall_ret_next" symbol=$s 2000 syscall_ret_next
	done
fi
expect_site "$T/syscall_ret_next" srn_getpid patched "syscall_ret_next (mov \$39; syscall; ret: the mov is room enough)"
expect_site "$T/syscall_ret_next" srn_getppid_a patched "syscall_ret_next"
expect_site "$T/syscall_ret_next" srn_runtime+0x2 not-patched "syscall_ret_next (no room before, ret and the next function after)"
common syscall_ret_next syscall_ret_next

# code rewritten at run time
if compare_inprocess jit default "exit_group=1" "$P/jit" 2000; then
	expect_count "$T/jit" x86_64 getpid 12001 jit
	expect_count "$T/jit" x86_64 getppid 6001 jit
	expect_site_count "$T/jit" "object=[anon]" 18000 "jit ([anon] sites)"
fi
common jit jit

# handlers making syscalls at the interrupted site; rt_sigreturn
if compare_inprocess sigsys default "exit=1 exit_group=1" "$P/sigsys" 20000 300; then
	expect_count "$T/sigsys" x86_64 getppid 20001 sigsys
	expect_count "$T/sigsys" x86_64 getpid 601 sigsys
	expect_count "$T/sigsys" x86_64 write 600 sigsys
	expect_count "$T/sigsys" x86_64 rt_sigreturn 600 sigsys
	expect_count "$T/sigsys" x86_64 tgkill 300 sigsys
	expect_count "$T/sigsys" x86_64 setitimer 300 sigsys
fi
expect_site "$T/sigsys" syscall patched "sigsys (glibc syscall(), used by the loop and the handler)"
common sigsys sigsys

# children on new stacks (clone, clone3; threads and CLONE_VM processes)
if compare_inprocess clone_stack default "exit=6 exit_group=2" "$P/clone_stack" 2000; then
	expect_count "$T/clone_stack" x86_64 getppid 11029 clone_stack
	expect_count "$T/clone_stack" x86_64 clone 4 clone_stack
	expect_count "$T/clone_stack" x86_64 clone3 3 clone_stack
	expect_rows "$T/clone_stack" getppid "1002 1004 1006 1007 7010" clone_stack
fi
expect_site "$T/clone_stack" site_getppid patched "clone_stack"
expect_site "$T/clone_stack" raw_clone@clone stops "clone_stack (raw clone, on a new stack)"
expect_site "$T/clone_stack" raw_clone3@clone3 not-patched "clone_stack (raw clone3)"
common clone_stack clone_stack

# a thread that unmaps its own stack, then exits with no stack (musl's pthread_exit)
if compare_inprocess unmap_self default "exit=200 exit_group=1" "$P/unmap_self" 200; then
	expect_count "$T/unmap_self" x86_64 getppid 2001 unmap_self
	expect_count "$T/unmap_self" x86_64 clone 200 unmap_self
	expect_site_count "$T/unmap_self" symbol=unmap_self_exit syscall=munmap 200 unmap_self
fi
common unmap_self unmap_self

# vfork children calling patched sites, one through a run-time-number site
if compare_inprocess vfork_patched default "exit_group=5" "$P/vfork_patched" 2000; then
	expect_count "$T/vfork_patched" x86_64 getppid 18601 vfork_patched
	expect_count "$T/vfork_patched" x86_64 vfork 4 vfork_patched
	expect_rows "$T/vfork_patched" getppid "1500 1600 1700 1800 12001" vfork_patched
fi
expect_site "$T/vfork_patched" site_getppid patched "vfork_patched"
expect_site "$T/vfork_patched" rt_pop_syscall any "vfork_patched"
expect_site "$T/vfork_patched" __vfork@vfork patched "vfork_patched (glibc's vfork, the stackless stub)"
common vfork_patched vfork_patched

# a handler's vfork at another site, each time glibc's vfork comes back out of the
# gate's stackless entry (the signal is delivered there every round); vfork and
# wait4 by construction only: under strace a SIGCHLD (queued for a traced process
# even when ignored) that comes during a vfork makes the kernel enter it again
# (ERESTARTNOINTR), which strace counts as a second call
if compare_inprocess vfork_signals default "exit_group=601 vfork=? wait4=?" "$P/vfork_signals" 300; then
	expect_count "$T/vfork_signals" x86_64 vfork 600 vfork_signals
	expect_count "$T/vfork_signals" x86_64 wait4 600 vfork_signals
	expect_count "$T/vfork_signals" x86_64 kill 300 vfork_signals
	expect_count "$T/vfork_signals" x86_64 rt_sigreturn 300 vfork_signals
fi
expect_site "$T/vfork_signals" __vfork@vfork patched "vfork_signals (glibc's vfork)"
expect_site "$T/vfork_signals" pop_vfork@vfork patched "vfork_signals (the handler's vfork)"
common vfork_signals vfork_signals

# fork from a process whose threads are busy at the patched sites
if compare_inprocess fork_threads default "exit=4 exit_group=4" "$P/fork_threads" 4 3000; then
	expect_count "$T/fork_threads" x86_64 getppid 27667 fork_threads
	expect_count "$T/fork_threads" x86_64 fork 1 fork_threads
	expect_rows "$T/fork_threads" getppid "1111 1222 1333 24001" fork_threads
fi
expect_site "$T/fork_threads" site_getppid patched "fork_threads"
expect_site "$T/fork_threads" syscall patched "fork_threads (glibc syscall())"
expect_site "$T/fork_threads" _Fork@clone patched "fork_threads (glibc's fork, beside running threads)"
common fork_threads fork_threads

# the older programs (see test_exactness.sh for their counts)
if compare_inprocess clone_vm default "exit=1 exit_group=1" "$P/clone_vm"; then
	expect_rows "$T/clone_vm" getppid "2 11" clone_vm
fi
expect_never_patched "$T/clone_vm" clone_vm
if compare_inprocess vfork_exec default "exit_group=4" "$P/vfork_exec"; then
	expect_rows "$T/vfork_exec" getppid "3 77" vfork_exec
fi
expect_never_patched "$T/vfork_exec" vfork_exec
if compare_inprocess fork_from_thread "default" "exit=1 exit_group=2" "$P/fork_from_thread"; then
	expect_rows "$T/fork_from_thread" getppid "17" fork_from_thread
	expect_count "$T/fork_from_thread" x86_64 gettid 100 fork_from_thread
fi
expect_never_patched "$T/fork_from_thread" fork_from_thread
if compare_inprocess exec_from_thread default "exit_group=1" "$P/exec_from_thread"; then
	expect_count "$T/exec_from_thread" x86_64 getppid 33 exec_from_thread
fi
expect_never_patched "$T/exec_from_thread" exec_from_thread
# the same from a shell, whose libc's sites are known by then: the execve is made
# in-process, and the exec is reported at the leader's stop. The execer's call
# before it, answered at the pad, is its old image's (taken at the new image's first
# stop, it made a record there of a site of the old memory with no syscall, which
# the writer read out of bounds)
# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
if compare_inprocess exec_from_thread_sh default "exit_group=2" sh -c '"$0" "$1"; true' "$P/exec_from_thread" \
	"$P/getppid_loop"; then
	expect_count "$T/exec_from_thread_sh" x86_64 getppid 34 "exec_from_thread from sh (33, and the shell's one)"
fi
if compare_inprocess signals default "exit_group=2 kill=1" "$P/signals"; then
	expect_count "$T/signals" x86_64 rt_sigreturn 20 signals
	expect_rows "$T/signals" getppid "5 20" signals
fi
expect_never_patched "$T/signals" signals
# handlers that return in-process (the restorer patched, its word armed at the
# delivery), nest (both returns stop) and leave by siglongjmp (the armed word left
# behind serves no later frame)
if compare_inprocess nested_handlers default "exit_group=1" "$P/nested_handlers" 30; then
	expect_count "$T/nested_handlers" x86_64 rt_sigreturn 80 nested_handlers
	expect_count "$T/nested_handlers" x86_64 getppid 80 nested_handlers
fi
expect_site "$T/nested_handlers" __restore_rt patched "nested_handlers (glibc's restorer)"
common nested_handlers nested_handlers

finish
