#include "stdpipe.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "diag.h"

/*
 * The seeds place cicc's standard pipelines #1, #5 and #8 between its own
 * passes but do not list their contents; these are our choices, each the
 * cleanup that its position calls for.
 */
const struct nv_stdpipe nv_stdpipes[] = {
	{ "std1", "function(sroa,early-cse<memssa>,simplifycfg,instcombine<no-verify-fixpoint>)",
	  "cleanup between NVIDIA passes (cicc's standard pipeline #1)" },
	{ "std5",
	  "function(sroa,early-cse<memssa>,gvn,sccp,instcombine<no-verify-fixpoint>,simplifycfg,adce)",
	  "scalar simplification after inlining (cicc's standard pipeline #5)" },
	{ "std8", "function(reassociate,instcombine<no-verify-fixpoint>,dse,adce,simplifycfg)",
	  "late scalar cleanup (cicc's standard pipeline #8)" },
	{ "mid-unroll", "function(instcombine<no-verify-fixpoint>)",
	  "between the early and the late nv-unroll: instcombine, as cicc runs it there" },
	{ "post-unroll",
	  "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,gvn,simplifycfg,"
	  "loop-mssa(licm<allowspeculation>),adce,instcombine<no-verify-fixpoint>,simplifycfg)",
	  "after nv-unroll: promote local arrays the unrolling made constant-indexed, fold the copies" },
	{ "post-unroll-t1",
	  "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,gvn,"
	  "loop-mssa(licm<allowspeculation>),adce,instcombine<no-verify-fixpoint>)",
	  "post-unroll at tier 1 (-O1): without SimplifyCFG, which the seed's tier 1 skips" },
	{ "post-unroll-t3",
	  "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,gvn,simplifycfg,"
	  "loop-mssa(licm<allowspeculation>),adce,instcombine<no-verify-fixpoint>,simplifycfg,tailcallelim)",
	  "post-unroll at tier 3 (-O3): with TailCallElim, one of the seed's tier-3 extras" },
	{ "loop-canon",
	  "function(sroa,simplifycfg,loop-simplify,lcssa,loop-mssa(loop-rotate,licm<allowspeculation>),loop(indvars),"
	  "loop-simplify,lcssa)",
	  "put loops into simplified, rotated, LCSSA form for nv-unroll and nv-vectorize" },
	{ NULL, NULL, NULL },
};

const struct nv_stdpipe *
nv_stdpipe_find(const char *name)
{
	for (const struct nv_stdpipe *p = nv_stdpipes; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

int
nv_run_pipeline(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *text)
{
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	LLVMErrorRef err = LLVMRunPasses(m, text, tm, po);
	char *diag = err ? NULL : nv_llvm_error();

	LLVMDisposePassBuilderOptions(po);
	if (err) {
		char *msg = LLVMGetErrorMessage(err);

		nv_error("LLVM pipeline '%s': %s", text, msg);
		LLVMDisposeErrorMessage(msg);
		return -1;
	}
	if (diag) {
		nv_error("LLVM pipeline '%s': %s", text, diag);
		free(diag);
		return -1;
	}
	return 0;
}
