#include "scan_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Changes whenever struct scanned_syscall or the sweep's rules change. */
static const char magic[16] = "systrace-scan-1";

char *scan_cache_dir(void)
{
	const char *env = getenv("SYSTRACE_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir;

	if (env && *env)
		return strdup(env);
	if (xdg && *xdg)
		return asprintf(&dir, "%s/systrace", xdg) < 0 ? NULL : dir;
	if (home && *home)
		return asprintf(&dir, "%s/.cache/systrace", home) < 0 ? NULL : dir;
	return NULL;
}

static char *entry_path(const char *dir, const char *build_id, const char *suffix)
{
	char *path;

	if (asprintf(&path, "%s/%s.scan%s", dir, build_id, suffix) < 0)
		return NULL;
	return path;
}

static bool read_array(FILE *f, void **items, size_t *n, size_t size)
{
	uint64_t count;

	if (fread(&count, sizeof(count), 1, f) != 1 || count > (1u << 26))
		return false;
	*items = malloc(count ? count * size : 1);
	if (!*items)
		abort();
	*n = count;
	return fread(*items, size, count, f) == count;
}

bool scan_cache_load(const char *dir, const char *build_id, struct code_scan *s)
{
	char *path = entry_path(dir, build_id, ""), head[sizeof(magic)];
	FILE *f = path ? fopen(path, "rbe") : NULL;
	bool ok;

	free(path);
	memset(s, 0, sizeof(*s));
	if (!f)
		return false;
	ok = fread(head, sizeof(head), 1, f) == 1 && memcmp(head, magic, sizeof(magic)) == 0
	     && read_array(f, (void **)&s->syscalls, &s->nsyscalls, sizeof(*s->syscalls))
	     && read_array(f, (void **)&s->targets, &s->ntargets, sizeof(*s->targets))
	     && fgetc(f) == EOF;
	fclose(f);
	s->cap_syscalls = s->nsyscalls;
	s->cap_targets = s->ntargets;
	if (!ok)
		code_scan_free(s);
	return ok;
}

static bool make_dirs(const char *dir)
{
	char *copy = strdup(dir);
	bool ok = copy != NULL;

	for (char *p = copy ? copy + 1 : NULL; ok && p && *p; p++) {
		if (*p == '/') {
			*p = 0;
			ok = mkdir(copy, 0755) == 0 || errno == EEXIST;
			*p = '/';
		}
	}
	ok = ok && (mkdir(copy, 0755) == 0 || errno == EEXIST);
	free(copy);
	return ok;
}

void scan_cache_store(const char *dir, const char *build_id, const struct code_scan *s)
{
	char suffix[32], *tmp, *path;
	uint64_t counts[2] = { s->nsyscalls, s->ntargets };
	FILE *f;
	bool ok;

	if (!make_dirs(dir))
		return;
	snprintf(suffix, sizeof(suffix), ".%d.tmp", (int)getpid());
	tmp = entry_path(dir, build_id, suffix);
	path = entry_path(dir, build_id, "");
	if (tmp && path && (f = fopen(tmp, "wbe"))) {
		ok = fwrite(magic, sizeof(magic), 1, f) == 1 && fwrite(&counts[0], sizeof(uint64_t), 1, f) == 1
		     && fwrite(s->syscalls, sizeof(*s->syscalls), s->nsyscalls, f) == s->nsyscalls
		     && fwrite(&counts[1], sizeof(uint64_t), 1, f) == 1
		     && fwrite(s->targets, sizeof(*s->targets), s->ntargets, f) == s->ntargets;
		if (fclose(f) != 0 || !ok || rename(tmp, path) != 0)
			unlink(tmp);
	}
	free(tmp);
	free(path);
}
