#include "libc_calls.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "call_decode.h"
#include "entry_tally.h"
#include "objects.h"
#include "unwind.h"

/* What an image knows of its libc, made at its first ptraced call. */
struct libc_view {
	bool found;                 /* a call was seen in libc's code: `libc` says where */
	struct mapped_object libc;
	struct unwinder *unwinder;
};

static bool enabled;
/* The libc objects seen in the run (one, but for a program of its own glibc), to
 * find the sites of an image that never stopped in its libc. */
#define LIBC_OBJECTS 8
static _Thread_local struct object *libc_objects[LIBC_OBJECTS];
static _Thread_local unsigned nlibc_objects;

void libc_calls_setup(bool on)
{
	enabled = on;
}

bool libc_calls_is_glibc(const char *path)
{
	static const char deleted[] = " (deleted)", soname[] = "libc.so.6";
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t len = strlen(base);

	if (len > strlen(deleted) && strcmp(base + len - strlen(deleted), deleted) == 0)
		len -= strlen(deleted);
	if (len == strlen(soname) && strncmp(base, soname, len) == 0)
		return true;
	/* libc-2.31.so: a version made of digits and dots */
	if (len <= strlen("libc-.so") || strncmp(base, "libc-", 5) != 0 || strncmp(base + len - 3, ".so", 3) != 0)
		return false;
	for (size_t i = 5; i < len - 3; i++)
		if (!isdigit((unsigned char)base[i]) && base[i] != '.')
			return false;
	return true;
}

static void note_libc_object(struct object *o)
{
	for (unsigned i = 0; i < nlibc_objects; i++)
		if (libc_objects[i] == o)
			return;
	if (nlibc_objects < LIBC_OBJECTS)
		libc_objects[nlibc_objects++] = o;
}

static bool in_libc(const struct libc_view *v, uint64_t addr)
{
	return addr >= v->libc.start && addr < v->libc.end;
}

static bool read_memory(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/* The libc function that the call before return address ret went to, directly, or
 * through a GOT slot (-fno-plt) or a PLT entry and its slot; 0 if not known (a call
 * through a register, a slot not bound yet). */
static uint64_t callee_of(pid_t tid, const struct libc_view *v, uint64_t ret)
{
	uint8_t code[CALL_BYTES > PLT_BYTES ? CALL_BYTES : PLT_BYTES];
	uint64_t to, slot;

	if (!read_memory(tid, ret - CALL_BYTES, code, CALL_BYTES))
		return 0;
	switch (call_before(code, ret, &to)) {
	case CALL_DIRECT:
		break;
	case CALL_THROUGH_SLOT:
		if (!read_memory(tid, to, &to, sizeof(to)))
			return 0;
		break;
	default:
		return 0;
	}
	if (!in_libc(v, to)
	    && !(read_memory(tid, to, code, PLT_BYTES) && plt_entry_slot(code, to, &slot)
		 && read_memory(tid, slot, &to, sizeof(to))))
		return 0;
	return in_libc(v, to) ? to : 0;
}

/* The entry point of a walk that ended as end says; NULL if not known. */
static const char *entry_point(pid_t tid, const struct libc_view *v, enum unwind_end end,
			       const struct unwind_walk *w)
{
	struct object *o = v->libc.object;
	const char *name = NULL;
	uint64_t callee;

	if (end == UNWIND_FAILED)
		return NULL;
	/* what the code outside called: a function that tail-calls another (glibc's
	 * fopen) has no frame of its own left */
	if (end == UNWIND_LEFT && (callee = callee_of(tid, v, w->outside_ip)))
		name = objects_function_name(o, callee - v->libc.bias, true);
	/* else the outermost libc frame's function, by the byte before its instruction
	 * pointer: the innermost frame's follows its syscall instruction, an outer
	 * one's is a return address; either may be the next function's first byte */
	if (!name)
		name = objects_function_name(o, w->inside_ip - 1 - v->libc.bias, false);
	return name;
}

/* The walk reads libc's read-only segments (its unwind tables) from the tracer's
 * own mapping of the file: its code there differs only at patched sites, which
 * the walk never reads (libunwind reads code only to spot a signal trampoline,
 * whose bytes the file holds unpatched). */
static bool read_libc_file(void *view, uint64_t addr, void *buf, size_t len)
{
	const struct libc_view *v = view;

	return objects_read_readonly(v->libc.object, addr - v->libc.bias, buf, len);
}

static struct libc_view *view_of(struct image *img)
{
	if (!img->libc_calls) {
		img->libc_calls = calloc(1, sizeof(*img->libc_calls));
		if (!img->libc_calls)
			abort();
	}
	return img->libc_calls;
}

void libc_calls_on_call(struct thread *t, struct site_record *s, uint64_t ip)
{
	struct libc_view *v;
	struct unwind_walk w;
	enum unwind_end end;
	const char *name;

	/* a stub's slow path stops in the stub, whose frame has no unwind information */
	if (!enabled || ip - 2 != s->addr)
		return;
	v = view_of(t->img);
	if (!v->found) {
		/* the loader maps libc after its own first calls: look at each new site
		 * until one is in libc (glibc's code is one mapping) */
		if (s->ptraced > 1 || !objects_find_mapped(t->tid, s->addr, libc_calls_is_glibc, &v->libc))
			return;
		v->found = true;
		v->unwinder = unwinder_new();
		note_libc_object(v->libc.object);
	}
	if (!in_libc(v, s->addr))
		return;
	end = unwind_within(v->unwinder, t->tid, v->libc.start, v->libc.end, read_libc_file, v, &w);
	if (!(name = entry_point(t->tid, v, end, &w)))
		return;
	entry_tally_add(&s->libc_entries, &s->nlibc_entries, name);
	s->libc_function = entry_tally_top(s->libc_entries, s->nlibc_entries);
	objects_learn_entry(v->libc.object, s->addr - v->libc.bias, name);
}

void libc_calls_complete(struct image *img)
{
	for (size_t i = 0; nlibc_objects && i < img->sites.n; i++) {
		struct site_record *s = &img->sites.sites[i];

		for (unsigned k = 0; !s->nlibc_entries && s->named && s->object && k < nlibc_objects; k++)
			if (s->object == objects_path(libc_objects[k]))
				s->libc_function = objects_learned_entry(libc_objects[k], s->offset);
	}
	/* no call is unwound after this: the unwinder goes */
	if (img->libc_calls)
		unwinder_free(img->libc_calls->unwinder);
	free(img->libc_calls);
	img->libc_calls = NULL;
}
