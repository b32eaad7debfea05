#include "cfgedit.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "../base/remarks.h"
#include "../base/util.h"
#include "cfg.h"
#include "dom.h"
#include "fold.h"

void
nv_phi_drop_edge(LLVMBasicBlockRef bb, LLVMBasicBlockRef pred, unsigned keep)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(bb))));
	LLVMValueRef i = LLVMGetFirstInstruction(bb);

	while (i && LLVMGetInstructionOpcode(i) == LLVMPHI) {
		LLVMValueRef next = LLVMGetNextInstruction(i), phi;
		unsigned n = LLVMCountIncoming(i), seen = 0, dropped = 0;
		const char *name;
		size_t len;

		for (unsigned k = 0; k < n; k++)
			if (LLVMGetIncomingBlock(i, k) == pred && seen++ >= keep)
				dropped++;
		if (!dropped) {
			i = next;
			continue;
		}
		/* No way to remove an entry in LLVM-C: build the phi anew. */
		LLVMPositionBuilderBefore(b, i);
		name = LLVMGetValueName2(i, &len);
		char *copy = xasprintf("%.*s", (int)len, name);
		LLVMSetValueName2(i, "", 0);
		phi = LLVMBuildPhi(b, LLVMTypeOf(i), copy);
		free(copy);
		seen = 0;
		for (unsigned k = 0; k < n; k++) {
			LLVMBasicBlockRef in = LLVMGetIncomingBlock(i, k);
			LLVMValueRef v = LLVMGetIncomingValue(i, k);

			if (in == pred && seen++ >= keep)
				continue;
			LLVMAddIncoming(phi, &v, &in, 1);
		}
		LLVMReplaceAllUsesWith(i, phi);
		LLVMInstructionEraseFromParent(i);
		i = next;
	}
	LLVMDisposeBuilder(b);
}

LLVMValueRef
nv_phi_incoming(LLVMValueRef phi, LLVMBasicBlockRef pred)
{
	for (unsigned k = 0; k < LLVMCountIncoming(phi); k++)
		if (LLVMGetIncomingBlock(phi, k) == pred)
			return LLVMGetIncomingValue(phi, k);
	return NULL;
}

/* Replace term with "br target", dropping the phi entries of the edges to
 * every other successor (and all but one to target). */
static void
branch_to(LLVMValueRef term, LLVMBasicBlockRef target)
{
	LLVMBasicBlockRef bb = LLVMGetInstructionParent(term);
	unsigned n = LLVMGetNumSuccessors(term);
	LLVMBasicBlockRef *succ = xcalloc(n, sizeof(*succ));
	LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(term)));

	for (unsigned k = 0; k < n; k++)
		succ[k] = LLVMGetSuccessor(term, k);
	for (unsigned k = 0; k < n; k++) {
		int first = 1;

		for (unsigned j = 0; j < k; j++)
			first &= succ[j] != succ[k];
		if (first)
			nv_phi_drop_edge(succ[k], bb, succ[k] == target ? 1 : 0);
	}
	LLVMPositionBuilderBefore(b, term);
	LLVMBuildBr(b, target);
	LLVMInstructionEraseFromParent(term);
	LLVMDisposeBuilder(b);
	free(succ);
}

int
nv_cfg_fold_terminator(LLVMBasicBlockRef bb)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(bb), c;

	if (!term)
		return 0;
	switch (LLVMGetInstructionOpcode(term)) {
	case LLVMBr:
		if (!LLVMIsConditional(term))
			return 0;
		c = LLVMGetCondition(term);
		if (!LLVMIsAConstantInt(c))
			return 0;
		branch_to(term, LLVMGetSuccessor(term, LLVMConstIntGetZExtValue(c) ? 0 : 1));
		return 1;
	case LLVMSwitch: {
		LLVMBasicBlockRef target = LLVMGetSwitchDefaultDest(term);

		c = LLVMGetOperand(term, 0);
		if (!LLVMIsAConstantInt(c))
			return 0;
		for (unsigned k = 1; k < LLVMGetNumSuccessors(term); k++)
			if (LLVMGetSwitchCaseValue(term, k) == c)
				target = LLVMGetSuccessor(term, k);
		branch_to(term, target);
		return 1;
	}
	default:
		return 0;
	}
}

