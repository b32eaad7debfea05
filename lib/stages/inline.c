#include "inline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "../base/decisions.h"
#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/ptrmap.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfg.h"
#include "../ir/dom.h"
#include "../ir/indvars.h"
#include "../ir/loops.h"
#include "../ir/typesize.h"
#include "link.h"
#include "stdpipe.h"
#include "target.h"

#define PASS "nv-inline"

#define FULL_UNROLL_BUDGET 405   /* nv-unroll's default full-unroll size */
#define PRAGMA_UNROLL_BUDGET 32768
#define INTRINSIC_BONUS 2000     /* Model D */
#define CALL_BASE 4              /* .param prototype, call, ret, callseq */
#define WALK_DEPTH 20            /* struct layout walk */
#define LOADS_STORES_BAILOUT 100
#define AGGRESSIVE_BUDGET 40000
#define SIZE_CAP (1LL << 40)
#define MAX_MERGE 256            /* allocas considered per function */

enum verdict { V_SKIP, V_NO, V_FREE, V_CHARGED };

struct site {
	LLVMValueRef call;
	unsigned callee;  /* function index, NV_NONE if not a defined function */
	enum verdict v;
	long long cost;
	char why[256];
};

struct fn {
	LLVMValueRef fn;
	int defined, kernel, internal;
	long long size;
	unsigned nswitch, maxcases, cases;
	int gpu;                /* calls warp or tensor intrinsics */
	const char *bad;        /* why it cannot be inlined at all, or NULL */
	unsigned pending;       /* direct calls not (yet) decided for inlining */
	int other_uses;         /* address taken, or used but not called */
	long long left;         /* caller budget left */
	unsigned scc;
	struct site *sites;
	unsigned nsites;
	/* Tarjan */
	unsigned idx, low;
	int onstack;
};

struct state {
	LLVMModuleRef m;
	LLVMContextRef ctx;
	int olevel;
	struct fn *f;
	unsigned nf;
	struct nv_ptrmap index;
	long long total_left;   /* -1: no module budget */
	unsigned k_always, k_noinline, k_optnone, k_byval;
};

static const char *
name_of(LLVMValueRef v)
{
	size_t len;

	return LLVMGetValueName2(v, &len);
}

/* --- sizes --- */

static int
is_marker(LLVMValueRef i)
{
	LLVMValueRef callee;
	size_t len;
	const char *name;

	if (LLVMIsADbgInfoIntrinsic(i))
		return 1;
	if (!LLVMIsACallInst(i) || !(callee = LLVMGetCalledValue(i)) || !LLVMIsAFunction(callee))
		return 0;
	name = LLVMGetValueName2(callee, &len);
	return !strncmp(name, "llvm.lifetime.", 14) || !strcmp(name, "llvm.assume") ||
	       !strncmp(name, "llvm.experimental.noalias.scope.decl", 36);
}

/* Whether i counts: not debug info, lifetime markers or assumptions, and not
 * an unconditional branch or a return (a fallthrough once inlined).  With
 * this, a helper of r rounds of 13 instructions weighs 13r + 1, exactly what
 * cicc 13 charges for it. */
static int
counted(LLVMValueRef i)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(i);

	if (op == LLVMRet || (op == LLVMBr && !LLVMIsConditional(i)))
		return 0;
	return !is_marker(i);
}

static long long
block_size(LLVMBasicBlockRef bb)
{
	long long n = 0;

	for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
		n += counted(i);
	return n;
}

/* The size loop l's blocks will have after nv-unroll, relative to now:
 * fully unrolled (a known trip count that fits nv-unroll's budget, or the
 * pragma's), each iteration copies the body less its control (header phis,
 * branches, the exit compare and the IV step); a pragma count copies it.
 * Returns the factor for the loop's blocks, or 0 with *unrolled set to the
 * whole loop's new size. */
static long long
loop_factor(const struct nv_loops *ls, unsigned l, const long long *bsize, long long *unrolled)
{
	const struct nv_loop *lp = &ls->v[l];
	struct nv_trip t;
	int64_t count;
	long long body = 0, control = 1, copies;

	if (nv_loop_md_has(ls, l, "llvm.loop.unroll.disable"))
		return 1;
	if (nv_loop_md_int(ls, l, "llvm.loop.unroll.count", &count) && count > 0)
		return count;
	if (nv_trip_count(ls, l, &t) != NV_TRIP_CONST || t.btc >= (uint64_t)SIZE_CAP)
		return 1;
	copies = (long long)t.btc + (t.exiting != lp->header);
	for (unsigned k = 0; k < lp->nblocks; k++) {
		LLVMBasicBlockRef bb = ls->cfg->bb[lp->blocks[k]];

		body += bsize[lp->blocks[k]];
		control += LLVMGetBasicBlockTerminator(bb) && counted(LLVMGetBasicBlockTerminator(bb));
		if (lp->blocks[k] == lp->header)
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && LLVMIsAPHINode(i);
			     i = LLVMGetNextInstruction(i))
				control++;
	}
	if (body - control < 1)
		control = body - 1;
	if (copies * body > (nv_loop_md_has(ls, l, "llvm.loop.unroll.full") ||
	                             nv_loop_md_has(ls, l, "llvm.loop.unroll.enable")
	                         ? PRAGMA_UNROLL_BUDGET
	                         : FULL_UNROLL_BUDGET))
		return 1;
	*unrolled = copies * (body - control);
	return 0;
}

