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
#include "job.h"

/* Run ptxas job j (its usage set) as nv_drv_run_tool would, then print
 * its kernels' occupancy on stderr.  Returns ptxas's result. */
int nv_drv_run_usage(const struct nv_job *j);

#endif