unsigned
nv_cfg_delete_unreachable(LLVMValueRef fn, void (*on_delete)(LLVMBasicBlockRef, unsigned, void *),
                          void *arg)
{
	unsigned n = LLVMCountBasicBlocks(fn), top = 0, dead = 0;
	LLVMBasicBlockRef *bbs = xcalloc(n, sizeof(*bbs)), *stack = xcalloc(n, sizeof(*stack));
	char *live = xcalloc(n, 1);

	if (!n)
		goto out;
	LLVMGetBasicBlocks(fn, bbs);
	/* Blocks are looked up by position; n is small enough for a scan. */
	stack[top++] = bbs[0];
	live[0] = 1;
	while (top) {
		LLVMValueRef term = LLVMGetBasicBlockTerminator(stack[--top]);

		for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
			LLVMBasicBlockRef s = LLVMGetSuccessor(term, k);

			for (unsigned j = 0; j < n; j++)
				if (bbs[j] == s && !live[j]) {
					live[j] = 1;
					stack[top++] = s;
				}
		}
	}
	for (unsigned j = 0; j < n; j++) {
		LLVMValueRef term;

		if (live[j])
			continue;
		dead++;
		if (on_delete)
			on_delete(bbs[j], j, arg);
		term = LLVMGetBasicBlockTerminator(bbs[j]);
		for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++)
			nv_phi_drop_edge(LLVMGetSuccessor(term, k), bbs[j], 0);
	}
	/* Cut every use of a dead block's values, then its instructions, then it. */
	for (unsigned j = 0; j < n; j++) {
		if (live[j])
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bbs[j]); i; i = LLVMGetNextInstruction(i))
			if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
				LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
	}
	for (unsigned j = 0; j < n; j++) {
		LLVMValueRef i;

		if (live[j])
			continue;
		while ((i = LLVMGetLastInstruction(bbs[j])))
			LLVMInstructionEraseFromParent(i);
		LLVMDeleteBasicBlock(bbs[j]);
	}
out:
	free(bbs);
	free(stack);
	free(live);
	return dead;
}

const char *
nv_cfg_callee_name(LLVMValueRef i)
{
	LLVMValueRef callee;
	size_t len;

	if (!LLVMIsACallInst(i) || !(callee = LLVMGetCalledValue(i)) || !LLVMIsAFunction(callee))
		return NULL;
	return LLVMGetValueName2(callee, &len);
}

int
nv_cfg_lifetime_marker(LLVMValueRef i)
{
	const char *name = nv_cfg_callee_name(i);

	return name && !strncmp(name, "llvm.lifetime.", 14);
}

int
nv_cfg_sreg_read(LLVMValueRef i)
{

	/* fixed for the thread's life; not clock, clock64, globaltimer, smid,
	 * warpid (which PTX says may change as the thread is rescheduled), or
	 * the performance counters */
	static const char *const fixed[] = {
		"tid.", "ntid.", "ctaid.", "nctaid.", "laneid", "warpsize", "lanemask.", "gridid",
		"clusterid.", "nclusterid.", "cluster.ctaid.", "cluster.nctaid.", "cluster.ctarank",
		"cluster.nctarank", "is.explicit.cluster",
	};
	const char *name = nv_cfg_callee_name(i);

	if (!name || strncmp(name, "llvm.nvvm.read.ptx.sreg.", 24))
		return 0;
	for (size_t k = 0; k < sizeof(fixed) / sizeof(*fixed); k++)
		if (!strncmp(name + 24, fixed[k], strlen(fixed[k])))
			return 1;
	return 0;
}

void
nv_cfg_move_before(LLVMValueRef i, LLVMValueRef before)
{
	size_t len;
	char *name = xstrdup(LLVMGetValueName2(i, &len));
	LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(i)));

	LLVMInstructionRemoveFromParent(i);
	LLVMPositionBuilderBefore(b, before);
	LLVMInsertIntoBuilderWithName(b, i, name);
	LLVMDisposeBuilder(b);
	free(name);
}

