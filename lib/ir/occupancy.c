#include "occupancy.h"

unsigned
nv_occupancy_max_warps(int sm)
{
	/* CUDA C Programming Guide, "Compute capabilities" table */
	switch (sm) {
	case 75: return 32;
	case 86: case 87: case 88: case 89: case 120: case 121: return 48;
	default: return 64; /* 70, 72, 80, 90, 100, 103, 110 */
	}
}

unsigned
nv_occupancy_warps(int sm, unsigned regs)
{
	unsigned per_warp, per_part;

	if (regs == 0)
		regs = 1;
	if (regs > NV_MAX_REGS_PER_THREAD)
		return 0;
	per_warp = (regs * 32 + 255) / 256 * 256; /* allocation unit: 256 registers */
	per_part = (NV_REGS_PER_SM / 4) / per_warp; /* each sub-partition holds its warps */
	return per_part * 4 < nv_occupancy_max_warps(sm) ? per_part * 4 : nv_occupancy_max_warps(sm);
}

unsigned
nv_occupancy_regs_for(int sm, unsigned warps)
{
	for (unsigned r = NV_MAX_REGS_PER_THREAD; r > 0; r--)
		if (nv_occupancy_warps(sm, r) >= warps)
			return r;
	return 0;
}

/* Resident blocks per SM, from the same table. */
static unsigned
max_blocks(int sm)
{
	switch (sm) {
	case 75: case 86: case 87: return 16;
	case 89: case 120: case 121: return 24;
	default: return 32; /* 70, 72, 80, 90, 100, 103, 110 */
	}
}

/* Shared memory an SM can give its blocks at the largest carveout. */
static unsigned
smem_per_sm(int sm)
{
	switch (sm) {
	case 70: case 72: return 96 * 1024;
	case 75: return 64 * 1024;
	case 80: case 87: return 164 * 1024;
	case 86: case 89: case 120: case 121: return 100 * 1024;
	default: return 228 * 1024; /* 90, 100, 103, 110 */
	}
}

static void
limit(struct nv_occupancy *o, unsigned blocks, const char *why)
{
	if (blocks < o->blocks) {
		o->blocks = blocks;
		o->limit = why;
	}
}

void
nv_occupancy_blocks(int sm, unsigned regs, unsigned smem, unsigned threads, struct nv_occupancy *o)
{
	unsigned wpb = (threads ? threads : 1) + 31, reserved = sm >= 80 ? 1024 : 0;

	wpb /= 32;
	o->blocks = max_blocks(sm);
	o->limit = "blocks";
	limit(o, nv_occupancy_max_warps(sm) / wpb, "warps");
	/* the register file's warps, capped at the warp limit just applied */
	limit(o, threads > 1024 ? 0 : nv_occupancy_warps(sm, regs) / wpb, "registers");
	if (smem)
		limit(o, smem_per_sm(sm) / ((smem + reserved + 127) / 128 * 128), "shared memory");
	o->warps = o->blocks * wpb;
}
