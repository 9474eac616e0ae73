/* The messages of tracer/nested_ptrace.c between two serving threads, carried by
 * tracer_threads.h's inbox: a traced program's ptrace call whose target another
 * serving thread serves, and its answer (the picture is in nested_ptrace.h). */
#ifndef SYSTRACE_NESTED_MSG_H
#define SYSTRACE_NESTED_MSG_H

#include <stdint.h>
#include <sys/types.h>

enum nested_op {
	NESTED_OP_NONE,
	NESTED_OP_ATTACH,  /* to the target's thread: attach it for caller */
	NESTED_OP_REQUEST, /* a ptrace request (args) on it */
	NESTED_OP_WAIT,    /* caller waits for its stop (args: wait4's) */
	NESTED_OP_LEFT,    /* caller's thread is gone: what it attached goes on */
	NESTED_OP_ANSWER,  /* to the caller's thread: ret, for its call seq */
	NESTED_OP_GONE,    /* to the tracer's thread: target left */
};
struct nested_msg {
	enum nested_op op;
	unsigned from;         /* the posting serving thread */
	pid_t caller, caller_tgid, target, name;
	uint32_t seq;          /* the caller's call it belongs to */
	uint64_t args[4];
	long ret;
};

#endif
