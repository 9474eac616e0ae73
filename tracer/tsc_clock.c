#include "tsc_clock.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include "procfs.h"

static uint64_t tsc0, ns0;
static uint32_t mult;
static uint16_t shift;
static double ns_per_tick; /* when the kernel's conversion is not offered */

uint64_t tsc_now(void)
{
	return __rdtsc();
}

/* The kernel's cycles-to-nanoseconds factors, as perf_event_mmap_page publishes them
 * for user-space time stamps. */
static bool kernel_conversion(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
					.size = sizeof(attr), .exclude_kernel = 1, .exclude_hv = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	volatile struct perf_event_mmap_page *page;
	bool ok = false;
	uint32_t seq;

	if (fd < 0)
		return false;
	page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (page == MAP_FAILED)
		return false;
	do {
		seq = page->lock;
		__sync_synchronize();
		ok = page->cap_user_time;
		mult = page->time_mult;
		shift = page->time_shift;
		__sync_synchronize();
	} while (page->lock != seq);
	munmap((void *)page, (size_t)sysconf(_SC_PAGESIZE));
	return ok && mult && shift < 64;
}

/* A (tsc, CLOCK_MONOTONIC) pair read as close together as this machine allows. */
static void anchor(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 20; i++) {
		uint64_t a = __rdtsc(), n = monotonic_ns(), b = __rdtsc();

		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = n;
		}
	}
}

void tsc_clock_init(void)
{
	uint64_t tsc1 = 0, ns1 = 0;

	anchor(&tsc0, &ns0);
	if (kernel_conversion())
		return;
	mult = 0;
	do
		anchor(&tsc1, &ns1);
	while (ns1 - ns0 < 5000000);
	ns_per_tick = (double)(ns1 - ns0) / (double)(tsc1 - tsc0);
}

uint64_t tsc_scale_ns(uint64_t ticks, uint32_t m, uint16_t s, bool up)
{
	/* as the kernel does it: no overflow for deltas of years */
	uint64_t low = (ticks & ((1ULL << s) - 1)) * m;

	return (ticks >> s) * m + (low >> s) + (up && (low & ((1ULL << s) - 1)));
}

uint64_t tsc_ticks_ns(uint64_t ticks)
{
	if (!mult)
		return (uint64_t)((double)ticks * ns_per_tick);
	return tsc_scale_ns(ticks, mult, shift, false);
}

uint64_t tsc_ticks_ns_up(uint64_t ticks)
{
	double ns = (double)ticks * ns_per_tick;

	if (!mult)
		return (uint64_t)ns + ((double)(uint64_t)ns < ns);
	return tsc_scale_ns(ticks, mult, shift, true);
}

uint64_t tsc_clock_ns(uint64_t tsc)
{
	int64_t d = (int64_t)(tsc - tsc0);
	uint64_t ad = d < 0 ? (uint64_t)-d : (uint64_t)d;

	if (!mult)
		return ns0 + (uint64_t)((double)d * ns_per_tick);
	return d < 0 ? ns0 - tsc_ticks_ns(ad) : ns0 + tsc_ticks_ns(ad);
}