int
nv_cfg_pure(LLVMValueRef i)
{
	switch (LLVMGetInstructionOpcode(i)) {
	case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMAnd: case LLVMOr: case LLVMXor:
	case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMFAdd: case LLVMFSub: case LLVMFMul:
	case LLVMFNeg: case LLVMICmp: case LLVMFCmp: case LLVMZExt: case LLVMSExt: case LLVMTrunc:
	case LLVMFPExt: case LLVMFPTrunc: case LLVMBitCast: case LLVMAddrSpaceCast: case LLVMPtrToInt:
	case LLVMIntToPtr: case LLVMGetElementPtr: case LLVMSelect: case LLVMPHI:
	case LLVMExtractValue: case LLVMInsertValue: case LLVMExtractElement:
	case LLVMInsertElement: case LLVMShuffleVector: case LLVMFreeze:
		return 1;
	default:
		return 0;
	}
}

unsigned
nv_cfg_erase_dead(LLVMValueRef fn)
{
	unsigned erased = 0, again = 1;

	while (again) {
		again = 0;
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
			LLVMValueRef i = LLVMGetFirstInstruction(b);

			while (i) {
				LLVMValueRef next = LLVMGetNextInstruction(i);

				if (!LLVMGetFirstUse(i) && nv_cfg_pure(i)) {
					LLVMInstructionEraseFromParent(i);
					erased++;
					again = 1;
				}
				i = next;
			}
		}
	}
	return erased;
}

unsigned
nv_cfg_fold_all(LLVMValueRef fn)
{
	unsigned folded = 0, again = 1;

	while (again) {
		again = 0;
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
			LLVMValueRef i = LLVMGetFirstInstruction(b);

			while (i) {
				LLVMValueRef next = LLVMGetNextInstruction(i), v = nv_fold(i);

				if (v && v != i) {
					LLVMReplaceAllUsesWith(i, v);
					LLVMInstructionEraseFromParent(i);
					folded++;
					again = 1;
				}
				i = next;
			}
		}
	}
	return folded;
}

/*
 * thread-cleanup-dests.  Clang leaves a scope that has locals with lifetime
 * markers (a break, continue or return out of a loop body that declares a
 * variable) through one cleanup block that switches on a "cleanup
 * destination"; after SROA that block is only phis and a switch on a phi
 * of constants.  Each predecessor knows its constant, so it can branch
 * straight to its case.  Left alone, LLVM turns the switch into a second
 * test of the loop's exit condition in the latch (InstCombine rewrites the
 * phi of constants as that condition before SimplifyCFG can thread it), and
 * the loop is not rotated: mandelbrot's escape loop ran 13% slower than
 * nvcc's on an H100 for it.  EDG, cicc's front end, makes no such blocks.
 *
 * Only edges to a successor that does not dominate the block are threaded
 * (the exits), so a loop keeps its latch and the latch its !llvm.loop.
 */

/* The successor that term (a br or switch) takes when its condition is c. */
static LLVMBasicBlockRef
const_target(LLVMValueRef term, LLVMValueRef c)
{
	if (LLVMGetInstructionOpcode(term) == LLVMBr)
		return LLVMGetSuccessor(term, LLVMConstIntGetZExtValue(c) ? 0 : 1);
	for (unsigned k = 1; k < LLVMGetNumSuccessors(term); k++)
		if (LLVMGetSwitchCaseValue(term, k) == c)
			return LLVMGetSuccessor(term, k);
	return LLVMGetSwitchDefaultDest(term);
}

static int
is_succ(LLVMValueRef term, LLVMBasicBlockRef bb)
{
	for (unsigned k = 0; k < LLVMGetNumSuccessors(term); k++)
		if (LLVMGetSuccessor(term, k) == bb)
			return 1;
	return 0;
}

/* The condition of bb's terminator if bb is such a cleanup block: only
 * phis before a br or switch on one of them whose only use is that br or
 * switch.  The edges on which that phi is a constant can be threaded (an
 * inner cleanup's destination is a phi of the outer one until the inner is
 * threaded). */
