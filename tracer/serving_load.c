#include "serving_load.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "cpu_times.h"

bool serving_load_parse_schedstat(const char *text, uint64_t *run_delay_ns)
{
	uint64_t on_cpu, waits;

	return sscanf(text, "%" SCNu64 " %" SCNu64 " %" SCNu64, &on_cpu, run_delay_ns, &waits) == 3;
}

struct serving_load serving_load_now(void)
{
	struct serving_load l = { .cpu_ns = cpu_times_thread_ns() };
	char text[128];
	ssize_t n;
	int fd;

	if ((fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)) < 0)
		return l;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n > 0) {
		text[n] = '\0';
		l.run_delay_known = serving_load_parse_schedstat(text, &l.run_delay_ns);
	}
	return l;
}

struct serving_load serving_load_since(const struct serving_load *since, const struct serving_load *now)
{
	return (struct serving_load){
		.cpu_ns = now->cpu_ns - since->cpu_ns,
		.run_delay_ns = now->run_delay_ns - since->run_delay_ns,
		.run_delay_known = since->run_delay_known && now->run_delay_known,
	};
}
