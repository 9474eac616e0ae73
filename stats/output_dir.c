#include "output_dir.h"

#include "amortization.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUTPUT_BUFFER (256 * 1024)

static const char *const file_names[OUTPUT_FILES] = {
	[OUTPUT_PROCESSES] = "processes.csv",
	[OUTPUT_SYSCALLS] = "syscalls.csv",
	[OUTPUT_SITES] = "sites.csv",
	[OUTPUT_SUMMARY] = "summary.csv",
};

static const char *const processes_header[] = {
	"pid", "image", "ppid", "exe", "start_ns", "end_ns", "syscalls", "early", "ptraced",
	"inprocess", "sites_patched", "exit", "user_ns", "sys_ns", "instructions", "cycles",
	"threads", "forks", "vforks", "execs", "exits", "sites", "sites_unpatchable",
	"instrument_syscalls", "ptrace_stops", "wall_ns", "restarted", "library", "stops_lifecycle",
	"stops_early", "stops_late", "patches_written", "patches_known", "patches_not_amortized", "patch_ns",
	"known_unused", "known_missed", "errors", NULL
};
static const char *const syscalls_header[] = {
	"pid", "image", "syscall", "calls", "errors", "abi", "ptraced", "inprocess",
	"time_ns", "min_ns", "max_ns", NULL
};
static const char *const sites_header[] = {
	"pid", "image", "object", "offset", "symbol", "syscall", "state", "ptraced",
	"inprocess", "address", "patch_ns", "break_even", "amortized", "patched_ns", "libc_function", "libc_functions",
	"errors", "start_ns", "time_ns", NULL
};
static const char *const *const headers[OUTPUT_FILES] = {
	[OUTPUT_PROCESSES] = processes_header,
	[OUTPUT_SYSCALLS] = syscalls_header,
	[OUTPUT_SITES] = sites_header,
};

/* The lock every run holds on its folder, hidden like the temporary files. */
#define LOCK_NAME ".systrace.lock"
#define PARTIAL_SUFFIX ".partial"

/* DIR/NAME.csv, or this run's temporary DIR/.NAME.csv.PID.partial: two runs in one
 * folder never share a temporary name (and the lock keeps the second out anyway). */
static char *path_in(const struct output_dir *d, enum output_file which, bool partial)
{
	char *path;
	int n = partial ? asprintf(&path, "%s/.%s.%ld" PARTIAL_SUFFIX, d->dir, file_names[which], (long)d->pid)
			: asprintf(&path, "%s/%s", d->dir, file_names[which]);

	if (n < 0)
		abort();
	return path;
}

static char *lock_path(const char *dir)
{
	char *path;

	if (asprintf(&path, "%s/" LOCK_NAME, dir) < 0)
		abort();
	return path;
}

static int make_dirs(const char *dir)
{
	char *copy = strdup(dir);
	int ret = 0;

	for (char *p = copy + 1; ret == 0 && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) < 0 && errno != EEXIST)
			ret = -1;
		*p = '/';
	}
	if (ret == 0 && mkdir(copy, 0777) < 0 && errno != EEXIST)
		ret = -1;
	free(copy);
	return ret;
}

/* The pid a lock file names (written by its holder), or 0. */
static long lock_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Takes the folder's lock for the whole run: an flock on DIR/.systrace.lock, which
 * the kernel releases when its holder dies however it dies (so a killed run's lock
 * never blocks the next). The file is removed at the end by its holder, so the lock
 * taken must be on the file that the name still designates (else a run that opened
 * it just before it was removed would hold a lock nobody else sees): checked, and
 * taken again on the new file. 0, or -1 with the message in err. */
static int take_lock(struct output_dir *d, char *err, size_t errlen)
{
	char *path = lock_path(d->dir);

	for (int tries = 0; tries < 100; tries++) {
		struct stat held, named;
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

		if (fd < 0) {
			snprintf(err, errlen, "cannot write to output folder '%s': %s", d->dir, strerror(errno));
			break;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int saved = errno;
			long holder = saved == EWOULDBLOCK ? lock_holder(fd) : 0;
			char who[48] = "";

			if (holder > 0)
				snprintf(who, sizeof(who), " (pid %ld)", holder);
			if (saved != EWOULDBLOCK) {
				/* a filesystem without flock (some NFS): the run goes on, its
				 * temporary names its own, and says what it cannot check */
				snprintf(d->warning, sizeof(d->warning),
					 "cannot lock the output folder '%s' (%s): %s; another run writing "
					 "there at the same time would not be refused", d->dir, LOCK_NAME,
					 strerror(saved));
				close(fd);
				unlink(path);
				free(path);
				return 0;
			}
			snprintf(err, errlen, "output folder '%s' is in use by another systrace run%s: "
					      "two runs must not write the same folder; give this one "
					      "another -o DIR, or wait until that one has finished",
				 d->dir, who);
			close(fd);
			break;
		}
		if (fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_dev == named.st_dev
		    && held.st_ino == named.st_ino) {
			char pid[24];
			int n = snprintf(pid, sizeof(pid), "%ld\n", (long)d->pid);

			/* who holds it, for the message of a run refused */
			if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
				snprintf(err, errlen, "cannot write to output folder '%s': %s", d->dir, strerror(errno));
				close(fd);
				break;
			}
			d->lock_fd = fd;
			free(path);
			return 0;
		}
		close(fd); /* removed or replaced since it was opened: again */
	}
	if (!*err)
		snprintf(err, errlen, "cannot lock the output folder '%s': its lock file keeps changing", d->dir);
	free(path);
	return -1;
}