static LLVMValueRef
cleanup_switch(LLVMBasicBlockRef bb)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(bb), c, i;
	LLVMUseRef u;

	if (!term)
		return NULL;
	if (LLVMGetInstructionOpcode(term) == LLVMSwitch)
		c = LLVMGetOperand(term, 0);
	else if (LLVMGetInstructionOpcode(term) == LLVMBr && LLVMIsConditional(term))
		c = LLVMGetCondition(term);
	else
		return NULL;
	if (!LLVMIsAPHINode(c) || LLVMGetInstructionParent(c) != bb || is_succ(term, bb))
		return NULL;
	u = LLVMGetFirstUse(c);
	if (LLVMGetUser(u) != term || LLVMGetNextUse(u))
		return NULL;
	for (i = LLVMGetFirstInstruction(bb); i != term; i = LLVMGetNextInstruction(i))
		if (!LLVMIsAPHINode(i))
			return NULL;
	return c;
}

/* Once an edge into bb goes to target instead, is every value bb defines
 * still available where it is used?  A use on a phi's edge from bb is
 * rewritten (thread_edge); any other use (a phi's from its edge's block)
 * must lie under a successor of bb other than target that only bb enters:
 * no path from target reaches it without passing through bb. */
static int
uses_stay_dominated(const struct nv_cfg *g, const struct nv_dom *d, LLVMBasicBlockRef bb,
                    LLVMBasicBlockRef target)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
	unsigned b = nv_cfg_index(g, bb);

	for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != term; i = LLVMGetNextInstruction(i))
		for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u)) {
			LLVMValueRef user = LLVMGetUser(u);
			unsigned at, ok = 0;

			if (user == term)
				continue;
			if (LLVMIsAPHINode(user)) {
				unsigned k = 0;

				/* a use's edge: the operand slot of u */
				while (LLVMGetOperandUse(user, k) != u)
					k++;
				if (LLVMGetIncomingBlock(user, k) == bb)
					continue;
				at = nv_cfg_index(g, LLVMGetIncomingBlock(user, k));
			} else {
				at = nv_cfg_index(g, LLVMGetInstructionParent(user));
			}
			for (unsigned k = g->succ_off[b]; k < g->succ_off[b + 1] && !ok; k++) {
				unsigned s = g->succ[k], only = 1;

				for (unsigned j = g->pred_off[s]; j < g->pred_off[s + 1]; j++)
					only &= g->pred[j] == b;
				ok = only && s != nv_cfg_index(g, target) && nv_dom_dominates(d, s, at);
			}
			if (!ok)
				return 0;
		}
	return 1;
}

/* Send pred (an edge into the cleanup block bb) straight to target. */
static void
thread_edge(LLVMBasicBlockRef bb, LLVMBasicBlockRef pred, LLVMBasicBlockRef target)
{
	LLVMValueRef pterm = LLVMGetBasicBlockTerminator(pred);

	for (LLVMValueRef q = LLVMGetFirstInstruction(target); q && LLVMIsAPHINode(q);
	     q = LLVMGetNextInstruction(q)) {
		LLVMValueRef v = nv_phi_incoming(q, bb);

		if (LLVMIsAPHINode(v) && LLVMGetInstructionParent(v) == bb)
			v = nv_phi_incoming(v, pred);
		LLVMAddIncoming(q, &v, &pred, 1);
	}
	for (unsigned k = 0; k < LLVMGetNumSuccessors(pterm); k++)
		if (LLVMGetSuccessor(pterm, k) == bb)
			LLVMSetSuccessor(pterm, k, target);
	nv_phi_drop_edge(bb, pred, 0);
}

/* bb, a cleanup block that one edge enters now, branches to its target
 * for that edge's constant, which dominates it (the loop's header, so bb is
 * a latch): the phis give way to their values and the br keeps the switch's
 * !llvm.loop (SimplifyCFG, folding the switch, would drop it: a #pragma
 * unroll lost). */
