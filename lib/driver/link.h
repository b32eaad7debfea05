#ifndef NV_DRIVER_LINK_H
#define NV_DRIVER_LINK_H
/*
 * link: the jobs after the objects, as nvcc's: the device link (nvlink,
 * fatbinary -link, CUDA's link.stub), the host link with the CUDA runtime,
 * or a static library.
 */
#include "../base/util.h"
#include "job.h"

/* The device link of objs (nvlink, fatbinary -link, link.stub) into the host object out. */
void nv_drv_plan_dlink(struct nv_plan *p, const struct nv_strv *objs, char *out, int temporary);
/* The device link (unless -cudart none), then the host link of objs into out. */
void nv_drv_plan_link(struct nv_plan *p, const struct nv_strv *objs, char *out);
/* -lib: objs into the static library out. */
void nv_drv_plan_lib(struct nv_plan *p, const struct nv_strv *objs, char *out);

#endif
