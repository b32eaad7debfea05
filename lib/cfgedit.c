#include "cfgedit.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "fold.h"
#include "util.h"

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

int
nv_cfg_sreg_read(LLVMValueRef i)
{
	LLVMValueRef callee;
	size_t len;

	if (!LLVMIsACallInst(i) || !(callee = LLVMGetCalledValue(i)) || !LLVMIsAFunction(callee))
		return 0;
	return !strncmp(LLVMGetValueName2(callee, &len), "llvm.nvvm.read.ptx.sreg.", 24);
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
