/* Calls getppid 10 times through the site of a library it links (lib_hook_dso.so,
 * found through LD_LIBRARY_PATH: tests/e2e/test_lib_hook.sh runs it with copies of
 * the library). Exits 0 when every result is its parent's pid. */
#include <unistd.h>

long lib_hook_getppid(void);

int main(void)
{
	for (int i = 0; i < 10; i++)
		if (lib_hook_getppid() != getppid())
			return 1;
	return 0;
}
