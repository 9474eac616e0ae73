#include "remote_read.h"

#include <errno.h>
#include <limits.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

size_t remote_read_ranges(pid_t pid, const struct iovec *local, const struct iovec *remote, size_t n, bool *whole)
{
	size_t i = 0, read = 0;

	while (i < n) {
		size_t k = n - i < IOV_MAX ? n - i : IOV_MAX, j = i;
		ssize_t got = process_vm_readv(pid, local + i, k, remote + i, k, 0);
		size_t left = got > 0 ? (size_t)got : 0;

		if (got < 0 && errno != EFAULT) {
			/* the process, not one range: nothing more can be read */
			for (; i < n; i++)
				whole[i] = false;
			break;
		}
		/* the ranges before the first that failed were read whole, in order */
		for (; j < i + k && left >= remote[j].iov_len; j++) {
			left -= remote[j].iov_len;
			whole[j] = true;
			read++;
		}
		/* that one (read in part, or not at all), then on after it */
		if (j < i + k)
			whole[j++] = false;
		i = j;
	}
	return read;
}
