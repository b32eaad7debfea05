#include "stdpipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/util.h"
#include "../ir/cfgedit.h"
#include "memory.h"
#include "select.h"
#include "unswitch.h"

/*
 * The seeds place cicc's standard pipelines #1, #5 and #8 between its own
 * passes but do not list their contents; these are our choices, each the
 * cleanup that its position calls for.
 */
const struct nv_stdpipe nv_stdpipes[] = {
	{ "std1",
	  "function(sroa,early-cse<memssa>,simplifycfg),thread-cleanup-dests,function(instcombine<no-verify-fixpoint>)",
	  "cleanup between NVIDIA passes (cicc's standard pipeline #1), clang's cleanup blocks threaded" },
	{ "std5",
	  "function(sroa,early-cse<memssa>,gvn,sccp,instcombine<no-verify-fixpoint>,simplifycfg,adce)",
	  "scalar simplification after inlining (cicc's standard pipeline #5)" },
	{ "std8", "function(reassociate,instcombine<no-verify-fixpoint>,dse,adce,simplifycfg)",
	  "late scalar cleanup (cicc's standard pipeline #8)" },
	{ "mid-unroll", "function(instcombine<no-verify-fixpoint>)",
	  "between the early and the late nv-unroll: instcombine, as cicc runs it there" },
	{ "post-unroll",
	  "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,gvn,dse,simplifycfg,"
	  "loop-mssa(licm<allowspeculation>),adce,instcombine<no-verify-fixpoint>,simplifycfg)",
	  "after nv-unroll: promote local arrays the unrolling made constant-indexed, fold the copies, drop stores the unrolled code overwrites" },
	{ "post-unroll-t1",
	  "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,gvn,dse,"
	  "loop-mssa(licm<allowspeculation>),adce,instcombine<no-verify-fixpoint>)",
	  "post-unroll at tier 1 (-O1): without SimplifyCFG, which the seed's tier 1 skips" },
	{ "post-unroll-t3",
	  "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,gvn,dse,simplifycfg,"
	  "loop-mssa(licm<allowspeculation>),adce,instcombine<no-verify-fixpoint>,simplifycfg,tailcallelim)",
	  "post-unroll at tier 3 (-O3): with TailCallElim, one of the seed's tier-3 extras" },
	{ "late-memory",
	  "lower-aggr-copies,byval-args-by-value,function(sroa),set-local-array-alignment,set-extern-shared-alignment,"
	  "function(alignment-from-assumptions,infer-alignment,instcombine<no-verify-fixpoint>,"
	  "load-store-vectorizer,instcombine<no-verify-fixpoint>,"
	  "infer-address-spaces,infer-alignment,load-store-vectorizer),memory-space-opt,base-address-strength-reduce,"
	  "base-address-strength-reduce-chain,select-formation",
	  "the end of cicc's optimizer: lower aggregate copies, pass byval structs to declared functions as values, align local arrays and dynamic shared memory, "
	  "propagate alignment, vectorize loads and stores (again once address spaces are known), "
	  "WMMA loads and stores on their pointer's space, rebase p[x - k] on p[x] in loops, "
	  "step one pointer through p[i], p[i + s], p[i + 2*s] in a block, compare-exchanges to selects" },
	{ "unswitch", "loop-unswitch,function(simplifycfg,instcombine<no-verify-fixpoint>)",
	  "cicc's LoopUnswitch after LICM, before the unroller: one loop per value of a uniform loop-invariant condition, "
	  "then the copies' folded branches merged" },
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

static unsigned
unskip_stores(LLVMModuleRef m)
{
	return nv_memory_unskip_stores(m, (unsigned)nv_knob_int(NV_KNOB_SKIPPED_STORE_LIMIT));
}

/* cicc's passes that LLVM lacks, by cicc's names (and ours, which nv-llc
 * runs before code generation), for the top level of a pipeline text. */
static const struct {
	const char *name;
	unsigned (*run)(LLVMModuleRef m);
} own[] = {
	{ "set-local-array-alignment", nv_memory_align_local_arrays },
	{ "set-extern-shared-alignment", nv_memory_align_extern_shared },
	{ "lower-aggr-copies", nv_memory_lower_aggr_copies },
	{ "unskip-stores", unskip_stores },
	{ "thread-cleanup-dests", nv_cfg_thread_cleanup_dests },
	{ "base-address-strength-reduce", nv_memory_base_address_strength_reduce },
	{ "base-address-strength-reduce-chain", nv_memory_base_address_chain },
	{ "memory-space-opt", nv_memory_space_opt },
	{ "byval-args-by-value", nv_memory_byval_args_by_value },
	{ "select-formation", nv_select_formation },
	{ "loop-unswitch", nv_unswitch },
};

/* The own pass element names (its length len), or -1. */
static int
own_pass(const char *element, size_t len)
{
	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++)
		if (strlen(own[i].name) == len && !strncmp(own[i].name, element, len))
			return (int)i;
	return -1;
}

/* The length of the top-level element at p: up to a comma outside ()<>. */
static size_t
element_len(const char *p)
{
	size_t n = 0;
	int depth = 0;

	for (; p[n] && (depth > 0 || p[n] != ','); n++)
		depth += (p[n] == '(' || p[n] == '<') - (p[n] == ')' || p[n] == '>');
	return n;
}

static char *
run_llvm(LLVMModuleRef m, const char *text, LLVMTargetMachineRef tm, LLVMPassBuilderOptionsRef po)
{
	LLVMErrorRef err = LLVMRunPasses(m, text, tm, po);
	char *msg, *copy;

	if (!err)
		return nv_llvm_error(); /* passes report some errors as diagnostics */
	msg = LLVMGetErrorMessage(err);
	copy = xstrdup(msg);
	LLVMDisposeErrorMessage(msg);
	return copy;
}

char *
nv_stdpipe_run(LLVMModuleRef m, const char *text, LLVMTargetMachineRef tm,
               LLVMPassBuilderOptionsRef po)
{
	size_t cap = strlen(text) + 1, used = 0;
	char *llvm = xmalloc(cap), *err = NULL;

	for (const char *p = text; !err; p++) {
		size_t len = element_len(p);
		int k = own_pass(p, len);

		if (k < 0 && len) {
			used += (size_t)sprintf(llvm + used, "%s%.*s", used ? "," : "", (int)len, p);
		} else if (used) {
			err = run_llvm(m, llvm, tm, po);
			used = 0;
		}
		if (k >= 0 && !err)
			own[k].run(m);
		p += len;
		if (!*p)
			break;
	}
	if (used && !err)
		err = run_llvm(m, llvm, tm, po);
	free(llvm);
	return err;
}

int
nv_run_pipeline(LLVMModuleRef m, LLVMTargetMachineRef tm, const char *text)
{
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	char *err = nv_stdpipe_run(m, text, tm, po);

	LLVMDisposePassBuilderOptions(po);
	if (err) {
		nv_error("LLVM pipeline '%s': %s", text, err);
		free(err);
		return -1;
	}
	return 0;
}

int
nv_run_function_pipeline(LLVMValueRef fn, LLVMTargetMachineRef tm, const char *text)
{
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	LLVMErrorRef err = LLVMRunPassesOnFunction(fn, text, tm, po);
	char *msg = err ? LLVMGetErrorMessage(err) : NULL, *diag = err ? NULL : nv_llvm_error();

	LLVMDisposePassBuilderOptions(po);
	if (msg || diag) {
		nv_error("LLVM pipeline '%s': %s", text, msg ? msg : diag);
		if (msg)
			LLVMDisposeErrorMessage(msg);
		free(diag);
		return -1;
	}
	return 0;
}
