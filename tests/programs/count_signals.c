/* Counts the SIGTSTP, SIGTERM, SIGINT and SIGHUP it is sent (each handled, so none
 * stops or ends it). For each read from stdin it answers one line on stdout,
 * "TSTP=a TERM=b INT=c HUP=d", and it exits 0 at the end of its input: a test
 * sends a signal, then asks twice, and the second answer has every copy the
 * program was going to get (see test_group_signals.sh). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t tstp, term, intr, hup;

static void on_signal(int sig)
{
	if (sig == SIGTSTP)
		tstp++;
	else if (sig == SIGTERM)
		term++;
	else if (sig == SIGINT)
		intr++;
	else
		hup++;
}

int main(void)
{
	static const int sigs[] = { SIGTSTP, SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;
	char buf[256];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	while (read(0, buf, sizeof(buf)) > 0) {
		int n = snprintf(buf, sizeof(buf), "TSTP=%d TERM=%d INT=%d HUP=%d\n", tstp, term, intr, hup);

		if (write(1, buf, n) != n)
			return 1;
	}
	return 0;
}
