#!/bin/sh
# An execve whose environment the tracer replaced (to keep the library in it) and
# that fails leaves the program's registers as they were: failed_execve_env exits 0
# (it checks rdx), its failed execve counted once with its error.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/failed_execve
st_run_clean failed_execve_env "$D" "$PROGRAMS/failed_execve_env"
expect_count "$D" x86_64 execve 2 failed_execve_env
finish
