#include "pipeline.h"

#include <stddef.h>
#include <string.h>

#include "../base/knobs.h"

#define P(id) (1u << NV_PIPE_##id)
#define ALL ((1u << NV_PIPE_COUNT) - 1)
#define OPT (P(O1) | P(O2) | P(O3))
#define T23 (P(O2) | P(O3)) /* the seed's tier 2/3 gates (tier != 1) */
#define FC (P(OFCMAX) | P(OFCMID) | P(OFCMIN))

/*
 * The order is cicc's "mid" path, coarsened to our stages: link and
 * reflect; the inliner and LLVM's scalar/CGSCC pipeline (cicc's standard
 * pipelines #5 and #8) on the whole module; at -O2/-O3 (the seed's tier
 * 2/3 gate) loop-unswitch, which cicc's loop pipeline runs after LICM and
 * before its unroller; then per function the loop
 * work -- vectorize, unroll, the cleanup between the two unrolls, the late
 * unroll, the post-unroll cleanup (tier 1 without SimplifyCFG, tier 3 with
 * TailCallElim), the end of cicc's optimizer (lower-aggr-copies,
 * set-local-array-alignment, alignment propagation, the load-store
 * vectorizer); then codegen.  At -O1..3 codegen is cut where cicc runs
 * its IR rematerialization: nv-llc stops after LLVM's codegen IR passes
 * (GVN, straight-line and loop strength reduction, CodeGenPrepare), and
 * that half and nv-remat, both per function, run in Phase II; nv-llc goes
 * on from there on the joined module.  nv-remat stays in the pipeline
 * under do-remat=0: its IV demotion and live-out narrowing have their own
 * knobs.
 */
const struct nv_pipe_step nv_pipe_steps[] = {
	/* prog        stage               phase          in            args                            arch  dropped by */
	{ "nv-link", NV_STAGE_LINK, NV_PHASE_1, ALL, "-cudafe --libdevice -internalize", 0, { 0 } },
	{ "nv-reflect", NV_STAGE_REFLECT, NV_PHASE_1, ALL, "", 1, { 0 } },
	{ "nv-inline", NV_STAGE_INLINE, NV_PHASE_1, OPT | P(OFCMID) | P(OFCMIN), "-O%O", 1, { 0 } },
	{ "nv-unroll", NV_STAGE_UNROLL, NV_PHASE_1, OPT | P(OFCMIN), "-O%O -config=P", 1,
	  { "disable-LoopUnrollPass=1", "unroll-early-pragma=0" } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_1, OPT | P(OFCMIN), "-O%O -no-unroll -no-vectorize", 1, { 0 } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_1, T23, "-pipeline=unswitch", 1, { "loop-unswitch-threshold=0" } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_1, P(OFCMID), "-pipeline=std5", 1, { 0 } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_1, P(OFCMAX), "-pipeline=std1", 1, { 0 } },
	{ "nv-vectorize", NV_STAGE_VECTORIZE, NV_PHASE_2, OPT | P(OFCMIN), "-O%O", 1, { "vectorize-loops=0" } },
	{ "nv-unroll", NV_STAGE_UNROLL, NV_PHASE_2, OPT | P(OFCMID) | P(OFCMIN), "-O%O", 1, { "disable-LoopUnrollPass=1" } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_2, OPT, "-pipeline=mid-unroll", 1, { "disable-LoopUnrollPass=1" } },
	{ "nv-unroll", NV_STAGE_UNROLL, NV_PHASE_2, OPT, "-O%O -config=D", 1,
	  { "disable-LoopUnrollPass=1", "nv-disable-loop-unrolling=1" } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_2, P(O1), "-pipeline=post-unroll-t1", 1, { 0 } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_2, P(O2) | P(OFCMID) | P(OFCMIN), "-pipeline=post-unroll", 1, { 0 } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_2, P(O3), "-pipeline=post-unroll-t3", 1, { 0 } },
	{ "nv-opt", NV_STAGE_OPT, NV_PHASE_2, OPT | P(OFCMID) | P(OFCMIN), "-pipeline=late-memory", 1, { 0 } },
	{ "nv-llc", NV_STAGE_LLC, NV_PHASE_2, OPT, "-O%O -stop-after=codegenprepare", 1, { 0 } },
	{ "nv-remat", NV_STAGE_REMAT, NV_PHASE_2, OPT, "-O%O", 1, { 0 } },
	{ "nv-llc", NV_STAGE_LLC, NV_PHASE_CODEGEN, OPT, "-O%O -start-after=codegenprepare", 1, { 0 } },
	{ "nv-llc", NV_STAGE_LLC, NV_PHASE_CODEGEN, P(O0) | FC, "-O%O", 1, { 0 } },
	{ NULL, 0, 0, 0, NULL, 0, { 0 } },
};

static const struct {
	const char *name, *fc;
	int olevel;
} pipes[NV_PIPE_COUNT] = {
	[NV_PIPE_O0] = { "nvopt<O0>", NULL, 0 },
	[NV_PIPE_O1] = { "nvopt<O1>", NULL, 1 },
	[NV_PIPE_O2] = { "nvopt<O2>", NULL, 2 },
	[NV_PIPE_O3] = { "nvopt<O3>", NULL, 3 },
	[NV_PIPE_OFCMAX] = { "nvopt<Ofcmax>", "max", 1 },
	[NV_PIPE_OFCMID] = { "nvopt<Ofcmid>", "mid", 1 },
	[NV_PIPE_OFCMIN] = { "nvopt<Ofcmin>", "min", 2 },
};

const char *
nv_pipe_name(enum nv_pipe_id id)
{
	return pipes[id].name;
}

int
nv_pipe_olevel(enum nv_pipe_id id)
{
	return pipes[id].olevel;
}

int
nv_pipe_fast_compile(const char *level)
{
	for (int i = 0; i < NV_PIPE_COUNT; i++)
		if (pipes[i].fc && !strcmp(pipes[i].fc, level))
			return i;
	return -1;
}
