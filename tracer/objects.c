#include "objects.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "code_scan.h"
#include "elf_object.h"
#include "entry_tally.h"
#include "fd_limit.h"
#include "function_names.h"
#include "grow_array.h"
#include "interned.h"
#include "proc_maps.h"
#include "scan_cache.h"

struct object {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	char *path;
	struct elf_object elf;
	struct code_scan scan;     /* swept when a site in it is first patched */
	enum { SCAN_NOT_YET, SCAN_DONE, SCAN_FAILED } scanned;
	struct patch_plan *known;  /* sites patched in some process, in ELF addresses */
	/* and of each: when it was learned (objects_learn's stamp), and what sites.csv
	 * names it by, looked up at its first image (the same in each: its file offset
	 * is), not again at each exec */
	struct known_about {
		uint64_t since;
		bool named;
		uint64_t offset;
		const char *symbol;
		uint64_t symbol_offset;
	} *known_about;
	size_t nknown, cap_known, cap_about;
	struct refusal { uint64_t vaddr; const char *reason; } *refused; /* and those refused */
	size_t nrefused, cap_refused;
	bool swept_for_prepatch;
	unsigned lookups;          /* found by a stat; kept open (pin_fd) at the second */
	int pin_fd;
	/* --libc-calls: the functions it exports, read when first asked; and per site
	 * (ELF address), the libc entry points seen leading to it in any process */
	struct elf_object exported;
	bool exported_read;
	void *image;               /* the file, mapped read-only in the tracer; NULL: not */
	size_t image_size;
	struct learned { uint64_t vaddr; struct libc_entry *entries; unsigned n; } *learned;
	size_t nlearned, cap_learned;
	/* as an executable: its libraries' layout (lib_hook.h), and whose loader ran it */
	struct layouts *layouts;
	const struct object *layout_loader;
	/* as a loader: where the libraries' hook goes, looked up once */
	enum { HOOK_NOT_YET, HOOK_FOUND, HOOK_NONE } hook_lookup;
	uint64_t hook_vaddr;
	struct object *next;
};

#define OBJECT_BUCKETS 4096
static _Thread_local struct object **buckets; /* OBJECT_BUCKETS, from the thread's first use */
static _Thread_local struct proc_maps maps = { .fd = -1 };
static _Thread_local uint64_t last_start;
static _Thread_local struct object *last_object;

/* (on the heap, not in every thread's static TLS: the writer's too) */
static struct object **bucket_of(const struct stat *st)
{
	if (!buckets && !(buckets = calloc(OBJECT_BUCKETS, sizeof(*buckets))))
		abort();
	return &buckets[(st->st_ino * 31 + st->st_dev) % OBJECT_BUCKETS];
}

/* ctime too: a file rewritten in place keeps its inode, and can be given back its
 * size and mtime (cp -p, touch -r), not its ctime */
