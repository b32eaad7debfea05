#ifndef NV_BASE_PROC_H
#define NV_BASE_PROC_H
/*
 * proc: run a chain of programs joined by pipes, like a shell pipeline,
 * with posix_spawn.  When one fails, the others are stopped and the failure
 * is named: "nv-llc failed with exit status 1", "nv-opt killed by signal 11".
 */
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* A running chain.  Many may run at once; nv_chain_wait reaps for all. */
struct nv_chain {
	char **const *argv;
	size_t n, alive;
	pid_t *pid;
	int *status;             /* wait status of each stage */
	double *ms;              /* wall time of each stage, spawn to exit */
	double *cpu_ms;          /* CPU time of each stage, user and system */
	struct timespec *t0;
	int failed;              /* some stage failed (or could not start) */
	long first, culprit;     /* first failure reaped; the stage blamed (-1 none yet) */
};

/* Find prog: an absolute or relative path as is, else dir/prog if dir is
 * given and it exists, else the first match on PATH.  NULL if none; caller frees. */
char *nv_spawn_find(const char *prog, const char *dir);
/* Run argvs[0] | argvs[1] | ... with the first reading in_fd and the last
 * writing out_fd (-1: inherit).  Returns 0 when every program exited 0;
 * otherwise prints which one failed and how, and returns -1. */
int nv_spawn_chain(char **const *argvs, size_t n, int in_fd, int out_fd);
/* Run one tool (ptxas, a compiler) to completion, its stdout to stderr: 0, or
 * -1 when it failed; a tool that exits non-zero has said why, so only its
 * death by a signal is reported here. */
int nv_spawn_tool(char **argv);
/* Start argvs[0] | ... | argvs[n-1] without waiting, every program's
 * standard error on err_fd (-1: inherit); 0, or -1 after reporting a
 * program that could not be started (the rest are stopped). */
int nv_chain_start(struct nv_chain *c, char **const *argvs, size_t n, int in_fd, int out_fd,
                   int err_fd);
/* Reap one child of any chain (blocking or not) and return its chain;
 * NULL when nothing was reaped. */
struct nv_chain *nv_chain_wait(int block);
/* After c failed: give upstream stages a moment, choose the stage to blame,
 * stop the others. */
void nv_chain_blame(struct nv_chain *c);
/* SIGTERM to every live stage of c. */
void nv_chain_kill(struct nv_chain *c);
/* "nv-llc failed with exit status 1" for the stage blamed, if any. */
void nv_chain_report(const struct nv_chain *c);
void nv_chain_release(struct nv_chain *c);
/* A child started outside the chains (a traced one): killed (SIGKILL) by
 * the signal hook until unwatched. */
void nv_proc_watch(pid_t pid);
void nv_proc_unwatch(pid_t pid);
/* On SIGINT/SIGTERM/SIGHUP: stop every child, then run fn (async-signal-safe). */
void nv_proc_on_signal(void (*fn)(void));
/* A fd that becomes readable when a child exits (a SIGCHLD self-pipe);
 * drain it before reaping. */
int nv_proc_sigchld_fd(void);
/* Quote s for a POSIX shell when it needs it; the result is static until
 * the next call. */
const char *nv_shell_quote(const char *s);

#endif
