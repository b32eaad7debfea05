#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"

extern char **environ;

/* Every child of every chain started, for reaping and the signal hook. */
#define MAX_CHILDREN 512
static struct child {
	pid_t pid;
	struct nv_chain *c;
	size_t i;
} children[MAX_CHILDREN];
static void (*extra_hook)(void);
static int sigchld_pipe[2] = { -1, -1 };
static volatile pid_t watched; /* a traced child: stopped, it hears only SIGKILL */

static void
stop_running(void)
{
	if (watched > 0)
		kill(watched, SIGKILL);
	for (size_t i = 0; i < MAX_CHILDREN; i++)
		if (children[i].pid > 0)
			kill(children[i].pid, SIGTERM);
	if (extra_hook)
		extra_hook();
}

void
nv_proc_watch(pid_t pid)
{
	watched = pid;
	if (!extra_hook)
		nv_diag_on_signal(stop_running);
}

void
nv_proc_unwatch(pid_t pid)
{
	if (watched == pid)
		watched = 0;
}

void
nv_proc_on_signal(void (*fn)(void))
{
	extra_hook = fn;
	nv_diag_on_signal(stop_running);
}

static void
on_sigchld(int sig)
{
	int saved = errno;

	(void)sig;
	if (write(sigchld_pipe[1], "", 1) < 0) {
		/* full: a wake-up is pending anyway */
	}
	errno = saved;
}

int
nv_proc_sigchld_fd(void)
{
	struct sigaction sa;

	if (sigchld_pipe[0] >= 0)
		return sigchld_pipe[0];
	if (pipe2(sigchld_pipe, O_CLOEXEC | O_NONBLOCK))
		nv_fatal("pipe:");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	return sigchld_pipe[0];
}

static void
track(pid_t pid, struct nv_chain *c, size_t i)
{
	for (size_t k = 0; k < MAX_CHILDREN; k++)
		if (children[k].pid == 0) {
			children[k] = (struct child){ pid, c, i };
			return;
		}
	nv_fatal("more than %d processes at once", MAX_CHILDREN);
}

static double
ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static int
executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *
nv_spawn_find(const char *prog, const char *dir)
{
	const char *path = getenv("PATH");
	char *p;

	if (strchr(prog, '/'))
		return executable(prog) ? xstrdup(prog) : NULL;
	if (dir) {
		p = xasprintf("%s/%s", dir, prog);
		if (executable(p))
			return p;
		free(p);
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");

		p = xasprintf("%.*s/%s", (int)(n ? n : 1), n ? path : ".", prog);
		if (executable(p))
			return p;
		free(p);
		path += n + (path[n] == ':');
	}
	return NULL;
}

static const char *
base(const char *s)
{
	const char *sl = strrchr(s, '/');

	return sl ? sl + 1 : s;
}

