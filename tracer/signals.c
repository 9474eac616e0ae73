#include "signals.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

volatile sig_atomic_t signals_give_up;
volatile sig_atomic_t signals_last_termination;
volatile sig_atomic_t signals_job_stop;
volatile sig_atomic_t signals_job_stop_forwarded;
volatile sig_atomic_t signals_continued;

static const int termination_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int stop_signals[] = { SIGTSTP, SIGTTIN, SIGTTOU };
static struct sigaction inherited[NSIG];
static sigset_t inherited_mask;
static volatile sig_atomic_t terminations, to_forward[NSIG], sent_by[NSIG];
static volatile uint64_t arrived_ns[NSIG]; /* monotonic_ns: a clock_gettime, safe in a handler */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Only kill(2) (SI_USER) can aim at a process group: such a signal may have reached
 * the command too, and its sender's pid tells the command's copy (events.c); a
 * sigqueue or tgkill reached systrace alone (-1). */
static void to_pass_on(int sig, const siginfo_t *info)
{
	sent_by[sig] = info->si_code == SI_USER ? info->si_pid : -1;
	arrived_ns[sig] = monotonic_ns();
	to_forward[sig] = 1;
}

static void on_termination(int sig, siginfo_t *info, void *context)
{
	(void)context;
	signals_last_termination = sig;
	/* A terminal's ^C reaches the whole foreground group, the command included
	 * (si_code SI_KERNEL); any other is passed on by the event loop, which knows
	 * who is still alive and who got a copy of a group's kill already. */
	if (info->si_code != SI_KERNEL)
		to_pass_on(sig, info);
	if (++terminations >= 3)
		signals_give_up = 1;
}

/* A job-control stop is the command's to take: the terminal's (si_code SI_KERNEL)
 * reached the command too, which stops or not as it would natively (ignored,
 * handled); any other is passed on unless the command got it too (events.c).
 * systrace stops once the command has, for a signal it received itself or one the
 * command sent itself: a stop sent to the command alone (kill -STOP PID) is
 * continued the same way, which a stopped systrace would not see. */
static void on_stop(int sig, siginfo_t *info, void *context)
{
	(void)context;
	signals_job_stop = sig;
	signals_job_stop_forwarded = info->si_code != SI_KERNEL;
	if (info->si_code != SI_KERNEL)
		to_pass_on(sig, info);
}

static void on_continue(int sig)
{
	(void)sig;
	signals_continued++;
}

/* systrace's own messages. A background job's write to the terminal under `stty
 * tostop` sends SIGTTOU to its whole group unless the writer blocks or ignores it:
 * it would stop the command for systrace's line (natively nothing stops), and in
 * systrace's handler the write fails with EINTR, the message lost. With SIGTTOU
 * blocked the terminal takes the write; one interrupted by another of systrace's
 * signals (no SA_RESTART) is made again. */
static ssize_t write_stderr(void *cookie, const char *buf, size_t n)
{
	sigset_t ttou, old;
	size_t done = 0;
	ssize_t w;

	(void)cookie;
	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	while (done < n && ((w = write(STDERR_FILENO, buf + done, n - done)) > 0 || (w < 0 && errno == EINTR)))
		done += w > 0 ? (size_t)w : 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return (ssize_t)done; /* 0: an error (fopencookie) */
}

void signals_setup(void)
{
	FILE *own = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = write_stderr });
	struct sigaction sa;

	if (own) {
		setvbuf(own, NULL, _IONBF, 0);
		stderr = own; /* glibc's stderr is a variable to set (its manual) */
	}

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
	sa.sa_sigaction = on_stop;
	for (size_t i = 0; i < COUNT(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	/* counted only (the kernel continues systrace all the same): nothing to wake
	 * the loop for, so no EINTR anywhere */
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_continue;
	sigaction(SIGCONT, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

void signals_taken(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < COUNT(termination_signals); i++)
		sigaddset(set, termination_signals[i]);
	for (size_t i = 0; i < COUNT(stop_signals); i++)
		sigaddset(set, stop_signals[i]);
	sigaddset(set, SIGCONT);
}

void signals_restore_inherited(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &inherited[sig], NULL);
	sigprocmask(SIG_SETMASK, &inherited_mask, NULL);
}

static int take(const int *sigs, size_t n, pid_t *from, uint64_t *at_ns)
{
	for (size_t i = 0; i < n; i++) {
		if (to_forward[sigs[i]]) {
			to_forward[sigs[i]] = 0;
			*from = sent_by[sigs[i]];
			*at_ns = arrived_ns[sigs[i]];
			return sigs[i];
		}
	}
	return 0;
}

static bool among(int sig, const int *sigs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (sigs[i] == sig)
			return true;
	return false;
}

bool signals_passed_on(int sig)
{
	return among(sig, termination_signals, COUNT(termination_signals)) || among(sig, stop_signals, COUNT(stop_signals));
}

bool signals_forward_pending(int sig, pid_t from)
{
	return sig > 0 && sig < NSIG && to_forward[sig] && sent_by[sig] == from;
}

int signals_take_forward(pid_t *from, uint64_t *at_ns)
{
	return take(termination_signals, COUNT(termination_signals), from, at_ns);
}

int signals_take_stop_forward(pid_t *from, uint64_t *at_ns)
{
	return take(stop_signals, COUNT(stop_signals), from, at_ns);
}

void signals_stop_self(int sig, sig_atomic_t continued)
{
	struct sigaction dfl, ign, mine;
	sigset_t set, old;

	/* SIGSTOP (the command's own) can be neither blocked nor ignored: the window
	 * between the look and the stop stays open */
	if (sig == SIGSTOP) {
		if (signals_continued == continued)
			raise(SIGSTOP);
		return;
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	ign = dfl;
	ign.sa_handler = SIG_IGN;
	sigemptyset(&set);
	sigaddset(&set, sig);
	/* pending before the last look at SIGCONT: a SIGCONT sent from then on
	 * discards it (the kernel drops pending stops), one sent before is seen, and
	 * the stop is dropped here (SIG_IGN discards it) */
	sigprocmask(SIG_BLOCK, &set, &old);
	sigaction(sig, &dfl, &mine);
	raise(sig);
	if (signals_continued != continued)
		sigaction(sig, &ign, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(sig, &mine, NULL);
}