long long
nv_inline_size(LLVMValueRef fn)
{
	struct nv_cfg g;
	struct nv_dom d;
	struct nv_loops ls;
	long long *bsize, *factor, size = 0;

	nv_cfg_build(&g, fn);
	nv_dom_build(&d, &g, 0);
	nv_loops_build(&ls, &g, &d);
	bsize = xcalloc(g.n ? g.n : 1, sizeof(*bsize));
	factor = xcalloc(ls.n ? ls.n : 1, sizeof(*factor));
	for (unsigned b = 0; b < g.n; b++)
		bsize[b] = block_size(g.bb[b]);
	/* Innermost loops first (loops are listed outermost first): an inner
	 * loop's new size goes into its header's count, its other blocks to 0. */
	for (unsigned l = ls.n; l-- > 0;) {
		long long unrolled;

		factor[l] = loop_factor(&ls, l, bsize, &unrolled);
		if (factor[l])
			continue;
		factor[l] = 1;
		for (unsigned k = 0; k < ls.v[l].nblocks; k++)
			bsize[ls.v[l].blocks[k]] = 0;
		bsize[ls.v[l].header] = unrolled > SIZE_CAP ? SIZE_CAP : unrolled;
	}
	for (unsigned b = 0; b < g.n; b++) {
		long long s = bsize[b];

		for (unsigned l = ls.innermost[b]; l != NV_NONE && s < SIZE_CAP; l = ls.v[l].parent)
			s = s > SIZE_CAP / factor[l] ? SIZE_CAP : s * factor[l];
		size = size + s > SIZE_CAP ? SIZE_CAP : size + s;
	}
	free(factor);
	free(bsize);
	nv_loops_release(&ls);
	nv_dom_release(&d);
	nv_cfg_release(&g);
	return size;
}

/* --- what a callee is --- */

/* Model D: warp-level and tensor-core intrinsics, and asynchronous copies,
 * which the caller's register allocator and scheduler should see. */
static int
is_gpu_intrinsic(const char *name)
{
	static const char *const kinds[] = {
		"shfl.", "vote.", "match.", "redux.", "bar.warp.sync", "wmma.", "mma.",
		"ldmatrix", "stmatrix", "wgmma.", "cp.async",
	};

	if (strncmp(name, "llvm.nvvm.", 10))
		return 0;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++)
		if (strstr(name + 10, kinds[k]))
			return 1;
	return 0;
}

static LLVMValueRef
called_function(LLVMValueRef call)
{
	LLVMValueRef v = LLVMGetCalledValue(call);

	return v && LLVMIsAFunction(v) ? v : NULL;
}

static int
is_call(LLVMValueRef i)
{
	return LLVMIsACallInst(i) || LLVMIsAInvokeInst(i);
}

/* The pre-analysis walk: switches, intrinsics, and what LLVM cannot clone. */
static void
scan(struct state *st, struct fn *f)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f->fn); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(i);
			LLVMValueRef callee;

			if (op == LLVMSwitch) {
				unsigned cases = LLVMGetNumSuccessors(i) - 1;

				f->nswitch++;
				f->cases += cases;
				if (cases > f->maxcases)
					f->maxcases = cases;
			} else if (op == LLVMIndirectBr) {
				f->bad = "it contains an indirectbr";
			} else if (op == LLVMCallBr) {
				f->bad = "it contains a callbr";
			} else if (is_call(i) && (callee = called_function(i))) {
				size_t len;
				const char *name = LLVMGetValueName2(callee, &len);

				if (is_gpu_intrinsic(name))
					f->gpu = 1;
				if (!strcmp(name, "llvm.localescape"))
					f->bad = "it calls llvm.localescape";
			}
		}
	if (!f->bad && LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f->fn)))
		f->bad = "it is variadic";
	if (!f->bad && LLVMGetEnumAttributeAtIndex(f->fn, LLVMAttributeFunctionIndex, st->k_noinline))
		f->bad = "it is marked noinline";
	if (!f->bad && LLVMGetEnumAttributeAtIndex(f->fn, LLVMAttributeFunctionIndex, st->k_optnone))
		f->bad = "it is optnone";
	if (!f->bad) {
		switch (LLVMGetLinkage(f->fn)) {
		case LLVMWeakAnyLinkage:
		case LLVMLinkOnceAnyLinkage:
		case LLVMExternalWeakLinkage:
		case LLVMCommonLinkage:
			f->bad = "the linker may replace its body (weak linkage)";
			break;
		default:
			break;
		}
	}
}

/* --- the call graph --- */

