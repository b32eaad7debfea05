/*
 * jobserver: GNU make jobserver client, following ../shared/jobserver.md
 * rule by rule (the numbers in the comments).
 */
#include "jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "util.h"

#define MAX_HELD 1024

/* The bytes held, for release (6) and the signal hook. */
static char held[MAX_HELD];
static volatile size_t nheld;
static volatile int release_fd = -1;
static int required_js; /* -jobserver: one error line instead of warnings */

#define nv_warn(...) (required_js ? (void)0 : nv_warn(__VA_ARGS__))

static int
parse_fd(const char *s, const char *end, int *fd)
{
	char *e;
	long v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (e == s || e != end || errno || v > INT_MAX || v < INT_MIN)
		return -1;
	*fd = (int)v;
	return 0;
}

/* (4) Both fds open, both FIFOs, the same one. */
static int
check_pipe(int r, int w)
{
	struct stat a, b;

	if (fcntl(r, F_GETFD) < 0 || fcntl(w, F_GETFD) < 0) {
		/* closed: a recipe line without '+', which CMake's Makefiles
		 * cannot mark; the normal case then, and nvcc says nothing */
		if (errno != EBADF)
			nv_warn("cannot use make's jobserver fds %d,%d: %s; running serially", r, w,
			        strerror(errno));
		return -1;
	}
	if (fstat(r, &a) || fstat(w, &b) || !S_ISFIFO(a.st_mode) || !S_ISFIFO(b.st_mode) ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		nv_warn("make's jobserver fds %d,%d are not one pipe; running serially", r, w);
		return -1;
	}
	return 0;
}

static int
open_pipe(struct nv_js *js, const char *auth)
{
	const char *comma = strchr(auth, ',');
	char path[64];
	int r, w;

	if (!comma || parse_fd(auth, comma, &r) || parse_fd(comma + 1, comma + strlen(comma), &w)) {
		nv_warn("unknown jobserver form '--jobserver-auth=%s'; running serially", auth);
		return -1;
	}
	if (r < 0 || w < 0)
		return -1; /* (2) disabled by make */
	if (check_pipe(r, w))
		return -1;
	/* (7) A private description: make's own read end is O_NONBLOCK. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r);
	js->rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (js->rfd < 0) {
		nv_warn("cannot open make's jobserver pipe (%s):", path);
		return -1;
	}
	/* (9) Stages are not clients. */
	fcntl(r, F_SETFD, FD_CLOEXEC);
	fcntl(w, F_SETFD, FD_CLOEXEC);
	js->wfd = w;
	return 0;
}

static int
open_fifo(struct nv_js *js, const char *path)
{
	struct stat st;

	js->rfd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (js->rfd < 0) {
		nv_warn("cannot open make's jobserver fifo '%s':", path);
		return -1;
	}
	if (fstat(js->rfd, &st) || !S_ISFIFO(st.st_mode)) {
		nv_warn("make's jobserver '%s' is not a fifo; running serially", path);
		close(js->rfd);
		js->rfd = -1;
		return -1;
	}
	js->wfd = js->rfd;
	return 0;
}

int
nv_js_init(struct nv_js *js, const char *makeflags, int required)
{
	char *copy, *save = NULL, *auth = NULL, *fds = NULL;
	int first = 1, rc = -1;

	memset(js, 0, sizeof(*js));
	js->rfd = js->wfd = -1;
	required_js = required;
	if (!makeflags || !*makeflags) {
		if (required)
			nv_error("-jobserver: MAKEFLAGS names no jobserver (run under make -jN with '+' on the recipe line)");
		return required ? -1 : 0;
	}
	copy = xstrdup(makeflags);
	/* (1) Words; single-letter flags only in a first word without '-'. */
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save), first = 0) {
		if (!strcmp(w, "--"))
			break;
		if (first && w[0] != '-') {
			js->dry |= strchr(w, 'n') != NULL;
			continue;
		}
		if (!strncmp(w, "--jobserver-auth=", 17))
			auth = w + 17; /* (2) the last one wins */
		else if (!strncmp(w, "--jobserver-fds=", 16))
			fds = w + 16;
		else if (!strncmp(w, "-j", 2) && w[2]) /* (3) a hint only */
			js->hint = atoi(w + 2) > 0 ? atoi(w + 2) : 0;
	}
	if (!auth)
		auth = fds;
	if (!auth || js->dry)
		rc = -1;
	else if (!strncmp(auth, "fifo:", 5))
		rc = open_fifo(js, auth + 5);
	else
		rc = open_pipe(js, auth);
	free(copy);
	if (rc) {
		if (required) {
			nv_error("GNU Jobserver support requested, but an error occurred");
			return -1;
		}
		return 0;
	}
	js->active = 1;
	release_fd = js->wfd;
	return 0;
}

int
nv_js_try_acquire(struct nv_js *js)
{
	char c;
	ssize_t n;

	if (!js->active || nheld >= MAX_HELD)
		return 0;
	for (;;) {
		n = read(js->rfd, &c, 1);
		if (n == 1) {
			held[nheld] = c;
			nheld = nheld + 1;
			return 1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		js->active = 0; /* EOF or error: make is gone */
		return -1;
	}
}

size_t
nv_js_held(void)
{
	return nheld;
}

void
nv_js_release(struct nv_js *js)
{
	(void)js;
	if (nheld == 0 || release_fd < 0)
		return;
	for (;;) {
		ssize_t n = write(release_fd, &held[nheld - 1], 1);

		if (n == 1 || (n < 0 && errno != EINTR && errno != EAGAIN))
			break;
	}
	nheld = nheld - 1;
}

void
nv_js_release_all(void)
{
	int saved = errno;

	while (nheld > 0 && release_fd >= 0) {
		ssize_t n = write(release_fd, &held[nheld - 1], 1);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		nheld = nheld - 1;
	}
	errno = saved;
}
