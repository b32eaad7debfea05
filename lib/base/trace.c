/*
 * trace: the names a program asked the file system about (see trace.h).
 *
 * The child asks to be traced, stops, installs a seccomp filter that sends
 * the file-naming calls to us (SECCOMP_RET_TRACE) and lets every other call
 * through, then execs.  At each such call we read its arguments, follow it
 * to its exit (PTRACE_SYSCALL) and note the answer.  Children and threads
 * of the program are traced as well.  A call from another ABI (x32, i386)
 * stops too and makes the trace unsure, as does anything we cannot read.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define NV_CAN_TRACE 1
#include <elf.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#endif

extern char **environ;

void
nv_trace_release(struct nv_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

#ifndef NV_CAN_TRACE
int
nv_trace_run(char *const *argv, int in_fd, int out_fd, int err_fd, struct nv_trace *t, int *status,
             const char **why)
{
	(void)argv, (void)in_fd, (void)out_fd, (void)err_fd, (void)t, (void)status;
	*why = "tracing a build is supported on Linux x86-64 and AArch64 only";
	return -1;
}
#else

/* What a call does with its name. */
enum kind { K_OPEN, K_OPEN2, K_STAT, K_LSTAT, K_ACCESS, K_READLINK, K_EXEC, K_LIST, K_UNSURE };

/* A call that names a file: its number, what it does, and which argument
 * holds the directory fd (-1: none, the working directory), the name and
 * the flags (-1: none). */
static const struct call {
	long nr;
	enum kind kind;
	signed char dirfd, path, flags;
} calls[] = {
#if defined(__x86_64__)
	{ 2, K_OPEN, -1, 0, 1 },          /* open */
	{ 4, K_STAT, -1, 0, -1 },         /* stat */
	{ 6, K_LSTAT, -1, 0, -1 },        /* lstat */
	{ 21, K_ACCESS, -1, 0, -1 },      /* access */
	{ 78, K_LIST, -1, -1, -1 },       /* getdents */
	{ 80, K_UNSURE, -1, -1, -1 },     /* chdir */
	{ 81, K_UNSURE, -1, -1, -1 },     /* fchdir */
	{ 89, K_READLINK, -1, 0, -1 },    /* readlink */
	{ 161, K_UNSURE, -1, -1, -1 },    /* chroot */
	{ 217, K_LIST, -1, -1, -1 },      /* getdents64 */
	{ 257, K_OPEN, 0, 1, 2 },         /* openat */
	{ 262, K_STAT, 0, 1, 3 },         /* newfstatat */
	{ 267, K_READLINK, 0, 1, -1 },    /* readlinkat */
	{ 269, K_ACCESS, 0, 1, -1 },      /* faccessat */
	{ 304, K_UNSURE, -1, -1, -1 },    /* open_by_handle_at */
	{ 322, K_EXEC, 0, 1, 4 },         /* execveat */
	{ 332, K_STAT, 0, 1, 2 },         /* statx */
	{ 59, K_EXEC, -1, 0, -1 },        /* execve */
#elif defined(__aarch64__)
	{ 48, K_ACCESS, 0, 1, -1 },       /* faccessat */
	{ 49, K_UNSURE, -1, -1, -1 },     /* chdir */
	{ 50, K_UNSURE, -1, -1, -1 },     /* fchdir */
	{ 51, K_UNSURE, -1, -1, -1 },     /* chroot */
	{ 56, K_OPEN, 0, 1, 2 },          /* openat */
	{ 61, K_LIST, -1, -1, -1 },       /* getdents64 */
	{ 78, K_READLINK, 0, 1, -1 },     /* readlinkat */
	{ 79, K_STAT, 0, 1, 3 },          /* newfstatat */
	{ 221, K_EXEC, -1, 0, -1 },       /* execve */
	{ 265, K_UNSURE, -1, -1, -1 },    /* open_by_handle_at */
	{ 281, K_EXEC, 0, 1, 4 },         /* execveat */
	{ 291, K_STAT, 0, 1, 2 },         /* statx */
#endif
	{ 425, K_UNSURE, -1, -1, -1 },    /* io_uring_setup: its opens are no calls */
	{ 437, K_OPEN2, 0, 1, 2 },        /* openat2 */
	{ 439, K_ACCESS, 0, 1, 3 },       /* faccessat2 */
};