static void
collect_sites(struct state *st, struct fn *f)
{
	unsigned cap = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f->fn); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
			LLVMValueRef callee;
			struct site *s;

			if (!is_call(i) || !(callee = called_function(i)) || LLVMGetIntrinsicID(callee))
				continue;
			if (f->nsites == cap) {
				cap = cap ? 2 * cap : 8;
				f->sites = xrealloc(f->sites, cap * sizeof(*f->sites));
			}
			s = &f->sites[f->nsites++];
			memset(s, 0, sizeof(*s));
			s->call = i;
			s->cost = -1;
			s->callee = nv_ptrmap_get(&st->index, callee);
			if (s->callee != NV_NONE && !st->f[s->callee].defined)
				s->callee = NV_NONE;
			if (s->callee != NV_NONE &&
			    LLVMGetCalledFunctionType(i) != LLVMGlobalGetValueType(callee))
				s->callee = NV_NONE, s->v = V_SKIP,
				snprintf(s->why, sizeof(s->why), "the call's type differs from the callee's");
		}
}

static void
count_uses(struct fn *f)
{
	for (LLVMUseRef u = LLVMGetFirstUse(f->fn); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (is_call(user) && LLVMGetCalledValue(user) == f->fn)
			f->pending++;
		else
			f->other_uses = 1;
	}
}

/* Tarjan's SCCs, iteratively; order[] gets the functions callee-first,
 * each SCC contiguous. */
static unsigned
sccs(struct state *st, unsigned *order)
{
	unsigned *stack = xmalloc(st->nf * sizeof(*stack)), sp = 0;
	unsigned *work = xmalloc(st->nf * sizeof(*work)), *edge = xcalloc(st->nf, sizeof(*edge));
	unsigned next = 1, nout = 0, nscc = 0;

	for (unsigned root = 0; root < st->nf; root++) {
		unsigned wp = 0;

		if (!st->f[root].defined || st->f[root].idx)
			continue;
		work[wp++] = root;
		while (wp) {
			unsigned v = work[wp - 1];
			struct fn *fv = &st->f[v];

			if (!fv->idx) {
				fv->idx = fv->low = next++;
				stack[sp++] = v;
				fv->onstack = 1;
			}
			if (edge[v] < fv->nsites) {
				unsigned w = fv->sites[edge[v]++].callee;

				if (w == NV_NONE)
					continue;
				if (!st->f[w].idx)
					work[wp++] = w;
				else if (st->f[w].onstack && st->f[w].idx < fv->low)
					fv->low = st->f[w].idx;
				continue;
			}
			wp--;
			if (wp) {
				struct fn *parent = &st->f[work[wp - 1]];

				if (fv->low < parent->low)
					parent->low = fv->low;
			}
			if (fv->low == fv->idx) {
				unsigned w;

				do {
					w = stack[--sp];
					st->f[w].onstack = 0;
					st->f[w].scc = nscc;
					order[nout++] = w;
				} while (w != v);
				nscc++;
			}
		}
	}
	free(edge);
	free(work);
	free(stack);
	return nout;
}

/* --- the cost of a call: what inlining saves in .param traffic --- */

/* Scalar fields of ty, walking structs, arrays and vectors down to depth
 * WALK_DEPTH (deeper: one per 4 bytes). */
static unsigned long long
fields(LLVMModuleRef m, LLVMTypeRef ty, unsigned depth)
{
	unsigned long long n = 0;

	if (depth >= WALK_DEPTH)
		return (nv_type_store_size(m, ty) + 3) / 4;
	switch (LLVMGetTypeKind(ty)) {
	case LLVMStructTypeKind:
		for (unsigned k = 0; k < LLVMCountStructElementTypes(ty); k++)
			n += fields(m, LLVMStructGetTypeAtIndex(ty, k), depth + 1);
		return n;
	case LLVMArrayTypeKind:
		n = fields(m, LLVMGetElementType(ty), depth + 1);
		return n * LLVMGetArrayLength2(ty);
	case LLVMVectorTypeKind:
		return (LLVMGetVectorSize(ty) + 3) / 4; /* st.param.v4 */
	default:
		return 1;
	}
}

static int
narrow_int(LLVMTypeRef ty)
{
	return LLVMGetTypeKind(ty) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(ty) < 32;
}

/* What a call that stays costs in .param traffic (cicc's type-size engine;
 * cicc 13 does not charge it to the budget, a body's instructions are the
 * cost, so it explains a refusal): the call sequence, a st.param and a
 * ld.param per scalar or field, a conversion on each side for integers
 * widened to 32 bits.  *walked is 0 when the loads x stores of the byval
 * copies exceed the bail-out and aggregates are costed per 4 bytes instead
 * of field by field. */
static long long
marshalling(struct state *st, LLVMValueRef callee, int *walked)
{
	unsigned n = LLVMCountParams(callee);
	unsigned long long loads = 0, stores = 0, words = 0;
	LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(callee));
	long long cost = CALL_BASE;

	for (unsigned k = 0; k < n; k++) {
		LLVMAttributeRef byval = LLVMGetEnumAttributeAtIndex(callee, k + 1, st->k_byval);
		LLVMTypeRef ty = byval ? LLVMGetTypeAttributeValue(byval) : LLVMTypeOf(LLVMGetParam(callee, k));
		unsigned long long nf = nv_type_sized(ty) ? fields(st->m, ty, 0) : 1;

		stores += nf;
		if (byval)
			loads += nf;
		words += nv_type_sized(ty) ? (nv_type_store_size(st->m, ty) + 3) / 4 : 1;
		cost += 2 * narrow_int(ty);
	}
	*walked = loads * stores <= LOADS_STORES_BAILOUT;
	cost += 2 * (long long)(*walked ? stores : words);
	if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind)
		cost += 2 + 2 * narrow_int(ret);
	return cost;
}

