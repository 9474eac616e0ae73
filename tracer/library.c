#include "library.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <asm/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <unistd.h>

#include "amortization.h"
#include "call_times.h"
#include "counting.h"
#include "grow_array.h"
#include "known_sites.h"
#include "region.h"
#include "shared_region.h"
#include "syscall_log.h"
#include "write_protocol.h"

static enum patch_mode mode;
static char *lib_path, *marker_entry;
static uint64_t saving_ns;

/* What the library's answer at READY (region.h) makes of an image. */
static const enum image_library from_status[LIBRARY_STATUS_COUNT] = {
	[LIBRARY_READY] = LIBRARY_IS_READY,
	[LIBRARY_REGION_UNREACHABLE] = LIBRARY_IS_REGION_UNREACHABLE,
	[LIBRARY_GATE_TAKEN] = LIBRARY_IS_GATE_TAKEN,
	[LIBRARY_REGION_FULL] = LIBRARY_IS_REGION_FULL,
};

static char *find_library(void)
{
	char exe[4096], *dir, *path;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *const places[] = { "%s/libsystrace.so", "%s/../lib/systrace/libsystrace.so" };

	if (n <= 0)
		return NULL;
	exe[n] = 0;
	dir = strrchr(exe, '/');
	*dir = 0;
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		if (asprintf(&path, places[i], exe) < 0)
			abort();
		if (access(path, R_OK) == 0) {
			char *real = realpath(path, NULL);

			free(path);
			return real;
		}
		free(path);
	}
	return NULL;
}

/* Whether an LD_PRELOAD value (separated by colons or spaces) names the library. */
static bool names_library(const char *value)
{
	size_t len = strlen(lib_path);

	for (const char *p = value; *p;) {
		size_t n = strcspn(p, ": ");

		if (n == len && strncmp(p, lib_path, len) == 0)
			return true;
		p += n;
		p += *p != 0;
	}
	return false;
}

bool library_setup(enum patch_mode m, unsigned region_slots, bool with_log, bool with_time, char *err, size_t errlen)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;

	mode = m;
	/* no library, but the region all the same: its gate page's return pad gives
	 * the calls' results without a second stop (results.c); without it, they are
	 * followed to their exit */
	if (mode == PATCH_OFF) {
		region_create(region_slots, with_log, with_time);
		return true;
	}
	if (!(lib_path = find_library())) {
		snprintf(err, errlen, "cannot find libsystrace.so next to the systrace executable "
			 "(or in ../lib/systrace); without it only --patch=off works");
		return false;
	}
	if (!region_create(region_slots, with_log, with_time)) {
		snprintf(err, errlen, "cannot create the shared region (%u slots): %s", region_slots, strerror(errno));
		return false;
	}
	if (old && *old && !names_library(old)) {
		if (asprintf(&value, "%s:%s", lib_path, old) < 0)
			abort();
	} else if (!(value = strdup(old && *old ? old : lib_path))) {
		abort();
	}
	if (asprintf(&marker_entry, "%s=%d", SYSTRACE_ENV, (int)getpid()) < 0)
		abort();
	/* for the command itself; its children get it back at every execve */
	setenv("LD_PRELOAD", value, 1);
	setenv(SYSTRACE_ENV, marker_entry + strlen(SYSTRACE_ENV) + 1, 1);
	free(value);
	return true;
}

bool library_enabled(void)
{
	return mode != PATCH_OFF;
}

/* Reads the first len bytes of the string at addr: fewer when its mapping ends
 * sooner (the environment sits at the top of the stack), read a page at a time. */
static size_t read_prefix(pid_t pid, uint64_t addr, char *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t at = addr + done;
		size_t chunk = 4096 - (size_t)(at % 4096);
		struct iovec local = { buf + done, chunk < len - done ? chunk : len - done };
		struct iovec remote = { (void *)at, local.iov_len };
		ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

		if (n <= 0)
			break;
		done += (size_t)n;
		if (memchr(buf + done - (size_t)n, 0, (size_t)n))
			break; /* the string ended: nothing after it is needed */
	}
	return done;
}

/* The environment pointers of an execve, up to its NULL; NULL if unreadable. Read
 * a page's worth at a time: this runs at every execve of a build. */
