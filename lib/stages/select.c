#include "select.h"

#include <stdlib.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "../base/knobs.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfg.h"
#include "../ir/cfgedit.h"
#include "../ir/dom.h"

/*
 * select-formation.  Requires nothing of the IR; changes phis only, never
 * the CFG, so the CFG and its dominator tree survive it.
 *
 * A sorting network or a merge step over a register array, "if (b < a)
 * swap(a, b)" with payload values swapped along (CUB's StableOddEvenSort),
 * reaches SimplifyCFG as a triangle whose join has a phi per value swapped.
 * SimplifyCFG folds two such phis into selects and no more (its
 * FoldTwoEntryPHINode: "at some point this becomes non-profitable"), and
 * not at all when the condition is itself a short-circuit (a lexicographic
 * compare threaded into the CFG).  Branches and a copy per value on one
 * side stay, where cicc emits min/max and selp: its kernels hold fewer
 * registers.  Here a join whose phis all pick between the same two sets of
 * values that exist before the branches gets one i1 phi that says which set
 * came in and a select per phi on it.  Every value dominates the join, so
 * the selects compute what the phis did on every path; a select of a
 * poison value it does not pick is not poison.  SimplifyCFG then folds the
 * i1 phi of a triangle or diamond into its branch's condition (one phi is
 * within its limit) and the branch away; instruction selection makes
 * min/max of the keys' selects.
 *
 * Where two branches decide (a lexicographic compare), the branches stay
 * and the selects take the i1 phi, as cicc's PTX has them; but LLVM sinks
 * the selects of values used only at the kernel's end there (InstCombine
 * into a block without successors, MachineSink down the dominator tree),
 * and every predicate stays live until then: 40 registers become 56 on a
 * key-value odd-even sort.  So that is -nv-select-formation=2, and the
 * default takes one deciding branch only; the pass runs after the last
 * InstCombine.
 *
 * cicc, observed (nvcc 13.0, sm_90): integer compares make selects of any
 * number of phis; under a float compare it keeps the branch beyond two
 * phis, and so does this pass unless -nv-select-formation-fcmp.  Phis of
 * values computed on a side of the branch stay phis, as cicc keeps them.
 */

#define PASS "select-formation"
#define MAX_PREDS 64

struct join {
	const struct nv_cfg *g;
	const struct nv_dom *d;
	unsigned j;                         /* the join's block index */
	LLVMBasicBlockRef pred[MAX_PREDS];  /* its incoming blocks, as the first phi lists them */
	unsigned npred;
	int side[MAX_PREDS];                /* 1: the first set of values comes from pred[k], 0: the second */
};

/* v is there before j: a constant, an argument, or an instruction whose
 * block strictly dominates j. */
static int
available(const struct join *x, LLVMValueRef v)
{
	unsigned b;

	if (!LLVMIsAInstruction(v))
		return 1;
	b = nv_cfg_index(x->g, LLVMGetInstructionParent(v));
	return b != NV_NONE && b != x->j && nv_dom_dominates(x->d, b, x->j);
}

static LLVMValueRef
incoming_from(LLVMValueRef phi, LLVMBasicBlockRef pred)
{
	unsigned n = LLVMCountIncoming(phi);

	for (unsigned k = 0; k < n; k++)
		if (LLVMGetIncomingBlock(phi, k) == pred)
			return LLVMGetIncomingValue(phi, k);
	return NULL;
}

static int
selectable_type(LLVMTypeRef t)
{
	switch (LLVMGetTypeKind(t)) {
	case LLVMIntegerTypeKind: case LLVMHalfTypeKind: case LLVMBFloatTypeKind: case LLVMFloatTypeKind:
	case LLVMDoubleTypeKind: case LLVMPointerTypeKind: case LLVMVectorTypeKind:
		return 1;
	default:
		return 0;
	}
}

/* The join's incoming blocks, each reachable and none a back edge. */
static int
collect_preds(struct join *x, LLVMValueRef phi)
{
	x->npred = LLVMCountIncoming(phi);
	if (x->npred < 2 || x->npred > MAX_PREDS)
		return 0;
	for (unsigned k = 0; k < x->npred; k++) {
		unsigned p;

		x->pred[k] = LLVMGetIncomingBlock(phi, k);
		p = nv_cfg_index(x->g, x->pred[k]);
		if (p == NV_NONE || !nv_cfg_reachable(x->g, p) || nv_dom_dominates(x->d, x->j, p))
			return 0;
	}
	return 1;
}

/* Split the incoming blocks in two by the values every phi takes from
 * them: side 1 gives each phi what pred[0] gives it (a[i]), side 0 what
 * the first block that differs gives (b[i]).  The number of phis whose two
 * values differ, or -1 when some block gives neither set, a value is not
 * there before the join, or a phi cannot be a select. */