/* --- deciding --- */

static long long
caller_budget(const struct fn *caller)
{
	long long adj = nv_knob_int(NV_KNOB_INLINE_ADJ_BUDGET1);

	if (caller->kernel && adj >= 0)
		return adj;
	if (nv_knob_int(NV_KNOB_AGGRESSIVE_INLINE) && !nv_knob_is_set(NV_KNOB_INLINE_BUDGET))
		return AGGRESSIVE_BUDGET;
	return nv_knob_int(NV_KNOB_INLINE_BUDGET);
}

#define WHY(...) snprintf(s->why, sizeof(s->why), __VA_ARGS__)

static enum verdict
decide(struct state *st, struct fn *caller, struct site *s)
{
	struct fn *ce = &st->f[s->callee];
	long long small = nv_knob_int(NV_KNOB_INLINE_THRESHOLD) * 154 / 100;
	long long maxcases = nv_knob_int(NV_KNOB_INLINE_MAXSWITCHCASES);
	long long maxswitch = nv_knob_int(NV_KNOB_INLINE_NUMSWITCHFUNC);
	long long cost;
	int walked;

	if (LLVMGetCallSiteEnumAttribute(s->call, LLVMAttributeFunctionIndex, st->k_noinline))
		return WHY("the call site is marked noinline"), V_NO;
	if (ce->scc == caller->scc)
		return WHY("recursive: '%s' can reach '%s' again", name_of(ce->fn),
		           name_of(caller->fn)), V_NO;
	if (ce->bad)
		return WHY("%s", ce->bad), V_NO;
	if (LLVMGetEnumAttributeAtIndex(ce->fn, LLVMAttributeFunctionIndex, st->k_always) ||
	    LLVMGetCallSiteEnumAttribute(s->call, LLVMAttributeFunctionIndex, st->k_always))
		return WHY("always_inline"), V_FREE;
	if (nv_knob_int(NV_KNOB_DISABLE_INLINING))
		return WHY("inlining is disabled (-disable-inlining)"), V_NO;
	if (st->olevel == 0)
		return WHY("-O0 inlines only always_inline functions"), V_NO;
	if (nv_knob_int(NV_KNOB_NV_INLINE_ALL))
		return WHY("-nv-inline-all"), V_FREE;
	if (maxcases >= 0 && ce->maxcases > maxcases)
		return WHY("a switch of %u cases exceeds -inline-maxswitchcases=%lld", ce->maxcases,
		           maxcases), V_NO;
	if (maxswitch >= 0 && ce->nswitch > maxswitch)
		return WHY("%u switch statements exceed -inline-numswitchfunc=%lld", ce->nswitch,
		           maxswitch), V_NO;
	if (ce->internal && !ce->other_uses && ce->pending == 1)
		return WHY("the last call of an internal function, whose body then goes away"), V_FREE;
	if (ce->size <= small)
		return WHY("small: %lld instructions, at most %lld (-inline-threshold=%lld)", ce->size,
		           small, nv_knob_int(NV_KNOB_INLINE_THRESHOLD)), V_FREE;
	cost = ce->size + (long long)nv_knob_int(NV_KNOB_INLINE_SWITCHCTRL) * ce->cases;
	if (ce->gpu)
		cost -= INTRINSIC_BONUS;
	s->cost = cost = cost < 0 ? 0 : cost;
	if (cost > caller->left || (st->total_left >= 0 && cost > st->total_left)) {
		long long traffic = marshalling(st, ce->fn, &walked);

		return WHY("cost %lld%s exceeds the %s budget left, %lld; the call stays, with "
		           "%lld instructions of .param traffic%s", cost, ce->gpu ? " (after the warp/tensor bonus)" : "",
		           cost > caller->left ? "caller's" : "module's",
		           cost > caller->left ? caller->left : st->total_left, traffic,
		           walked ? "" : " (aggregates counted per 4 bytes)"), V_NO;
	}
	return WHY("cost %lld%s, budget left %lld", cost,
	           ce->gpu ? " (after the warp/tensor bonus)" : "", caller->left - cost), V_CHARGED;
}

/* -decisions: a replayed choice for the call replaces the verdict ("yes"
 * inlines it, as always_inline would; "no" keeps it); -save-decisions: the
 * verdict is saved, "yes callee=NAME" or "no callee=NAME". */
