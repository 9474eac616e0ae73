#include "signals.h"

#include <string.h>
#include <unistd.h>

volatile sig_atomic_t signals_stop_requested;
volatile sig_atomic_t signals_give_up;
volatile sig_atomic_t signals_last_termination;

static const int termination_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int stop_signals[] = { SIGTSTP, SIGTTIN, SIGTTOU };
static struct sigaction inherited[NSIG];
static sigset_t inherited_mask;
static volatile sig_atomic_t terminations, to_forward[NSIG];

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void on_termination(int sig, siginfo_t *info, void *context)
{
	(void)context;
	signals_last_termination = sig;
	/* A terminal's ^C reaches the whole foreground group, the command included
	 * (si_code SI_KERNEL); a kill(1) reaches systrace alone and is passed on by
	 * the event loop, which knows who is still alive. */
	if (info->si_code != SI_KERNEL)
		to_forward[sig] = 1;
	if (++terminations >= 3)
		signals_give_up = 1;
}

static void on_stop(int sig)
{
	signals_stop_requested = sig;
}

void signals_setup(void)
{
	struct sigaction sa;

	sigprocmask(SIG_SETMASK, NULL, &inherited_mask);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, NULL, &inherited[sig]);

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: the event loop's waitpid returns EINTR and looks at the flags */
	sa.sa_flags = SA_SIGINFO;
	sa.sa_sigaction = on_termination;
	for (size_t i = 0; i < COUNT(termination_signals); i++)
		sigaction(termination_signals[i], &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = on_stop;
	for (size_t i = 0; i < COUNT(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

void signals_restore_inherited(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &inherited[sig], NULL);
	sigprocmask(SIG_SETMASK, &inherited_mask, NULL);
}

int signals_take_forward(void)
{
	for (size_t i = 0; i < COUNT(termination_signals); i++) {
		int sig = termination_signals[i];

		if (to_forward[sig]) {
			to_forward[sig] = 0;
			return sig;
		}
	}
	return 0;
}

void signals_stop_self(void)
{
	int sig = signals_stop_requested;
	struct sigaction dfl, mine;

	signals_stop_requested = 0;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, &mine);
	raise(sig);
	sigaction(sig, &mine, NULL);
}
