#!/bin/sh
# Exact counting with --patch=off (every syscall is a ptrace stop): for each
# deterministic test program, systrace's per-syscall-name counts (x86_64, summed over
# every row of syscalls.csv) equal what `strace -f -c` reports for the same program,
# plus the calls strace -c cannot count (they never return: exit, exit_group, or their
# process was killed inside them), and the distinctive counts each program makes by
# construction are there exactly.
. "$(dirname "$0")/lib.sh"
P=$PROGRAMS

if compare_with_strace getppid_loop "exit_group=1" "$P/getppid_loop" 1000; then
	expect_count "$TMPDIR/getppid_loop" x86_64 getppid 1000 getppid_loop
	expect_count "$TMPDIR/getppid_loop" x86_64 execve 1 "getppid_loop (the command's own execve)"
fi

if compare_with_strace getppid_static "exit_group=1" "$P/getppid_static" 500; then
	expect_count "$TMPDIR/getppid_static" x86_64 getppid 500 getppid_static
fi

# 8 threads x (125 getppid + 25 gettid); each thread ends with exit
if compare_with_strace threads "exit=8 exit_group=1" "$P/threads"; then
	expect_count "$TMPDIR/threads" x86_64 getppid 1000 threads
	expect_count "$TMPDIR/threads" x86_64 gettid 200 threads
	expect_count "$TMPDIR/threads" x86_64 clone3 8 threads
	expect_count "$TMPDIR/threads" x86_64 exit 8 threads
fi

# 15 processes x 40 getppid, 14 forks (glibc's fork is clone), 14 waits
if compare_with_strace fork_tree "exit_group=15" "$P/fork_tree"; then
	expect_count "$TMPDIR/fork_tree" x86_64 getppid 600 fork_tree
	expect_count "$TMPDIR/fork_tree" x86_64 clone 14 fork_tree
	expect_count "$TMPDIR/fork_tree" x86_64 wait4 14 fork_tree
	expect_count "$TMPDIR/fork_tree" x86_64 exit_group 15 fork_tree
fi

# 3 vforks: one execs getppid_loop 77, one _exit(5)s, one makes 3 getppid and _exit(0)s
if compare_with_strace vfork_exec "exit_group=4" "$P/vfork_exec"; then
	expect_count "$TMPDIR/vfork_exec" x86_64 getppid 80 vfork_exec
	expect_count "$TMPDIR/vfork_exec" x86_64 vfork 3 vfork_exec
	expect_count "$TMPDIR/vfork_exec" x86_64 execve 2 vfork_exec
fi

# 20 handler runs; the child that kills itself is killed inside its kill
if compare_with_strace signals "exit_group=2 kill=1" "$P/signals"; then
	expect_count "$TMPDIR/signals" x86_64 rt_sigreturn 20 signals
	expect_count "$TMPDIR/signals" x86_64 getppid 25 signals
	expect_count "$TMPDIR/signals" x86_64 kill 14 signals
	expect_count "$TMPDIR/signals" x86_64 tgkill 10 signals
fi

# a non-leader thread execs getppid_loop 33
if compare_with_strace exec_from_thread "exit_group=1" "$P/exec_from_thread"; then
	expect_count "$TMPDIR/exec_from_thread" x86_64 getppid 33 exec_from_thread
	expect_count "$TMPDIR/exec_from_thread" x86_64 gettid 3 exec_from_thread
	expect_count "$TMPDIR/exec_from_thread" x86_64 execve 2 exec_from_thread
fi

# the same once the main thread has ended: the exec comes from the only live thread,
# which is not the leader
if compare_with_strace exec_after_leader "exit=1 exit_group=1" "$P/exec_from_thread" "$P/getppid_loop" leader-exits; then
	expect_count "$TMPDIR/exec_after_leader" x86_64 getppid 33 exec_after_leader
	expect_count "$TMPDIR/exec_after_leader" x86_64 gettid 3 exec_after_leader
	expect_count "$TMPDIR/exec_after_leader" x86_64 exit 1 exec_after_leader
	expect_rows "$TMPDIR/exec_after_leader" getppid "33" exec_after_leader
fi

# clone(CLONE_VM | SIGCHLD) child: 11 getppid, then exit; the parent 2 getppid
if compare_with_strace clone_vm "exit=1 exit_group=1" "$P/clone_vm"; then
	expect_count "$TMPDIR/clone_vm" x86_64 getppid 13 clone_vm
	expect_count "$TMPDIR/clone_vm" x86_64 clone 1 clone_vm
	expect_count "$TMPDIR/clone_vm" x86_64 exit 1 clone_vm
fi

# no fds, no environment: 123 getppid, then exec getppid_loop 50
if compare_with_strace closefds_noenv "exit_group=1" "$P/closefds_noenv"; then
	expect_count "$TMPDIR/closefds_noenv" x86_64 getppid 173 closefds_noenv
	expect_count "$TMPDIR/closefds_noenv" x86_64 close_range 1 closefds_noenv
fi

# a thread (not the leader) forks; the child 17 getppid, exit 4; the thread exits
if compare_with_strace fork_from_thread "exit=1 exit_group=2" "$P/fork_from_thread"; then
	expect_count "$TMPDIR/fork_from_thread" x86_64 getppid 17 fork_from_thread
	expect_count "$TMPDIR/fork_from_thread" x86_64 gettid 100 fork_from_thread
fi

# syscall numbers the kernel does not know: strace -c leaves them out, strace's trace
# names them syscall_0x1f4 (500) and syscall_0x3e8 (1000), and so must syscalls.csv
compare_with_strace unknown_syscall "exit_group=1 syscall_0x1f4=3 syscall_0x3e8=1" "$P/unknown_syscall"

# nothing counted under another ABI by any of these programs
for d in getppid_loop getppid_static threads fork_tree vfork_exec signals exec_from_thread clone_vm closefds_noenv fork_from_thread unknown_syscall; do
	require_file "$TMPDIR/$d/syscalls.csv" "$d" || continue
	other=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
print(" ".join(sorted({r.get("abi") or "x86_64" for r in rows} - {"x86_64"})))' "$TMPDIR/$d/syscalls.csv")
	[ -z "$other" ] || check_problem "$d: syscalls.csv has rows for ABI(s) $other; the program makes only x86_64 syscalls"
done

finish