static void
replay(struct fn *caller, struct site *s)
{
	struct nv_decision dec;
	struct nv_srcloc loc;
	const char *want, *callee = name_of(LLVMGetCalledValue(s->call));
	char *fn, *text;
	size_t n;

	if (!nv_decisions_on())
		return;
	nv_srcloc_of(s->call, &loc);
	fn = xstrdup(name_of(caller->fn));
	want = nv_decision_begin(&dec, "inline", &loc, fn);
	if (want) {
		const char *c = want + (n = strcspn(want, " \t"));

		c += strspn(c, " \t");
		if ((n != 3 || strncmp(want, "yes", 3)) && (n != 2 || strncmp(want, "no", 2)))
			nv_warn("decision '%s %s': not an inline choice (yes or no, then callee=NAME)", dec.key, want);
		else if (*c && (strncmp(c, "callee=", 7) || strcmp(c + 7, callee)))
			nv_warn("decision '%s %s': the call there is to '%s'", dec.key, want, callee);
		else if (n == 3 && s->v == V_NO)
			s->v = V_FREE, WHY("as -decisions says");
		else if (n == 2 && s->v != V_NO)
			s->v = V_NO, WHY("as -decisions says");
	}
	text = xasprintf("%s callee=%s", s->v == V_NO ? "no" : "yes", callee);
	nv_decision_end(&dec, text);
	free(text);
	free(fn);
}

/* The caller grows by the callee; its non-inlined calls are copied. */
static void
account(struct state *st, struct fn *caller, struct site *s)
{
	struct fn *ce = &st->f[s->callee];

	caller->size += ce->size - 1;
	if (caller->size > SIZE_CAP)
		caller->size = SIZE_CAP;
	caller->gpu |= ce->gpu;
	caller->nswitch += ce->nswitch;
	caller->cases += ce->cases;
	if (ce->maxcases > caller->maxcases)
		caller->maxcases = ce->maxcases;
	if (s->v == V_CHARGED) {
		caller->left -= s->cost;
		if (st->total_left >= 0)
			st->total_left -= s->cost;
	}
	/* Its calls not inlined are copied into the caller; when this was its
	 * last call, the originals go with its body. */
	ce->pending--;
	for (unsigned k = 0; k < ce->nsites; k++)
		if (ce->sites[k].callee != NV_NONE && ce->sites[k].v == V_NO &&
		    (ce->pending || !ce->internal || ce->other_uses))
			st->f[ce->sites[k].callee].pending++;
}

static void
report(struct state *st, struct fn *caller, struct site *s)
{
	const char *callee = name_of(LLVMGetCalledValue(s->call));
	const char *name = name_of(caller->fn);

	if (s->v == V_FREE || s->v == V_CHARGED)
		nv_remark(NV_REMARK_PASSED, PASS, "Inlined", s->call, "'%s' inlined into '%s': %s", callee,
		          name, s->why);
	else
		nv_remark(NV_REMARK_MISSED, PASS, "NotInlined", s->call, "'%s' not inlined into '%s': %s",
		          callee, name, s->why);
	if (nv_knob_int(NV_KNOB_PROFUSEINLINE)) {
		char total[32] = "unlimited";
		char cost[32] = "-";

		if (st->total_left >= 0)
			snprintf(total, sizeof(total), "%lld", st->total_left);
		if (s->v == V_FREE)
			snprintf(cost, sizeof(cost), "free");
		else if (s->cost >= 0)
			snprintf(cost, sizeof(cost), "%lld", s->cost);
		fprintf(stderr, "profuseinline: %s -> %s: %s (cost %s, budget left %lld, total left %s): %s\n",
		        name, callee, s->v == V_FREE || s->v == V_CHARGED ? "inline" : "no inline", cost,
		        caller->left, total, s->why);
	}
}

static void
set_attr(struct state *st, LLVMValueRef call, unsigned on, unsigned off)
{
	LLVMRemoveCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, off);
	if (!LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, on))
		LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
		                         LLVMCreateEnumAttribute(st->ctx, on, 0));
}

/* --- alloca merging --- */

struct merge {
	LLVMValueRef fn;
	unsigned n, w;            /* candidates, 64-bit words per bitset */
	LLVMValueRef *a;          /* the allocas */
	uint64_t *size;
	uint64_t *conflict;       /* n bitsets */
	char *bad;
	struct nv_ptrmap of;      /* alloca or pointer derived from it -> candidate */
};

#define BIT(v, k) ((v)[(k) / 64] >> ((k) % 64) & 1)
#define SETBIT(v, k) ((v)[(k) / 64] |= 1ull << ((k) % 64))
#define CLRBIT(v, k) ((v)[(k) / 64] &= ~(1ull << ((k) % 64)))

/* The candidate whose lifetime i starts (+1) or ends (-1), else 0. */
static int
lifetime(struct merge *mg, LLVMValueRef i, unsigned *c)
{
	LLVMValueRef callee;
	size_t len;
	const char *name;

	if (!LLVMIsACallInst(i) || !(callee = called_function(i)))
		return 0;
	name = LLVMGetValueName2(callee, &len);
	if (strncmp(name, "llvm.lifetime.", 14))
		return 0;
	*c = nv_ptrmap_get(&mg->of, LLVMGetOperand(i, LLVMGetNumArgOperands(i) - 1));
	if (*c == NV_NONE || LLVMGetOperand(i, LLVMGetNumArgOperands(i) - 1) != mg->a[*c])
		return 0;
	return !strncmp(name + 14, "start", 5) ? 1 : -1;
}

