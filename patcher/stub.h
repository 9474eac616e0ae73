/* The stub a patched site jumps to, and the bytes of the patch itself. The stub runs
 * the covered instructions, counts the call in the calling thread's own counter block
 * and makes it through the gate, without touching the red zone, any register the
 * kernel keeps (all but rax, rcx, r11), rflags or the vector registers.
 *
 * The counter block of a thread is addressed through the %gs segment base, which the
 * tracer sets for every thread to that thread's block (glibc leaves gs unused on
 * x86-64). Only the thread itself writes its block, so an increment needs neither a
 * lock nor the flags: a load, a lea (flag-free) and a store on r11, which the syscall
 * clobbers anyway. A fixed number does not touch rflags at all; a run-time number
 * saves them around its checks. (A `lock incq` behind pushfq/popfq cost ~40 ns a
 * call; this path aims at ~14 ns.)
 *
 *     <covered instructions before the syscall>       (PATCH_BEFORE)
 *   fixed number (plan->nr >= 0):
 *     mov %gs:site_counter,%r11                        count: load
 *     lea 1(%r11),%r11                                        add
 *     mov %r11,%gs:site_counter                               store
 *     lea -128(%rsp),%rsp                              step over the red zone
 *     movabs $gate,%r11 ; call *%r11                   syscall; ret at the gate
 *     errors                                           (below)
 *     lea 128(%rsp),%rsp ; jmp after
 *   errors, once the call returned, with BMI2 (flag_free_errors):
 *     lea 4096(%rax),%rcx ; mov $12,%r11d
 *     shrx %r11,%rcx,%rcx ; jrcxz 1f ; jmp 2f          rcx 0: -4096..-1
 *   1: [mov (%rsp),%rcx]                               run-time number: pushed
 *     count site_errors (load, add, store)
 *     [count nr_errors(,%rcx,8)]                       run-time number: its own
 *     movb $1,%gs:errors_seen
 *   2: [lea 8(%rsp),%rsp]                              the number dropped
 *   or without BMI2 (r11: the flags, as the syscall leaves them):
 *     [pop %rcx] ; push %r11 ; cmp $-4095,%rax ; jb 1f
 *     the counts and the mark as above
 *   1: popfq                                           the flags of the syscall
 *   (with log_call: no count triples and no errors, and push $site_counter ;
 *   movabs $log_call,%r11 ; call *%r11, for both: the log holds the results;
 *   with time_call: the same counts and errors, and push $site_time ;
 *   movabs $time_call,%r11 ; call *%r11 instead of the gate's: the routine times
 *   the call, tracer/gate_code.S, and the errors are always the flags' way: the
 *   popfq of r11 undoes the flags the routine changed after the call)
 *   run-time number (plan->nr == -1):
 *     lea -128(%rsp),%rsp ; pushfq
 *     cmp $nr_limit,%rax ; jae slow_pop                numbers >= nr_limit,
 *     [cmp $n,%eax ; je slow_pop]  for each slow n     and the slow ones: traced
 *     count site_counter (load, add, store as above)
 *     count nr_counters(,%rax,8) (load, add, store)
 *     popfq ; push %rax                                the number, for errors
 *     movabs $gate,%r11 ; call *%r11
 *     errors
 *     lea 128(%rsp),%rsp ; jmp after
 *   guarded number (stub_config.guards): a number that must stop only when its
 *   arguments say so; for it, fixed or run-time, between pushfq and the count:
 *     [cmp $g,%eax ; jne 1f]                            run-time number only
 *     arch_prctl: cmp $ARCH_SET_GS,%edi ; je slow_pop   (it would take %gs; an int)
 *     munmap: lea 4095(%rsi),%rcx ; and $-4096,%rcx    the length in pages
 *       then for the program's stack pointer and STUB_STACK_DEPTH below it, the
 *       stub's first byte and STUB_MAX_LEN - 1 past it, and the gate, each x:
 *       x -> %r11 ; sub %rdi,%r11 ; cmp %rcx,%r11 ; jb slow_pop
 *                                                    (x in [addr, addr + len): the
 *                                                     call would unmap what the
 *                                                     thread returns through)
 *       incq %gs:unmaps                              it goes in-process: the tracer
 *                                                    is told an object may go
 *     clone: mov %rdi,%r11 ; and $~FORK_FLAGS,%r11 ; jne slow_pop
 *            test %rsi,%rsi ; jne slow_pop          (shared memory, a thread, a
 *                                                     new stack: the child could
 *                                                     not return through the stub)
 *   1:
 *   slow_pop: popfq ; lea 128(%rsp),%rsp
 *   slow:  syscall                                   stops in the tracer
 *   after: <covered instructions after the syscall>  (PATCH_AFTER)
 *     jmp <back: site + 2, or end>
 *
 *   rt_sigreturn (fixed number 15, with stub_config.sigreturns_in_process): it reads the
 *   signal frame at rsp and restores every register and the flags from it, so the
 *   stub may clobber any register and the flags, but not move rsp nor call:
 *     <covered instructions before the syscall>       (mov $15,%rax)
 *     cmpb $0,%gs:sigreturn_armed ; je slow            not armed: it stops
 *     movb $0,%gs:sigreturn_armed                      armed once, by the tracer
 *     count site_counter (load, add, store)
 *     mov SIGFRAME_RAX(%rsp),%rcx ; cmp $-4095,%rcx ; jb 1f
 *     count site_errors ; movb $1,%gs:errors_seen      the rax the frame restores
 *   1: movabs $gate,%r11 ; jmp *%r11                   the gate's syscall, no return
 *   slow: syscall ...                                  as above
 *   A signal that comes between the test and the jump finds the word armed (the
 *   tracer then clears it) or its stub cleared it: either way the handler's own
 *   rt_sigreturn stops, and this one goes on in-process, its frame checked when it
 *   was armed.
 *
 *   vfork (fixed number 58, with stub_config.stackless_gate, not under --log or
 *   --time): the child runs on its parent's stack until it execs or exits, and
 *   what it pushes there overwrites what lies below the parent's stack pointer,
 *   so neither may return through the stack; the way back is in the slot:
 *     <covered instructions before the syscall>       (mov $58,%eax)
 *     count site_counter (load, add, store)
 *   handoff:
 *     lea landing(%rip),%r11
 *     mov %r11,%gs:stackless_return                    the slot's word
 *     movabs $stackless_gate,%r11 ; jmp *%r11          syscall; jmp *%gs:word
 *   landing:                                           parent, and child
 *     lea -128(%rsp),%rsp ; errors ; lea 128(%rsp),%rsp ; jmp after
 *   The child has a slot of its own from its first stop, before its first
 *   instruction (the gate's jmp): the tracer copies the word into it
 *   (tracer/children.c). A signal inside (handoff, landing), or at the gate's
 *   syscall not yet made, sends the thread back to handoff (stub_rewind,
 *   tracer/signal_fixups.c): a handler's own vfork elsewhere would change the
 *   word under it.
 *
 * `slow` is 2 bytes before `after`, so a call restarted there after a signal (the
 * kernel moves rip back by 2) enters the traced syscall again.
 *
 * Counts are exact: a thread only ever writes its own block, and the one thing that
 * can come between a load and its store on the same thread is a signal handler. The
 * tracer sees every signal before its delivery and moves an interrupted thread's rip
 * back to the load (stub_rewind) first; the handler's own calls at this site then
 * land in memory before the load reads it again. */
