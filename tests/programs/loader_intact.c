/* loader_intact: whether the loader's code in this process is the loader's file, byte
 * for byte, and its pages clean (never written), as the set-up at exec must leave
 * them when it writes no patch (systrace --patch=off): its code lies over the
 * loader's last pages while it runs (tracer/exec_blob.S). Prints what differs; exit
 * 0 if nothing, 1 if a byte differs, 2 if a page is dirty, 3 if it cannot tell. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

int main(void)
{
	unsigned long base = getauxval(AT_BASE), start, end, offset, checked = 0;
	char line[4096], perms[8], path[4096] = "", text[4096];
	int status = 0, in_text = 0;
	FILE *maps = fopen("/proc/self/smaps", "r");

	if (!base || !maps)
		return 3;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long kb;
		int n = sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095s", &start, &end, perms, &offset, text);

		if (n >= 4) { /* a mapping's first line; anonymous ones name no file */
			/* the first mapping at AT_BASE names the loader's file */
			if (n == 5 && start == base)
				strcpy(path, text);
			in_text = n == 5 && path[0] && !strcmp(text, path) && perms[2] == 'x';
			if (!in_text)
				continue;
			int fd = open(path, O_RDONLY);
			char *file = malloc(end - start);

			if (fd < 0 || !file || pread(fd, file, end - start, (off_t)offset) <= 0)
				return 3;
			for (unsigned long i = 0; i < end - start; i++) {
				if (file[i] != ((const char *)start)[i]) {
					printf("loader byte %#lx (offset %#lx in %s) differs\n", start + i, offset + i, path);
					status = 1;
				}
			}
			checked += end - start;
			free(file);
			close(fd);
		} else if (in_text && sscanf(line, "Private_Dirty: %lu kB", &kb) == 1 && kb) {
			printf("loader code %#lx-%#lx: %lu kB private dirty\n", start, end, kb);
			if (!status)
				status = 2;
		}
	}
	if (!checked)
		return 3;
	printf("%lu bytes of %s checked\n", checked, path);
	return status;
}
