#ifndef NV_DRIVER_PLAN_H
#define NV_DRIVER_PLAN_H
/*
 * plan: the command line's options made into jobs (job.h), before
 * anything runs; and the checks a plan must pass before it may run.
 */
#include "job.h"

/* Every input is one nvcc-lite can compile and can read, before any is. */
void nv_drv_read_stdin(void);
void nv_drv_stdin_copy(struct nv_plan *p);
void nv_drv_check_inputs(void);
/* The jobs of this command line, in the order they run. */
void nv_drv_plan(struct nv_plan *p);
/* -clean: remove the files the plan would write (-dryrun: say so); 0, or -1. */
int nv_drv_clean(const struct nv_plan *p);
/* No output of the plan is one of its inputs (the same file: -o k.cu, -MF
 * k.cu, -lib a.o b.o -o a.o); exits if one is, before anything runs. */
void nv_drv_check_clobber(const struct nv_plan *p);
/* Every output of the plan that is the user's can be written, the
 * dependency file's too, before anything runs; exits if not. */
void nv_drv_check_outputs(const struct nv_plan *p);

#endif