static void
derive(struct merge *mg, LLVMValueRef v, unsigned c, unsigned depth)
{
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);
		LLVMOpcode op = LLVMIsAInstruction(user) ? LLVMGetInstructionOpcode(user) : 0;

		if (op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast) {
			unsigned prev = nv_ptrmap_get(&mg->of, user);

			if (prev != NV_NONE && prev != c)
				mg->bad[c] = mg->bad[prev] = 1;
			else if (prev == NV_NONE && depth < 64) {
				nv_ptrmap_put(&mg->of, user, c);
				derive(mg, user, c, depth + 1);
			}
		} else if (op == LLVMPHI || op == LLVMSelect || !op) {
			mg->bad[c] = 1; /* the pointer mixes with others: keep it apart */
		}
	}
}

/* Transfer of block b on the live set cur; with conflicts, also record
 * which candidates are live together and uses outside a lifetime. */
static void
walk_block(struct merge *mg, LLVMBasicBlockRef bb, uint64_t *cur, int record)
{
	if (record)
		for (unsigned k = 0; k < mg->n; k++)
			if (BIT(cur, k))
				for (unsigned j = 0; j < mg->w; j++)
					mg->conflict[k * mg->w + j] |= cur[j];
	for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
		unsigned c;
		int lt = lifetime(mg, i, &c);

		if (lt > 0) {
			if (record) {
				for (unsigned j = 0; j < mg->w; j++)
					mg->conflict[c * mg->w + j] |= cur[j];
				for (unsigned k = 0; k < mg->n; k++)
					if (BIT(cur, k))
						SETBIT(&mg->conflict[k * mg->w], c);
			}
			SETBIT(cur, c);
		} else if (lt < 0) {
			CLRBIT(cur, c);
		} else if (record && !LLVMIsAGetElementPtrInst(i) && !LLVMIsACastInst(i)) {
			for (unsigned k = 0, n = LLVMGetNumOperands(i); k < n; k++) {
				unsigned u = nv_ptrmap_get(&mg->of, LLVMGetOperand(i, k));

				if (u != NV_NONE && !BIT(cur, u))
					mg->bad[u] = 1;
			}
		}
	}
}

static int
candidate(LLVMModuleRef m, LLVMValueRef a)
{
	LLVMValueRef n = LLVMGetOperand(a, 0);
	LLVMTypeRef ty = LLVMGetAllocatedType(a);

	return LLVMIsAConstantInt(n) && LLVMConstIntGetZExtValue(n) == 1 && nv_type_sized(ty) &&
	       nv_type_alloc_size(m, ty) > 0;
}

/*
 * The allocas a function had before inlining carry a "home" mark, the
 * function's index: the inliner copies a callee's marks with its allocas,
 * so after it an alloca is new in function k unless its mark says k.  (A
 * set of pointers would not do: the inliner frees allocas, and a new one
 * at a freed one's address would pass for old, as the heap happens to lay
 * them out, so the result would change from run to run.)
 */
static void
mark_home(LLVMValueRef fn, unsigned kind, unsigned k)
{
	LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
	LLVMValueRef id = LLVMConstInt(LLVMInt32TypeInContext(ctx), k, 0);

	for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)); i;
	     i = LLVMGetNextInstruction(i))
		if (LLVMIsAAllocaInst(i))
			LLVMSetMetadata(i, kind, LLVMMDNodeInContext(ctx, &id, 1));
}

/* The home of alloca a: the function index its mark gives, or NV_NONE. */
static unsigned
home(LLVMValueRef a, unsigned kind)
{
	LLVMValueRef md = LLVMGetMetadata(a, kind), op;

	if (!md || LLVMGetMDNodeNumOperands(md) != 1)
		return NV_NONE;
	LLVMGetMDNodeOperands(md, &op);
	return op && LLVMIsAConstantInt(op) ? (unsigned)LLVMConstIntGetZExtValue(op) : NV_NONE;
}

/* Remove every home mark of fn. */
static void
unmark_home(LLVMValueRef fn, unsigned kind)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			if (LLVMIsAAllocaInst(i))
				LLVMSetMetadata(i, kind, NULL);
}

/* Merge the allocas of fn (function index k) that inlining brought, whose
 * lifetimes never overlap; returns the bytes saved, *merged the allocas
 * that went. */
