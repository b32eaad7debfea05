#ifndef NV_PROC_H
#define NV_PROC_H
/*
 * proc: run a chain of programs joined by pipes, like a shell pipeline,
 * with posix_spawn.  When one fails, the others are stopped and the failure
 * is named: "nv-llc failed with exit status 1", "nv-opt killed by signal 11".
 */
#include <stddef.h>

/* Find prog: an absolute or relative path as is, else dir/prog if dir is
 * given and it exists, else the first match on PATH.  NULL if none; caller frees. */
char *nv_spawn_find(const char *prog, const char *dir);
/* Run argvs[0] | argvs[1] | ... with the first reading in_fd and the last
 * writing out_fd (-1: inherit).  Returns 0 when every program exited 0;
 * otherwise prints which one failed and how, and returns -1. */
int nv_spawn_chain(char **const *argvs, size_t n, int in_fd, int out_fd);
/* Quote s for a POSIX shell when it needs it; the result is static until
 * the next call. */
const char *nv_shell_quote(const char *s);

#endif