#if defined(__x86_64__)
#define AUDIT_ARCH_SELF AUDIT_ARCH_X86_64
#else
#define AUDIT_ARCH_SELF AUDIT_ARCH_AARCH64
#endif

/* The registers of a stopped tracee: the call's number, arguments and result. */
struct regs {
	long nr;
	unsigned long long arg[6];
	long long ret;
};

static int
get_regs(pid_t pid, struct regs *r)
{
#if defined(__x86_64__)
	struct user_regs_struct u;

	if (ptrace(PTRACE_GETREGS, pid, 0, &u))
		return -1;
	r->nr = (long)u.orig_rax;
	r->arg[0] = u.rdi, r->arg[1] = u.rsi, r->arg[2] = u.rdx;
	r->arg[3] = u.r10, r->arg[4] = u.r8, r->arg[5] = u.r9;
	r->ret = (long long)u.rax;
#else
	struct user_pt_regs u;
	struct iovec io = { &u, sizeof(u) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &io))
		return -1;
	r->nr = (long)u.regs[8];
	for (int i = 0; i < 6; i++)
		r->arg[i] = u.regs[i];
	r->ret = (long long)u.regs[0];
#endif
	return 0;
}

/* The NUL-terminated string at addr in pid, a page at a time (a name may
 * end just before an unmapped page).  NULL when it cannot be read. */
static char *
read_string(pid_t pid, unsigned long long addr)
{
	char *buf = xmalloc(PATH_MAX + 1);
	size_t n = 0;

	while (n < PATH_MAX) {
		size_t room = 4096 - (size_t)((addr + n) % 4096);
		struct iovec local, remote;
		ssize_t got;
		char *nul;

		if (room > PATH_MAX - n)
			room = PATH_MAX - n;
		local.iov_base = buf + n;
		local.iov_len = room;
		remote.iov_base = (void *)(uintptr_t)(addr + n);
		remote.iov_len = room;
		got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (got <= 0)
			break;
		if ((nul = memchr(buf + n, '\0', (size_t)got)))
			return buf;
		n += (size_t)got;
	}
	free(buf);
	return NULL;
}

/* What a directory fd of pid names, for a name relative to it. */
static char *
fd_path(pid_t pid, long long fd)
{
	char link[64], *buf = xmalloc(PATH_MAX + 1);
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%ld/fd/%lld", (long)pid, fd);
	n = readlink(link, buf, PATH_MAX);
	if (n <= 0 || buf[0] != '/') {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* A call under way in one tracee, noted at its entry. */
struct tracee {
	pid_t pid;
	int in_call;         /* between the seccomp stop and the call's exit */
	enum kind kind;
	char *path;          /* NULL: nothing to note at the exit */
	char how;
	int follow, mode;
};

struct state {
	struct tracee *v;
	size_t n;
	struct nv_trace *t;
};

static struct tracee *
tracee(struct state *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid)
			return &s->v[i];
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	memset(&s->v[s->n], 0, sizeof(*s->v));
	s->v[s->n].pid = pid;
	return &s->v[s->n++];
}

static void
forget(struct state *s, pid_t pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid) {
			free(s->v[i].path);
			s->v[i] = s->v[--s->n];
			return;
		}
}

/* Note one answer; a name asked twice the same way must get the same
 * answer twice. */
static void
note(struct nv_trace *t, char *path, char how, int follow, int mode, int err)
{
	for (size_t i = 0; i < t->n; i++) {
		struct nv_probe *p = &t->v[i];

		if (p->how != how || p->follow != follow || p->mode != mode || strcmp(p->path, path))
			continue;
		if (p->err != err)
			t->unsure = 1;
		free(path);
		return;
	}
	if (t->n == t->cap)
		t->v = xrealloc(t->v, (t->cap = t->cap ? 2 * t->cap : 256) * sizeof(*t->v));
	t->v[t->n++] = (struct nv_probe){ path, how, follow, mode, err };
}

