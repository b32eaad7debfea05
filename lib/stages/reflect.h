#ifndef NV_STAGES_REFLECT_H
#define NV_STAGES_REFLECT_H
/*
 * reflect: NVVMReflect and nvvm-reflect-pp.
 *
 * Requires: a verified module.  Every call of __nvvm_reflect(ptr) and of
 * llvm.nvvm.reflect(ptr) must name its query with a constant string (a
 * global, maybe behind constant GEPs and casts).
 * Does: replaces each call with the query's value, then in the functions
 * that had one folds the conditions that became constant, turns branches
 * and switches on constants into plain branches, deletes the blocks no
 * longer reachable (fixing phis) and erases what became dead; the reflect
 * declarations and query strings left without uses are removed.
 * Preserves: everything else; no new blocks, no other transformation.
 */
#include <stddef.h>

#include <llvm-c/Types.h>

struct nv_reflect_def {
	const char *name;
	long long value;
};

struct nv_reflect {
	/* inputs: ftz < 0 means "from the module flag nvvm-reflect-ftz, else 0" */
	int ftz, arch, prec_div, prec_sqrt;
	const struct nv_reflect_def *defs; /* -R NAME=VALUE, these win */
	size_t ndefs;
	/* results */
	unsigned calls, blocks;
};

/* Resolve the reflect calls of m and simplify what they decided.  Returns 0,
 * or -1 after an error for a call whose query is not a constant string. */
int nv_reflect_module(LLVMModuleRef m, struct nv_reflect *r);
/* nvvm-reflect-pp on one function: fold constant conditions and delete the
 * blocks they cut off.  Returns the number of blocks deleted. */
unsigned nv_simplify_constant_conditionals(LLVMValueRef fn);

#endif
