#include "pipeline.h"

#include <stddef.h>

#include "knobs.h"

#define ALL ((1u << NV_PIPE_COUNT) - 1)
#define OPT ((1u << NV_PIPE_O1) | (1u << NV_PIPE_O2) | (1u << NV_PIPE_O3))

const struct nv_pipe_step nv_pipe_steps[] = {
	/* prog          stage              in   args           arch */
	{ "nv-link", NV_STAGE_LINK, ALL, "--libdevice -internalize", 0 },
	{ "nv-reflect", NV_STAGE_REFLECT, ALL, "", 1 },
	{ "nv-inline", NV_STAGE_INLINE, OPT, "-O%O", 1 },
	{ "nv-opt", NV_STAGE_OPT, OPT, "-O%O -no-unroll -no-vectorize", 1 },
	{ "nv-vectorize", NV_STAGE_VECTORIZE, OPT, "-O%O", 1 },
	{ "nv-unroll", NV_STAGE_UNROLL, OPT, "-O%O", 1 },
	{ "nv-opt", NV_STAGE_OPT, OPT, "-pipeline=mid-unroll", 1 },
	{ "nv-unroll", NV_STAGE_UNROLL, OPT, "-O%O -config=D", 1 },
	{ "nv-opt", NV_STAGE_OPT, OPT, "-pipeline=post-unroll", 1 },
	{ "nv-llc", NV_STAGE_LLC, OPT, "-O%O -stop-after=codegenprepare", 1 },
	{ "nv-remat", NV_STAGE_REMAT, OPT, "-O%O", 1 },
	{ "nv-llc", NV_STAGE_LLC, OPT, "-O%O -start-after=codegenprepare", 1 },
	{ "nv-llc", NV_STAGE_LLC, 1u << NV_PIPE_O0, "-O%O", 1 },
	{ NULL, 0, 0, NULL, 0 },
};

const char *
nv_pipe_name(enum nv_pipe_id id)
{
	static const char *const names[] = { "nvopt<O0>", "nvopt<O1>", "nvopt<O2>", "nvopt<O3>" };

	return names[id];
}