static bool same_file(const struct object *o, const struct stat *st)
{
	return o->dev == st->st_dev && o->ino == st->st_ino && o->size == st->st_size
	       && o->mtime.tv_sec == st->st_mtim.tv_sec && o->mtime.tv_nsec == st->st_mtim.tv_nsec
	       && o->ctime.tv_sec == st->st_ctim.tv_sec && o->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* The file mapped at e, through /proc/<pid>/map_files where possible so that a file
 * deleted since it was mapped (configure's conftest programs) is still read. */
static const char *mapped_file(pid_t pid, const struct map_entry *e, char *via, size_t len, struct stat *st)
{
	snprintf(via, len, "/proc/%d/map_files/%lx-%lx", (int)pid, (unsigned long)e->start, (unsigned long)e->end);
	if (stat(via, st) == 0)
		return via;
	return stat(e->path, st) == 0 ? e->path : NULL;
}

/* Objects met in two lookups (the libraries and programs a build runs again and
 * again) are kept open: an inode cannot be reused while its file is open, so a
 * mapping with their device and inode is theirs, found without a stat through
 * /proc/PID/map_files (the stat of the rest is what tells a deleted conftest from
 * the next one that got its inode). */
#define MAX_PINNED 512
static _Thread_local unsigned npinned, max_pinned = MAX_PINNED;

static void unpin(struct object *o)
{
	close(o->pin_fd);
	o->pin_fd = -1;
	npinned--;
}

/* Objects whose large symbol table waits for its first lookup hold a descriptor of
 * their file each (patcher/elf_object.h): at most this many, past which tables are
 * read at once. Most never get a lookup (no syscall site of theirs to name). */
#define MAX_DEFERRED 64
static _Thread_local unsigned ndeferred, max_deferred = MAX_DEFERRED;

/* o's symbols, read now if they waited */
static struct elf_object *symbols_of(struct object *o)
{
	size_t n;

	if (o->elf.later) {
		elf_object_symbols(&o->elf, &n);
		ndeferred--;
	}
	return &o->elf;
}

/* Out of descriptors (fd_limit.h): the waiting symbol tables are read, and none
 * waits from then on; the cache keeps half of its pins, and no more from then on,
 * so that the descriptors the run needs (a memory's, an object read) come first and
 * the cache does not take them again. True if it closed any. */
static bool give_back_descriptors(void)
{
	unsigned had = npinned + ndeferred;

	max_pinned = npinned / 2;
	max_deferred = 0;
	for (size_t b = 0; buckets && b < OBJECT_BUCKETS; b++)
		for (struct object *o = buckets[b]; o; o = o->next) {
			symbols_of(o);
			if (o->pin_fd >= 0 && npinned > max_pinned)
				unpin(o);
		}
	return npinned + ndeferred < had;
}

/* The open descriptor holds the inode, not what is in it: a file rewritten in place
 * (cp over it, an O_TRUNC open) keeps device and inode, so its size and times are
 * checked (an fstat, cheaper than the stat through /proc it saves); changed, the
 * object is not that file any more and gives its pin up. */
/* The objects checked so in the lookups of one objects_begin: a file does not
 * change under one stop's lookups (an exec's look at the loader and the executable
 * again and again). */
#define CHECKED_KEPT 8
static _Thread_local struct object *checked[CHECKED_KEPT];
static _Thread_local unsigned nchecked;

static struct object *pinned_by_inode(const struct map_entry *e)
{
	struct stat key = { .st_dev = e->dev, .st_ino = e->ino }, now;

	if (!e->ino)
		return NULL;
	for (unsigned i = 0; i < nchecked; i++)
		if (checked[i]->dev == e->dev && checked[i]->ino == e->ino && checked[i]->pin_fd >= 0)
			return checked[i];
	for (struct object *o = *bucket_of(&key); o; o = o->next) {
		if (o->pin_fd < 0 || o->dev != e->dev || o->ino != e->ino)
			continue;
		if (fstat(o->pin_fd, &now) == 0 && same_file(o, &now)) {
			if (nchecked < CHECKED_KEPT)
				checked[nchecked++] = o;
			return o;
		}
		unpin(o);
		return NULL;
	}
	return NULL;
}

static void pin(struct object *o, const char *path)
{
	struct stat now;

	if (o->pin_fd >= 0 || ++o->lookups < 2 || npinned >= max_pinned)
		return;
	/* (no descriptor is given back for a pin: it only saves a stat) */
	if ((o->pin_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	npinned++;
	/* what was opened is the file that was looked up, not one put there since */
	if (fstat(o->pin_fd, &now) < 0 || !same_file(o, &now))
		unpin(o);
}

static struct object *object_of(pid_t pid, const struct map_entry *e)
{
	char via[96];
	struct stat st;
	struct object *o, **head;
	const char *path;
	int fd;

	if ((o = pinned_by_inode(e)))
		return o;
	if (!(path = mapped_file(pid, e, via, sizeof(via), &st)))
		return NULL;
	head = bucket_of(&st);
	for (o = *head; o; o = o->next) {
		if (same_file(o, &st)) {
			pin(o, path);
			return o;
		}
	}
	o = calloc(1, sizeof(*o));
	if (!o)
		abort();
	*o = (struct object){ .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size, .mtime = st.st_mtim,
			      .ctime = st.st_ctim, .path = strdup(e->path), .pin_fd = -1, .next = *head };
	if ((fd = fd_open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		elf_object_load(&o->elf, fd, ndeferred < max_deferred ? ELF_OBJECT_EAGER_MAX : SIZE_MAX);
		ndeferred += o->elf.later;
		close(fd);
	}
	*head = o;
	return o;
}

static void resolve_one(struct site_record *s, const struct map_entry *e, struct object *o)
{
	uint64_t file_offset, vaddr;
	const struct elf_symbol *sym;

	if (!e) {
		s->object = NULL;
		s->offset = s->addr;
		return;
	}
	if (e->path[0] != '/') {
		/* anonymous code has no base: its offset is the address itself */
		s->object = intern(e->path[0] ? e->path : "[anon]");
		s->offset = e->path[0] ? s->addr - e->start : s->addr;
		return;
	}
	file_offset = s->addr - e->start + e->file_offset;
	s->object = o ? o->path : intern(e->path);
	s->offset = o && elf_object_vaddr(&o->elf, file_offset, &vaddr) ? vaddr : file_offset;
	if (o && (sym = elf_object_symbol(symbols_of(o), s->offset))) {
		s->symbol = sym->name;
		s->symbol_offset = s->offset - sym->addr;
	}
}

/* objects_begin's nesting: an outer begin for the same thread keeps the mappings
 * open for the calls inside it (one /proc/PID/maps a set of lookups). */
static _Thread_local unsigned depth;
static _Thread_local pid_t open_for;

bool objects_begin(pid_t tid)
{
	if (depth && open_for == tid) {
		depth++;
		return true;
	}
	if (depth)
		proc_maps_close(&maps);
	last_start = 0;
	last_object = NULL;
	nchecked = 0;
	depth = 0;
	if (!proc_maps_open(&maps, tid))
		return false;
	open_for = tid;
	depth = 1;
	return true;
}

void objects_name_site(pid_t tid, struct site_record *s)
{
	const struct map_entry *e = proc_maps_find(&maps, s->addr);

	/* consecutive sites mostly lie in the same object: look it up once */
	if (e && e->start != last_start) {
		last_start = e->start;
		last_object = e->path[0] == '/' ? object_of(tid, e) : NULL;
	}
	resolve_one(s, e, e ? last_object : NULL);
	s->named = true;
}

/* Sweeps of objects with a build-id are kept between runs (patcher/scan_cache.h). */
static char cache_dir[PATH_MAX]; /* empty: none */

void objects_setup(void)
{
	char *dir = scan_cache_dir();

	if (dir && strlen(dir) < sizeof(cache_dir))
		strcpy(cache_dir, dir);
	free(dir);
	fd_limit_on_short(give_back_descriptors);
}

static const struct code_scan *scan_of(pid_t tid, const struct map_entry *e, struct object *o)
{
	const char *id = o->elf.build_id;

	if (o->scanned == SCAN_NOT_YET && *id && *cache_dir && scan_cache_load(cache_dir, id, &o->scan))
		o->scanned = SCAN_DONE;
	if (o->scanned == SCAN_NOT_YET) {
		char via[96];
		struct stat st;
		const char *path = mapped_file(tid, e, via, sizeof(via), &st);
		int fd = path ? fd_open(path, O_RDONLY | O_CLOEXEC) : -1;

		o->scanned = fd >= 0 && code_scan_object(&o->scan, fd, symbols_of(o)) ? SCAN_DONE : SCAN_FAILED;
		if (fd >= 0)
			close(fd);
		if (o->scanned == SCAN_DONE && *id && *cache_dir)
			scan_cache_store(cache_dir, id, &o->scan);
	}
	return o->scanned == SCAN_DONE ? &o->scan : NULL;
}

bool objects_at(pid_t tid, uint64_t addr, const struct object **o)
{
	const struct map_entry *e;

	if (!objects_begin(tid))
		return false;
	e = proc_maps_find(&maps, addr);
	*o = e && e->path[0] == '/' ? object_of(tid, e) : NULL;
	objects_end();
	return true;
}

const char *objects_code_of(pid_t tid, struct site_record *s, struct code_object *code)
{
	const char *reason = NULL;
	const struct map_entry *e;
	struct object *o;
	uint64_t vaddr;

	if (!objects_begin(tid))
		return "process-gone";
	e = proc_maps_find(&maps, s->addr);
	o = e && e->path[0] == '/' ? object_of(tid, e) : NULL;
	resolve_one(s, e, o);
	s->named = true;
	if (!e)
		reason = "not-mapped";
	else if (e->path[0] != '/')
		/* a JIT may rewrite it at any time, and nothing says where its code begins */
		reason = e->path[0] ? "special-mapping" : "anonymous-code";
	else if (!o || !elf_object_vaddr(&o->elf, s->addr - e->start + e->file_offset, &vaddr))
		reason = "not-elf";
	else if (!(code->scan = scan_of(tid, e, o)))
		reason = "unreadable-object";
	if (!reason) {
		code->bias = s->addr - vaddr;
		code->map_start = e->start;
		code->map_end = e->end;
		code->object = o;
	}
	objects_end();
	return reason;
}

static void shift_plan(struct patch_plan *plan, uint64_t by)
{
	plan->site += by;
	plan->start += by;
	plan->end += by;
}

/* The index of the object's known site at ELF address vaddr, or -1. */
static long known_index(const struct object *o, uint64_t vaddr)
{
	for (size_t i = 0; i < o->nknown; i++)
		if (o->known[i].site == vaddr)
			return (long)i;
	return -1;
}

uint32_t objects_learn(const struct code_object *code, const struct patch_plan *plan, uint64_t stamp)
{
	struct object *o = code->object;
	long at = known_index(o, plan->site - code->bias);
	struct patch_plan *k;

	if (at >= 0)
		return (uint32_t)at;
	o->known = grow_array(o->known, &o->cap_known, o->nknown, sizeof(*o->known));
	o->known_about = grow_array(o->known_about, &o->cap_about, o->nknown, sizeof(*o->known_about));
	o->known_about[o->nknown] = (struct known_about){ .since = stamp };
	k = &o->known[o->nknown];
	*k = *plan;
	shift_plan(k, -code->bias);
	return (uint32_t)o->nknown++;
}

uint64_t objects_known_since(const struct object *o, uint32_t index)
{
	return index < o->nknown ? o->known_about[index].since : UINT64_MAX;
}

bool objects_known_plan(const struct code_object *code, uint64_t addr, struct patch_plan *plan, uint32_t *index)
{
	long at = known_index(code->object, addr - code->bias);

	if (at < 0)
		return false;
	*plan = code->object->known[at];
	shift_plan(plan, code->bias);
	*index = (uint32_t)at;
	return true;
}

void objects_learn_refusal(const struct code_object *code, uint64_t addr, const char *reason)
{
	struct object *o = code->object;

	o->refused = grow_array(o->refused, &o->cap_refused, o->nrefused, sizeof(*o->refused));
	o->refused[o->nrefused++] = (struct refusal){ addr - code->bias, reason };
}

const char *objects_refusal(const struct code_object *code, uint64_t addr)
{
	const struct object *o = code->object;

	for (size_t i = 0; i < o->nrefused; i++)
		if (o->refused[i].vaddr == addr - code->bias)
			return o->refused[i].reason;
	return NULL;
}

/* s, o's known site i, mapped at e: named as resolve_one names it. */
static void name_known(struct object *o, size_t i, struct site_record *s, const struct map_entry *e)
{
	struct known_about *n = &o->known_about[i];

	if (!n->named) {
		resolve_one(s, e, o);
		*n = (struct known_about){ n->since, true, s->offset, s->symbol, s->symbol_offset };
	}
	s->offset = n->offset;
	s->symbol = n->symbol;
	s->symbol_offset = n->symbol_offset;
}

/* The known sites of object o, mapped at e, that lie in e. */
static void known_in_object(struct object *o, const struct map_entry *e, const struct known_visit *v)
{
	for (size_t i = 0; o && i < o->nknown; i++) {
		struct patch_plan plan = o->known[i];
		uint64_t off, bias;
		struct site_record s;

		if ((v->want && !v->want(v->arg, o, (uint32_t)i)) || !elf_object_file_offset(&o->elf, plan.site, &off)
		    || off < e->file_offset
		    || off - e->file_offset >= e->end - e->start)
			continue;
		bias = e->start + (off - e->file_offset) - plan.site;
		shift_plan(&plan, bias);
		if (plan.start < e->start || plan.end > e->end)
			continue;
		s = (struct site_record){ .addr = plan.site, .object = o->path, .named = true };
		name_known(o, i, &s, e);
		v->fn(v->arg, &s, &plan, o, (uint32_t)i);
	}
}

/* The known sites of the object mapped at e that lie in e. */
static void known_in(pid_t tid, const struct map_entry *e, const struct known_visit *v)
{
	known_in_object(object_of(tid, e), e, v);
}

bool objects_for_each_known(pid_t tid, const struct known_visit *v)
{
	const struct map_entry *e;

	if (!objects_begin(tid))
		return false;
	for (uint64_t at = 0; (e = proc_maps_next(&maps, at)); at = e->end) {
		if (e->path[0] != '/')
			continue;
		if (v->mapped)
			v->mapped(v->arg, object_of(tid, e), e->start, e->end, e->file_offset);
		known_in(tid, e, v);
	}
	objects_end();
	return true;
}

void objects_for_each_known_predicted(struct object *o, uint64_t start, uint64_t end, uint64_t file_offset,
				      const struct known_visit *v)
{
	struct map_entry e = { .start = start, .end = end, .file_offset = file_offset };

	snprintf(e.path, sizeof(e.path), "%s", o->path);
	known_in_object(o, &e, v);
}

void objects_set_layout(struct object *exe, const struct object *loader, uint64_t loader_start,
			const struct layout_entry *e, size_t n)
{
	if (exe->layout_loader != loader) {
		layouts_free(exe->layouts);
		exe->layouts = NULL;
		exe->layout_loader = loader;
	}
	layouts_keep(&exe->layouts, loader_start, e, n);
}

const struct layout_entry *objects_layout(const struct object *exe, const struct object *loader,
					  uint64_t loader_start, struct layout_entry guess[LAYOUT_MAX], size_t *n)
{
	if (!exe || !loader || exe->layout_loader != loader)
		return NULL;
	return layouts_for(exe->layouts, loader_start, guess, n);
}

bool objects_loader_hook(struct object *loader, uint64_t *vaddr)
{
	if (loader->hook_lookup == HOOK_NOT_YET) {
		int fd = fd_open(loader->path, O_RDONLY | O_CLOEXEC);
		uint64_t size;
		struct stat st;

		/* (the file at the path must still be the one mapped) */
		loader->hook_lookup = fd >= 0 && fstat(fd, &st) == 0 && same_file(loader, &st)
					      && elf_object_find_dynsym(fd, "_dl_allocate_tls_init", &loader->hook_vaddr,
									&size)
				      ? HOOK_FOUND
				      : HOOK_NONE;
		if (fd >= 0)
			close(fd);
	}
	*vaddr = loader->hook_vaddr;
	return loader->hook_lookup == HOOK_FOUND;
}

bool objects_build_id(const struct object *o, uint64_t *vaddr, const uint8_t **bytes, size_t *len)
{
	*vaddr = o->elf.build_id_vaddr;
	*bytes = o->elf.build_id_bytes;
	*len = o->elf.build_id_len;
	return *vaddr && *len;
}

bool objects_vaddr_of_offset(const struct object *o, uint64_t file_offset, uint64_t *vaddr)
{
	return elf_object_vaddr(&o->elf, file_offset, vaddr);
}

/* o's file, mapped read-only in the tracer (once) when it is mapped at e in tid's
 * memory; the descriptor (-1: none) for the caller to read more, and close. */
static int map_image(pid_t tid, const struct map_entry *e, struct object *o)
{
	char via[96];
	struct stat st;
	const char *path = mapped_file(tid, e, via, sizeof(via), &st);
	int fd = path ? fd_open(path, O_RDONLY | O_CLOEXEC) : -1;
	void *image;

	if (fd < 0 || o->image || st.st_size <= 0)
		return fd;
	if ((image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		o->image = image;
		o->image_size = (size_t)st.st_size;
	}
	return fd;
}

bool objects_at_exec(pid_t tid, uint64_t rip, char *(*exe_path)(pid_t), struct exec_code *c)
{
	const struct map_entry *e;
	struct map_entry at_rip, low;
	bool has_low;

	*c = (struct exec_code){ 0 };
	if (!objects_begin(tid))
		return false;
	if ((e = proc_maps_find(&maps, rip)) && e->path[0] == '/') {
		at_rip = *e;
		if ((has_low = (e = proc_maps_next(&maps, 0)) && e->path[0] == '/'))
			low = *e;
		/* (a path longer than an entry holds is refused by the query, cut short by
		 * the text: readlink's then) */
		if (has_low && strcmp(low.path, at_rip.path) != 0 && strlen(low.path) < sizeof(low.path) - 1) {
			if (!(c->exe_path = strdup(low.path)))
				abort();
		} else if ((c->exe_path = exe_path(tid)) && strcmp(c->exe_path, at_rip.path) == 0) {
			objects_end();
			return false;
		}
		if (has_low && low.start != at_rip.start) {
			c->exe_start = low.start;
			c->exe = object_of(tid, &low);
		}
		c->loader_start = at_rip.start;
		c->loader_end = at_rip.end;
		c->loader_base = at_rip.start - at_rip.file_offset;
		/* (a loader's file is mapped for objects_exec_loader_bytes: there are few) */
		if ((c->loader = object_of(tid, &at_rip)) && !c->loader->image) {
			int fd = map_image(tid, &at_rip, c->loader);

			if (fd >= 0)
				close(fd);
		}
	}
	objects_end();
	return c->loader_start != 0;
}

bool objects_exec_loader_bytes(const struct exec_code *c, uint64_t addr, void *buf, size_t len)
{
	/* the loader's code mapping, untouched yet: its file's bytes from the offset
	 * it maps (to its page's end, past the segment's own bytes) */
	if (!c->loader || !c->loader->image || addr < c->loader_start || addr > c->loader_end
	    || len > c->loader_end - addr || addr - c->loader_base + len > c->loader->image_size)
		return false;
	memcpy(buf, (const char *)c->loader->image + (addr - c->loader_base), len);
	return true;
}

struct object *objects_exe_of(pid_t tid)
{
	const struct map_entry *e;
	struct object *o = NULL;

	if (!objects_begin(tid))
		return NULL;
	if ((e = proc_maps_next(&maps, 0)) && e->path[0] == '/')
		o = object_of(tid, e);
	objects_end();
	return o;
}

void objects_for_each_known_at(pid_t tid, uint64_t addr, const struct known_visit *v)
{
	const struct map_entry *e;

	if (!objects_begin(tid))
		return;
	if ((e = proc_maps_find(&maps, addr)) && e->path[0] == '/')
		known_in(tid, e, v);
	objects_end();
}

void objects_for_each_new_syscall(pid_t tid, objects_syscall_fn *fn, void *arg)
{
	const struct map_entry *e;

	if (!objects_begin(tid))
		return;
	for (uint64_t at = 0; (e = proc_maps_next(&maps, at)); at = e->end) {
		struct object *o = e->path[0] == '/' ? object_of(tid, e) : NULL;
		struct code_object code = { .map_start = e->start, .map_end = e->end, .object = o };

		if (!o || o->swept_for_prepatch || !(code.scan = scan_of(tid, e, o)))
			continue;
		o->swept_for_prepatch = true;
		for (size_t i = 0; i < code.scan->nsyscalls; i++) {
			uint64_t vaddr = code.scan->syscalls[i].addr, off;

			if (!elf_object_file_offset(&o->elf, vaddr, &off) || off < e->file_offset
			    || off - e->file_offset >= e->end - e->start)
				continue;
			code.bias = e->start + (off - e->file_offset) - vaddr;
			fn(arg, &code, vaddr + code.bias);
		}
	}
	objects_end();
}

/* For --libc-calls: o's exported functions, and its file mapped for the walks. */
static void read_exported(pid_t tid, const struct map_entry *e, struct object *o)
{
	int fd = map_image(tid, e, o);

	o->exported_read = true;
	if (fd < 0)
		return;
	elf_object_load_exported(&o->exported, fd);
	close(fd);
}

bool objects_find_mapped(pid_t tid, uint64_t addr, bool (*matches)(const char *path), struct mapped_object *m)
{
	const struct map_entry *e;
	uint64_t vaddr;

	m->object = NULL;
	if (!objects_begin(tid))
		return false;
	e = proc_maps_find(&maps, addr);
	if (e && e->path[0] == '/' && matches(e->path) && (m->object = object_of(tid, e))
	    && elf_object_vaddr(&m->object->elf, e->file_offset, &vaddr)) {
		*m = (struct mapped_object){ e->start, e->end, e->start - vaddr, m->object };
		if (!m->object->exported_read)
			read_exported(tid, e, m->object);
	} else {
		m->object = NULL;
	}
	objects_end();
	return m->object != NULL;
}

const char *objects_function_name(struct object *o, uint64_t vaddr, bool exact)
{
	const char *name = function_name_at(&o->exported, vaddr, exact);

	return name || exact ? name : function_name_at(symbols_of(o), vaddr, false);
}

bool objects_read_readonly(const struct object *o, uint64_t vaddr, void *buf, size_t len)
{
	uint64_t off;

	if (!o->image || !elf_object_readonly_offset(&o->elf, vaddr, len, &off) || off + len > o->image_size)
		return false;
	memcpy(buf, (const char *)o->image + off, len);
	return true;
}

const char *objects_path(const struct object *o)
{
	return o->path;
}

static struct learned *learned_at(const struct object *o, uint64_t vaddr)
{
	for (size_t i = 0; i < o->nlearned; i++)
		if (o->learned[i].vaddr == vaddr)
			return &o->learned[i];
	return NULL;
}

void objects_learn_entry(struct object *o, uint64_t vaddr, const char *name)
{
	struct learned *l = learned_at(o, vaddr);

	if (!l) {
		o->learned = grow_array(o->learned, &o->cap_learned, o->nlearned, sizeof(*o->learned));
		l = &o->learned[o->nlearned++];
		*l = (struct learned){ .vaddr = vaddr };
	}
	entry_tally_add(&l->entries, &l->n, name);
}

const char *objects_learned_entry(const struct object *o, uint64_t vaddr)
{
	const struct learned *l = learned_at(o, vaddr);

	return l ? entry_tally_top(l->entries, l->n) : NULL;
}

void objects_end(void)
{
	if (depth && --depth)
		return;
	proc_maps_close(&maps);
}

struct object **objects_release(void)
{
	struct object **all = buckets;

	buckets = NULL;
	last_object = NULL;
	nchecked = 0;
	npinned = 0;
	max_pinned = MAX_PINNED;
	return all;
}

void objects_free(struct object **all)
{
	for (size_t b = 0; all && b < OBJECT_BUCKETS; b++) {
		while (all[b]) {
			struct object *o = all[b];

			all[b] = o->next;
			elf_object_free(&o->elf);
			code_scan_free(&o->scan);
			free(o->known);
			free(o->known_about);
			free(o->refused);
			elf_object_free(&o->exported);
			if (o->image)
				munmap(o->image, o->image_size);
			if (o->pin_fd >= 0)
				close(o->pin_fd);
			for (size_t i = 0; i < o->nlearned; i++)
				free(o->learned[i].entries);
			free(o->learned);
			layouts_free(o->layouts);
			free(o->path);
			free(o);
		}
	}
	free(all);
}
