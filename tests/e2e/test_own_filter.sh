#!/bin/sh
# Programs with seccomp filters of their own (issue 13): tests/programs/own_filter
# installs one (ERRNO, TRAP to its own SIGSYS handler, LOG, TRACE with no tracer of its
# own, KILL_PROCESS, KILL_THREAD, a launcher that kills or refuses the numbers the
# kernel does not have and execs a dynamically linked, static or i386 program,
# TSYNC from a thread, two filters stacked, inheritance across fork and exec,
# USER_NOTIF to a supervisor thread) and checks that every call was decided as its
# filter says. In the default mode, with --patch=off, --log and --time (whose
# ptraced calls return through the timed pad), it must end as it ends alone (its
# exit status, or its death by SIGSYS), and every call must be counted (the
# refused ones too, with their errors) exactly as `strace -f -c` counts them, and
# by construction.
# This file: ERRNO, TRAP, LOG, TRACE and the kill modes; test_own_filter_launch.sh the
# rest (the launcher, TSYNC, stacked filters, fork, USER_NOTIF, the filter's size).
. "$(dirname "$0")/own_filter_lib.sh"

# The extra calls, which strace -c does not count: exit_group and a thread's exit
# (they never return); kill-thread's getpid (its thread exits inside it) but not
# kill-process's (the kernel rolls the call back to raise its SIGSYS: strace sees
# it return), and there the main thread's read, in flight when the process dies.
# The polls of the kill modes (pread64, clock_nanosleep: blocked_in.h) are timing.
run_case errno 0 "exit_group=1" "getpriority=100/100 seccomp=1/0" -- errno 100
run_case errno-prctl 0 "exit_group=1" "getpriority=100/100 prctl=2/0" -- errno-prctl 100
run_case trap 0 "exit_group=1" "getppid=100/0 rt_sigreturn=100/0" -- trap 100
# a program's TRACE, with no tracer of its own (strace sets no PTRACE_O_TRACESECCOMP)
run_case log 0 "exit_group=1" "getpriority=100/0 seccomp=1/0" -- log 100
run_case trace 0 "exit_group=1" "getpriority=100/100" -- trace 100
run_case kill-process 159 "read=1 pread64=? clock_nanosleep=?" "getpid=1/0" -- kill-process
run_case kill-thread 0 "getpid=1 exit_group=1 pread64=? clock_nanosleep=? futex=?" "getpid=1/0" -- kill-thread
finish