static void
report(const char *prog, int status)
{
	if (WIFEXITED(status))
		nv_error("%s failed with exit status %d", base(prog), WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		nv_error("%s killed by signal %d (%s)", base(prog), WTERMSIG(status),
		         strsignal(WTERMSIG(status)));
}

/* Record the exit of child w; its chain, or NULL if w is not ours. */
static struct nv_chain *
dispatch(pid_t w, int st, const struct rusage *ru)
{
	for (size_t k = 0; k < MAX_CHILDREN; k++) {
		struct nv_chain *c = children[k].c;
		size_t i = children[k].i;

		if (children[k].pid != w)
			continue;
		children[k].pid = 0;
		c->pid[i] = 0;
		c->status[i] = st;
		c->ms[i] = ms_since(&c->t0[i]);
		c->cpu_ms[i] = (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
		               (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
		c->alive--;
		if (st != 0 && !c->failed) {
			c->failed = 1;
			c->first = (long)i;
		}
		return c;
	}
	return NULL;
}

struct nv_chain *
nv_chain_wait(int block)
{
	for (;;) {
		int st;
		struct rusage ru;
		pid_t w = wait4(-1, &st, block ? 0 : WNOHANG, &ru);
		struct nv_chain *c;

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return NULL;
		if ((c = dispatch(w, st, &ru)))
			return c;
	}
}

int
nv_chain_start(struct nv_chain *c, char **const *argvs, size_t n, int in_fd, int out_fd, int err_fd)
{
	int prev = in_fd;

	memset(c, 0, sizeof(*c));
	c->argv = argvs;
	c->n = n;
	c->pid = xcalloc(n, sizeof(*c->pid));
	c->status = xcalloc(n, sizeof(*c->status));
	c->ms = xcalloc(n, sizeof(*c->ms));
	c->cpu_ms = xcalloc(n, sizeof(*c->cpu_ms));
	c->t0 = xcalloc(n, sizeof(*c->t0));
	c->first = c->culprit = -1;
	if (!extra_hook)
		nv_diag_on_signal(stop_running);
	posix_spawnattr_t sa;
	sigset_t dfl;

	/* nv_diag_init ignores SIGPIPE, and an ignored signal outlives exec:
	 * a child must die of a broken pipe as it would under a shell (clang
	 * told of it as a write error prints a crash report) */
	posix_spawnattr_init(&sa);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigdefault(&sa, &dfl);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGDEF);
	for (size_t i = 0; i < n; i++) {
		posix_spawn_file_actions_t fa;
		int p[2] = { -1, -1 }, out = out_fd, rc;

		if (i + 1 < n) {
			if (pipe2(p, O_CLOEXEC))
				nv_fatal("pipe:");
			out = p[1];
		}
		posix_spawn_file_actions_init(&fa);
		if (prev >= 0)
			posix_spawn_file_actions_adddup2(&fa, prev, 0);
		if (out >= 0)
			posix_spawn_file_actions_adddup2(&fa, out, 1);
		if (err_fd >= 0)
			posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
		clock_gettime(CLOCK_MONOTONIC, &c->t0[i]);
		rc = posix_spawn(&c->pid[i], argvs[i][0], &fa, &sa, argvs[i], environ);
		posix_spawn_file_actions_destroy(&fa);
		if (prev >= 0 && prev != in_fd)
			close(prev);
		if (p[1] >= 0)
			close(p[1]);
		prev = p[0];
		if (rc) {
			errno = rc;
			nv_error("cannot run '%s':", argvs[i][0]);
			c->pid[i] = 0;
			c->failed = 1;
			c->culprit = -2; /* reported */
			nv_chain_kill(c);
			break;
		}
		track(c->pid[i], c, i);
		c->alive++;
	}
	posix_spawnattr_destroy(&sa);
	if (prev >= 0 && prev != in_fd)
		close(prev);
	return c->failed ? -1 : 0;
}

void
nv_chain_kill(struct nv_chain *c)
{
	for (size_t j = 0; j < c->n; j++)
		if (c->pid[j] > 0)
			kill(c->pid[j], SIGTERM);
}

/*
 * Which stage to blame.  A stage that fails closes its pipes, and the ones
 * next to it then fail too (empty input, broken pipe), a moment later; but
 * the order in which exits are reaped does not prove which came first.  So
 * after the first failure the others get a short grace period; then a
 * stage killed by a signal of its own (not our SIGTERM) is the cause, else
 * the first failing stage upstream.
 */
void
nv_chain_blame(struct nv_chain *c)
{
	struct timespec nap = { 0, 2 * 1000 * 1000 };

	if (c->culprit != -1 || c->first < 0)
		return;
	for (int tick = 0; tick < 100 && c->alive > 0; tick++)
		if (!nv_chain_wait(0))
			nanosleep(&nap, NULL);
	c->culprit = c->first;
	for (size_t j = 0; j < c->n; j++)
		if (c->pid[j] == 0 && WIFSIGNALED(c->status[j]) && WTERMSIG(c->status[j]) != SIGTERM &&
		    WTERMSIG(c->status[j]) != SIGPIPE) {
			c->culprit = (long)j;
			nv_chain_kill(c);
			return;
		}
	for (size_t j = 0; j < c->n; j++)
		if (c->pid[j] == 0 && c->status[j] != 0) {
			c->culprit = (long)j;
			break;
		}
	nv_chain_kill(c);
}

void
nv_chain_report(const struct nv_chain *c)
{
	if (c->culprit >= 0)
		report(c->argv[c->culprit][0], c->status[c->culprit]);
}

void
nv_chain_release(struct nv_chain *c)
{
	free(c->pid);
	free(c->status);
	free(c->ms);
	free(c->cpu_ms);
	free(c->t0);
	memset(c, 0, sizeof(*c));
}

static int
spawn_chain(char **const *argvs, size_t n, int in_fd, int out_fd, int tool)
{
	struct nv_chain c;
	int rc = nv_chain_start(&c, argvs, n, in_fd, out_fd, -1);

	while (c.alive > 0) {
		struct nv_chain *w = nv_chain_wait(1);

		if (!w)
			break;
		if (w == &c && c.failed && c.culprit == -1)
			nv_chain_blame(&c);
	}
	if (!tool || (c.culprit >= 0 && !WIFEXITED(c.status[c.culprit])))
		nv_chain_report(&c);
	else if (c.failed)
		nv_diag_reported_elsewhere();
	rc = rc || c.failed ? -1 : 0;
	nv_chain_release(&c);
	return rc;
}

int
nv_spawn_chain(char **const *argvs, size_t n, int in_fd, int out_fd)
{
	return spawn_chain(argvs, n, in_fd, out_fd, 0);
}

int
nv_spawn_tool(char **argv)
{
	return spawn_chain(&argv, 1, -1, 2, 1);
}

const char *
nv_shell_quote(const char *s)
{
	static char *buf;
	size_t n = 0;

	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	                    "-_./=+:,@%") == strlen(s))
		return s;
	free(buf);
	buf = xmalloc(strlen(s) * 4 + 3);
	buf[n++] = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else
			buf[n++] = *s;
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return buf;
}