static const struct call *
find_call(long nr)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

/* The seccomp stop at a call's entry: what it names, to note at its exit. */
static void
call_entry(struct state *s, struct tracee *tr)
{
	const struct call *c;
	struct regs r;
	unsigned long long flags = 0;
	char *name, *dir = NULL;

	tr->in_call = 1;
	free(tr->path);
	tr->path = NULL;
	if (get_regs(tr->pid, &r) || !(c = find_call(r.nr)) || c->kind == K_UNSURE) {
		s->t->unsure = 1;
		return;
	}
	tr->kind = c->kind;
	tr->mode = 0;
	if (c->kind == K_LIST) {
		/* the directory a listing reads: its entries are an input */
		if (!(tr->path = fd_path(tr->pid, (long long)r.arg[0])))
			s->t->unsure = 1;
		tr->follow = 1;
		tr->how = 'L';
		return;
	}
	if (c->flags >= 0)
		flags = r.arg[(int)c->flags];
	if (c->kind == K_OPEN2) {
		struct iovec local = { &flags, sizeof(flags) }, remote = { (void *)(uintptr_t)r.arg[2], sizeof(flags) };

		if (process_vm_readv(tr->pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(flags)) {
			s->t->unsure = 1;
			return;
		}
	}
	if (!(name = read_string(tr->pid, r.arg[(int)c->path]))) {
		s->t->unsure = 1;
		return;
	}
	if (!*name) {
		/* an empty name with AT_EMPTY_PATH: the fd itself, already opened */
		free(name);
		if (!(c->flags >= 0 && (flags & AT_EMPTY_PATH)))
			s->t->unsure = c->kind == K_EXEC;
		return;
	}
	if (*name != '/' && c->dirfd >= 0 && (int)r.arg[(int)c->dirfd] != AT_FDCWD) {
		if (!(dir = fd_path(tr->pid, (long long)r.arg[(int)c->dirfd]))) {
			s->t->unsure = 1;
			free(name);
			return;
		}
		tr->path = xasprintf("%s/%s", dir, name);
		free(dir);
		free(name);
	} else {
		tr->path = name;
	}
	switch (c->kind) {
	case K_OPEN:
	case K_OPEN2:
		if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | __O_TMPFILE))) {
			free(tr->path); /* a file it writes: an output, not an input */
			tr->path = NULL;
			return;
		}
		tr->follow = !(flags & O_NOFOLLOW);
		tr->how = flags & (O_DIRECTORY | O_PATH) ? 's' : 'o';
		break;
	case K_STAT:
		tr->follow = !(flags & AT_SYMLINK_NOFOLLOW);
		tr->how = 's';
		break;
	case K_ACCESS:
		tr->follow = !(flags & AT_SYMLINK_NOFOLLOW);
		tr->how = 'a';
		tr->mode = (int)r.arg[(int)c->path + 1];
		break;
	case K_LSTAT:
		tr->follow = 0;
		tr->how = 's';
		break;
	case K_READLINK:
		tr->follow = 0;
		tr->how = 'r';
		break;
	default:
		tr->follow = 1;
		tr->how = 'o'; /* exec: the program itself */
		break;
	}
}

/* The call's exit: note its answer. */
static void
call_exit(struct state *s, struct tracee *tr)
{
	struct regs r;
	int err;

	tr->in_call = 0;
	if (!tr->path)
		return;
	if (get_regs(tr->pid, &r)) {
		s->t->unsure = 1;
		return;
	}
	err = r.ret < 0 && r.ret > -4096 ? (int)-r.ret : 0;
	if (tr->kind == K_LIST && err) {
		free(tr->path); /* a failed listing read nothing */
		tr->path = NULL;
		return;
	}
	note(s->t, tr->path, tr->how, tr->follow, tr->mode, err);
	tr->path = NULL;
}

/* The filter: the calls of the table, and any call of another ABI, stop
 * for us; the rest run. */