static void
fold_latch(LLVMBasicBlockRef bb, LLVMValueRef c)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(bb), i, next;
	LLVMBasicBlockRef target = const_target(term, LLVMGetIncomingValue(c, 0));
	unsigned kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(term)), "llvm.loop", 9);
	LLVMValueRef md = LLVMGetMetadata(term, kind);

	branch_to(term, target);
	if (md)
		LLVMSetMetadata(LLVMGetBasicBlockTerminator(bb), kind, md);
	for (i = LLVMGetFirstInstruction(bb); LLVMIsAPHINode(i); i = next) {
		next = LLVMGetNextInstruction(i);
		LLVMReplaceAllUsesWith(i, LLVMGetIncomingValue(i, 0));
		LLVMInstructionEraseFromParent(i);
	}
}

/* Thread one edge of fn that can be; 1 if one was. */
static int
thread_one(LLVMValueRef fn)
{
	struct nv_cfg g;
	struct nv_dom d;
	int done = 0;

	nv_cfg_build(&g, fn);
	nv_dom_build(&d, &g, 0);
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !done; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef c = cleanup_switch(bb), term = LLVMGetBasicBlockTerminator(bb);
		unsigned b = nv_cfg_index(&g, bb);

		if (!c || !nv_cfg_reachable(&g, b))
			continue;
		for (unsigned k = 0; k < LLVMCountIncoming(c) && !done; k++) {
			LLVMBasicBlockRef pred = LLVMGetIncomingBlock(c, k);
			LLVMValueRef pterm = LLVMGetBasicBlockTerminator(pred);
			LLVMBasicBlockRef target;
			unsigned edges = 0, t;

			if (!LLVMIsAConstantInt(LLVMGetIncomingValue(c, k)))
				continue;
			target = const_target(term, LLVMGetIncomingValue(c, k));
			t = nv_cfg_index(&g, target);
			if (LLVMGetInstructionOpcode(pterm) != LLVMBr && LLVMGetInstructionOpcode(pterm) != LLVMSwitch)
				continue;
			for (unsigned j = 0; j < LLVMGetNumSuccessors(pterm); j++)
				edges += LLVMGetSuccessor(pterm, j) == bb;
			if (edges != 1 || is_succ(pterm, target) || nv_dom_dominates(&d, t, b) ||
			    !uses_stay_dominated(&g, &d, bb, target))
				continue;
			if (nv_remark_enabled(NV_REMARK_PASSED, "thread-cleanup-dests")) {
				char *from = nv_block_label(bb), *to = nv_block_label(target);

				nv_remark(NV_REMARK_PASSED, "thread-cleanup-dests", "Threaded", pterm,
				          "a branch through the cleanup block '%s' goes straight to '%s'", from, to);
				free(from);
				free(to);
			}
			thread_edge(bb, pred, target);
			done = 1;
			c = cleanup_switch(bb);
			if (c && LLVMCountIncoming(c) == 1 && LLVMIsAConstantInt(LLVMGetIncomingValue(c, 0))) {
				LLVMBasicBlockRef back = const_target(term, LLVMGetIncomingValue(c, 0));

				if (nv_dom_dominates(&d, nv_cfg_index(&g, back), b))
					fold_latch(bb, c);
			}
		}
	}
	nv_dom_release(&d);
	nv_cfg_release(&g);
	return done;
}

unsigned
nv_cfg_thread_cleanup_dests(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		LLVMBasicBlockRef bb = LLVMIsDeclaration(f) ? NULL : LLVMGetFirstBasicBlock(f);
		/* each edge moves on to a block that does not dominate the one it
		 * left; the cap is for an irreducible cycle of cleanup blocks */
		unsigned was = n, cap = 4 * LLVMCountBasicBlocks(f);

		while (bb && !cleanup_switch(bb))
			bb = LLVMGetNextBasicBlock(bb);
		if (!bb)
			continue; /* none: no CFG or dominators built */
		while (n - was < cap && thread_one(f))
			n++;
		if (n > was)
			nv_cfg_delete_unreachable(f, NULL, NULL);
	}
	return n;
}

unsigned
nv_cfg_each_defined(LLVMModuleRef m, unsigned (*fn)(LLVMValueRef f, LLVMBuilderRef b))
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			n += fn(f, b);
	LLVMDisposeBuilder(b);
	return n;
}
