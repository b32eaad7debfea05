/*
 * libFuzzer target: textual IR in, one stage's library entry over it.
 * NV_FUZZ_STAGE picks the stage: "reflect" (the default: every analysis,
 * then nv-reflect, then the analyses again), "inline", "unroll",
 * "vectorize", "remat", or "split" (cut in three parts and joined).
 * Parse errors and invalid modules are fine, and so is a stage refusing
 * its input with a message; a crash, a sanitizer report, inconsistent
 * liveness, or a module a stage leaves invalid is a finding (abort).
 * Built by `make fuzz`; run with t/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>

#include "base/diag.h"
#include "base/io.h"
#include "ir/cfg.h"
#include "ir/cost.h"
#include "ir/dom.h"
#include "ir/indvars.h"
#include "ir/liveness.h"
#include "ir/loops.h"
#include "stages/inline.h"
#include "stages/reflect.h"
#include "stages/remat.h"
#include "stages/split.h"
#include "stages/target.h"
#include "stages/unroll.h"
#include "stages/vectorize.h"

static void
analyse(LLVMModuleRef m)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct nv_cfg g;
		struct nv_dom d, pd;
		struct nv_loops ls;
		struct nv_liveness lv;
		size_t need;
		unsigned bad;

		if (LLVMIsDeclaration(f))
			continue;
		nv_cfg_build(&g, f);
		nv_dom_build(&d, &g, 0);
		nv_dom_build(&pd, &g, 1);
		nv_loops_build(&ls, &g, &d);
		for (unsigned l = 0; l < ls.n; l++) {
			struct nv_trip t;

			nv_trip_count(&ls, l, &t);
			nv_loop_is_simplified(&ls, l);
			nv_loop_is_lcssa(&ls, l);
			(void)nv_cost_loop(&ls, l);
		}
		if (nv_liveness_build(&lv, &g, td, &need) == 0 && nv_liveness_check(&lv, &bad))
			abort(); /* the dataflow equations do not hold */
		nv_liveness_release(&lv);
		nv_loops_release(&ls);
		nv_dom_release(&pd);
		nv_dom_release(&d);
		nv_cfg_release(&g);
	}
}

enum stage { REFLECT, INLINE, UNROLL, VECTORIZE, REMAT, SPLIT };
static enum stage stage;
static LLVMTargetMachineRef tm;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const names[] = { "reflect", "inline", "unroll", "vectorize", "remat", "split" };
	const char *s = getenv("NV_FUZZ_STAGE");

	(void)argc, (void)argv;
	nv_diag_init("fuzz-ir");
	for (stage = 0; s && *s && strcmp(names[stage], s); stage++)
		if (stage == SPLIT) {
			nv_error("NV_FUZZ_STAGE: unknown stage '%s'", s);
			exit(2);
		}
	nv_target_init();
	tm = nv_target_machine(nv_target_arch("sm_90"), 3, NULL);
	return 0;
}

/* Cut m (consumed) in three and join the parts: every function must come
 * back. */
static void
split_join(LLVMModuleRef m, LLVMModuleRef *out)
{
	struct nv_split_map map = { 0 };
	LLVMModuleRef *parts, joined;
	unsigned n, defs = nv_split_count_defs(m);

	*out = NULL;
	if (nv_split_module(m, 3, &parts, &n, &map))
		return;
	if (nv_split_join(parts, n, &map, &joined) == 0) {
		if (nv_split_count_defs(joined) != defs)
			abort(); /* the join lost or gained a function */
		*out = joined;
	}
	free(parts);
	nv_split_map_release(&map);
}

/* The stage on m; 0 when it ran and its output must be valid.  *m may be
 * replaced (split, vectorize) or NULL after a refusal that consumed it. */
static int
run_stage(LLVMModuleRef *m)
{
	struct nv_reflect r = { .ftz = -1, .arch = 900, .prec_div = 1, .prec_sqrt = 1 };
	struct nv_remat_opts ro;

	switch (stage) {
	case REFLECT:
		return nv_reflect_module(*m, &r);
	case INLINE:
		return nv_inline_module(*m, tm, 3);
	case UNROLL:
		return nv_unroll_module(*m, tm, nv_unroll_config('A'), 3);
	case VECTORIZE:
		return nv_vectorize_module(m, tm, 90);
	case REMAT:
		nv_remat_opts_from_knobs(&ro, 90);
		ro.ceiling = 1; /* every candidate, every round */
		ro.ignore_single_cost = 1;
		ro.max_live_limit = ro.use_limit = 100000;
		nv_remat_module(*m, &ro);
		return 0;
	case SPLIT:
		split_join(*m, m);
		return *m ? 0 : -1;
	}
	return -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	LLVMContextRef ctx;
	LLVMModuleRef m;
	LLVMMemoryBufferRef mb;
	char *msg = NULL;

	/* LLVM's text parser reads past some malformed inline-asm constraints
	 * (t/fixtures/crash-parser-asm.ll): the stages guard their reads with a
	 * probe process, and here it would only hide findings in our code. */
	if (memchr(data, 0, size) || memmem(data, size, "asm", 3))
		return 0;
	ctx = LLVMContextCreate();
	nv_diag_attach(ctx);
	mb = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)data, size, "fuzz");
	if (LLVMParseIRInContext(ctx, mb, &m, &msg)) {
		LLVMDisposeMessage(msg);
		LLVMContextDispose(ctx);
		return 0;
	}
	if (nv_io_verify(m, "input") == 0) {
		if (stage == REFLECT)
			analyse(m);
		if (run_stage(&m) == 0) {
			if (nv_io_verify(m, "module after the stage"))
				abort(); /* the stage broke a valid module */
			if (stage == REFLECT)
				analyse(m);
		}
	}
	if (m)
		LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	return 0;
}
