#include "unswitch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/Support.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "../base/decisions.h"
#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfgedit.h"
#include "../ir/loops.h"
#include "../ir/uniform.h"
#include "target.h"

/*
 * loop-unswitch.  Requires nothing of the IR (LLVM's pass puts the loops
 * in simplified, LCSSA form itself); changes the CFG.
 *
 * cicc runs LLVM's LoopUnswitch in its loop pipeline, after LICM and before
 * the unroller, with the legacy pass's rule for targets with divergent
 * branches: only a condition that divergence analysis calls uniform is
 * unswitched, and only in a loop under -loop-unswitch-threshold (100).
 * LLVM 22's SimpleLoopUnswitch does the transformation (and keeps the
 * loops' forms), but on a target with divergent branches it does no
 * nontrivial unswitching at all.  So here: every loop-invariant value a
 * branch, switch or select in a loop tests that is not uniform (nv
 * uniform, ir/uniform.h) is hidden behind an opaque call in the loop, so
 * that it is no longer invariant; SimpleLoopUnswitch runs with nontrivial
 * unswitching and without the target (whose TTI says "divergent" and
 * would stop it), without MemorySSA (so no partial unswitching on loads,
 * whose values may differ between threads); then the calls go and their
 * operands are back.  Loops with convergent calls (barriers, shuffles)
 * SimpleLoopUnswitch leaves alone itself.
 */

#define PASS "loop-unswitch"
#define HIDE "nv.unswitch.hide"

struct cand {
	LLVMValueRef fn, cond;
	unsigned depth; /* loop depth of the branch */
	struct nv_srcloc loc;
	int uniform, taken; /* taken: uniform, or -nv-loop-unswitch-divergent=1 */
	int guard;          /* it only guards an inner loop, and is not taken */
	int outer_iv;       /* it is computed from an enclosing loop's phi, and is not taken */
	unsigned pre;       /* hoisted() before the pass */
	int decided_no;     /* -decisions said no */
};

struct state {
	LLVMModuleRef m;
	struct cand *c;
	size_t nc;
	unsigned hidden;
};

/* The opaque identity for type t: nounwind, but it may touch memory, so
 * that nothing looks through it or moves it. */
static LLVMValueRef
hide_fn(LLVMModuleRef m, LLVMTypeRef t, LLVMTypeRef *fty)
{
	char name[64];
	LLVMValueRef f;
	LLVMContextRef ctx = LLVMGetModuleContext(m);

	snprintf(name, sizeof(name), HIDE ".i%u", LLVMGetIntTypeWidth(t));
	*fty = LLVMFunctionType(t, &t, 1, 0);
	f = LLVMGetNamedFunction(m, name);
	if (!f) {
		f = LLVMAddFunction(m, name, *fty);
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
		                        LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
		                        LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName("willreturn", 10), 0));
	}
	return f;
}

/* Is v invariant in the innermost loop l around a use: an argument or an
 * instruction outside l? */
static int
invariant(const struct nv_fn_loops *a, unsigned l, LLVMValueRef v)
{
	unsigned b;

	if (LLVMIsAArgument(v))
		return 1;
	if (!LLVMIsAInstruction(v))
		return 0; /* constants are no unswitching candidates */
	b = nv_cfg_index(&a->g, LLVMGetInstructionParent(v));
	return b != NV_NONE && !nv_loop_contains(&a->ls, l, b);
}

/* The loop depth of block bb in fn's loops. */
static unsigned
depth_of(const struct nv_fn_loops *a, LLVMBasicBlockRef bb)
{
	unsigned b = nv_cfg_index(&a->g, bb), l;

	if (b == NV_NONE)
		return 0;
	l = a->ls.innermost[b];
	return l == NV_NONE ? 0 : a->ls.v[l].depth;
}

/* How many branches and switches on cond (or its freeze) sit at a smaller
 * loop depth than depth: more after the pass than before means unswitched. */