static uint64_t *read_envp(pid_t pid, uint64_t envp, size_t *count)
{
	size_t n = 0, cap = 512;
	uint64_t *ptrs = malloc(cap * sizeof(*ptrs));

	while (ptrs) {
		struct iovec local = { ptrs + n, (cap - n) * 8 }, remote = { (void *)(envp + n * 8), (cap - n) * 8 };
		ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		size_t end;

		if (got < 8)
			break; /* a partial read stops at a page that is not there */
		for (end = n + (size_t)got / 8; n < end; n++) {
			if (!ptrs[n]) {
				*count = n;
				return ptrs;
			}
		}
		if (n == cap && cap >= (1u << 20))
			break;
		ptrs = grow_array(ptrs, &cap, n, sizeof(*ptrs));
	}
	free(ptrs);
	return NULL;
}

/* How many bytes of each string's start are read to recognise it. */
#define ENV_PREFIX 32

/* The string addresses of an environment, sorted, with where each one's prefix
 * goes. */
struct env_string {
	uint64_t at;
	size_t index;
};

static int by_address(const void *a, const void *b)
{
	const struct env_string *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* The first ENV_PREFIX bytes of each of n strings. An environment's strings lie in a
 * few runs (the top of the stack, a heap): strings less than a page apart are read
 * as one range, all ranges in one call, so the kernel pins each page once, not once
 * a string. A range that could not be read whole (it ends at the end of a mapping)
 * is read string by string. */
static void read_prefixes(pid_t pid, const uint64_t *strs, size_t n, char (*out)[ENV_PREFIX])
{
	enum { BATCH = 256, GAP = 4096 };
	struct env_string *sorted = malloc((n + 1) * sizeof(*sorted));

	if (!sorted)
		abort();
	for (size_t i = 0; i < n; i++)
		sorted[i] = (struct env_string){ strs[i], i };
	qsort(sorted, n, sizeof(*sorted), by_address);
	for (size_t first = 0; first < n;) {
		struct iovec local[BATCH], remote[BATCH];
		size_t ranges = 0, last = first, total = 0;
		uint64_t start[BATCH];
		char *buf;
		ssize_t got;

		/* up to BATCH ranges of strings less than GAP apart */
		for (; last < n && ranges < BATCH; ranges++) {
			uint64_t lo = sorted[last].at, hi = lo + ENV_PREFIX;

			while (++last < n && sorted[last].at <= hi + GAP)
				hi = sorted[last].at + ENV_PREFIX;
			start[ranges] = lo;
			remote[ranges] = (struct iovec){ (void *)lo, hi - lo };
			total += hi - lo;
		}
		if (!(buf = malloc(total)))
			abort();
		for (size_t r = 0, off = 0; r < ranges; off += remote[r].iov_len, r++)
			local[r] = (struct iovec){ buf + off, remote[r].iov_len };
		got = process_vm_readv(pid, local, ranges, remote, ranges, 0);
		for (size_t k = first, r = 0, off = 0; k < last; k++) {
			const struct env_string *e = &sorted[k];
			size_t len;

			while (e->at >= start[r] + remote[r].iov_len)
				off += remote[r++].iov_len;
			if (got > 0 && off + (e->at - start[r]) + ENV_PREFIX <= (size_t)got) {
				memcpy(out[e->index], buf + off + (e->at - start[r]), ENV_PREFIX);
				continue;
			}
			len = read_prefix(pid, e->at, out[e->index], ENV_PREFIX);
			memset(out[e->index] + len, 0, ENV_PREFIX - len);
		}
		free(buf);
		first = last;
	}
	free(sorted);
}

static bool has_prefix(const char *str, const char *prefix)
{
	return strncmp(str, prefix, strlen(prefix)) == 0;
}

/* The value of the LD_PRELOAD entry at str (cut at 4 KiB). */
static void read_preload(pid_t pid, uint64_t str, char *value, size_t size)
{
	size_t n = read_prefix(pid, str, value, size - 1), skip = strlen("LD_PRELOAD=");

	value[n] = 0;
	if (n < skip)
		n = skip = 0;
	memmove(value, value + skip, n - skip + 1);
}

void library_on_execve(struct thread *t, bool is_execveat, const uint64_t *args)
{
	uint64_t envp = is_execveat ? args[3] : args[2], *old, *ptrs, at, strings;
	size_t n, kept = 0, slots, len_preload, len_marker, size;
	bool has_preload = false, has_marker = false;
	char theirs[4096] = "", *entry, (*prefixes)[ENV_PREFIX];
	struct user_regs_struct regs;

	if (mode == PATCH_OFF || !(old = read_envp(t->tid, envp, &n)))
		return;
	ptrs = malloc((n + 3) * sizeof(*ptrs));
	prefixes = malloc((n + 1) * ENV_PREFIX);
	if (!ptrs || !prefixes)
		abort();
	read_prefixes(t->tid, old, n, prefixes);
	for (size_t i = 0; i < n; i++) {
		if (has_prefix(prefixes[i], "LD_PRELOAD=")) {
			read_preload(t->tid, old[i], theirs, sizeof(theirs));
			has_preload = names_library(theirs);
			if (has_preload)
				ptrs[kept++] = old[i];
		} else {
			/* the marker's value is this tracer's pid: a whole entry */
			has_marker |= strncmp(prefixes[i], marker_entry, ENV_PREFIX) == 0
				      && strlen(marker_entry) < ENV_PREFIX;
			ptrs[kept++] = old[i];
		}
	}
	free(prefixes);
	free(old);
	if ((has_preload && has_marker) || ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0) {
		free(ptrs);
		return;
	}
	/* A new environment below the stack pointer (past the red zone): the stack is
	 * writable there, and if the execve fails the program never looks at it. An
	 * LD_PRELOAD of the program's own keeps its libraries after ours. */
	if (asprintf(&entry, "LD_PRELOAD=%s%s%s", lib_path, *theirs ? ":" : "", theirs) < 0)
		abort();
	len_preload = strlen(entry) + 1;
	len_marker = strlen(marker_entry) + 1;
	slots = kept + 3;
	size = slots * 8 + len_preload + len_marker;
	at = (regs.rsp - 128 - size - 64) & ~(uint64_t)15;
	strings = at + slots * 8;
	if (!has_preload)
		ptrs[kept++] = strings;
	if (!has_marker)
		ptrs[kept++] = strings + len_preload;
	while (kept < slots)
		ptrs[kept++] = 0;
	{
		struct iovec local[3] = { { ptrs, slots * 8 }, { entry, len_preload }, { marker_entry, len_marker } };
		struct iovec remote = { (void *)at, size };

		if (process_vm_writev(t->tid, local, 3, &remote, 1, 0) == (ssize_t)size) {
			unsigned long long *envp_reg = is_execveat ? &regs.r10 : &regs.rdx;

			if (!t->exec_envp)
				t->exec_envp = *envp_reg;
			*envp_reg = at;
			ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
		}
	}
	free(entry);
	free(ptrs);
}

void library_on_execve_failed(struct thread *t, bool is_execveat)
{
	struct user_regs_struct regs;

	if (t->exec_envp && ptrace(PTRACE_GETREGS, t->tid, 0, &regs) == 0) {
		*(is_execveat ? &regs.r10 : &regs.rdx) = t->exec_envp;
		ptrace(PTRACE_SETREGS, t->tid, 0, &regs);
	}
	t->exec_envp = 0;
}

bool library_is_control(long nr, const uint64_t *args)
{
	return nr == SYSTRACE_CONTROL_NR && args[0] == SYSTRACE_MAGIC;
}

/* The call returns ret without reaching the kernel. */
static void answer(pid_t tid, long ret)
{
	struct user_regs_struct regs;

	if (ptrace(PTRACE_GETREGS, tid, 0, &regs) < 0)
		return;
	regs.orig_rax = (uint64_t)-1;
	regs.rax = (uint64_t)ret;
	ptrace(PTRACE_SETREGS, tid, 0, &regs);
}

static void take_counts(struct thread *t, bool again);

/* Points t's %gs at its own counter slot (taking one if it has none). */
static bool give_slot(struct thread *t)
{
	struct user_regs_struct regs;

	if (t->slot < 0 && (t->slot = region_slot_take()) < 0)
		return false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &regs) < 0)
		return false;
	regs.gs_base = t->img->as->region_base + region_slot_offset(t->slot);
	return ptrace(PTRACE_SETREGS, t->tid, 0, &regs) == 0;
}

