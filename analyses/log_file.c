#include "log_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "syscall_names.h"

static uint64_t entry_offset(uint64_t i)
{
	return sizeof(struct log_header) + i * sizeof(struct log_entry);
}

static int header_problem(const struct log_header *h, char *err, size_t errlen)
{
	if (memcmp(h->magic, LOG_MAGIC, sizeof(h->magic)) != 0) {
		snprintf(err, errlen, "not a systrace log: no magic \"%s\" at byte offset 0", LOG_MAGIC);
		return -1;
	}
	if (h->version != LOG_VERSION) {
		snprintf(err, errlen, "log version %" PRIu32 " at byte offset %zu, this reader knows version %d",
			 h->version, offsetof(struct log_header, version), LOG_VERSION);
		return -1;
	}
	if (h->entry_size != sizeof(struct log_entry)) {
		snprintf(err, errlen, "entry size %" PRIu32 " at byte offset %zu, expected %zu", h->entry_size,
			 offsetof(struct log_header, entry_size), sizeof(struct log_entry));
		return -1;
	}
	for (size_t i = 0; i < sizeof(h->reserved) / sizeof(h->reserved[0]); i++)
		if (h->reserved[i] != 0) {
			snprintf(err, errlen, "reserved header field not zero at byte offset %zu",
				 offsetof(struct log_header, reserved) + i * sizeof(h->reserved[0]));
			return -1;
		}
	return 0;
}

int log_file_view(struct log_file *f, const void *data, size_t size, char *err, size_t errlen)
{
	uint64_t whole;

	memset(f, 0, sizeof(*f));
	if (size < sizeof(struct log_header)) {
		snprintf(err, errlen, "truncated header: %zu bytes, a log starts with a %zu-byte header", size,
			 sizeof(struct log_header));
		return -1;
	}
	if (header_problem(data, err, errlen) < 0)
		return -1;
	whole = (size - sizeof(struct log_header)) / sizeof(struct log_entry);
	f->header = data;
	f->entries = (const struct log_entry *)(f->header + 1);
	f->count = whole;
	f->size = size;
	if (entry_offset(whole) == size)
		return 0;
	snprintf(err, errlen, "truncated entry at byte offset %" PRIu64 " (%" PRIu64 " of its %zu bytes; %" PRIu64
		 " whole entries before it)", entry_offset(whole), size - entry_offset(whole),
		 sizeof(struct log_entry), whole);
	return LOG_FILE_TRUNCATED;
}

/* Prefixes err (a message without the file) with the file's name. */
static void name_file(const char *path, char *err, size_t errlen)
{
	char what[512];

	snprintf(what, sizeof(what), "%s", err);
	snprintf(err, errlen, "%s: %s", path, what);
}

int log_file_map(struct log_file *f, const char *path, char *err, size_t errlen)
{
	struct stat st;
	void *data = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), status;

	memset(f, 0, sizeof(*f));
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* a file too short for a header has nothing to map (mmap refuses length 0) */
	if ((size_t)st.st_size >= sizeof(struct log_header)) {
		data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data == MAP_FAILED) {
			snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	close(fd);
	status = log_file_view(f, data, st.st_size, err, errlen);
	f->mapped = status >= 0;
	if (status != 0)
		name_file(path, err, errlen);
	if (status < 0 && data)
		munmap(data, st.st_size);
	return status;
}

int log_file_open(struct log_file *f, const char *path, char *err, size_t errlen)
{
	int status = log_file_map(f, path, err, errlen);

	if (status == LOG_FILE_TRUNCATED) {
		log_file_close(f);
		return -1;
	}
	return status;
}

void log_file_close(struct log_file *f)
{
	if (f->mapped)
		munmap((void *)f->header, f->size);
	memset(f, 0, sizeof(*f));
}

bool log_entry_check(const struct log_file *f, uint64_t i, uint32_t nsites, char *err, size_t errlen)
{
	const struct log_entry *e = &f->entries[i];
	char what[128];

	if (e->check == LOG_ENTRY_CHECK && !(e->flags & ~LOG_FLAGS_KNOWN) && e->syscall < SYSCALL_INDEX_COUNT &&
	    e->site < nsites && e->pid > 0 && e->tid > 0)
		return true;
	if (e->check != LOG_ENTRY_CHECK)
		snprintf(what, sizeof(what), "check byte 0x%02x, expected 0x%02x", e->check, LOG_ENTRY_CHECK);
	else if (e->flags & ~LOG_FLAGS_KNOWN)
		snprintf(what, sizeof(what), "unknown flag bits 0x%02x", e->flags & ~LOG_FLAGS_KNOWN);
	else if (e->syscall >= SYSCALL_INDEX_COUNT)
		snprintf(what, sizeof(what), "syscall index %u, expected below %d", e->syscall, SYSCALL_INDEX_COUNT);
	else if (e->site >= nsites)
		snprintf(what, sizeof(what), "site %" PRIu32 " not in the sites file (ids below %" PRIu32 ")", e->site,
			 nsites);
	else
		snprintf(what, sizeof(what), "%s %" PRId32 ", expected a positive id", e->pid > 0 ? "tid" : "pid",
			 e->pid > 0 ? e->tid : e->pid);
	snprintf(err, errlen, "corrupt entry at byte offset %" PRIu64 ": %s", entry_offset(i), what);
	return false;
}