static unsigned
hoisted(const struct nv_fn_loops *a, LLVMValueRef cond, unsigned depth)
{
	unsigned n = 0;

	for (LLVMUseRef use = LLVMGetFirstUse(cond); use; use = LLVMGetNextUse(use)) {
		LLVMValueRef user = LLVMGetUser(use);

		if (!LLVMIsAInstruction(user) || LLVMGetInstructionParent(user) == NULL)
			continue;
		if (LLVMGetInstructionOpcode(user) == LLVMFreeze)
			n += hoisted(a, user, depth);
		else if (((LLVMIsABranchInst(user) && LLVMIsConditional(user)) || LLVMIsASwitchInst(user)) &&
		         LLVMGetOperand(user, 0) == cond && depth_of(a, LLVMGetInstructionParent(user)) < depth)
			n++;
	}
	return n;
}

/* Is block b the header or the preheader of a loop directly inside loop l? */
static int
child_entry(const struct nv_fn_loops *a, unsigned l, LLVMBasicBlockRef bb)
{
	unsigned b = nv_cfg_index(&a->g, bb);

	if (b == NV_NONE)
		return 0;
	if (a->g.succ_off[b + 1] - a->g.succ_off[b] == 1 && a->ls.innermost[b] == l)
		b = a->g.succ[a->g.succ_off[b]];
	for (unsigned k = 0; k < a->ls.n; k++)
		if (a->ls.v[k].parent == l && a->ls.v[k].header == b)
			return 1;
	return 0;
}

/* Is i a conditional branch of loop l that only decides whether an inner
 * loop runs (the guard of a rotated loop: trip count > 0)? */
static int
inner_guard(const struct nv_fn_loops *a, unsigned l, LLVMValueRef i)
{
	if (!LLVMIsABranchInst(i) || !LLVMIsConditional(i))
		return 0;
	return child_entry(a, l, LLVMGetSuccessor(i, 0)) || child_entry(a, l, LLVMGetSuccessor(i, 1));
}

/* Is v computed from a phi in the header of a loop around loop l (an
 * enclosing loop's induction variable)?  Unknown beyond 64 values: yes. */
static int
outer_iv(const struct nv_fn_loops *a, unsigned l, LLVMValueRef v, unsigned *budget)
{
	unsigned b;

	if (!LLVMIsAInstruction(v))
		return 0;
	if (!(*budget)--)
		return 1;
	b = nv_cfg_index(&a->g, LLVMGetInstructionParent(v));
	if (b == NV_NONE)
		return 0;
	if (LLVMIsAPHINode(v)) {
		for (unsigned k = a->ls.v[l].parent; k != NV_NONE; k = a->ls.v[k].parent)
			if (a->ls.v[k].header == b)
				return 1;
		return 0;
	}
	for (int k = 0; k < LLVMGetNumOperands(v); k++)
		if (outer_iv(a, l, LLVMGetOperand(v, k), budget))
			return 1;
	return 0;
}

/* Hide the divergent invariant operand op of i; record i's invariant tests. */
/* -decisions: a replayed "yes" offers the branch's condition to LLVM's
 * unswitching whatever the rules say, "no" hides it; -save-decisions: the
 * choice is saved, "unswitch FILE:LINE in FUNCTION yes|no". */
static void
replay(struct cand *c)
{
	struct nv_decision dec;
	const char *want;
	char *fn;
	size_t len;

	if (!nv_decisions_on())
		return;
	fn = xstrdup(LLVMGetValueName2(c->fn, &len));
	want = nv_decision_begin(&dec, "unswitch", &c->loc, fn);
	if (want && !strcmp(want, "yes"))
		c->taken = 1, c->guard = c->outer_iv = 0;
	else if (want && !strcmp(want, "no"))
		c->taken = 0, c->decided_no = 1;
	else if (want)
		nv_warn("decision '%s %s': not an unswitch choice (yes or no)", dec.key, want);
	nv_decision_end(&dec, c->taken ? "yes" : "no");
	free(fn);
}