static void on_hello(struct thread *t, uint64_t site, uint64_t reply_addr)
{
	struct image *img = t->img;
	struct systrace_hello hello = { .status = LIBRARY_READY, .tracer_pid = getpid(), .region_fd = region_fd(),
					.region_size = region_size() };
	struct iovec local = { &hello, sizeof(hello) }, remote = { (void *)reply_addr, sizeof(hello) };

	img->said_hello = true;
	if (t->slot < 0 && (t->slot = region_slot_take()) < 0) {
		hello.status = LIBRARY_REGION_FULL;
		img->rec.library = LIBRARY_IS_REGION_FULL;
	} else if ((hello.area_at = known_sites_prepare(t, site))) {
		hello.area_size = PATCH_AREA_SIZE;
	}
	/* early.c mapped them at the image's first instruction */
	if (img->as->mapped_at_exec)
		hello.region_base = img->as->region_base;
	answer(t->tid, process_vm_writev(t->tid, &local, 1, &remote, 1, 0) == sizeof(hello) ? 0 : -EFAULT);
}

static void on_ready(struct thread *t, uint64_t ready_addr)
{
	struct image *img = t->img;
	struct systrace_ready r = { .status = LIBRARY_REGION_UNREACHABLE };
	struct iovec local = { &r, sizeof(r) }, remote = { (void *)ready_addr, sizeof(r) };
	uint64_t status;

	if (process_vm_readv(t->tid, &local, 1, &remote, 1, 0) != sizeof(r))
		r.status = LIBRARY_REGION_UNREACHABLE;
	status = (uint64_t)r.status < LIBRARY_STATUS_COUNT ? (uint64_t)r.status : LIBRARY_REGION_UNREACHABLE;
	img->rec.instrument += r.gate_calls;
	img->rec.library = from_status[status];
	/* (set up at exec, the library did not ask where the region is: early.c knows) */
	if (!img->as->mapped_at_exec)
		img->as->region_base = r.region_base;
	/* what stubs written at exec counted so far was early (without them the slot,
	 * taken at HELLO, is still empty: nothing to read) */
	if (img->as->mapped_at_exec && t->slot >= 0)
		take_counts(t, true);
	/* a thread that exists already would run the stubs with no slot of its own */
	if (img->as->gs_taken) {
		img->rec.library = LIBRARY_IS_PROGRAM_SETS_GS;
	} else if (img->as->given_up) {
		/* withdrawn already (the region full): it stays so */
	} else if (status == LIBRARY_READY && !thread_alone_in_memory(t)) {
		img->rec.library = LIBRARY_IS_THREADS_BEFORE;
	} else if (status == LIBRARY_READY && give_slot(t)) {
		img->ready = img->late = true;
		/* no HELLO (set up at exec): what is known is planned now */
		if (!img->said_hello)
			known_sites_prepare(t, r.stub_room);
		known_sites_write_at_ready(t, r.stub_room, r.stub_room_size, r.area);
	}
	answer(t->tid, 0);
}

