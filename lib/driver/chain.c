/*
 * chain: running the chains of a plan's jobs.  One chain, or many at once
 * within make's jobserver (or -split-compile's count); -v echoes each
 * command, a failure is named with its status and the other chains are
 * stopped, a signal removes what the build wrote, -time gets a row per
 * step, and a long compile on a terminal says where it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/io.h"
#include "../base/jobserver.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "chain.h"
#include "flags.h"
#include "job.h"

/* A failed build leaves no output file; devices and fifos stay. */
void
nv_drv_remove_output(const char *path)
{
	struct stat st;

	if (strcmp(path, "-") && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

/*
 * Diagnostics once per source.  clang checks a .cu twice, as the device
 * (each GPU: the first one speaks, the others run -w) and as the host,
 * and says what both passes see twice; nvcc's cudafe says it once.  Each
 * pass's standard error goes to a file and is said here a diagnostic at a
 * time: a block is a primary line (file:line:col: warning|error: ...) with
 * the "In file included from" lines before it and the notes and source
 * lines after it, and a block said before for the same source, the same
 * text, is not said again.  The "N warnings generated" summary is counted
 * again over what is said.
 */
static struct nv_strv said_blocks; /* "SRC\nBLOCK" */

static int
is_primary(const char *line)
{
	return line[0] != ' ' && (strstr(line, ": warning: ") || strstr(line, ": error: ") ||
	                          strstr(line, ": fatal error: "));
}

static int
is_include_line(const char *line)
{
	return !strncmp(line, "In file included from ", 22) || !strncmp(line, "In module ", 10);
}

/* "1 warning and 2 errors generated when compiling for host.": the text
 * after "generated" to suffix, 1; else 0. */
static int
summary_line(const char *line, const char **suffix)
{
	const char *g = strstr(line, " generated");

	if (!g || !(line[0] >= '0' && line[0] <= '9'))
		return 0;
	for (const char *c = line; c < g; c++)
		if (!strchr("0123456789 abdeginorsw", *c))
			return 0;
	*suffix = g + strlen(" generated");
	return 1;
}

struct said_state {
	const char *src;
	struct nv_strv out;
	size_t warnings, errors;
};

static void
say_block(struct said_state *st, const char *block, size_t len, const char *primary)
{
	const char *text = block, *end = block + len;
	char *key;

	if (!len)
		return;
	/* the key leaves out the include context: a pass says it before the
	 * first diagnostic of a header, which need not be the other pass's */
	while (primary && text < primary && is_include_line(text)) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));

		text = nl ? nl + 1 : end;
	}
	key = xasprintf("%s\n%.*s", st->src, (int)(end - text), text);
	if (primary && nv_strv_has(&said_blocks, key)) {
		free(key);
		return;
	}
	if (primary) {
		nv_strv_push(&said_blocks, key);
		if (strstr(primary, ": warning: "))
			st->warnings++;
		else
			st->errors++;
	}
	nv_strv_pushf(&st->out, "%.*s", (int)len, block);
	free(key);
}

int
nv_drv_diags_new(void)
{
	int fd = memfd_create("nvcc-lite-diagnostics", MFD_CLOEXEC);

	if (fd < 0)
		nv_fatal("cannot make a place for a tool's diagnostics:");
	return fd;
}

static void
diags_clear(int fd)
{
	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		nv_fatal("cannot clear a tool's diagnostics:");
}