static int
split_sides(struct join *x, LLVMValueRef *phi, unsigned n, LLVMValueRef *a, LLVMValueRef *b)
{
	int have_b = 0, real = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!selectable_type(LLVMTypeOf(phi[i])) || LLVMCountIncoming(phi[i]) != x->npred)
			return -1;
		a[i] = b[i] = incoming_from(phi[i], x->pred[0]);
	}
	for (unsigned k = 0; k < x->npred; k++) {
		int is_a = 1, is_b = have_b;

		for (unsigned i = 0; i < n; i++) {
			LLVMValueRef v = incoming_from(phi[i], x->pred[k]);

			if (!v || !available(x, v))
				return -1;
			is_a &= v == a[i];
			is_b &= v == b[i];
		}
		if (!is_a && !is_b && have_b)
			return -1;
		if (!is_a && !have_b) {
			for (unsigned i = 0; i < n; i++)
				b[i] = incoming_from(phi[i], x->pred[k]);
			have_b = is_b = 1;
		}
		x->side[k] = is_a;
	}
	for (unsigned i = 0; i < n; i++)
		real += a[i] != b[i];
	return real;
}

/* c decides by a float compare: one, or a not/and/or/select of i1 over one. */
static int
float_condition(LLVMValueRef c, int depth)
{
	if (!LLVMIsAInstruction(c) || depth > 2)
		return 0;
	if (LLVMIsAFCmpInst(c))
		return 1;
	switch (LLVMGetInstructionOpcode(c)) {
	case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMSelect:
		for (int k = 0; k < LLVMGetNumOperands(c); k++)
			if (float_condition(LLVMGetOperand(c, (unsigned)k), depth + 1))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* Some branch between the join's immediate dominator and the join (the
 * blocks that dominator dominates, on a way back from the join) decides by
 * a float compare. */
static int
float_decided(const struct join *x)
{
	unsigned top = x->d->idom[x->j], *stack = xmalloc(sizeof(*stack) * x->g->n), n = 0;
	char *seen = xcalloc(x->g->n, 1);
	int found = 0;

	for (unsigned k = 0; k < x->npred; k++) {
		unsigned p = nv_cfg_index(x->g, x->pred[k]);

		if (!seen[p])
			seen[p] = 1, stack[n++] = p;
	}
	while (n && !found) {
		unsigned b = stack[--n];
		LLVMValueRef t = LLVMGetBasicBlockTerminator(x->g->bb[b]);

		if (t && LLVMIsABranchInst(t) && LLVMIsConditional(t))
			found = float_condition(LLVMGetCondition(t), 0);
		if (b == top)
			continue;
		for (unsigned e = x->g->pred_off[b]; e < x->g->pred_off[b + 1]; e++) {
			unsigned p = x->g->pred[e];

			if (!seen[p] && p != x->j && nv_dom_dominates(x->d, top, p))
				seen[p] = 1, stack[n++] = p;
		}
	}
	free(stack);
	free(seen);
	return found;
}

static LLVMValueRef
first_non_phi(LLVMBasicBlockRef bb)
{
	LLVMValueRef i = LLVMGetFirstInstruction(bb);

	while (LLVMIsAPHINode(i))
		i = LLVMGetNextInstruction(i);
	return i;
}

/* One conditional branch decides which set comes in: the join's immediate
 * dominator branches on it, and each incoming block is that dominator or
 * an empty block it alone enters.  SimplifyCFG then folds the i1 phi into
 * the branch's condition and the branch away. */
static int
one_branch_decides(const struct join *x)
{
	LLVMBasicBlockRef top = x->g->bb[x->d->idom[x->j]];
	LLVMValueRef br = LLVMGetBasicBlockTerminator(top);

	if (!br || !LLVMIsABranchInst(br) || !LLVMIsConditional(br))
		return 0;
	for (unsigned k = 0; k < x->npred; k++) {
		LLVMBasicBlockRef p = x->pred[k];
		LLVMValueRef first = LLVMGetFirstInstruction(p);
		unsigned pi = nv_cfg_index(x->g, p);

		if (p == top)
			continue;
		if (first != LLVMGetBasicBlockTerminator(p) || nv_cfg_npred(x->g, pi) != 1 ||
		    x->g->bb[x->g->pred[x->g->pred_off[pi]]] != top)
			return 0;
	}
	return 1;
}

/* The join's phis become selects on one i1 phi; the number replaced. */
static unsigned
rewrite(const struct join *x, LLVMValueRef *phi, unsigned n, LLVMValueRef *a, LLVMValueRef *b)
{
	LLVMBasicBlockRef bb = x->g->bb[x->j];
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(phi[0]));
	LLVMTypeRef i1 = LLVMInt1TypeInContext(ctx);
	LLVMBuilderRef bld = LLVMCreateBuilderInContext(ctx);
	LLVMValueRef side, vals[MAX_PREDS], at = LLVMGetBasicBlockTerminator(x->g->bb[x->d->idom[x->j]]);
	unsigned real = 0;

	LLVMPositionBuilder(bld, bb, LLVMGetFirstInstruction(bb));
	side = LLVMBuildPhi(bld, i1, "select.side");
	for (unsigned k = 0; k < x->npred; k++)
		vals[k] = LLVMConstInt(i1, (unsigned long long)x->side[k], 0);
	LLVMAddIncoming(side, vals, (LLVMBasicBlockRef *)x->pred, x->npred);
	LLVMPositionBuilderBefore(bld, first_non_phi(bb));
	for (unsigned i = 0; i < n; i++) {
		size_t len;
		char *name = xstrdup(LLVMGetValueName2(phi[i], &len));
		LLVMValueRef v;

		LLVMSetValueName2(phi[i], "", 0);
		v = a[i] == b[i] ? a[i] : LLVMBuildSelect(bld, side, a[i], b[i], name);

		real += a[i] != b[i];
		LLVMReplaceAllUsesWith(phi[i], v);
		LLVMInstructionEraseFromParent(phi[i]);
		free(name);
	}
	LLVMDisposeBuilder(bld);
	nv_remark(NV_REMARK_PASSED, PASS, "PhisToSelects", at,
	          "%u phis that pick between the same two sets of values become selects on one predicate", real);
	return real;
}