bool library_up_without_ready(struct thread *t)
{
	struct image *img = t->img;

	if (img->ready || !img->as->mapped_at_exec || img->as->given_up || t->slot < 0 || !thread_alone_in_memory(t))
		return false;
	take_counts(t, true); /* what the stubs written at exec counted was early */
	region_slot(t->slot)->pad[REGION_SLOT_UP] = REGION_UP_MAGIC;
	img->rec.library = LIBRARY_IS_READY;
	img->ready = img->late = true;
	return true;
}

void library_on_control(struct thread *t, uint64_t site, const uint64_t *args)
{
	t->img->rec.instrument++;
	t->img->as->library_site = site;
	if (mode == PATCH_OFF)
		answer(t->tid, -EINVAL); /* no region: a library that was not asked for */
	else if (args[1] == CONTROL_HELLO && !t->img->ready)
		on_hello(t, site, args[2]);
	else if (args[1] == CONTROL_READY && !t->img->ready)
		on_ready(t, args[2]);
	else if (args[1] == CONTROL_LOG_FLUSH && syscall_log_on())
		syscall_log_flush(t);
	else
		answer(t->tid, -EINVAL);
}

void library_image_starts(struct image *img, const struct image *creator, bool shares_memory)
{
	img->rec.library = mode == PATCH_OFF ? LIBRARY_IS_OFF : LIBRARY_IS_ABSENT;
	img->owns_as = !creator || !creator->as || !shares_memory;
	if (!creator || !creator->as) {
		img->as = as_new();
		return;
	}
	img->as = shares_memory ? as_get(creator->as) : as_fork(creator->as);
	img->rec.library = creator->rec.library;
	img->ready = creator->ready;
	img->late = creator->late;
}

void library_thread_starts(struct thread *t)
{
	struct image *img = t->img;

	if (!img || !(img->ready || img->as->mapped_at_exec) || img->as->given_up || give_slot(t))
		return;
	/* no slot: the patches this thread would run go, with all the memory's threads
	 * stopped; its process stays on the ptrace path */
	patches_withdraw(t, img->as);
	img->ready = false;
	img->rec.library = LIBRARY_IS_REGION_FULL;
}

/* Moves the in-process counts of t's slot into its image, and empties the slot
 * when it stays t's (again: counting from zero after READY). */
