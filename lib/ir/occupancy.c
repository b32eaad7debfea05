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
