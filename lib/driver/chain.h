#ifndef NV_DRIVER_CHAIN_H
#define NV_DRIVER_CHAIN_H
/*
 * chain: running chains of processes for the run (run.c, hcache.c), and
 * printing them: -v's "#$ " lines and -dryrun's script.  make's
 * jobserver, -time's rows, the progress line, and what a signal removes.
 */
#include <stdio.h>
#include <time.h>

#include "../base/jobserver.h"
#include "../base/util.h"
#include "job.h"

/* make's jobserver, when MAKEFLAGS names one: set up by main, before
 * anything runs. */
extern struct nv_js nv_drv_js;

/* Quote av as one shell command on fp (-dryrun's markers as "$tmp", "$p"). */
void nv_drv_print_cmd(FILE *fp, char **av);
/* Print the chain's commands: "#$ " lines under -v, a script's under -dryrun. */
void nv_drv_show_chain(FILE *fp, const struct nv_drv_chain *c, const char *indent);
/* A place for a tool's standard error, in memory: a full disk cannot eat
 * the message that says the disk is full.  A descriptor, for the run. */
int nv_drv_diags_new(void);
/* What the last tool run with it printed there (NUL-ended), and its
 * length; nv_drv_diags_set replaces it. */
char *nv_drv_diags_text(int fd, size_t *len);
void nv_drv_diags_set(int fd, const char *text, size_t len);
/* Say the diagnostics a pass over src printed (in fd) that no earlier pass
 * over src said, the summary line counted again; 0 or -1. */
int nv_drv_say_once(int fd, const char *src);
/* Remove a failed build's output, if a regular file ("-", devices and fifos stay). */
void nv_drv_remove_output(const char *path);
/* The progress line of a compile of input starts (a terminal, no -v) ... */
void nv_drv_progress_start(const char *input);
/* ... and is wiped. */
void nv_drv_progress_clear(void);
/* On a signal, remove the job's paths (NULL: none; the array is read at the signal) ... */
void nv_drv_sig_paths(const struct nv_strv *paths);
/* ... the plan's temporaries so far (NULL: none) ... */
void nv_drv_sig_temps(const struct nv_strv *paths);
/* ... and the directory dir, once empty (NULL: none). */
void nv_drv_sig_dir(const char *dir);
/* The signal hook (nv_proc_on_signal): tokens back, the stages reaped, the files removed. */
void nv_drv_on_signal(void);
/* -time's rows for the steps of c, once done. */
void nv_drv_record_times(const struct nv_drv_chain *c);
/* Check that the -time file can be added to (not a symbolic link, a
 * regular file of one name): the rows are kept in memory and written at
 * nv_drv_time_close, in one write (its header first when new).  0, or -1
 * after saying why not. */
int nv_drv_time_open(void);
/* The driver's own -time rows, and the file closed (an error when rc is 0). */
void nv_drv_time_close(const struct timespec *t0, int rc);
/* Run cs[0..n), at most max at once or as make's tokens allow; 0, or -1
 * when one failed (reported, the others stopped). */
int nv_drv_run_chains(struct nv_drv_chain *cs, size_t n, size_t max);
/* The exit status of a failed run, as nvcc's (1 unless a tool said otherwise). */
int nv_drv_exit_status(void);
/* Run one chain (-keep: a step at a time); 0 or -1. */
int nv_drv_run_one(struct nv_drv_chain *c);
/* Run TOOL job j as a chain of one step (-v, -time, the jobserver and
 * signals as for a stage); 0, or -1 after its failure reported. */
int nv_drv_run_tool(const struct nv_job *j);
/* Run chain c with its standard error into err_fd (nv_drv_diags_new),
 * said from there once per source src (nv_drv_say_once); 0 or -1. */
int nv_drv_run_saying(struct nv_drv_chain *c, int err_fd, const char *src);
/* Run TOOL job j so (a host pass after the device's); 0 or -1. */
int nv_drv_run_tool_saying(const struct nv_job *j, int err_fd);
/* The same as a try: its standard error into err_fd, a failure not
 * reported; 0 or -1. */
int nv_drv_try_tool(const struct nv_job *j, int err_fd);

#endif