#ifndef SYSTRACE_STUB_H
#define SYSTRACE_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "patch_plan.h"

#define STUB_MAX_LEN 640
/* Where the saved registers lie in the frame rt_sigreturn reads: struct ucontext at
 * the stack pointer (the handler's return popped the frame's return address), its
 * uc_mcontext after uc_flags, uc_link and uc_stack, and in it rax and rip. */
#define SIGFRAME_MCONTEXT 40
#define SIGFRAME_RAX (SIGFRAME_MCONTEXT + 13 * 8)
#define SIGFRAME_RIP (SIGFRAME_MCONTEXT + 16 * 8)
/* How far below the program's rsp a call through a stub writes: the stub's red-zone
 * step and pushes, the gate's return address, and under --log the log routine's
 * frame and its flush's pushes (tracer/gate_code.S), 192 bytes at most; under --time
 * the time routine's frame, 184 at most (128, the number, site_time, the call, rdx,
 * the number, the start, the gate's return). */
#define STUB_STACK_DEPTH 192
/* The clone flags of a plain fork (GUARD_NOT_A_FORK): CSIGNAL, CLONE_PARENT_SETTID,
 * CLONE_CHILD_CLEARTID, CLONE_CHILD_SETTID (glibc's fork: SIGCHLD and the two
 * child words) */
#define STUB_FORK_FLAGS 0x013000ffu
/* count triples in a stub: the site's and the number's calls, then their errors */
#define STUB_MAX_COUNTS 4

/* A number whose call must stop in the tracer only when its arguments say so. */
enum stub_guard_kind {
	GUARD_SETS_GS,        /* arch_prctl: when the first argument is ARCH_SET_GS */
	GUARD_UNMAPS_OWN,     /* munmap: when [first, first + second) holds the stack
	                         pointer, the stub or the gate */
	GUARD_SETS_SECCOMP,   /* prctl: when the first argument is PR_SET_SECCOMP */
	GUARD_NOT_A_FORK,     /* clone: unless it makes a copy of the process and no
	                         more (flags: an exit signal, the tid words; no stack),
	                         whose child returns through the stub and the gate on
	                         its own copy of the stack */
};

