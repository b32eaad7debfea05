#ifndef NV_BASE_TRACE_H
#define NV_BASE_TRACE_H
/*
 * trace: run a program and learn every name it asked the file system
 * about, with the answer it got.  The header cache's proof: what a build
 * of an entry looked up (a header found, a header not found in an earlier
 * directory, a __has_include that failed, a config file clang looked for)
 * is what a later compile must find the same for the entry to stand for
 * it.  Done with ptrace and a seccomp filter, so that only the calls that
 * name files stop the program: open, stat and access in all their forms,
 * readlink, exec, and directory listings.  Linux on x86-64 and AArch64;
 * elsewhere, or where ptrace is refused, nv_trace_run says so and runs
 * nothing.
 */
#include <stddef.h>

/* One name the program asked about, and how:
 *   'o'  opened to read (its content matters)
 *   's'  stat, or opened without reading (O_PATH, O_DIRECTORY)
 *   'a'  access, with mode
 *   'r'  readlink
 *   'L'  a directory whose entries it listed
 * follow: the call follows a final symlink (else lstat, O_NOFOLLOW, ...). */
struct nv_probe {
	char *path;     /* as the program named it: relative ones are relative to its
	                 * working directory (the caller's) */
	char how;
	int follow, mode;
	int err;        /* 0: found; else the errno the program got */
};

struct nv_trace {
	struct nv_probe *v;
	size_t n, cap;
	int unsure;     /* something the trace cannot vouch for: a name asked twice with two
	                 * answers, a change of directory, a call it could not read */
};

/* Run argv (argv[0] a path) traced, its standard streams on in_fd, out_fd
 * and err_fd (-1: inherit), and wait for it; its wait status in *status.
 * 0, or -1 when it cannot be traced here (nothing was run; *why says why,
 * static).  The pid is registered for the signal hook while it runs. */
int nv_trace_run(char *const *argv, int in_fd, int out_fd, int err_fd, struct nv_trace *t,
                 int *status, const char **why);
void nv_trace_release(struct nv_trace *t);

#endif