static void take_counts(struct thread *t, bool again)
{
	struct image *img = t->img;
	struct addr_space *as = img->as;
	struct region_slot *slot = region_slot(t->slot);

	bool errors = slot->pad[REGION_SLOT_ERRORS];

	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];
		const struct site_record *from = &as->sites.sites[i];

		/* (an error with no call: the call was counted before a READY emptied
		 * the slot, its error after) */
		if (!patch_has_counter(p) || !(slot->site_calls[p->counter] || (errors && slot->site_errors[p->counter])))
			continue;
		count_inprocess(img, from, slot->site_calls[p->counter], from->syscall);
		if (errors && slot->site_errors[p->counter])
			count_errors(img, site_table_get(&img->sites, from->addr), from->syscall,
				     slot->site_errors[p->counter]);
	}
	/* the sites whose number varies: their calls per number */
	for (int nr = 0; nr < REGION_NRS; nr++) {
		img->rec.calls[syscall_index(ABI_X86_64, nr)] += slot->nr_calls[nr];
		if (errors)
			img->rec.errors[syscall_index(ABI_X86_64, nr)] += slot->nr_errors[nr];
	}
	call_times_take_slot(t); /* under --time, after the calls: their sites have records */
	syscall_log_drain(t); /* under --log, the in-process counts are the log's */
	if (again)
		region_slot_clear(t->slot, as->next_counter);
}

void library_on_arch_prctl(struct thread *t, uint64_t code)
{
	struct image *img = t->img;

	/* the kernel takes the code as an int: the upper half does not matter */
	if ((int)code != ARCH_SET_GS || !(img->ready || img->as->mapped_at_exec))
		return;
	/* the program takes %gs for itself: the stubs go before the call is made */
	patches_withdraw(t, img->as);
	img->as->gs_taken = true;
	img->ready = false;
	img->rec.library = LIBRARY_IS_PROGRAM_SETS_GS;
}

void library_thread_ends(struct thread *t)
{
	if (t->slot < 0)
		return;
	take_counts(t, false);
	region_slot_release(t->slot, t->img->as->next_counter);
	t->slot = -1;
	t->nlog_unanswered = 0; /* their results would have come in this slot */
}

void library_set_saving(uint64_t ns)
{
	saving_ns = ns;
}

/* Why the sites of img that its memory never decided cannot be patched; NULL when
 * they could still be (pending). */
static const char *undecided_reason(const struct image *img)
{
	static const char *const reasons[IMAGE_LIBRARY_COUNT] = {
		[LIBRARY_IS_OFF] = "patching-off",
		[LIBRARY_IS_ABSENT] = "library-absent",
		[LIBRARY_IS_REGION_UNREACHABLE] = "library-region-unreachable",
		[LIBRARY_IS_GATE_TAKEN] = "library-gate-address-taken",
		[LIBRARY_IS_REGION_FULL] = "library-region-full",
		[LIBRARY_IS_PROGRAM_SETS_GS] = "library-program-sets-gs",
		[LIBRARY_IS_THREADS_BEFORE] = "library-threads-before-library",
	};

	if (mode == PATCH_OFF)
		return reasons[LIBRARY_IS_OFF];
	return img->ready ? NULL : reasons[img->rec.library];
}

/* The patches the image wrote, and whether each paid for itself in it. */
static void account_patches(struct image *img, const struct addr_space *as)
{
	for (size_t i = 0; i < as->sites.n; i++) {
		const struct patch *p = &as->patches[i];
		struct site_record *s = site_table_find(&img->sites, as->sites.sites[i].addr);

		if (!patch_has_counter(p) || p->origin == PATCH_INHERITED)
			continue;
		img->rec.patches_written++;
		img->rec.patches_known += p->origin == PATCH_IN_BATCH;
		img->rec.patch_ns += p->cost_ns;
		if (s) {
			s->patch_ns = p->cost_ns;
			s->patched_ns = p->patched_ns;
		}
		if (!amortization_paid_off(p->cost_ns, saving_ns, s ? s->inprocess : 0))
			img->rec.patches_not_amortized++;
	}
}

void library_image_complete(struct image *img)
{
	struct addr_space *as = img->as;

	if (as && img->owns_as)
		account_patches(img, as);
	known_sites_note_image(img);

	/* the state of every site the image trapped at */
	for (size_t i = 0; i < img->sites.n; i++) {
		struct site_record *s = &img->sites.sites[i];
		const struct site_record *in_as = as ? site_table_find(&as->sites, s->addr) : NULL;
		const struct patch *p = in_as ? &as->patches[in_as - as->sites.sites] : NULL;

		/* an image whose library never came up: only what was patched at exec
		 * (tracer/early.c) says otherwise than why */
		if (p && (img->late || patch_has_counter(p))) {
			s->state = patch_site_state(p);
			s->reason = p->reason;
		} else {
			s->reason = undecided_reason(img);
			s->state = s->reason ? SITE_UNPATCHABLE : SITE_PENDING;
		}
	}
}