struct stub_guard {
	int nr;
	enum stub_guard_kind kind;
};

struct stub_config {
	uint64_t gate;             /* address of the gate's `syscall; ret` */
	int32_t site_counter;      /* byte offset of this site's counter in a thread's block,
	                              i.e. its %gs-relative displacement */
	int32_t nr_counters;       /* byte offset there of the per-number counters (8 bytes each) */
	int32_t site_errors;       /* of this site's error counter */
	int32_t nr_errors;         /* of the per-number error counters */
	int32_t errors_seen;       /* of the word set once the thread counted an error */
	int32_t unmaps;            /* of the count of munmaps a munmap guard let through */
	bool sigreturns_in_process; /* a fixed rt_sigreturn site gets the stub drawn
	                              above (else it has none: it is in slow_nrs) */
	int32_t sigreturn_armed;   /* of the word that lets one through it in-process */
	uint64_t stackless_gate;   /* the gate's `syscall; jmp *%gs:stackless_return`: a
	                              fixed vfork site gets the stackless stub drawn
	                              above (0: none; it is in slow_nrs); not with
	                              log_call or time_call */
	int32_t stackless_return;  /* of the slot's word the stackless gate jumps through */
	bool flag_free_errors;     /* the CPU has BMI2: the error test leaves the flags alone
	                              (ignored with time_call) */
	uint32_t nr_limit;         /* run-time numbers at or above it take the slow path */
	const int *slow_nrs;       /* run-time numbers that must stop in the tracer */
	size_t nslow;
	const struct stub_guard *guards; /* numbers that must stop only in some cases */
	size_t nguards;
	uint64_t log_call;         /* with --log: the gate's log routine, called instead
	                              of the gate with site_counter pushed (it returns
	                              with `ret $8`), and no counting in the stub (the
	                              tracer counts the log's entries); 0 without */
	uint64_t time_call;        /* with --time (not with log_call): the gate's time
	                              routine, called instead of the gate with site_time
	                              pushed (it returns with `ret $8`, r11 the syscall's
	                              flags); the stub counts as without it; 0 without */
	int32_t site_time;         /* the displacement of this site's ticks (with time_call) */
};

struct stub_layout {
	uint64_t addr;
	size_t len;
	uint64_t slow;             /* the stub's own, traced, syscall instruction */
	uint64_t after;            /* where a call continues once made: slow + 2 */
	/* each load/add/store triple: count_from is its load, count_to the address just
	 * after its store; for a fixed number the site's calls, then errors; for a
	 * run-time one the site's and the number's calls, then errors */
	uint64_t count_from[STUB_MAX_COUNTS], count_to[STUB_MAX_COUNTS];
	unsigned ncounts;
	/* the stackless stub's: where it stores its landing and jumps to the gate, and
	 * the landing; both 0 in any other stub */
	uint64_t handoff, landing;
};

/* Builds the stub for plan, to sit at stub_addr, into out (cap bytes). Returns its
 * length, or 0 when it does not fit or a jump would not reach (beyond +-2 GiB); also 0
 * when plan's fixed number is in slow_nrs (such a site must stay traced; not
 * rt_sigreturn with sigreturns_in_process) and, for a
 * run-time number, when nr_limit exceeds INT32_MAX (it is compared as an imm32). */
size_t stub_build(const struct patch_plan *plan, const struct stub_config *cfg, uint64_t stub_addr,
		  uint8_t *out, size_t cap, struct stub_layout *layout);
/* The plan->end - plan->start bytes that replace the covered ones: a jmp to the
 * stub, then int3. False when the stub is out of reach. */
bool patch_bytes(const struct patch_plan *plan, uint64_t stub_addr, uint8_t *out);
/* Where a thread stopped with rip strictly inside the covered bytes must continue
 * in the stub (the same instruction's copy; for PATCH_AFTER, site + 2 is `after`).
 * Returns rip unchanged when it is not strictly inside (start, end), and 0 when it
 * is inside but not at an instruction start (cannot happen to a running thread). */
uint64_t stub_translate(const struct patch_plan *plan, const struct stub_layout *layout, uint64_t rip);
/* Where a thread about to enter a signal handler must resume once it returns: the
 * load of the count triple it stopped in, when the load has run and the store has
 * not (count_from < rip < count_to); the stackless stub's handoff, when past it and
 * short of the landing; rip itself otherwise, for any address in or out
 * of the stub. Without it, a handler making a call at the same site would have its
 * increment overwritten by the interrupted, stale store. Running the load again is
 * harmless: r11 is dead there, and rax, rflags and the stack are as they were at it.
 * The tracer applies it at signal delivery, before the kernel saves the frame. */
uint64_t stub_rewind(const struct stub_layout *layout, uint64_t rip);

#endif
