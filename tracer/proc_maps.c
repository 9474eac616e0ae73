#include "proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fd_limit.h"
#include "grow_array.h"
#include "offload.h"

/* From linux/fs.h (6.11), which these headers predate. */
struct procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_VMA_EXECUTABLE 0x04
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10

/* Once the ioctl is refused, every later lookup reads the text (the kernel's, for
 * every tracer thread). */
static atomic_bool kernel_lacks_query;

/* The kept descriptors, by thread; in_use: the one a proc_maps holds now. */
struct kept {
	pid_t tid;
	int fd;
};
static _Thread_local struct kept *kept;
static _Thread_local size_t nkept, cap_kept;
static _Thread_local int in_use = -1;

/* now: for want of descriptors; else by the writer (offload.h) */
static void drop_kept(size_t i, bool now)
{
	if (now)
		close(kept[i].fd);
	else
		offload_close(kept[i].fd);
	kept[i] = kept[--nkept];
}

/* fd_limit.h's releaser: every kept descriptor but the one in use. */
static bool give_up_kept(void)
{
	size_t had = nkept;

	for (size_t i = nkept; i-- > 0;)
		if (kept[i].fd != in_use)
			drop_kept(i, true);
	return nkept < had;
}

void proc_maps_setup(void)
{
	fd_limit_on_short(give_up_kept);
}

bool proc_maps_open(struct proc_maps *m, pid_t tid)
{
	char path[64];
	size_t i;

	m->nfound = m->next_found = 0;
	m->nlines = 0;
	m->text = kernel_lacks_query;
	for (i = 0; i < nkept && kept[i].tid != tid; i++)
		;
	if (i == nkept) {
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
		if ((m->fd = fd_open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return false;
		/* (a descriptor short, give_up_kept emptied the table: i is no longer its end) */
		kept = grow_array(kept, &cap_kept, nkept, sizeof(*kept));
		i = nkept++;
		kept[i] = (struct kept){ tid, m->fd };
	}
	in_use = m->fd = kept[i].fd;
	return true;
}

void proc_maps_forget(pid_t tid)
{
	for (size_t i = 0; i < nkept; i++) {
		if (kept[i].tid == tid) {
			drop_kept(i, false);
			return;
		}
	}
}

void proc_maps_free(void)
{
	while (nkept)
		drop_kept(nkept - 1, false);
	free(kept);
	kept = NULL;
	cap_kept = 0;
}

static void read_lines(struct proc_maps *m)
{
	FILE *f;
	char line[4096 + 128];
	int fd;

	/* a kept descriptor: from the start again, as the memory is now */
	if (lseek(m->fd, 0, SEEK_SET) < 0
	    || ((fd = dup(m->fd)) < 0 && !(fd_limit_retry(errno) && (fd = dup(m->fd)) >= 0)))
		return;
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		/* the permissions sit after the first space: skip non-code lines unparsed */
		const char *perms = strchr(line, ' ');

		if (!perms || perms[3] != 'x')
			continue;
		m->lines = grow_array(m->lines, &m->cap, m->nlines, sizeof(*m->lines));
		if (maps_parse_line(line, &m->lines[m->nlines]))
			m->nlines++;
	}
	fclose(f);
}

static const struct map_entry *query(struct proc_maps *m, uint64_t addr, uint64_t flags)
{
	struct procmap_query q;
	struct map_entry *e = &m->found[m->next_found];

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_addr = addr;
	q.query_flags = PROCMAP_QUERY_VMA_EXECUTABLE | flags;
	q.vma_name_addr = (uint64_t)(uintptr_t)e->path;
	q.vma_name_size = sizeof(e->path);
	if (ioctl(m->fd, PROCMAP_QUERY, &q) < 0) {
		if (errno == ENOTTY || errno == EINVAL) {
			kernel_lacks_query = m->text = true;
			return flags ? proc_maps_next(m, addr) : proc_maps_find(m, addr);
		}
		return NULL; /* ENOENT: nothing executable there */
	}
	e->start = q.vma_start;
	e->end = q.vma_end;
	e->file_offset = q.vma_offset;
	e->dev = makedev(q.dev_major, q.dev_minor);
	e->ino = (ino_t)q.inode;
	e->executable = true;
	if (q.vma_name_size == 0)
		e->path[0] = '\0';
	m->next_found = (m->next_found + 1) % PROC_MAPS_KEPT;
	if (m->nfound < PROC_MAPS_KEPT)
		m->nfound++;
	return e;
}

const struct map_entry *proc_maps_find(struct proc_maps *m, uint64_t addr)
{
	if (m->fd < 0)
		return NULL;
	if (m->text) {
		if (m->nlines == 0)
			read_lines(m);
		return maps_find(m->lines, m->nlines, addr);
	}
	for (unsigned i = 0; i < m->nfound; i++)
		if (addr >= m->found[i].start && addr < m->found[i].end)
			return &m->found[i];
	return query(m, addr, 0);
}

const struct map_entry *proc_maps_next(struct proc_maps *m, uint64_t addr)
{
	if (m->fd < 0)
		return NULL;
	if (!m->text)
		return query(m, addr, PROCMAP_QUERY_COVERING_OR_NEXT_VMA);
	if (m->nlines == 0)
		read_lines(m);
	for (size_t i = 0; i < m->nlines; i++)
		if (m->lines[i].end > addr)
			return &m->lines[i];
	return NULL;
}

void proc_maps_close(struct proc_maps *m)
{
	if (m->fd == in_use)
		in_use = -1;
	m->fd = -1;
	free(m->lines);
	m->lines = NULL;
	m->nlines = m->cap = 0;
}

bool proc_maps_gap_near(pid_t tid, uint64_t lo, uint64_t hi, uint64_t size, uint64_t reach, uint64_t *at)
{
	char path[64], line[4096 + 128];
	struct map_entry *all = NULL;
	size_t n = 0, cap = 0;
	bool found;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	while (fgets(line, sizeof(line), f)) {
		all = grow_array(all, &cap, n, sizeof(*all));
		n += maps_parse_line(line, &all[n]);
	}
	fclose(f);
	found = maps_gap_near(all, n, lo, hi, size, reach, at);
	free(all);
	return found;
}
