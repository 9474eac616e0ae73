#!/bin/sh
# A handler that interrupts an in-process call sees the thread in the program's own
# code (unwindable), and the call restarts exactly once: handler_in_gate exits 0, its
# blocking_read site counts 1001 reads.
. "$(dirname "$0")/lib.sh"
D=$TMPDIR/handler_in_gate
st_run_clean handler_in_gate "$D" "$PROGRAMS/handler_in_gate"
expect_site_count "$D" symbol=blocking_read 1001 handler_in_gate
finish