/* Gives the lock up (removing its file while still holding it). */
static void drop_lock(struct output_dir *d)
{
	char *path;

	if (d->lock_fd < 0)
		return;
	path = lock_path(d->dir);
	unlink(path);
	free(path);
	close(d->lock_fd);
	d->lock_fd = -1;
}

/* With the lock held, no live run writes in the folder: temporary files there are
 * what killed runs left (SIGKILL gives no chance to remove them). */
static void remove_stale_partials(const struct output_dir *d)
{
	DIR *dir = opendir(d->dir);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name), suffix = strlen(PARTIAL_SUFFIX);

		if (e->d_name[0] != '.' || len <= suffix || strcmp(e->d_name + len - suffix, PARTIAL_SUFFIX))
			continue;
		for (int i = 0; i < OUTPUT_FILES; i++) {
			size_t n = strlen(file_names[i]);

			if (!strncmp(e->d_name + 1, file_names[i], n) && e->d_name[1 + n] == '.') {
				unlinkat(dirfd(dir), e->d_name, 0);
				break;
			}
		}
	}
	closedir(dir);
}

int output_dir_open(struct output_dir *d, const char *dir, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->lock_fd = -1;
	d->pid = getpid();
	d->dir = strdup(dir);
	*err = '\0';
	if (make_dirs(dir) < 0) {
		snprintf(err, errlen, "cannot create output folder '%s': %s", dir, strerror(errno));
		free(d->dir);
		return -1;
	}
	if (take_lock(d, err, errlen) < 0) {
		free(d->dir);
		return -1;
	}
	remove_stale_partials(d);
	for (int i = 0; i < OUTPUT_FILES; i++) {
		char *path = path_in(d, i, true);
		/* a name of this run's own (O_EXCL); close-on-exec: the traced command
		 * must not inherit them */
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

		free(path);
		if (fd < 0 || !(d->file[i] = fdopen(fd, "w"))) {
			snprintf(err, errlen, "cannot write to output folder '%s': %s", dir, strerror(errno));
			if (fd >= 0)
				close(fd);
			output_dir_discard(d);
			return -1;
		}
		/* rows of every image go through it: a write(2) per 256 KiB, not per 4 KiB
		 * (2% of the tracer's time on a build; glibc sizes no buffer it allocates) */
		if ((d->buffer[i] = malloc(OUTPUT_BUFFER)))
			setvbuf(d->file[i], d->buffer[i], _IOFBF, OUTPUT_BUFFER);
		d->csv[i].file = d->file[i];
		if (headers[i])
			csv_header(&d->csv[i], headers[i]);
	}
	return 0;
}

const char *image_library_name(enum image_library l)
{
	static const char *const names[IMAGE_LIBRARY_COUNT] = {
		[LIBRARY_IS_OFF] = "off",
		[LIBRARY_IS_ABSENT] = "absent",
		[LIBRARY_IS_READY] = "ready",
		[LIBRARY_IS_REGION_UNREACHABLE] = "region-unreachable",
		[LIBRARY_IS_GATE_TAKEN] = "gate-address-taken",
		[LIBRARY_IS_REGION_FULL] = "region-full",
		[LIBRARY_IS_PROGRAM_SETS_GS] = "program-sets-gs",
	};

	return (unsigned)l < IMAGE_LIBRARY_COUNT ? names[l] : "";
}

static void write_exit(struct csv_writer *w, const struct image_record *img)
{
	char buf[32];

	switch (img->end) {
	case IMAGE_RUNNING: csv_str(w, "running"); return;
	case IMAGE_EXECED: csv_str(w, "exec"); return;
	case IMAGE_EXITED: snprintf(buf, sizeof(buf), "exit:%d", img->end_code); break;
	case IMAGE_SIGNALED: snprintf(buf, sizeof(buf), "signal:%d", img->end_code); break;
	}
	csv_str(w, buf);
}

