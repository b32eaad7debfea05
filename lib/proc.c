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
#include <unistd.h>

#include "diag.h"
#include "util.h"

extern char **environ;

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

int
nv_spawn_chain(char **const *argvs, size_t n, int in_fd, int out_fd)
{
	pid_t *pid = xcalloc(n, sizeof(*pid));
	int prev = in_fd, failed = 0;
	size_t live = 0;

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
		live++;
	}
	if (prev >= 0 && prev != in_fd)
		close(prev);
	while (live) {
		int status;
		pid_t w = waitpid(-1, &status, 0);
		size_t i;

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		for (i = 0; i < n && pid[i] != w; i++)
			;
		if (i == n)
			continue;
		pid[i] = 0;
		live--;
		if (status == 0 || failed)
			continue;
		failed = 1;
		report(argvs[i][0], status);
		for (size_t j = 0; j < n; j++)
			if (pid[j] > 0)
				kill(pid[j], SIGTERM);
	}
	if (failed)
		for (size_t j = 0; j < n; j++)
			if (pid[j] > 0)
				kill(pid[j], SIGTERM), waitpid(pid[j], NULL, 0);
	free(pid);
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
