/* Writing a patch into a memory that other threads may be running: the safe protocol
 * of --patch=safe, and the single and unsafe modes that measure what it costs. The
 * steps and the picture of a patched call are at the top of write_protocol.c; the
 * argument that it cannot corrupt a program is in docs/patching.md. */
#ifndef SYSTRACE_WRITE_PROTOCOL_H
#define SYSTRACE_WRITE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasks.h"

/* Writes p's stub (len bytes at p->stub.addr) and its jump over the covered bytes
 * into the memory t (stopped at the seccomp stop of its call) shares with others:
 * with each of them stopped first when stop_others (safe), and every thread that
 * stands in the covered bytes moved to its place in the stub. False if the site must
 * wait for a later trap (a thread could not be stopped or moved); nothing is written
 * then. */
bool patch_write(struct thread *t, struct addr_space *as, const struct patch *p, const uint8_t *stub, size_t len,
		 const uint8_t *jump, bool stop_others);
/* Writes every patch of the memory back to the original bytes, with the other
 * threads stopped (a thread is about to run that has no counter slot, or the program
 * takes %gs for itself); no site of it is patched from then on. */
void patches_withdraw(struct thread *t, struct addr_space *as);
/* The same for the patches which(p) chooses (undecided sites are left as they are);
 * those sites are not patched again. */
void patches_withdraw_if(struct thread *t, struct addr_space *as, bool (*which)(const struct patch *p));

#endif