static void write_optional(struct csv_writer *w, bool known, uint64_t v)
{
	if (known)
		csv_u64(w, v);
	else
		csv_empty(w);
}

static void write_process_row(struct csv_writer *w, const struct image_record *img, const struct totals *t)
{
	csv_u64(w, (uint64_t)img->pid);
	csv_u64(w, img->image);
	csv_u64(w, (uint64_t)img->ppid);
	csv_str(w, img->exe);
	csv_u64(w, img->start_ns);
	csv_u64(w, img->end_ns);
	csv_u64(w, image_syscalls(img));
	csv_u64(w, img->early);
	csv_u64(w, img->ptraced);
	csv_u64(w, img->inprocess);
	csv_u64(w, image_sites_in_state(img, SITE_PATCHED));
	write_exit(w, img);
	write_optional(w, img->times_known, img->user_ns);
	write_optional(w, img->times_known, img->sys_ns);
	write_optional(w, img->instructions >= 0, (uint64_t)img->instructions);
	write_optional(w, img->cycles >= 0, (uint64_t)img->cycles);
	csv_u64(w, img->threads);
	csv_u64(w, img->forks);
	csv_u64(w, img->vforks);
	csv_u64(w, img->started_by_exec);
	csv_u64(w, img->end == IMAGE_EXITED || img->end == IMAGE_SIGNALED);
	csv_u64(w, img->nsites);
	csv_u64(w, image_sites_in_state(img, SITE_UNPATCHABLE));
	csv_u64(w, img->instrument);
	csv_u64(w, img->ptrace_stops);
	csv_u64(w, img->end_ns - img->start_ns);
	csv_u64(w, img->restarted);
	csv_str(w, image_library_name(img->library));
	csv_u64(w, img->stops_lifecycle);
	csv_u64(w, img->stops_early);
	csv_u64(w, img->stops_late);
	csv_u64(w, img->patches_written);
	csv_u64(w, img->patches_known);
	write_optional(w, t->costs_known, img->patches_not_amortized);
	csv_u64(w, img->patch_ns);
	csv_u64(w, img->known_unused);
	csv_u64(w, img->known_missed);
	csv_u64(w, image_errors(img));
	csv_end_row(w);
}

/* With by_index (systrace -c), each row's calls summed into it as well. */
static void write_syscall_rows(struct csv_writer *w, const struct image_record *img, struct syscall_count *by_index)
{
	char buf[32];

	for (int i = image_next_used(img, 0); i < SYSCALL_INDEX_COUNT; i = image_next_used(img, i + 1)) {
		if (!img->calls[i])
			continue;
		if (by_index)
			totals_add_syscall(by_index, img, i);
		csv_u64(w, (uint64_t)img->pid);
		csv_u64(w, img->image);
		csv_str(w, syscall_index_name(i, buf, sizeof(buf)));
		csv_u64(w, img->calls[i]);
		csv_u64(w, img->errors[i]);
		csv_str(w, syscall_abi_names[i / SYSCALL_NR_SPAN]);
		csv_u64(w, img->ptraced_calls[i]);
		csv_u64(w, img->calls[i] - img->ptraced_calls[i]);
		/* --time: empty without it; min and max empty when no call had a time
		 * (exit_group) */
		write_optional(w, img->time_ns, img->time_ns ? img->time_ns[i] : 0);
		write_optional(w, img->time_min_ns && img->time_min_ns[i] != UINT64_MAX,
			       img->time_min_ns ? img->time_min_ns[i] : 0);
		write_optional(w, img->time_min_ns && img->time_min_ns[i] != UINT64_MAX,
			       img->time_max_ns ? img->time_max_ns[i] : 0);
		csv_end_row(w);
	}
}

/* name:calls;name:calls, in first-seen order */
static void write_libc_entries(struct csv_writer *w, const struct site_record *s)
{
	char *list = NULL;
	size_t len = 0;
	FILE *f;

	if (!s->nlibc_entries) {
		csv_empty(w);
		return;
	}
	if (!(f = open_memstream(&list, &len)))
		abort();
	for (unsigned i = 0; i < s->nlibc_entries; i++)
		fprintf(f, "%s%s:%lu", i ? ";" : "", s->libc_entries[i].name, (unsigned long)s->libc_entries[i].calls);
	fclose(f);
	csv_str(w, list);
	free(list);
}

static void write_site_state(struct csv_writer *w, const struct site_record *s)
{
	char buf[128];

	switch (s->state) {
	case SITE_PENDING: csv_str(w, "pending"); return;
	case SITE_PATCHED: csv_str(w, "patched"); return;
	case SITE_UNPATCHABLE: snprintf(buf, sizeof(buf), "unpatchable:%s", s->reason); break;
	}
	csv_str(w, buf);
}