static void
visit(struct state *st, const struct nv_fn_loops *a, const struct nv_uniform *u, unsigned l,
      LLVMValueRef fn, LLVMValueRef i, LLVMBuilderRef bld, int any)
{
	int tests = (LLVMIsABranchInst(i) && LLVMIsConditional(i)) || LLVMIsASwitchInst(i) || LLVMIsASelectInst(i);
	int nops = LLVMGetNumOperands(i);

	for (int k = 0; k < nops; k++) {
		LLVMValueRef v = LLVMGetOperand(i, k);
		LLVMTypeRef t = LLVMTypeOf(v);
		int cond = tests && k == 0;
		int uni, guard, oiv = 0;
		unsigned budget = 64;

		if (!cond && !(LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1))
			continue;
		if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || !invariant(a, l, v))
			continue;
		uni = nv_uniform_is(u, v);
		guard = cond && !nv_knob_int(NV_KNOB_LOOP_UNSWITCH_GUARDS) && inner_guard(a, l, i);
		if (cond && !guard && !nv_knob_int(NV_KNOB_LOOP_UNSWITCH_OUTER_IV))
			oiv = outer_iv(a, l, v, &budget);
		if (cond) {
			st->c = xrealloc(st->c, (st->nc + 1) * sizeof(*st->c));
			st->c[st->nc] = (struct cand){ fn, v, a->ls.v[l].depth, { 0 }, uni, (uni || any) && !guard && !oiv, guard, oiv,
				                       hoisted(a, v, a->ls.v[l].depth) };
			nv_srcloc_of(i, &st->c[st->nc].loc);
			replay(&st->c[st->nc]);
			st->nc++;
		}
		if (cond ? !st->c[st->nc - 1].taken : ((!uni && !any) || guard || oiv)) {
			LLVMTypeRef fty;
			LLVMValueRef h = hide_fn(st->m, t, &fty);

			LLVMPositionBuilderBefore(bld, i);
			LLVMSetOperand(i, (unsigned)k, LLVMBuildCall2(bld, fty, h, &v, 1, ""));
			st->hidden++;
		}
	}
}

static void
prepare(struct state *st, LLVMValueRef fn, int any)
{
	struct nv_fn_loops a;
	struct nv_uniform u;
	LLVMBuilderRef bld;

	nv_fn_loops_build(&a, fn);
	if (!a.ls.n) {
		nv_fn_loops_release(&a);
		return;
	}
	nv_uniform_build(&u, fn, nv_is_kernel(fn));
	bld = LLVMCreateBuilderInContext(LLVMGetModuleContext(st->m));
	for (unsigned b = 0; b < a.g.n; b++) {
		unsigned l = a.ls.innermost[b];

		if (l == NV_NONE)
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(a.g.bb[b]); i; i = LLVMGetNextInstruction(i))
			if (!LLVMIsAPHINode(i) && !(LLVMIsACallInst(i) && LLVMGetCalledValue(i) &&
			                            !strncmp(nv_cfg_callee_name(i) ? nv_cfg_callee_name(i) : "", HIDE, strlen(HIDE))))
				visit(st, &a, &u, l, fn, i, bld, any);
	}
	LLVMDisposeBuilder(bld);
	nv_uniform_release(&u);
	nv_fn_loops_release(&a);
}

/* Put the hidden operands back, in every copy the unswitching made. */
static void
unhide(LLVMModuleRef m)
{
	LLVMValueRef next;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = next) {
		size_t len;

		next = LLVMGetNextFunction(f);
		if (strncmp(LLVMGetValueName2(f, &len), HIDE ".", strlen(HIDE) + 1))
			continue;
		while (LLVMGetFirstUse(f)) {
			LLVMValueRef call = LLVMGetUser(LLVMGetFirstUse(f));

			LLVMReplaceAllUsesWith(call, LLVMGetOperand(call, 0));
			LLVMInstructionEraseFromParent(call);
		}
		LLVMDeleteFunction(f);
	}
}