static unsigned
function_phis(LLVMValueRef fn, int mode, int fcmp, int min)
{
	struct nv_cfg g;
	struct nv_dom d;
	struct join x;
	unsigned done = 0, cap = 16;
	LLVMValueRef *phi = xmalloc(sizeof(*phi) * cap * 3);

	nv_cfg_build(&g, fn);
	nv_dom_build(&d, &g, 0);
	x.g = &g;
	x.d = &d;
	for (unsigned r = 0; r < g.nrpo; r++) {
		LLVMValueRef *a, *b;
		unsigned n = 0;
		int real, one;

		x.j = g.rpo[r];
		for (LLVMValueRef i = LLVMGetFirstInstruction(g.bb[x.j]); i && LLVMIsAPHINode(i);
		     i = LLVMGetNextInstruction(i)) {
			if (n == cap)
				phi = xrealloc(phi, sizeof(*phi) * (cap *= 2) * 3);
			phi[n++] = i;
		}
		if (!n || x.j == g.rpo[0] || !collect_preds(&x, phi[0]))
			continue;
		a = phi + cap;
		b = phi + 2 * cap;
		real = split_sides(&x, phi, n, a, b);
		if (real < min || real < 1)
			continue;
		one = one_branch_decides(&x);
		if (mode == 1 && !one)
			continue;
		if (real > 2 && !fcmp &&
		    (one ? float_condition(LLVMGetCondition(LLVMGetBasicBlockTerminator(g.bb[d.idom[x.j]])), 0)
		         : float_decided(&x)))
			continue;
		done += rewrite(&x, phi, n, a, b);
	}
	free(phi);
	nv_dom_release(&d);
	nv_cfg_release(&g);
	return done;
}

unsigned
nv_select_formation(LLVMModuleRef m)
{
	unsigned n = 0;
	int mode = (int)nv_knob_int(NV_KNOB_SELECT_FORMATION), fcmp = (int)nv_knob_int(NV_KNOB_SELECT_FORMATION_FCMP);
	int min = (int)nv_knob_int(NV_KNOB_SELECT_FORMATION_MIN_PHIS);

	if (!mode)
		return 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		unsigned k = LLVMIsDeclaration(f) ? 0 : function_phis(f, mode, fcmp, min);

		/* the i1 phi folded into the branch's condition, the branch away:
		 * in the functions changed only, the others' code as it was */
		if (k) {
			LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
			LLVMErrorRef err = LLVMRunPassesOnFunction(f, "simplifycfg,instsimplify", NULL, po);

			if (err)
				LLVMConsumeError(err);
			LLVMDisposePassBuilderOptions(po);
		}
		n += k;
	}
	return n;
}

/* ---- bit tests ------------------------------------------------------ */

