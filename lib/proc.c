#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"

extern char **environ;

/* The running chain, for the signal hook: stop the stages with us. */
static pid_t *volatile running;
static volatile size_t nrunning;

static void
stop_running(void)
{
	for (size_t i = 0; i < nrunning; i++)
		if (running[i] > 0)
			kill(running[i], SIGTERM);
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

/* Reap w (status st) into the chain's bookkeeping; its index or -1. */
static long
reap(pid_t *pid, int *status, size_t n, pid_t w, int st)
{
	for (size_t i = 0; i < n; i++)
		if (pid[i] == w) {
			pid[i] = 0;
			status[i] = st;
			return (long)i;
		}
	return -1;
}

/*
 * Which stage to blame.  A stage that fails closes its pipes, and the ones
 * next to it then fail too (empty input, broken pipe), a moment later; but
 * the order in which exits are reaped does not prove which came first.  So
 * after the first failure, upstream stages still running get a short grace
 * period, and an upstream failure found in it is the cause.
 */
static size_t
blame(pid_t *pid, int *status, size_t n, size_t first)
{
	struct timespec nap = { 0, 2 * 1000 * 1000 };

	for (int tick = 0; tick < 100; tick++) {
		int st, upstream_alive = 0;
		pid_t w;

		for (size_t j = 0; j < first; j++)
			upstream_alive |= pid[j] > 0;
		if (!upstream_alive)
			break;
		w = waitpid(-1, &st, WNOHANG);
		if (w > 0)
			reap(pid, status, n, w, st);
		else
			nanosleep(&nap, NULL);
	}
	for (size_t j = 0; j < first; j++)
		if (pid[j] == 0 && status[j] != 0)
			return j;
	return first;
}

int
nv_spawn_chain(char **const *argvs, size_t n, int in_fd, int out_fd)
{
	pid_t *pid = xcalloc(n, sizeof(*pid));
	int *status = xcalloc(n, sizeof(*status));
	int prev = in_fd, failed = 0;
	long culprit = -1;

	running = pid;
	nrunning = n;
	nv_diag_on_signal(stop_running);

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
		rc = posix_spawn(&pid[i], argvs[i][0], &fa, NULL, argvs[i], environ);
		posix_spawn_file_actions_destroy(&fa);
		if (prev >= 0 && prev != in_fd)
			close(prev);
		if (p[1] >= 0)
			close(p[1]);
		prev = p[0];
		if (rc) {
			errno = rc;
			nv_error("cannot run '%s':", argvs[i][0]);
			pid[i] = 0;
			failed = 1;
			for (size_t j = 0; j < i; j++)
				kill(pid[j], SIGTERM);
			break;
		}
	}
	if (prev >= 0 && prev != in_fd)
		close(prev);
	for (;;) {
		int st, any = 0;
		pid_t w;
		long i;

		for (size_t j = 0; j < n; j++)
			any |= pid[j] > 0;
		if (!any)
			break;
		w = waitpid(-1, &st, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		i = reap(pid, status, n, w, st);
		if (i < 0 || st == 0 || failed)
			continue;
		failed = 1;
		culprit = (long)blame(pid, status, n, (size_t)i);
		for (size_t j = 0; j < n; j++)
			if (pid[j] > 0)
				kill(pid[j], SIGTERM);
	}
	nrunning = 0;
	if (culprit >= 0)
		report(argvs[culprit][0], status[culprit]);
	free(pid);
	free(status);
	return failed ? -1 : 0;
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
