#ifndef NV_DRIVER_GENCODE_H
#define NV_DRIVER_GENCODE_H
/*
 * gencode: nvcc's -arch, -code and -gencode as the targets of a build.
 * Each target is a virtual architecture (compute_XX), whose PTX the device
 * pipeline writes once, with the real GPUs (sm_XX) ptxas assembles that PTX
 * for, and whether the PTX itself goes into the fatbin too.
 */
#include <stddef.h>

#define NV_GENCODE_MAX_REAL 16

struct nv_gencode {
	char virt[24];                       /* "compute_90a" */
	char gpu[24];                        /* the device pipeline's GPU for it: "sm_90a" */
	char real[NV_GENCODE_MAX_REAL][24];  /* "sm_90a": a cubin each */
	size_t nreal;
	int ptx;                             /* the PTX goes into the fatbin */
};

struct nv_gencodes {
	struct nv_gencode *v;
	size_t n;
};

/* Add -gencode's value ("arch=compute_80,code=[sm_80,compute_80]"); a
 * usage error (exit 2) naming flag when it is not one nvcc takes. */
void nv_gencode_add_spec(struct nv_gencodes *g, const char *spec);
/* Add -arch=arch with -code=codes (a comma list; NULL when not given):
 * sm_XX alone means compute_XX with code sm_XX and compute_XX, compute_XX
 * alone its PTX only; "all" and "all-major" every GPU (or every major one)
 * with the newest one's PTX.  A usage error when a name is not a GPU. */
void nv_gencode_add_arch(struct nv_gencodes *g, const char *arch, const char *codes);
/* How many real GPUs (cubins) the targets name. */
size_t nv_gencode_nreal(const struct nv_gencodes *g);
/* Free the list. */
void nv_gencode_release(struct nv_gencodes *g);

#endif