/* (x & 2^k) != 0 with k > 0: the and, or NULL. */
static LLVMValueRef
bit_test_ne(LLVMValueRef c)
{
	LLVMValueRef a, m;

	if (!LLVMIsAICmpInst(c) || LLVMGetICmpPredicate(c) != LLVMIntNE)
		return NULL;
	a = LLVMGetOperand(c, 0);
	if (!LLVMIsAConstantInt(LLVMGetOperand(c, 1)) || LLVMConstIntGetZExtValue(LLVMGetOperand(c, 1)) ||
	    !LLVMIsAInstruction(a) || LLVMGetInstructionOpcode(a) != LLVMAnd)
		return NULL;
	m = LLVMGetOperand(a, 1);
	if (!LLVMIsAConstantInt(m) || LLVMGetIntTypeWidth(LLVMTypeOf(m)) > 64)
		return NULL;
	{
		unsigned long long v = LLVMConstIntGetZExtValue(m);

		return v > 1 && !(v & (v - 1)) ? a : NULL;
	}
}

/* Can every user of c take its inverse: a select on it, or an xor with
 * an integer compare used nowhere else? */
static int
invertible_users(LLVMValueRef c)
{
	LLVMUseRef u = LLVMGetFirstUse(c);

	if (!u)
		return 0;
	for (; u; u = LLVMGetNextUse(u)) {
		LLVMValueRef in = LLVMGetUser(u), o;

		if (LLVMIsASelectInst(in) && LLVMGetOperand(in, 0) == c && LLVMGetOperand(in, 1) != c &&
		    LLVMGetOperand(in, 2) != c)
			continue;
		if (!LLVMIsAInstruction(in) || LLVMGetInstructionOpcode(in) != LLVMXor)
			return 0;
		o = LLVMGetOperand(in, 0) == c ? LLVMGetOperand(in, 1) : LLVMGetOperand(in, 0);
		if (o == c || !LLVMIsAICmpInst(o) || LLVMGetNextUse(LLVMGetFirstUse(o)))
			return 0;
	}
	return 1;
}

static LLVMIntPredicate
inverse(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntEQ: return LLVMIntNE;
	case LLVMIntNE: return LLVMIntEQ;
	case LLVMIntUGT: return LLVMIntULE;
	case LLVMIntUGE: return LLVMIntULT;
	case LLVMIntULT: return LLVMIntUGE;
	case LLVMIntULE: return LLVMIntUGT;
	case LLVMIntSGT: return LLVMIntSLE;
	case LLVMIntSGE: return LLVMIntSLT;
	case LLVMIntSLT: return LLVMIntSGE;
	default: return LLVMIntSGT;
	}
}

static unsigned
bit_tests(LLVMValueRef f, LLVMBuilderRef b)
{
	unsigned n = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef c = LLVMGetFirstInstruction(bb), next; c; c = next) {
			LLVMValueRef a = bit_test_ne(c), e;

			next = LLVMGetNextInstruction(c);
			if (!a || !invertible_users(c))
				continue;
			LLVMPositionBuilderBefore(b, c);
			e = LLVMBuildICmp(b, LLVMIntEQ, a, LLVMGetOperand(c, 1), "bit.clear");
			while (LLVMGetFirstUse(c)) {
				LLVMValueRef in = LLVMGetUser(LLVMGetFirstUse(c));

				if (LLVMIsASelectInst(in)) {
					LLVMValueRef t = LLVMGetOperand(in, 1);

					LLVMSetOperand(in, 0, e);
					LLVMSetOperand(in, 1, LLVMGetOperand(in, 2));
					LLVMSetOperand(in, 2, t);
				} else {
					unsigned k = LLVMGetOperand(in, 0) == c ? 0 : 1;
					LLVMValueRef o = LLVMGetOperand(in, 1 - k), x;

					LLVMPositionBuilderBefore(b, o);
					x = LLVMBuildICmp(b, inverse(LLVMGetICmpPredicate(o)), LLVMGetOperand(o, 0),
					                  LLVMGetOperand(o, 1), "");
					LLVMSetOperand(in, k, e);
					LLVMSetOperand(in, 1 - k, x);
					LLVMInstructionEraseFromParent(o);
				}
			}
			nv_remark(NV_REMARK_PASSED, "bit-test-eq", "Inverted", c,
			          "a single-bit test != 0 computed as == 0, its users inverted (NVPTX selects the "
			          "!= 0 form as a shift, a mask and a compare)");
			LLVMInstructionEraseFromParent(c);
			n++;
			/* an inverted compare may have been the next instruction */
			next = LLVMGetFirstInstruction(bb);
		}
	return n;
}

unsigned
nv_select_bit_tests(LLVMModuleRef m)
{
	return nv_knob_int(NV_KNOB_BIT_TEST_EQ) ? nv_cfg_each_defined(m, bit_tests) : 0;
}