static int
install_filter(void)
{
	enum { N = sizeof(calls) / sizeof(*calls) };
	struct sock_filter f[8 + 2 * N];
	struct sock_fprog prog;
	size_t k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_SELF, 1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < N; i++) {
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)calls[i].nr, 0, 1);
		f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	}
#if defined(__x86_64__)
	/* x32's calls carry bit 30 */
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
#endif
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/* The child: traced, stopped for the tracer to set its options, filtered,
 * then the program.  A step that fails writes its letter on report. */
static _Noreturn void
child(char *const *argv, int in_fd, int out_fd, int err_fd, int report)
{
	sigset_t none;

	if (in_fd >= 0)
		dup2(in_fd, 0);
	if (out_fd >= 0)
		dup2(out_fd, 1);
	if (err_fd >= 0)
		dup2(err_fd, 2);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (ptrace(PTRACE_TRACEME, 0, 0, 0)) {
		(void)!write(report, "T", 1);
		_exit(127);
	}
	raise(SIGSTOP);
	if (install_filter()) {
		(void)!write(report, "S", 1);
		_exit(127);
	}
	execve(argv[0], argv, environ);
	(void)!write(report, "E", 1);
	_exit(127);
}

/* Resume a stopped tracee: to the call's exit when it is in one. */
static void
resume(struct tracee *tr, int sig)
{
	ptrace(tr->in_call ? PTRACE_SYSCALL : PTRACE_CONT, tr->pid, 0, (void *)(long)sig);
}

int
nv_trace_run(char *const *argv, int in_fd, int out_fd, int err_fd, struct nv_trace *t, int *status,
             const char **why)
{
	struct state s = { .t = t };
	int report[2], st, main_done = 0;
	char letter = 0;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	if (pipe2(report, O_CLOEXEC)) {
		*why = "cannot make a pipe";
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(report[0]);
		close(report[1]);
		*why = "cannot fork";
		return -1;
	}
	if (pid == 0)
		child(argv, in_fd, out_fd, err_fd, report[1]);
	close(report[1]);
	nv_proc_watch(pid);
	/* its first stop: the SIGSTOP after PTRACE_TRACEME (or its exit) */
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
	if (!WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0,
	           (void *)(long)(PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |
	                          PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
	                          PTRACE_O_EXITKILL))) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
			;
		(void)!read(report[0], &letter, 1);
		close(report[0]);
		nv_proc_unwatch(pid);
		*why = letter == 'T' ? "ptrace is not permitted here" : "cannot set ptrace options";
		return -1;
	}
	tracee(&s, pid);
	ptrace(PTRACE_CONT, pid, 0, 0);
	while (s.n) {
		pid_t w = waitpid(-1, &st, __WALL);
		struct tracee *tr;
		int sig, event;

		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == pid) {
				*status = st;
				main_done = 1;
			}
			forget(&s, w);
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		tr = tracee(&s, w);
		sig = WSTOPSIG(st);
		event = (st >> 16) & 0xff;
		if (sig == SIGTRAP && event == PTRACE_EVENT_SECCOMP) {
			call_entry(&s, tr);
			resume(tr, 0);
		} else if (sig == (SIGTRAP | 0x80)) {
			if (tr->in_call)
				call_exit(&s, tr);
			resume(tr, 0);
		} else if (sig == SIGTRAP && event) {
			resume(tr, 0); /* fork, clone, exec: the new one is traced already */
		} else if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			resume(tr, 0); /* a new tracee's first stop, or a stop we do not pass on */
		} else {
			resume(tr, sig);
		}
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.v[i].path);
	free(s.v);
	nv_proc_unwatch(pid);
	if (read(report[0], &letter, 1) == 1 && letter == 'S') {
		close(report[0]);
		nv_trace_release(t);
		*why = "cannot install a seccomp filter";
		return -1;
	}
	close(report[0]);
	if (!main_done) {
		nv_trace_release(t);
		*why = "lost track of the traced program";
		return -1;
	}
	return 0;
}
#endif
