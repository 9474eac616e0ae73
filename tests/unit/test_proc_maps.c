#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc_maps.h"
#include "suites.h"

__attribute__((noinline)) static int code_here(void)
{
	return 42;
}

/* Looks up this test's own code and libc's, by PROCMAP_QUERY or by the text. */
static void check_own_mappings(bool force_text)
{
	struct proc_maps m = { .fd = -1 };
	const struct map_entry *e;
	uint64_t own = (uint64_t)(uintptr_t)code_here, libc = (uint64_t)(uintptr_t)getpid;
	char own_path[256];
	ssize_t n = readlink("/proc/self/exe", own_path, sizeof(own_path) - 1);

	ck_assert_int_gt(n, 0);
	own_path[n] = '\0';
	ck_assert(proc_maps_open(&m, getpid()));
	m.text = m.text || force_text;
	e = proc_maps_find(&m, own);
	ck_assert_ptr_nonnull(e);
	ck_assert(e->start <= own && own < e->end);
	ck_assert_str_eq(e->path, own_path);
	ck_assert_uint_ne(e->ino, 0);
	e = proc_maps_find(&m, libc);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(strstr(e->path, "libc"));
	/* data is not code */
	ck_assert_ptr_null(proc_maps_find(&m, (uint64_t)(uintptr_t)&m));
	proc_maps_close(&m);
	code_here();
}

START_TEST(finds_code_by_query)
{
	check_own_mappings(false);
}
END_TEST

START_TEST(finds_code_by_text)
{
	check_own_mappings(true);
}
END_TEST

/* Whether pid's memory has sleep's code mapped: /proc/PID/exe names the new program
 * from the start of its exec, before the kernel has mapped its code. */
static bool sleep_code_mapped(pid_t pid)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " r-xp ") && strstr(line, "/sleep");
	fclose(f);
	return found;
}

/* The descriptor is kept from one open to the next, and holds the memory it was
 * opened on: after the thread's exec only a forgotten one shows the new memory. */
START_TEST(kept_until_forgotten)
{
	struct proc_maps m = { .fd = -1 };
	const struct map_entry *e;
	char path[64], exe[256];
	int go[2], fd, tries = 0;
	ssize_t n;
	pid_t child;

	ck_assert_int_eq(pipe(go), 0);
	if ((child = fork()) == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(1);
	}
	close(go[0]);
	ck_assert(proc_maps_open(&m, child));
	fd = m.fd;
	ck_assert_ptr_nonnull(proc_maps_find(&m, (uint64_t)(uintptr_t)code_here));
	proc_maps_close(&m);
	ck_assert(proc_maps_open(&m, child));
	ck_assert_int_eq(m.fd, fd);
	proc_maps_close(&m);
	ck_assert_int_eq(write(go[1], "x", 1), 1);
	/* until the child's exe is sleep and its code is mapped (a busy machine showed
	 * the first without the second): bounded by tries, not by time */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)child);
	do {
		memset(exe, 0, sizeof(exe));
		n = readlink(path, exe, sizeof(exe) - 1);
		usleep(1000);
	} while ((n <= 0 || !strstr(exe, "sleep") || !sleep_code_mapped(child)) && ++tries < 10000);
	ck_assert_int_lt(tries, 10000);
	proc_maps_forget(child);
	ck_assert(proc_maps_open(&m, child));
	e = proc_maps_next(&m, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(strstr(e->path, "unit-tests"));
	proc_maps_close(&m);
	proc_maps_forget(child);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}
END_TEST

Suite *proc_maps_suite(void)
{
	return single_case_suite("proc_maps", (const TTest *const[]){ finds_code_by_query, finds_code_by_text,
								kept_until_forgotten, NULL });
}
