#!/bin/sh
# Outside systrace the preloaded library does nothing and makes no syscall of its own
# (so that strace -f -c of a program run with LD_PRELOAD=libsystrace.so is what
# systrace's counts are compared with, and a stray preload costs nothing). For a few
# programs, under plain strace (no systrace):
#  - with LD_PRELOAD=build/libsystrace.so the program exits 0, and strace -f -c
#    counts the same calls as without it, except those the dynamic loader makes to
#    map one more object (openat read pread64 newfstatat mmap mprotect munmap close),
#    which may only grow;
#  - strace -f -k (a stack for every syscall) shows no syscall made with
#    libsystrace.so on the stack: neither its constructor nor anything it installs
#    (a signal handler, an atfork hook) makes one.
. "$(dirname "$0")/lib.sh"
if [ ! -f "$LIBSYSTRACE" ]; then
	require_library
	finish
fi
P=$PROGRAMS

one() { # NAME CMD...
	_n=$1
	shift
	echo "== $_n: $*"
	strace_count "$TMPDIR/$_n.plain" "$@"
	if [ "$STRACE_STATUS" -ne 0 ]; then
		check_problem "$_n: exited $STRACE_STATUS under strace without the library (a broken test program?)"
		return
	fi
	strace_count_preload "$TMPDIR/$_n.preload" "$@"
	if [ "$STRACE_STATUS" -ne 0 ]; then
		check_problem "$_n: exited $STRACE_STATUS under strace with LD_PRELOAD=$LIBSYSTRACE (0 without): the library breaks it outside systrace"
		sed 's/^/    | /' "$TMPDIR/$_n.preload.out" | head -20
		return
	fi
	python3 - "$E2E_DIR" "$TMPDIR/$_n.plain" "$TMPDIR/$_n.preload" <<'PY' || check_problem "$_n: the library makes syscalls outside systrace (counts above)"
import sys
sys.path.insert(0, sys.argv[1])
import csvtool
loader = {"openat", "read", "pread64", "newfstatat", "fstat", "mmap", "mprotect", "munmap", "close"}
plain = csvtool.strace_tables(sys.argv[2]).get("x86_64", {})
pre = csvtool.strace_tables(sys.argv[3]).get("x86_64", {})
bad = []
for name in sorted(set(plain) | set(pre)):
    a, b = plain.get(name, 0), pre.get(name, 0)
    if a == b:
        continue
    note = ""
    if name in loader and b > a:
        note = "   (the loader mapping the library)"
    else:
        note = "   <-- made by the library?"
        bad.append(name)
    print(f"    {name:<18} without {a:>7}  with the library {b:>7}{note}")
sys.exit(1 if bad else 0)
PY
	timeout --foreground -k 10 "$RUN_TIMEOUT" strace -f -k -E "LD_PRELOAD=$LIBSYSTRACE" -o "$TMPDIR/$_n.stacks" -- "$@" \
		>/dev/null 2>&1
	python3 - "$TMPDIR/$_n.stacks" "$(basename "$LIBSYSTRACE")" <<'PY' || check_problem "$_n: syscalls made with $(basename "$LIBSYSTRACE") on the stack, outside systrace (above)"
import sys
lib = sys.argv[2]
current = None
found = []
for line in open(sys.argv[1], errors="replace"):
    if line.startswith(" > "):
        if lib in line and current and (not found or found[-1][0] is not current):
            found.append((current, line.strip()))
    else:
        current = line.rstrip("\n")
for call, frame in found[:20]:
    print(f"    {call}\n        {frame}")
if found:
    print(f"    {len(found)} syscall(s) with {lib} on the stack")
sys.exit(1 if found else 0)
PY
}

one getppid_loop "$P/getppid_loop" 1000
one threads "$P/threads"
one fork_tree "$P/fork_tree"
one vfork_exec "$P/vfork_exec"
one signals "$P/signals"
one sigsys "$P/sigsys" 2000 50
finish
