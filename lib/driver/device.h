#ifndef NV_DRIVER_DEVICE_H
#define NV_DRIVER_DEVICE_H
/*
 * device: the chains of processes that make a DEVICE job's input into its
 * output (the front end, the nvopt<...> pipeline's stages, Phase II whole
 * or in parts), planned as data for run.c.
 */
#include "job.h"

/* Plan DEVICE job j's chains (j->dev), its intermediates in pl's tmp. */
void nv_drv_plan_device(struct nv_plan *pl, struct nv_job *j);
/* -print-pipeline: the steps the options select, with their arguments. */
void nv_drv_print_pipeline(void);

#endif
