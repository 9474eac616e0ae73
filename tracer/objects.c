#include "objects.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_object.h"
#include "proc_maps.h"

struct object {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *path;
	struct elf_object elf;
	struct object *next;
};

#define OBJECT_BUCKETS 4096
static struct object *buckets[OBJECT_BUCKETS];
static struct proc_maps maps = { .fd = -1 };
static uint64_t last_start;
static struct object *last_object;

static struct object **bucket_of(const struct stat *st)
{
	return &buckets[(st->st_ino * 31 + st->st_dev) % OBJECT_BUCKETS];
}

static bool same_file(const struct object *o, const struct stat *st)
{
	return o->dev == st->st_dev && o->ino == st->st_ino && o->size == st->st_size
	       && o->mtime.tv_sec == st->st_mtim.tv_sec && o->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The object mapped at e, read through /proc/<pid>/map_files where possible so that
 * a file deleted since it was mapped (configure's conftest programs) is still read. */
static struct object *object_of(pid_t pid, const struct map_entry *e)
{
	char via[96];
	struct stat st;
	struct object *o, **head;
	int fd;

	snprintf(via, sizeof(via), "/proc/%d/map_files/%lx-%lx", (int)pid,
		 (unsigned long)e->start, (unsigned long)e->end);
	const char *path = stat(via, &st) == 0 ? via : e->path;

	if (path == e->path && stat(path, &st) != 0)
		return NULL;
	head = bucket_of(&st);
	for (o = *head; o; o = o->next)
		if (same_file(o, &st))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		abort();
	*o = (struct object){ st.st_dev, st.st_ino, st.st_size, st.st_mtim, strdup(e->path), { 0 }, *head };
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		elf_object_load(&o->elf, fd);
		close(fd);
	}
	*head = o;
	return o;
}

/* Names of pseudo-objects ("[vdso]", "[anon]", ...) live as long as the run. */
static const char *intern(const char *name)
{
	static struct interned { struct interned *next; char name[]; } *list;
	struct interned *i;

	for (i = list; i; i = i->next)
		if (strcmp(i->name, name) == 0)
			return i->name;
	i = malloc(sizeof(*i) + strlen(name) + 1);
	if (!i)
		abort();
	strcpy(i->name, name);
	i->next = list;
	list = i;
	return i->name;
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
	if (o && (sym = elf_object_symbol(&o->elf, s->offset))) {
		s->symbol = sym->name;
		s->symbol_offset = s->offset - sym->addr;
	}
}

bool objects_begin(pid_t tid)
{
	last_start = 0;
	last_object = NULL;
	return proc_maps_open(&maps, tid);
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

void objects_end(void)
{
	proc_maps_close(&maps);
}

void objects_free_all(void)
{
	for (size_t b = 0; b < OBJECT_BUCKETS; b++) {
		while (buckets[b]) {
			struct object *o = buckets[b];

			buckets[b] = o->next;
			elf_object_free(&o->elf);
			free(o->path);
			free(o);
		}
	}
}
