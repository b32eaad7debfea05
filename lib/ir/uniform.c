#include "uniform.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "../base/util.h"
#include "cfgedit.h"
#include "loops.h"

struct work {
	struct nv_uniform *u;
	LLVMValueRef *v;
	size_t n, cap;
};

static void
mark(struct work *w, LLVMValueRef v)
{
	if (nv_ptrmap_get(&w->u->divergent, v) != NV_NONE)
		return;
	nv_ptrmap_put(&w->u->divergent, v, 1);
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->v = xrealloc(w->v, w->cap * sizeof(*w->v));
	}
	w->v[w->n++] = v;
}

/* Is the value of instruction i divergent whatever its operands are? */
static int
source_of_divergence(LLVMValueRef i)
{
	/* special registers that differ between the threads of a warp, or
	 * between two reads */
	static const char *const thread[] = { "tid.", "laneid", "lanemask.", "clock", "globaltimer",
		                              "smid", "warpid", "nsmid", "nwarpid", "pm" };
	const char *name;

	if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
		return 1;
	if (LLVMIsALoadInst(i)) {
		unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(i, 0)));

		return as == 0 || as == 5; /* generic may be local; local is per thread */
	}
	if (!LLVMIsACallInst(i))
		return 0;
	name = nv_cfg_callee_name(i);
	if (!name || strncmp(name, "llvm.", 5))
		return 1; /* a function we cannot see into, or an indirect call */
	if (!strncmp(name, "llvm.nvvm.read.ptx.sreg.", 24)) {
		for (size_t k = 0; k < sizeof(thread) / sizeof(*thread); k++)
			if (!strncmp(name + 24, thread[k], strlen(thread[k])))
				return 1;
		return 0;
	}
	/* NVVM's other intrinsics include shuffles, votes, atomics and
	 * matrix fragments: divergent, conservatively.  LLVM's own compute
	 * from their operands. */
	return !strncmp(name, "llvm.nvvm.", 10);
}

/* A block with a divergent branch: the phis of every block it reaches
 * (the joins, and loop headers) are divergent, and so is every use outside
 * a loop containing it of a value defined in that loop. */
static void
divergent_branch(struct work *w, struct nv_fn_loops *a, unsigned b, unsigned char *seen)
{
	const struct nv_cfg *g = &a->g;
	unsigned *stack = xmalloc((g->n + 1) * sizeof(*stack)), sp = 0;

	memset(seen, 0, g->n);
	for (unsigned k = g->succ_off[b]; k < g->succ_off[b + 1]; k++)
		if (!seen[g->succ[k]]) {
			seen[g->succ[k]] = 1;
			stack[sp++] = g->succ[k];
		}
	while (sp) {
		unsigned s = stack[--sp];

		for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[s]); i && LLVMIsAPHINode(i);
		     i = LLVMGetNextInstruction(i))
			mark(w, i);
		for (unsigned k = g->succ_off[s]; k < g->succ_off[s + 1]; k++)
			if (!seen[g->succ[k]]) {
				seen[g->succ[k]] = 1;
				stack[sp++] = g->succ[k];
			}
	}
	free(stack);
	for (unsigned l = a->ls.innermost[b]; l != NV_NONE; l = a->ls.v[l].parent) {
		const struct nv_loop *lp = &a->ls.v[l];

		for (unsigned k = 0; k < lp->nblocks; k++)
			for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[lp->blocks[k]]); i;
			     i = LLVMGetNextInstruction(i))
				for (LLVMUseRef use = LLVMGetFirstUse(i); use; use = LLVMGetNextUse(use)) {
					LLVMValueRef user = LLVMGetUser(use);
					unsigned ub = nv_cfg_index(g, LLVMGetInstructionParent(user));

					if (ub != NV_NONE && !nv_loop_contains(&a->ls, l, ub))
						mark(w, user);
				}
	}
}

void
nv_uniform_build(struct nv_uniform *u, LLVMValueRef fn, int args_uniform)
{
	struct work w = { u, NULL, 0, 0 };
	struct nv_fn_loops a;
	unsigned char *seen, *branched;

	u->fn = fn;
	u->args_uniform = args_uniform;
	nv_ptrmap_init(&u->divergent, 64);
	nv_fn_loops_build(&a, fn);
	seen = xcalloc(a.g.n + 1, 1);
	branched = xcalloc(a.g.n + 1, 1);
	if (!args_uniform)
		for (LLVMValueRef p = LLVMGetFirstParam(fn); p; p = LLVMGetNextParam(p))
			mark(&w, p);
	for (unsigned b = 0; b < a.g.n; b++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(a.g.bb[b]); i; i = LLVMGetNextInstruction(i))
			if (source_of_divergence(i))
				mark(&w, i);
	while (w.n) {
		LLVMValueRef v = w.v[--w.n];

		for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
			LLVMValueRef user = LLVMGetUser(use);
			unsigned b;

			if (!LLVMIsAInstruction(user))
				continue;
			if (LLVMIsABranchInst(user) || LLVMIsASwitchInst(user)) {
				b = nv_cfg_index(&a.g, LLVMGetInstructionParent(user));
				if (b != NV_NONE && !branched[b]) {
					branched[b] = 1;
					divergent_branch(&w, &a, b, seen);
				}
				continue;
			}
			mark(&w, user);
		}
	}
	free(w.v);
	free(seen);
	free(branched);
	nv_fn_loops_release(&a);
}

int
nv_uniform_is(const struct nv_uniform *u, LLVMValueRef v)
{
	if (LLVMIsAConstant(v) && !LLVMIsAGlobalValue(v))
		return 1;
	if (LLVMIsAGlobalValue(v))
		return 1; /* an address, the same in every thread */
	return nv_ptrmap_get(&u->divergent, v) == NV_NONE;
}

void
nv_uniform_release(struct nv_uniform *u)
{
	nv_ptrmap_release(&u->divergent);
}
