#ifndef NV_DRIVER_RUN_H
#define NV_DRIVER_RUN_H
/*
 * run: a plan run, or printed as the shell script that runs it by hand.
 */
#include "job.h"

/* Run the jobs in order, stop at the first failure, remove temporaries and
 * the failed job's output; 0 or -1. */
int nv_drv_run(struct nv_plan *p);
/* -Xcompiler's question to the host compiler (nv_drv_host_query): the host
 * compiler nvcc runs (-ccbin, else gcc) with -Xcompiler's options alone,
 * its answer on standard output (-dryrun: the command).  The exit status. */
int nv_drv_run_host_query(void);
/* Print the whole plan as one shell script; 0, or -1 when stdout fails. */
int nv_drv_dryrun(struct nv_plan *p);

#endif