static void write_site_rows(struct csv_writer *w, const struct image_record *img, const struct totals *t)
{
	char buf[32];

	for (size_t i = 0; i < img->nsites; i++) {
		const struct site_record *s = &img->sites[i];

		csv_u64(w, (uint64_t)img->pid);
		csv_u64(w, img->image);
		csv_str(w, s->object ? s->object : "");
		csv_hex(w, s->offset);
		if (s->symbol)
			csv_str_plus_hex(w, s->symbol, s->symbol_offset);
		else
			csv_empty(w);
		csv_str(w, s->syscall == SITE_SYSCALL_VARIES ? "?" : syscall_index_name(s->syscall, buf, sizeof(buf)));
		write_site_state(w, s);
		csv_u64(w, s->ptraced);
		csv_u64(w, s->inprocess);
		csv_hex(w, s->addr);
		write_optional(w, s->patch_ns, s->patch_ns);
		write_optional(w, s->patch_ns && t->costs_known,
			       amortization_break_even(s->patch_ns, t->saving_per_call_ns));
		if (s->patch_ns && t->costs_known)
			csv_str(w, amortization_paid_off(s->patch_ns, t->saving_per_call_ns, s->inprocess) ? "yes" : "no");
		else
			csv_empty(w);
		write_optional(w, s->patched_ns, s->patched_ns);
		csv_str(w, s->libc_function ? s->libc_function : "");
		write_libc_entries(w, s);
		csv_u64(w, s->errors);
		csv_u64(w, img->start_ns); /* the processes.csv row it belongs to */
		write_optional(w, img->time_ns, s->time_ns); /* --time */
		csv_end_row(w);
	}
}

void output_dir_image(struct output_dir *d, const struct image_record *img)
{
	write_process_row(&d->csv[OUTPUT_PROCESSES], img, &d->totals);
	write_syscall_rows(&d->csv[OUTPUT_SYSCALLS], img, d->syscalls);
	write_site_rows(&d->csv[OUTPUT_SITES], img, &d->totals);
	totals_add_image(&d->totals, img);
	d->syscalls_timed |= img->time_ns != NULL;
}

void output_dir_count_syscalls(struct output_dir *d)
{
	if (!d->syscalls && !(d->syscalls = calloc(SYSCALL_INDEX_COUNT, sizeof(*d->syscalls))))
		abort();
}

int output_dir_commit(struct output_dir *d, char *err, size_t errlen)
{
	int ret = 0;

	summary_write_csv(d->file[OUTPUT_SUMMARY], &d->totals);
	/* every byte on disk (a full disk shows at the flush or the close) before any
	 * file gets its real name */
	for (int i = 0; i < OUTPUT_FILES; i++) {
		bool failed_before = ferror(d->file[i]);
		int flushed = fflush(d->file[i]), saved = errno;
		int closed = fclose(d->file[i]), close_errno = errno;

		d->file[i] = NULL;
		free(d->buffer[i]);
		d->buffer[i] = NULL;
		if ((flushed != 0 || closed != 0 || failed_before) && ret == 0) {
			/* a write error earlier leaves ferror set with no errno of its own */
			snprintf(err, errlen, "cannot write %s/%s: %s", d->dir, file_names[i],
				 flushed != 0 ? strerror(saved)
				 : closed != 0 ? strerror(close_errno)
					       : "write error (the disk is full?)");
			ret = -1;
		}
	}
	/* summary.csv is renamed last: its presence says the others are complete */
	for (int i = 0; ret == 0 && i < OUTPUT_FILES; i++) {
		char *from = path_in(d, i, true), *to = path_in(d, i, false);

		if (rename(from, to) < 0) {
			snprintf(err, errlen, "cannot rename %s to %s: %s", from, to, strerror(errno));
			ret = -1;
		}
		free(from);
		free(to);
	}
	if (ret < 0) {
		output_dir_discard(d);
		return -1;
	}
	drop_lock(d);
	free(d->dir);
	free(d->syscalls);
	d->syscalls = NULL;
	return 0;
}

void output_dir_discard(struct output_dir *d)
{
	for (int i = 0; i < OUTPUT_FILES; i++) {
		char *path = path_in(d, i, true);

		if (d->file[i])
			fclose(d->file[i]);
		d->file[i] = NULL;
		free(d->buffer[i]);
		d->buffer[i] = NULL;
		unlink(path);
		free(path);
	}
	drop_lock(d);
	free(d->dir);
	d->dir = NULL;
	free(d->syscalls);
	d->syscalls = NULL;
}