static uint64_t
merge_allocas(LLVMModuleRef m, LLVMValueRef fn, unsigned k_fn, unsigned kind, unsigned *merged)
{
	struct merge mg = { fn, 0, 0, NULL, NULL, NULL, NULL, { 0 } };
	struct nv_cfg g;
	uint64_t *in, *out, *cur, saved = 0;
	unsigned *slot;
	int changed = 1;

	*merged = 0;
	mg.a = xmalloc(MAX_MERGE * sizeof(*mg.a));
	for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn));
	     i && mg.n < MAX_MERGE; i = LLVMGetNextInstruction(i))
		if (LLVMIsAAllocaInst(i) && home(i, kind) != k_fn && candidate(m, i))
			mg.a[mg.n++] = i;
	if (mg.n < 2) {
		free(mg.a);
		return 0;
	}
	mg.w = (mg.n + 63) / 64;
	mg.size = xmalloc(mg.n * sizeof(*mg.size));
	mg.conflict = xcalloc((size_t)mg.n * mg.w, sizeof(*mg.conflict));
	mg.bad = xcalloc(mg.n, 1);
	nv_ptrmap_init(&mg.of, 4 * mg.n);
	for (unsigned k = 0; k < mg.n; k++) {
		mg.size[k] = nv_type_alloc_size(m, LLVMGetAllocatedType(mg.a[k]));
		nv_ptrmap_put(&mg.of, mg.a[k], k);
	}
	for (unsigned k = 0; k < mg.n; k++)
		derive(&mg, mg.a[k], k, 0);

	/* May-be-live at block entry: a forward union over predecessors. */
	nv_cfg_build(&g, fn);
	in = xcalloc((size_t)g.n * mg.w, sizeof(*in));
	out = xcalloc((size_t)g.n * mg.w, sizeof(*out));
	cur = xmalloc(mg.w * sizeof(*cur));
	while (changed) {
		changed = 0;
		for (unsigned r = 0; r < g.nrpo; r++) {
			unsigned b = g.rpo[r];

			memset(cur, 0, mg.w * sizeof(*cur));
			for (unsigned p = g.pred_off[b]; p < g.pred_off[b + 1]; p++)
				for (unsigned j = 0; j < mg.w; j++)
					cur[j] |= out[(size_t)g.pred[p] * mg.w + j];
			memcpy(&in[(size_t)b * mg.w], cur, mg.w * sizeof(*cur));
			walk_block(&mg, g.bb[b], cur, 0);
			if (memcmp(&out[(size_t)b * mg.w], cur, mg.w * sizeof(*cur))) {
				memcpy(&out[(size_t)b * mg.w], cur, mg.w * sizeof(*cur));
				changed = 1;
			}
		}
	}
	for (unsigned r = 0; r < g.nrpo; r++) {
		unsigned b = g.rpo[r];

		memcpy(cur, &in[(size_t)b * mg.w], mg.w * sizeof(*cur));
		walk_block(&mg, g.bb[b], cur, 1);
	}

	/* Greedy colouring, largest first: an alloca joins the first slot none
	 * of whose members is live with it; the slot's first member stays. */
	slot = xmalloc(mg.n * sizeof(*slot));
	for (unsigned k = 0; k < mg.n; k++)
		slot[k] = k;
	for (unsigned k = 1; k < mg.n; k++) /* insertion sort by size, descending */
		for (unsigned j = k; j > 0 && mg.size[slot[j]] > mg.size[slot[j - 1]]; j--) {
			unsigned t = slot[j];

			slot[j] = slot[j - 1];
			slot[j - 1] = t;
		}
	{
		unsigned *order = slot, *rep = xmalloc(mg.n * sizeof(*rep)), nrep = 0;
		uint64_t *members = xcalloc((size_t)mg.n * mg.w, sizeof(*members));

		for (unsigned o = 0; o < mg.n; o++) {
			unsigned c = order[o], s;

			if (mg.bad[c])
				continue;
			for (s = 0; s < nrep; s++) {
				unsigned j;

				/* one type a slot: SROA splits a slot into registers only
				 * when its accesses agree, and an i32 array sharing one
				 * with a closure of pointers keeps both, and all the
				 * closure points to, in local memory (CUB's Onesweep:
				 * 176 bytes of stack, none unmerged) */
				if (LLVMGetAllocatedType(mg.a[c]) != LLVMGetAllocatedType(mg.a[rep[s]]))
					continue;
				for (j = 0; j < mg.w; j++)
					if (members[(size_t)s * mg.w + j] & mg.conflict[(size_t)c * mg.w + j])
						break;
				if (j == mg.w)
					break;
			}
			SETBIT(&members[(size_t)s * mg.w], c);
			if (s == nrep) {
				rep[nrep++] = c;
				continue;
			}
			if (LLVMGetAlignment(mg.a[c]) > LLVMGetAlignment(mg.a[rep[s]]))
				LLVMSetAlignment(mg.a[rep[s]], LLVMGetAlignment(mg.a[c]));
			LLVMReplaceAllUsesWith(mg.a[c], mg.a[rep[s]]);
			LLVMInstructionEraseFromParent(mg.a[c]);
			saved += mg.size[c];
			++*merged;
		}
		free(members);
		free(rep);
	}
	free(slot);
	free(cur);
	free(out);
	free(in);
	nv_cfg_release(&g);
	nv_ptrmap_release(&mg.of);
	free(mg.bad);
	free(mg.conflict);
	free(mg.size);
	free(mg.a);
	return saved;
}

/* --- the module --- */

