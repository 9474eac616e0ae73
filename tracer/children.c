#include "children.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kcmp.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include "early.h"
#include "lib_hook.h"
#include "library.h"
#include "placement.h"
#include "procfs.h"
#include "region.h"
#include "shared_region.h"
#include "tracee_wait.h"

/* Children that died before their first stop, for their creator's event (a ring:
 * the event follows within a few stops, so a handful is plenty). */
static _Thread_local struct { pid_t tid; int status; } early_deaths[64];
static _Thread_local unsigned next_early_death;

void children_on_unknown_death(pid_t tid, int status)
{
	early_deaths[next_early_death] = (typeof(early_deaths[0])){ tid, status };
	next_early_death = (next_early_death + 1) % (sizeof(early_deaths) / sizeof(early_deaths[0]));
}

static bool take_early_death(pid_t tid, int *status)
{
	for (size_t i = 0; i < sizeof(early_deaths) / sizeof(early_deaths[0]); i++) {
		if (early_deaths[i].tid == tid) {
			*status = early_deaths[i].status;
			early_deaths[i].tid = 0;
			return true;
		}
	}
	return false;
}

struct live_thread {
	const struct image *img;
	pid_t tid;
};

static void find_live(struct thread *t, void *arg)
{
	struct live_thread *l = arg;

	if (!l->tid && t->img == l->img && !t->exit_event_seen && !t->gone)
		l->tid = t->tid;
}

/* Whether a child shares its creator's memory (vfork, CLONE_VM), asked of the kernel
 * with a thread of the creator that still has memory: a leader that has exited (its
 * process lives on in other threads) has none. When the kernel cannot say, the
 * answer is yes: patching shared memory as if it were the child's own would skip
 * stopping the creator's threads. */
static bool shares_memory(pid_t child, const struct thread *creator)
{
	struct live_thread l = { creator->img, creator->exit_event_seen ? 0 : creator->tid };
	long same;

	if (!l.tid)
		tasks_for_each_thread(find_live, &l);
	same = l.tid ? syscall(SYS_kcmp, child, l.tid, KCMP_VM, 0, 0) : -1;
	return same != 1 && same != 2;
}

/* A process image for a new child of the creator thread; its executable is its
 * creator's, and so is its memory if they share it (vfork, CLONE_VM): as the
 * creation's flags say (flags_known), else as the kernel says. */
static struct image *new_process(pid_t pid, pid_t ppid, const struct thread *creator, bool flags_known,
				 uint64_t flags)
{
	const struct image *from = creator ? creator->img : NULL;
	char *exe = from && from->rec.exe ? strdup(from->rec.exe) : procfs_exe(pid);
	struct image *img = image_new(pid, 0, ppid, exe);
	bool shares = from && (flags_known ? (flags & CLONE_VM) != 0 : shares_memory(pid, creator));

	img->own_filter = from && from->own_filter; /* the kernel's filters go to children */
	library_image_starts(img, from, shares);
	perf_counters_open(&img->perf, pid);
	return img;
}

bool children_on_creator_event(struct thread *creator, int event, uint64_t flags, uint64_t landing)
{
	struct image *parent = creator->img;
	bool is_thread = event == PTRACE_EVENT_CLONE && (flags & CLONE_THREAD);
	unsigned long msg;
	pid_t tid;
	struct thread *child;
	int status;

	if (is_thread)
		parent->rec.threads++;
	else if (event == PTRACE_EVENT_VFORK)
		parent->rec.vforks++;
	else
		parent->rec.forks++;
	if (!tracee_event_message(creator->tid, event, &msg))
		return false;
	tid = (pid_t)msg;

	child = thread_find(tid);
	if (child && child->creator_event_pending) {
		/* it stopped first and was placed then */
		child->creator_event_pending = false;
		if (child->gone)
			thread_remove(child);
	} else if (!child) {
		pid_t ppid = flags & CLONE_PARENT ? parent->rec.ppid : parent->rec.pid;
		struct image *img = is_thread ? parent : new_process(tid, ppid, creator, flags != 0, flags);

		if (take_early_death(tid, &status)) {
			if (!is_thread)
				image_end_by_status(img, status);
		} else {
			child = thread_add(tid, img, THREAD_AWAIT_INITIAL_STOP);
			child->stackless_landing = landing;
			placement_inherit(child, creator);
			/* a process copied inside a handler returns from it too */
			child->handler_frames = is_thread ? 0 : creator->handler_frames;
		}
	}
	return true;
}

/* Where a child made by a vfork through the gate's stackless entry goes on: what
 * the creating thread's stub stored in its slot, which the child's %gs still
 * points at (the creator sleeps in the vfork until the child execs or exits, so
 * the word stays). Any other child gets a word it never reads. */
static uint64_t creator_landing(pid_t tid, const struct image *img)
{
	long gs;
	int slot;

	errno = 0;
	gs = ptrace(PTRACE_PEEKUSER, tid, offsetof(struct user_regs_struct, gs_base), 0);
	if (!img || !img->as || errno || (slot = region_slot_at((uint64_t)gs - img->as->region_base)) < 0)
		return 0;
	return region_slot(slot)->pad_end[REGION_SLOT_STACKLESS];
}

struct thread *children_on_unknown_stop(pid_t tid)
{
	struct thread *t = thread_add(tid, NULL, THREAD_AWAIT_INITIAL_STOP), *creator;
	struct status_field ids[2] = { { "Tgid", 10, 0 }, { "PPid", 10, 0 } };
	uint64_t tgid, ppid;
	struct image *img = NULL;

	t->creator_event_pending = true;
	/* unreadable: it is being killed, and nothing of it will be counted */
	if (!procfs_status(tid, ids, 2))
		return t;
	tgid = ids[0].value;
	ppid = ids[1].value;
	creator = thread_find((pid_t)tgid != tid ? (pid_t)tgid : (pid_t)ppid);
	/* its memory is its creator's, or a copy of it, as it is now: the end of the
	 * creator's set-up at exec and the libraries' hook are taken first, as at the
	 * creator's own stop (which has not been served: its event comes later) */
	if (creator) {
		early_on_stop(creator);
		lib_hook_settle(creator, false);
	}
	if ((pid_t)tgid != tid)
		img = creator ? creator->img : NULL;
	else
		img = new_process(tid, (pid_t)ppid, creator, false, 0);
	if (img) {
		thread_attach(t, img);
		t->stackless_landing = creator_landing(tid, img);
	}
	if (creator) {
		placement_inherit(t, creator);
		t->handler_frames = (pid_t)tgid == tid ? creator->handler_frames : 0;
	}
	return t;
}