/* v as the IR prints it, on one line, without its metadata attachments. */
static char *
value_text(LLVMValueRef v)
{
	char *s = LLVMPrintValueToString(v), *t, *md;

	t = xstrdup(s + strspn(s, " "));
	LLVMDisposeMessage(s);
	if ((md = strstr(t, ", !")))
		*md = 0;
	for (char *p = t; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return t;
}

static unsigned
report(struct state *st)
{
	unsigned done = 0;

	struct nv_fn_loops a;
	LLVMValueRef built = NULL;

	for (size_t k = 0; k < st->nc; k++) {
		struct cand *c = &st->c[k];
		char *name;
		const char *kind;
		size_t j;

		for (j = 0; j < k && !(st->c[j].cond == c->cond && st->c[j].depth == c->depth); j++)
			;
		if (j < k)
			continue; /* one remark per condition and loop depth */
		name = value_text(c->cond);
		kind = c->uniform ? "uniform" : "invariant";
		if (built != c->fn) {
			if (built)
				nv_fn_loops_release(&a);
			nv_fn_loops_build(&a, c->fn);
			built = c->fn;
		}
		if (c->guard) {
			nv_remark_loc(NV_REMARK_MISSED, PASS, "InnerLoopGuard", c->fn, &c->loc,
			              "loop not unswitched on '%s': it only guards an inner loop "
			              "(-nv-loop-unswitch-guards=1 unswitches it, as cicc does)", name);
		} else if (c->outer_iv) {
			nv_remark_loc(NV_REMARK_MISSED, PASS, "OuterInductionVariable", c->fn, &c->loc,
			              "loop not unswitched on '%s': it changes with an enclosing loop's induction variable "
			              "(-nv-loop-unswitch-outer-iv=1 unswitches it)", name);
		} else if (c->decided_no) {
			nv_remark_loc(NV_REMARK_MISSED, PASS, "Decisions", c->fn, &c->loc,
			              "loop not unswitched on '%s': as -decisions says", name);
		} else if (!c->taken) {
			nv_remark_loc(NV_REMARK_MISSED, PASS, "DivergentCondition", c->fn, &c->loc,
			              "loop not unswitched on '%s': it may differ between the threads of a warp", name);
		} else if (hoisted(&a, c->cond, c->depth) > c->pre) {
			done++;
			nv_remark_loc(NV_REMARK_PASSED, PASS, "Unswitched", c->fn, &c->loc,
			              "loop unswitched on the %s condition '%s': one loop per value", kind, name);
		} else {
			nv_remark_loc(NV_REMARK_MISSED, PASS, "NotUnswitched", c->fn, &c->loc,
			              "loop not unswitched on the %s condition '%s': over loop-unswitch-threshold=%lld, "
			              "convergent calls in the loop, or another condition chosen",
			              kind, name, nv_knob_int(NV_KNOB_LOOP_UNSWITCH_THRESHOLD));
		}
		free(name);
	}
	if (built)
		nv_fn_loops_release(&a);
	return done;
}

unsigned
nv_unswitch(LLVMModuleRef m)
{
	long long threshold = nv_knob_int(NV_KNOB_LOOP_UNSWITCH_THRESHOLD);
	struct state st = { m, NULL, 0, 0 };
	LLVMPassBuilderOptionsRef po;
	LLVMErrorRef err;
	char arg[64];
	const char *args[] = { "nv-opt", arg };
	unsigned done;

	if (threshold <= 0)
		return 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			prepare(&st, f, (int)nv_knob_int(NV_KNOB_LOOP_UNSWITCH_DIVERGENT));
	if (!st.nc && !st.hidden) {
		free(st.c);
		return 0;
	}
	snprintf(arg, sizeof(arg), "-unswitch-threshold=%lld", threshold);
	LLVMParseCommandLineOptions(2, args, NULL);
	po = LLVMCreatePassBuilderOptions();
	err = LLVMRunPasses(m, "function(loop(simple-loop-unswitch<nontrivial>))", NULL, po);
	LLVMDisposePassBuilderOptions(po);
	if (err) {
		char *msg = LLVMGetErrorMessage(err);

		nv_error("loop-unswitch: %s", msg);
		LLVMDisposeErrorMessage(msg);
	}
	unhide(m);
	done = report(&st);
	free(st.c);
	return done;
}