char *
nv_drv_diags_text(int fd, size_t *len)
{
	struct stat st;
	char *text;
	size_t n = 0;

	if (fstat(fd, &st))
		nv_fatal("cannot read a tool's diagnostics:");
	text = xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size) {
		ssize_t r = pread(fd, text + n, (size_t)st.st_size - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	text[n] = '\0';
	*len = n;
	return text;
}

void
nv_drv_diags_set(int fd, const char *text, size_t len)
{
	diags_clear(fd);
	if (len && pwrite(fd, text, len, 0) != (ssize_t)len)
		nv_fatal("cannot keep a tool's diagnostics:");
}

int
nv_drv_say_once(int fd, const char *src)
{
	char *data, *suffix = NULL;
	size_t len, start = 0, at = 0;
	const char *primary = NULL;
	struct said_state st = { .src = src };
	int rc = 0;

	data = nv_drv_diags_text(fd, &len);
	/* start..at: the block so far; at: the line being read */
	while (at < len) {
		char *nl = memchr(data + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - data) + 1 : len;
		char *line = xasprintf("%.*s", (int)(end - at), data + at);
		const char *suf;
		int starts = is_include_line(line) ? primary != NULL || at == start
		             : is_primary(line)    ? primary != NULL || at == start || !is_include_line(data + start)
		                                   : 0;

		if (summary_line(line, &suf)) {
			say_block(&st, data + start, at - start, primary);
			free(suffix);
			suffix = xstrdup(suf);
			primary = NULL;
			start = end;
		} else if (starts) {
			say_block(&st, data + start, at - start, primary);
			start = at;
			primary = is_primary(line) ? data + at : NULL;
		} else if (is_primary(line)) {
			primary = data + at; /* after its "In file included from" lines */
		}
		free(line);
		at = end;
	}
	say_block(&st, data + start, at - start, primary);
	fflush(stderr);
	for (size_t i = 0; i < st.out.n; i++)
		fputs(st.out.v[i], stderr);
	if (suffix && (st.warnings || st.errors)) {
		const char *nl = strchr(suffix, '\n') ? "" : "\n";

		if (st.warnings)
			fprintf(stderr, "%zu warning%s", st.warnings, st.warnings == 1 ? "" : "s");
		if (st.warnings && st.errors)
			fputs(" and ", stderr);
		if (st.errors)
			fprintf(stderr, "%zu error%s", st.errors, st.errors == 1 ? "" : "s");
		fprintf(stderr, " generated%s%s", suffix, nl);
	}
	if (fflush(stderr))
		rc = -1;
	nv_strv_free(&st.out);
	free(suffix);
	free(data);
	return rc;
}

/* "$tmp" and the rest of an argument, inside double quotes (a quote in it,
 * as in -DFATBINFILE="...", escaped). */
static void
print_in_quotes(FILE *fp, const char *rest)
{
	fputs("\"$tmp", fp);
	for (const char *c = rest; *c; c++) {
		if (strchr("\"\\$`", *c))
			putc('\\', fp);
		putc(*c, fp);
	}
	putc('"', fp);
}

static void
print_arg(FILE *fp, const char *a)
{
	const char *t = strstr(a, NV_DRV_TMP_MARK);

	if (!strcmp(a, NV_DRV_PART_MARK)) {
		fputs("\"$p\"", fp);
	} else if (t) {
		const char *rest = t + strlen(NV_DRV_TMP_MARK), *num = strstr(rest, NV_DRV_NUM_MARK);

		if (t > a)
			fputs(nv_shell_quote(xasprintf("%.*s", (int)(t - a), a)), fp);
		if (strchr(rest, '*'))
			fprintf(fp, "\"$tmp\"%s", rest);
		else if (num)
			fprintf(fp, "\"$tmp%.*s$i%s\"", (int)(num - rest), rest, num + strlen(NV_DRV_NUM_MARK));
		else
			print_in_quotes(fp, rest);
	} else if ((t = strstr(a, NV_DRV_NUM_MARK))) {
		/* a kept file or a remark file of part $i */
		fputs(nv_shell_quote(xasprintf("%.*s", (int)(t - a), a)), fp);
		fputs("\"$i\"", fp);
		fputs(nv_shell_quote(t + strlen(NV_DRV_NUM_MARK)), fp);
	} else {
		fputs(nv_shell_quote(a), fp);
	}
}

void
nv_drv_print_cmd(FILE *fp, char **av)
{
	for (size_t i = 0; av[i]; i++) {
		if (i)
			fputc(' ', fp);
		print_arg(fp, av[i]);
	}
}

void
nv_drv_show_chain(FILE *fp, const struct nv_drv_chain *c, const char *indent)
{
	const char *joint = nv_drv.keep ? "\n" : " |\n";

	for (size_t i = 0; i < c->n; i++) {
		fputs(nv_drv.dryrun ? (i && !nv_drv.keep ? "  " : indent) : "#$ ", fp);
		if (nv_drv.dryrun && i && !nv_drv.keep)
			fputs(indent, fp);
		nv_drv_print_cmd(fp, c->argv[i]);
		fputs(i + 1 == c->n ? "\n" : joint, fp);
	}
}

/* --- progress: a long compile on a terminal says where it is --- */

static struct {
	int on;                 /* stderr is a terminal, and no -v */
	const char *input;      /* what is compiled */
	struct timespec t0;     /* the compile's start */
	const char *what;       /* "front end", "phase I", "phase II" ... */
	size_t done, total;     /* chains done of a set run at once */
	int shown;
} prog;

void
nv_drv_progress_start(const char *input)
{
	const char *term = getenv("TERM");

	prog.input = input;
	prog.on = isatty(2) && !nv_drv.verbose && !nv_drv.dryrun && (!term || strcmp(term, "dumb"));
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
}

/* The line, once the compile has run a second:
 * "nvcc-lite: k.cu: phase II, 3 of 8 parts done (4 s)".
 * It ends in a carriage return, so what a stage prints next starts over it. */
static void
progress_show(void)
{
	static char last[256];
	struct timespec t;
	char line[256];
	long secs;

	if (!prog.on || !prog.what)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	secs = (long)(t.tv_sec - prog.t0.tv_sec) - (t.tv_nsec < prog.t0.tv_nsec);
	if (secs < 1)
		return;
	if (prog.total > 1)
		snprintf(line, sizeof(line), "nvcc-lite: %s: %s, %zu of %zu parts done (%ld s)", prog.input,
		         prog.what, prog.done, prog.total, secs);
	else
		snprintf(line, sizeof(line), "nvcc-lite: %s: %s (%ld s)", prog.input, prog.what, secs);
	if (prog.shown && !strcmp(line, last))
		return;
	memcpy(last, line, sizeof(last));
	fprintf(stderr, "\r\033[K%s\r", line);
	fflush(stderr);
	prog.shown = 1;
}

static void
progress(const char *what, size_t done, size_t total)
{
	prog.what = what;
	prog.done = done;
	prog.total = total;
	progress_show();
}

/* Wipe the line before anything else is said, and when the compile ends. */
void
nv_drv_progress_clear(void)
{
	if (prog.shown)
		fputs("\r\033[K", stderr);
	prog.shown = 0;
	prog.what = NULL;
}

/* --- running chains: one, or many at once within the jobserver --- */

struct nv_js nv_drv_js;
static FILE *timing;   /* the rows, in memory until the end (nv_drv_time_close) */
static char *timing_text;
static size_t timing_len;

/* Paths to remove on a signal: set up before anything runs.  The job's
 * (sig_paths) and the plan's temporaries so far (sig_temps). */
static char **sig_paths, **sig_temps;
static size_t nsig_paths, nsig_temps;
static const char *sig_dir;

void
nv_drv_sig_paths(const struct nv_strv *paths)
{
	sig_paths = paths ? paths->v : NULL;
	nsig_paths = paths ? paths->n : 0;
}

void
nv_drv_sig_temps(const struct nv_strv *paths)
{
	sig_temps = paths ? paths->v : NULL;
	nsig_temps = paths ? paths->n : 0;
}

void
nv_drv_sig_dir(const char *dir)
{
	sig_dir = dir;
}

void
nv_drv_on_signal(void)
{
	int saved = errno;

	nv_js_release_all();
	/* the stages were sent SIGTERM: let them remove their own temp files */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	errno = saved;
	for (size_t i = 0; i < nsig_paths; i++)
		unlink(sig_paths[i]);
	for (size_t i = 0; i < nsig_temps; i++)
		unlink(sig_temps[i]);
	/* the run's directory, whole: whatever a tool left in it */
	if (sig_dir)
		nv_io_rm_tree(sig_dir);
}

/*
 * -time, as nvcc writes it: a row per step with its own wall time, and one
 * with its CPU time ("ms (cpu)").  A step's own wall time runs from when
 * its input was all there (the step before it exited) to its own exit, so
 * the rows of a chain add up to the chain's time; a pipe's waits count for
 * the step that was working.
 */
static double
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* The steps' own wall times as intervals (ms on CLOCK_MONOTONIC): the
 * driver's row is the time outside all of them.  Steps of chains that ran
 * at once (Phase II's parts, -j) overlap, so the rest is not a sum. */
static struct span {
	double lo, hi;
} *spans;
static size_t nspans;

static double
ts_ms(const struct timespec *t)
{
	return (double)t->tv_sec * 1e3 + (double)t->tv_nsec / 1e6;
}

static int
by_lo(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The time between a and b that no step covers. */
static double
outside_steps(double a, double b)
{
	double covered = 0, lo = 0, hi = 0;
	int open = 0;

	qsort(spans, nspans, sizeof(*spans), by_lo);
	for (size_t i = 0; i < nspans; i++) {
		double l = spans[i].lo < a ? a : spans[i].lo, h = spans[i].hi > b ? b : spans[i].hi;

		if (h <= l)
			continue;
		if (open && l <= hi) {
			if (h > hi)
				hi = h;
			continue;
		}
		if (open)
			covered += hi - lo;
		lo = l, hi = h, open = 1;
	}
	if (open)
		covered += hi - lo;
	return b - a - covered;
}

void
nv_drv_record_times(const struct nv_drv_chain *c)
{
	double prev_exit = 0; /* ms after the chain's first spawn */

	if (!timing)
		return;
	for (size_t i = 0; i < c->n; i++) {
		double start = ms_between(&c->run.t0[0], &c->run.t0[i]), exit = start + c->run.ms[i];
		double own = exit - (i && prev_exit > start ? prev_exit : start);

		if (own < 0)
			own = 0;
		prev_exit = exit;
		if (own > 0) {
			spans = xrealloc(spans, (nspans + 1) * sizeof(*spans));
			spans[nspans].lo = ts_ms(&c->run.t0[0]) + exit - own;
			spans[nspans++].hi = ts_ms(&c->run.t0[0]) + exit;
		}
		for (int cpu = 0; cpu < 2; cpu++)
			fprintf(timing, "%s , %s (%s) , %s , %s , %s , nvcc-lite , %.4f , %s\n", c->src,
			        c->name[i], c->label, c->in[i] ? c->in[i] : "-", c->out[i] ? c->out[i] : "-",
			        c->arch, cpu ? c->run.cpu_ms[i] : own, cpu ? "ms (cpu)" : "ms");
	}
}

/* The driver's row: its wall time outside the steps, and its own CPU time. */
static void
record_driver(const struct timespec *t0, const char *out)
{
	struct timespec t1;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(timing, " , nvcc-lite (driver) ,  , %s ,  , nvcc-lite , %.4f , ms\n", out,
	        outside_steps(ts_ms(t0), ts_ms(&t1)));
	fprintf(timing, " , nvcc-lite (driver) ,  , %s ,  , nvcc-lite , %.4f , ms (cpu)\n", out,
	        (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
}

static int
start(struct nv_drv_chain *c)
{
	int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC), rc;

	if (nv_drv.verbose)
		nv_drv_show_chain(stderr, c, "");
	if (c->err_fd > 0)
		diags_clear(c->err_fd);
	rc = nv_chain_start(&c->run, c->argv, c->n, in_fd, -1, c->err_fd > 0 ? c->err_fd : -1);
	close(in_fd);
	return rc;
}

/*
 * Every program of a chain, clang and the stages alike, prints its reason
 * before it exits 1 (bad input) or 2 (bad usage): the driver's line would
 * add nothing.  A signal or another status is news.
 */
static int
said_why(const struct nv_drv_chain *dc)
{
	const struct nv_chain *c = &dc->run;
	int st = c->culprit >= 0 ? c->status[c->culprit] : 0;

	/* a tool (ptxas, nvlink, the host compiler) that exits says why itself */
	return c->culprit < -1 || (c->culprit >= 0 && WIFEXITED(st) &&
	                           (dc->tool || WEXITSTATUS(st) == NV_EXIT_ERROR ||
	                            WEXITSTATUS(st) == NV_EXIT_USAGE));
}

static int exit_status = NV_EXIT_ERROR;

/* The first failure's exit status, as nvcc's: a tool's own (nvlink's
 * 255, a -run program's), a front-end error nvcc's (cudafe's 2, cicc's 1), a
 * stage's 1 (the stages are nvcc-lite's own parts). */
static void
note_status(const struct nv_chain *w)
{
	int st = w->culprit >= 0 ? w->status[w->culprit] : 0;
	const char *prog, *slash;

	if (w->culprit < 0 || !WIFEXITED(st) || !WEXITSTATUS(st))
		return;
	prog = w->argv[w->culprit][0];
	slash = strrchr(prog, '/');
	prog = slash ? slash + 1 : prog;
	/* the source's errors: cudafe's 2 where nvcc runs it (a host object,
	 * a program, a library), cicc's 1 for -ptx, -cubin, -fatbin */
	if (!strncmp(prog, "clang", 5))
		exit_status = nv_drv.out <= NV_OUT_FATBIN ? NV_EXIT_ERROR : 2;
	else
		exit_status = !strncmp(prog, "nv-", 3) ? NV_EXIT_ERROR : WEXITSTATUS(st);
}

int
nv_drv_exit_status(void)
{
	return exit_status;
}

/* Hold no more tokens than the chains running beyond the first (rule 5). */
static void
trim_tokens(size_t running)
{
	while (nv_js_held() > (running ? running - 1 : 0))
		nv_js_release(&nv_drv_js);
}

/*
 * After reaping: blame and report the first chain that failed (the others
 * failed because they were stopped, or after it), stop the rest, and take
 * the times of the chains now done.  Looked at afresh each time, as the
 * grace period of a blame reaps children of other chains too.  Returns
 * whether some chain has failed.
 */
static int
settle(struct nv_drv_chain *cs, size_t n, int failed)
{
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < n; i++) {
			struct nv_chain *w = &cs[i].run;

			if (!w->failed || w->culprit != -1)
				continue;
			nv_drv_progress_clear();
			nv_chain_blame(w);
			if (!failed && !cs[i].quiet)
				note_status(w);
			if (cs[i].quiet)
				; /* a try: the caller says what it means */
			else if (!failed && !said_why(&cs[i]))
				nv_chain_report(w);
			else
				nv_diag_reported_elsewhere();
			for (size_t j = 0; !failed && j < n; j++)
				nv_chain_kill(&cs[j].run);
			failed = again = 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (cs[i].run.alive == 0 && !cs[i].timed) {
			cs[i].timed = 1;
			nv_drv_record_times(&cs[i]);
			if (prog.total > 1)
				progress(prog.what, prog.done + 1, prog.total);
		}
	return failed;
}

/* Run chains[0..n) at most max at once, or as make's tokens allow; -keep
 * runs each step alone.  0, or -1 when some chain failed (reported, the
 * others stopped). */
int
nv_drv_run_chains(struct nv_drv_chain *cs, size_t n, size_t max)
{
	size_t next = 0, running = 0;
	int failed = 0, sigfd = nv_proc_sigchld_fd();

	progress(n > 1 ? "phase II" : cs[0].label, 0, n);
	while (next < n || running) {
		while (!failed && next < n) {
			if (running && nv_drv_js.active ? nv_js_try_acquire(&nv_drv_js) <= 0 : running >= max)
				break;
			if (start(&cs[next]))
				failed = 1;
			running += cs[next++].run.alive > 0;
			for (size_t i = 0; failed && i < next; i++)
				nv_chain_kill(&cs[i].run); /* reported: the others are stopped */
			if (failed)
				break;
		}
		while (nv_chain_wait(0))
			;
		failed = settle(cs, next, failed);
		running = 0;
		for (size_t i = 0; i < next; i++)
			running += cs[i].run.alive > 0;
		trim_tokens(running);
		if (running == 0) {
			if (failed || next == n)
				break;
			continue; /* the next chain takes our own slot */
		}
		{
			struct pollfd pf[2] = { { sigfd, POLLIN, 0 }, { nv_drv_js.rfd, POLLIN, 0 } };
			int want_token = nv_drv_js.active && !failed && next < n && running;
			char buf[64];

			if (poll(pf, want_token ? 2 : 1, prog.on ? 250 : -1) < 0 && errno != EINTR)
				nv_fatal("poll:");
			progress_show();
			while (read(sigfd, buf, sizeof(buf)) > 0)
				;
		}
	}
	trim_tokens(0);
	return failed ? -1 : 0;
}

int
nv_drv_run_one(struct nv_drv_chain *c)
{
	if (nv_drv.keep) {
		/* one step at a time: each writes its file before the next reads it */
		for (size_t i = 0; i < c->n; i++) {
			struct nv_drv_chain one = { .n = 1, .label = c->label, .src = c->src, .arch = c->arch,
				                    .err_fd = c->err_fd, .quiet = c->quiet };

			one.argv[0] = c->argv[i];
			one.name[0] = c->name[i];
			one.in[0] = c->in[i];
			one.out[0] = c->out[i];
			if (nv_drv_run_chains(&one, 1, 1))
				return -1;
		}
		return 0;
	}
	return nv_drv_run_chains(c, 1, 1);
}

/* The -time file, opened to add to: never through a link (a name another
 * user may have planted), never a file with another name too (a hard
 * link); made with O_EXCL when missing (*made).  -1 with errno set. */
static int
time_file_open(int *made)
{
	int fd = open(nv_drv.time_file, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	*made = 0;
	if (fd < 0 && errno == ENOENT) {
		fd = open(nv_drv.time_file, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		*made = fd >= 0;
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		if (*made)
			unlink(nv_drv.time_file);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int
nv_drv_time_open(void)
{
	int made, fd = time_file_open(&made);

	/* checked now, written at the end: a run that fails writes its rows too */
	if (fd < 0) {
		nv_error("cannot open -time file '%s': %s", nv_drv.time_file,
		         errno == ELOOP ? "it is a symbolic link" : errno == EPERM ? "it is not a regular file of one name"
		                                                  : strerror(errno));
		return -1;
	}
	close(fd);
	if (made)
		unlink(nv_drv.time_file);
	timing = open_memstream(&timing_text, &timing_len);
	if (!timing)
		nv_fatal("cannot open -time file '%s':", nv_drv.time_file);
	return 0;
}

int
nv_drv_run_saying(struct nv_drv_chain *c, int err_fd, const char *src)
{
	int rc;

	c->err_fd = err_fd;
	rc = nv_drv_run_one(c);
	if (nv_drv_say_once(err_fd, src) && !rc)
		rc = -1; /* standard error is gone */
	return rc;
}

static int
run_tool(const struct nv_job *j, int err_fd, int quiet)
{
	struct nv_drv_chain c = { .n = 1, .label = j->label, .src = j->input ? j->input : "",
	                          .arch = j->arch ? j->arch : "", .err_fd = err_fd, .quiet = quiet };
	int rc;

	c.argv[0] = j->argv;
	c.name[0] = j->label;
	c.tool = j->says_why;
	c.in[0] = j->input ? xstrdup(j->input) : NULL;
	c.out[0] = j->output ? xstrdup(j->output) : NULL;
	nv_drv_progress_start(j->input ? j->input : j->output);
	rc = err_fd > 0 && !quiet ? nv_drv_run_saying(&c, err_fd, c.src) : nv_drv_run_one(&c);
	nv_drv_progress_clear();
	return rc;
}

int
nv_drv_run_tool(const struct nv_job *j)
{
	return run_tool(j, 0, 0);
}

int
nv_drv_run_tool_saying(const struct nv_job *j, int err_fd)
{
	return run_tool(j, err_fd, 0);
}

int
nv_drv_try_tool(const struct nv_job *j, int err_fd)
{
	return run_tool(j, err_fd, 1);
}

void
nv_drv_time_close(const struct timespec *t0, int rc)
{
	static const char head[] = "source file name , phase name , phase input files , phase output file , "
	                           "arch , tool, metric , unit\n";
	struct stat st;
	int made, fd, ok;

	if (!timing)
		return;
	record_driver(t0, nv_drv.output ? nv_drv.output : "");
	ok = fclose(timing) == 0;
	timing = NULL;
	/* the rows in one write, so that compiles run side by side (make -j)
	 * add whole lines; a write that fails takes its part back */
	fd = ok ? time_file_open(&made) : -1;
	if (fd >= 0 && !fstat(fd, &st)) {
		size_t n = st.st_size ? 0 : sizeof(head) - 1;
		char *all = xmalloc(n + timing_len + 1);

		memcpy(all, head, n);
		memcpy(all + n, timing_text, timing_len);
		ok = write(fd, all, n + timing_len) == (ssize_t)(n + timing_len);
		if (!ok && made)
			unlink(nv_drv.time_file);
		else if (!ok && ftruncate(fd, st.st_size))
			ok = 0;
		free(all);
	}
	ok = fd >= 0 && close(fd) == 0 && ok;
	free(timing_text);
	if (!ok && !rc)
		nv_fatal("cannot write -time file '%s':", nv_drv.time_file);
}
