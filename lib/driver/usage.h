#ifndef NV_DRIVER_USAGE_H
#define NV_DRIVER_USAGE_H
/*
 * usage: --resource-usage as nvcc prints it (ptxas -v's lines), and after
 * each kernel's "Used N registers" line its theoretical occupancy on the
 * GPU ptxas compiled for (ir/occupancy: CUDA's occupancy calculator rules),
 * at the block size of its .maxntid or .reqntid, else 256 threads, with its
 * static shared memory: resident blocks and warps an SM, what limits them,
 * and where registers limit, the count that reaches the next step.
 */
#include <stdio.h>

#include "../ir/occupancy.h"
#include "job.h"

/* A kernel as ptxas -v describes it, with its block (the PTX's .maxntid or
 * .reqntid, else 256 threads) and its occupancy on the GPU. */
struct nv_kernel_use {
	char *name;
	unsigned regs, smem, stack, spill_st, spill_ld;
	unsigned threads;
	int bounded;             /* threads are its launch bounds' */
	int used;                /* ptxas said "Used N registers" */
	struct nv_occupancy occ;
	unsigned step, step_blocks; /* where registers limit: the count that gives more blocks, and
	                             * how many (step 0: none) */
};
/* The kernels in ptxas -v's text for PTX file ptx, on sm_XX: their count,
 * the array in *out (nv_drv_usage_free). */
size_t nv_drv_usage_read(const char *text, const char *ptx, int sm, struct nv_kernel_use **out);
void nv_drv_usage_free(struct nv_kernel_use *k, size_t n);
/* Kernel k's occupancy in words: "6 blocks of 256 threads (no launch
 * bounds) an SM, 48 of 64 warps, limited by registers; 32 registers would
 * give 8". */
void nv_drv_usage_occupancy(FILE *fp, const struct nv_kernel_use *k, int sm);

/* Run ptxas job j (its usage set) as nv_drv_run_tool would, then print
 * its kernels' occupancy on stderr.  Returns ptxas's result. */
int nv_drv_run_usage(const struct nv_job *j);

#endif
