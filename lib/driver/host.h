#ifndef NV_DRIVER_HOST_H
#define NV_DRIVER_HOST_H
/*
 * host: the jobs that make a source into a host object, as nvcc's do: a
 * .cu file's device side (PTX per target, a cubin per GPU, the fatbin)
 * and its host side compiled with the fatbin embedded; a host-only source
 * (.cpp, .c) through the host compiler.
 */
#include "job.h"

/* The jobs of -fatbin: src's PTX for each target, a cubin for each GPU, the fatbin in out. */
void nv_drv_plan_fatbin(struct nv_plan *p, const char *src, char *out);
/* -cubin of src to out: PTX, then ptxas. */
void nv_drv_plan_cubin(struct nv_plan *p, const char *src, char *out);
/* -ptx's check with ptxas when -Xptxas gives options, as nvcc's. */
void nv_drv_plan_ptx_check(struct nv_plan *p, const char *src, const char *ptx);
/* The jobs of a .cu file's host object obj: the fatbin, then clang's host
 * compile with it embedded; temporary: obj is a file of the build. */
void nv_drv_plan_object(struct nv_plan *p, const char *src, char *obj, int temporary);
/* What a host-only source's job writes: an object (the user's, or a file
 * of the build), the source preprocessed (-E), make's dependencies (-M). */
enum nv_host_what { NV_HOST_OBJ, NV_HOST_TMP_OBJ, NV_HOST_PREPROC, NV_HOST_DEPS };
/* The job of a host-only source (.cpp, .c): the host compiler to obj (for
 * -M, target names the rule's target). */
void nv_drv_plan_host_only(struct nv_plan *p, const char *src, char *obj, enum nv_host_what what,
                           const char *target);

#endif