static void
setup(struct state *st)
{
	unsigned n = 0, k = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(st->m); f; f = LLVMGetNextFunction(f))
		n++;
	st->nf = n;
	st->f = xcalloc(n ? n : 1, sizeof(*st->f));
	nv_ptrmap_init(&st->index, 2 * n + 1);
	for (LLVMValueRef f = LLVMGetFirstFunction(st->m); f; f = LLVMGetNextFunction(f), k++) {
		LLVMLinkage l = LLVMGetLinkage(f);

		st->f[k].fn = f;
		st->f[k].defined = !LLVMIsDeclaration(f);
		st->f[k].kernel = nv_is_kernel(f);
		st->f[k].internal = l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
		nv_ptrmap_put(&st->index, f, k);
	}
	for (k = 0; k < n; k++) {
		struct fn *f = &st->f[k];

		if (!f->defined)
			continue;
		collect_sites(st, f);
		count_uses(f);
		scan(st, f);
		f->left = caller_budget(f);
	}
}

static unsigned
kind(const char *name)
{
	return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

int
nv_inline_module(LLVMModuleRef m, LLVMTargetMachineRef tm, int olevel)
{
	struct state st = { m, LLVMGetModuleContext(m), olevel, NULL, 0, { 0 },
	                    nv_knob_int(NV_KNOB_INLINE_TOTAL_BUDGET), kind("alwaysinline"),
	                    kind("noinline"), kind("optnone"), kind("byval") };
	unsigned home_kind = LLVMGetMDKindIDInContext(st.ctx, "nv.inline.home", 14);
	unsigned *order, norder, ninlined = 0;
	int rc = 0;

	/* Callees are measured simplified, as cicc's CGSCC walk sees them. */
	if (olevel > 0 && nv_run_pipeline(m, tm, nv_stdpipe_find("std1")->passes))
		return -1;
	setup(&st);
	order = xmalloc((st.nf ? st.nf : 1) * sizeof(*order));
	norder = sccs(&st, order);
	for (unsigned k = 0; k < st.nf; k++)
		if (st.f[k].defined)
			st.f[k].size = nv_inline_size(st.f[k].fn);

	for (unsigned o = 0; o < norder; o++) {
		struct fn *caller = &st.f[order[o]];

		for (unsigned k = 0; k < caller->nsites; k++) {
			struct site *s = &caller->sites[k];

			if (s->callee == NV_NONE) {
				if (s->v != V_SKIP)
					WHY("'%s' is only declared here",
					    name_of(LLVMGetCalledValue(s->call)));
				s->v = V_SKIP;
				nv_remark(NV_REMARK_MISSED, PASS, "NotInlined", s->call,
				          "'%s' not inlined into '%s': %s",
				          name_of(LLVMGetCalledValue(s->call)),
				          name_of(caller->fn), s->why);
				continue;
			}
			s->v = decide(&st, caller, s);
			replay(caller, s);
			if (s->v == V_FREE || s->v == V_CHARGED) {
				account(&st, caller, s);
				set_attr(&st, s->call, st.k_always, st.k_noinline);
				ninlined++;
			} else {
				set_attr(&st, s->call, st.k_noinline, st.k_always);
			}
			report(&st, caller, s);
		}
	}

	/* The allocas each function has now; those inlining brings are new. */
	for (unsigned k = 0; k < st.nf; k++)
		if (st.f[k].defined)
			mark_home(st.f[k].fn, home_kind, k);
	if (ninlined) {
		nv_diag_llvm_remarks(0);
		rc = nv_run_pipeline(m, tm, "always-inline");
		nv_diag_llvm_remarks(1);
	}
	/* What LLVM could not clone stays a call, now a decided one. */
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !rc; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
				if (is_call(i) &&
				    LLVMGetCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, st.k_always)) {
					set_attr(&st, i, st.k_noinline, st.k_always);
					nv_remark(NV_REMARK_MISSED, PASS, "NotInlined", i,
					          "'%s' not inlined into '%s': LLVM cannot inline it",
					          name_of(LLVMGetCalledValue(i)), name_of(f));
				}
	if (!rc && ninlined && !nv_knob_int(NV_KNOB_DISABLE_INLINED_ALLOCA_MERGING))
		for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
			/* the inliner deletes functions, never makes one: a live
			 * function is the one the index knew */
			unsigned k = nv_ptrmap_get(&st.index, f), merged;
			uint64_t saved;

			if (k == NV_NONE || LLVMIsDeclaration(f))
				continue;
			saved = merge_allocas(m, f, k, home_kind, &merged);
			if (merged)
				nv_remark(NV_REMARK_PASSED, PASS, "AllocasMerged", f,
				          "%u allocas of inlined callees share the slots of others in '%s': "
				          "%llu bytes of local memory saved",
				          merged, name_of(f), (unsigned long long)saved);
		}
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		unmark_home(f, home_kind);
	if (!rc) {
		unsigned dropped = nv_drop_unused_internals(m);

		if (dropped)
			nv_remark(NV_REMARK_PASSED, PASS, "Deleted", NULL,
			          "%u internal functions left without callers deleted", dropped);
	}
	for (unsigned k = 0; k < st.nf; k++)
		free(st.f[k].sites);
	free(st.f);
	free(order);
	nv_ptrmap_release(&st.index);
	return rc;
}
