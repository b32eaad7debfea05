#ifndef NV_IR_OCCUPANCY_H
#define NV_IR_OCCUPANCY_H
/*
 * occupancy: how many warps an SM keeps resident when each thread uses a
 * given number of registers, from register use alone (CUDA occupancy
 * calculator rules): 65536 registers per SM split over 4 sub-partitions,
 * allocated per warp in units of 256, at most 255 per thread, and the
 * architecture's cap on resident warps.
 */

/* Resident warps per SM on sm_XX (sm = XX) at regs registers per thread. */
unsigned nv_occupancy_warps(int sm, unsigned regs);
/* The most resident warps sm_XX allows. */
unsigned nv_occupancy_max_warps(int sm);
/* The largest register count that still gives `warps` resident warps (0 if none). */
unsigned nv_occupancy_regs_for(int sm, unsigned warps);

/* A kernel's theoretical occupancy on sm_XX (CUDA's occupancy calculator):
 * resident blocks per SM and what limits them. */
struct nv_occupancy {
	unsigned blocks;      /* resident blocks per SM; 0: the block cannot run */
	unsigned warps;       /* resident warps per SM: blocks x warps per block */
	const char *limit;    /* "registers", "shared memory", "warps", "blocks" */
};

/* Blocks of `threads` threads, each thread using regs registers and each
 * block smem bytes of shared memory (static and dynamic), on sm_XX: the
 * least of the SM's block limit, its warp limit, its register file
 * (allocated per warp in units of 256, warps in fours per sub-partition),
 * and its shared memory (the largest carveout, 1 KB reserved per block on
 * sm_80 and later, allocated in 128-byte units). */
void nv_occupancy_blocks(int sm, unsigned regs, unsigned smem, unsigned threads, struct nv_occupancy *o);

#define NV_REGS_PER_SM 65536
#define NV_MAX_REGS_PER_THREAD 255

#endif
