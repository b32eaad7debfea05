#include "vectorize.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Support.h>

#include "../base/decisions.h"
#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfg.h"
#include "../ir/cfgedit.h"
#include "../ir/dom.h"
#include "../ir/indvars.h"
#include "../ir/liveness.h"
#include "../ir/loops.h"
#include "../ir/occupancy.h"
#include "stdpipe.h"

#define PASS "nv-vectorize"
#define MD_ID "nv.vectorize.id" /* i32: which candidate the loop is */
#define KEEP "nv.vectorize.keep" /* call (i32 candidate, start of each header phi) */
#define MAX_TRIES 3             /* a try only takes loops out, so this is plenty */
#define MAX_CHAIN 16            /* address instructions recomputed before the loop */
#define WIDE_BYTES 16           /* ld/st.v4.b32, the widest PTX access */
#define REG_FLOOR 64            /* registers a loop may grow to whatever the occupancy */

/* One loop we decided to vectorize (or interleave), by position: the
 * function's index in the module and the loop's in nv_loops, the same in
 * every copy of the module. */
struct cand {
	unsigned fn, loop;
	unsigned vf, ic;
	unsigned bytes;        /* of the widest widened access */
	char *where;           /* "loop %3 in f" */
	LLVMValueRef at;       /* for remarks (in the original module) */
	unsigned est, base;    /* register estimate after, and the function's before */
	const char *tag;       /* set when a try refused it */
	char *why;
	unsigned wide, fixed;  /* wide accesses; those aligned by versioning */
	int epilogue;          /* the remainder is a vector loop */
	int alias_risk;        /* a store may overlap another access */
};

struct state {
	LLVMModuleRef m;
	LLVMTargetMachineRef tm;
	int sm;
	struct cand *c;
	unsigned nc;
};

static LLVMValueRef
nth_function(LLVMModuleRef m, unsigned i)
{
	LLVMValueRef f = LLVMGetFirstFunction(m);

	while (f && i--)
		f = LLVMGetNextFunction(f);
	return f;
}

static void
missed(LLVMValueRef at, const char *tag, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void
missed(LLVMValueRef at, const char *tag, const char *where, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!nv_remark_enabled(NV_REMARK_MISSED, PASS))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!strncmp(buf, "loop not vectorized: ", 21)) /* the seed's own wording */
		nv_remark(NV_REMARK_MISSED, PASS, tag, at, "%s: %s", where, buf);
	else
		nv_remark(NV_REMARK_MISSED, PASS, tag, at, "%s not vectorized: %s", where, buf);
}

/* --- legality --- */

static int
callee_named(LLVMValueRef call, const char **name)
{
	LLVMValueRef callee = LLVMGetCalledValue(call);
	size_t len;

	if (!callee || !LLVMIsAFunction(callee))
		return 0;
	*name = LLVMGetValueName2(callee, &len);
	return 1;
}

static int
is_convergent(LLVMValueRef call)
{
	unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
	LLVMValueRef callee = LLVMGetCalledValue(call);

	if (LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind))
		return 1;
	if (callee && LLVMIsAFunction(callee) &&
	    LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind))
		return 1;
	return LLVMIsAInlineAsm(callee) != NULL;
}

static LLVMValueRef
underlying(LLVMValueRef p)
{
	for (int i = 0; i < 32; i++) {
		if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p))
			p = LLVMGetOperand(p, 0);
		else if (LLVMIsAConstantExpr(p) &&
		         (LLVMGetConstOpcode(p) == LLVMGetElementPtr || LLVMGetConstOpcode(p) == LLVMAddrSpaceCast))
			p = LLVMGetOperand(p, 0);
		else
			break;
	}
	return p;
}

/* An object no other pointer reaches: a noalias argument, an alloca or a global. */
static int
identified(LLVMValueRef obj)
{
	if (LLVMIsAAllocaInst(obj) || LLVMIsAGlobalVariable(obj))
		return 1;
	if (LLVMIsAArgument(obj)) {
		LLVMValueRef fn = LLVMGetParamParent(obj);
		unsigned idx = 1, kind = LLVMGetEnumAttributeKindForName("noalias", 7);

		for (LLVMValueRef a = LLVMGetFirstParam(fn); a && a != obj; a = LLVMGetNextParam(a))
			idx++;
		return LLVMGetEnumAttributeAtIndex(fn, idx, kind) != NULL;
	}
	return 0;
}

static int
fp_reorder_ok(LLVMValueRef v)
{
	if (nv_knob_int(NV_KNOB_VECTORIZE_FP_REORDER))
		return 1;
	return LLVMCanValueUseFastMathFlags(v) && (LLVMGetFastMathFlags(v) & LLVMFastMathAllowReassoc);
}

struct facts {
	const char *tag;       /* a reason to refuse, or NULL */
	char why[256];
	unsigned widest;       /* bytes of the widest scalar access */
	unsigned accesses, stores;
	int alias_risk;        /* a store may overlap another access */
};

static void
refuse(struct facts *f, const char *tag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
refuse(struct facts *f, const char *tag, const char *fmt, ...)
{
	va_list ap;

	if (f->tag)
		return;
	f->tag = tag;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}

/* The header phi is an FP reduction whose operations may not be reordered. */
static int
bad_fp_reduction(const struct nv_loops *ls, unsigned l, LLVMValueRef phi)
{
	const struct nv_loop *lp = &ls->v[l];
	LLVMBasicBlockRef latch = ls->cfg->bb[lp->latches[0]];
	LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(phi));
	LLVMValueRef next = NULL;

	if (k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind && k != LLVMHalfTypeKind &&
	    k != LLVMBFloatTypeKind)
		return 0;
	for (unsigned i = 0; i < LLVMCountIncoming(phi); i++)
		if (LLVMGetIncomingBlock(phi, i) == latch)
			next = LLVMGetIncomingValue(phi, i);
	if (!next || next == phi || !LLVMIsAInstruction(next) || LLVMIsALoadInst(next))
		return 0; /* invariant, or a first-order recurrence: nothing reordered */
	if (nv_knob_int(NV_KNOB_VECTORIZE_FP_REORDER))
		return 0;
	/* a reduction, perhaps through phis and selects: every FP operation
	 * of the loop must allow reassociation */
	for (unsigned b = 0; b < lp->nblocks; b++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(ls->cfg->bb[lp->blocks[b]]); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(i);

			if ((op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul || op == LLVMCall) &&
			    LLVMCanValueUseFastMathFlags(i) && !fp_reorder_ok(i))
				return 1;
		}
	return 0;
}

static void
scan(LLVMModuleRef m, const struct nv_loops *ls, unsigned l, struct facts *f)
{
	const struct nv_loop *lp = &ls->v[l];
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
	LLVMValueRef ptrs[64];
	int writes[64];
	unsigned np = 0;

	for (LLVMValueRef i = LLVMGetFirstInstruction(ls->cfg->bb[lp->header]); i && LLVMIsAPHINode(i);
	     i = LLVMGetNextInstruction(i))
		if (bad_fp_reduction(ls, l, i))
			refuse(f, "CantReorderFPOps",
			       "loop not vectorized: cannot prove it is safe to reorder floating-point "
			       "operations (a reduction without the reassoc fast-math flag; "
			       "-vectorize-fp-reorder allows it)");
	for (unsigned b = 0; b < lp->nblocks; b++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(ls->cfg->bb[lp->blocks[b]]); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(i);
			const char *name;

			if (op == LLVMCall) {
				if (is_convergent(i)) {
					name = "inline asm";
					callee_named(i, &name);
					refuse(f, "ConvergentCall",
					       "it calls %s, a convergent operation (barrier, warp shuffle or vote) "
					       "that every thread must run once per iteration", name);
				} else if (LLVMIsAInlineAsm(LLVMGetCalledValue(i)) ||
				           !callee_named(i, &name) || !LLVMGetIntrinsicID(LLVMGetCalledValue(i))) {
					refuse(f, "CantVectorizeCall",
					       "call instruction cannot be vectorized");
				}
				continue;
			}
			if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg || op == LLVMFence) {
				refuse(f, "CantVectorizeInstruction", "instruction cannot be vectorized (atomic)");
				continue;
			}
			if (op != LLVMLoad && op != LLVMStore)
				continue;
			if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic) {
				refuse(f, op == LLVMLoad ? "NonSimpleLoad" : "NonSimpleStore",
				       op == LLVMLoad ? "read with atomic ordering or volatile read"
				                      : "write with atomic ordering or volatile write");
				continue;
			}
			LLVMTypeRef ty = LLVMTypeOf(op == LLVMLoad ? i : LLVMGetOperand(i, 0));
			LLVMTypeKind k = LLVMGetTypeKind(ty);
			if (k != LLVMIntegerTypeKind && k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind &&
			    k != LLVMHalfTypeKind && k != LLVMBFloatTypeKind && k != LLVMPointerTypeKind) {
				refuse(f, "VectorizationNotBeneficial",
				       "the cost-model indicates that vectorization is not beneficial "
				       "(an access of a vector or aggregate type is already wide)");
				continue;
			}
			LLVMValueRef obj = underlying(LLVMGetOperand(i, op == LLVMLoad ? 0 : 1));
			if (LLVMIsAAllocaInst(obj) && LLVMGetAlignment(obj) < WIDE_BYTES) {
				refuse(f, "VectorizationNotBeneficial",
				       "the cost-model indicates that vectorization is not beneficial "
				       "(it accesses a local array aligned to less than 16 bytes: nv-unroll "
				       "unrolls the loop so that SROA keeps the array in registers, where "
				       "a vector loop versioned on the array's address would keep it in "
				       "local memory)");
				continue;
			}
			unsigned long long sz = LLVMStoreSizeOfType(td, ty);
			if (sz > f->widest)
				f->widest = (unsigned)sz;
			f->accesses++;
			f->stores += op == LLVMStore;
			if (np < 64) {
				ptrs[np] = LLVMGetOperand(i, op == LLVMLoad ? 0 : 1);
				writes[np++] = op == LLVMStore;
			} else {
				f->alias_risk = 1;
			}
		}
	for (unsigned a = 0; a < np; a++)
		for (unsigned b = 0; b < np; b++) {
			LLVMValueRef oa, ob;

			if (!writes[a] || a == b || ptrs[a] == ptrs[b])
				continue;
			oa = underlying(ptrs[a]);
			ob = underlying(ptrs[b]);
			if (oa == ob || !identified(oa) || !identified(ob))
				f->alias_risk = 1;
		}
}

/* Register units: the most the loop holds at once, of which `inv` are
 * values from outside it (they stay scalar when the body widens). */
static void
pressure(const struct nv_liveness *lv, const struct nv_loops *ls, unsigned l, unsigned *peak,
         unsigned *inv)
{
	const struct nv_loop *lp = &ls->v[l];
	const uint64_t *in = nv_live_in(lv, lp->header);

	*peak = *inv = 0;
	for (unsigned b = 0; b < lp->nblocks; b++)
		if (lv->block_max_units[lp->blocks[b]] > *peak)
			*peak = lv->block_max_units[lp->blocks[b]];
	for (unsigned v = 0; v < lv->nvals; v++) {
		LLVMValueRef val = lv->val[v];
		LLVMBasicBlockRef bb;

		if (!nv_live_has(lv, in, v))
			continue;
		bb = LLVMIsAInstruction(val) ? LLVMGetInstructionParent(val) : NULL;
		if (!bb || !nv_loop_contains(ls, l, nv_ptrmap_get(&ls->cfg->index, bb)))
			*inv += lv->units[v];
	}
}

static unsigned
estimate(unsigned peak, unsigned inv, unsigned factor)
{
	unsigned variant = peak > inv ? peak - inv : 0;

	return peak + variant * (factor - 1);
}

static int
fits(const struct state *st, unsigned base, unsigned est)
{
	unsigned budget = nv_occupancy_regs_for(st->sm, nv_occupancy_warps(st->sm, base));

	if (budget < REG_FLOOR)
		budget = REG_FLOOR;
	return est <= budget && est <= NV_MAX_REGS_PER_THREAD;
}

/* -decisions: a replayed choice for loop l replaces *vf and *ic ("vf=N
 * ic=M"), or drops the loop ("none": returns 1); -save-decisions: the
 * choice taken is saved. */
static int
replay(const struct nv_loops *ls, unsigned l, LLVMValueRef at, const char *where, unsigned *vf, unsigned *ic)
{
	struct nv_decision dec;
	struct nv_srcloc loc;
	const char *want;
	char text[48], *fn;
	size_t len;
	int none = 0;

	if (!nv_decisions_on())
		return 0;
	nv_loop_srcloc(ls, l, &loc);
	fn = xstrdup(LLVMGetValueName2(LLVMGetBasicBlockParent(LLVMGetInstructionParent(at)), &len));
	want = nv_decision_begin(&dec, "vectorize", &loc, fn);
	if (want) {
		unsigned v, i;
		int n = -1;

		if (!strcmp(want, "none"))
			none = 1;
		else if (sscanf(want, "vf=%u ic=%u%n", &v, &i, &n) == 2 && n == (int)strlen(want) && v >= 1 &&
		         v <= 16 && !(v & (v - 1)) && i >= 1 && i <= 16 && v * i >= 2)
			*vf = v, *ic = i;
		else
			nv_warn("decision '%s %s': not a vectorize choice (none, or vf=N ic=M: N a power of two "
			        "up to 16, M up to 16)", dec.key, want);
	}
	if (none)
		snprintf(text, sizeof(text), "none");
	else
		snprintf(text, sizeof(text), "vf=%u ic=%u", *vf, *ic);
	nv_decision_end(&dec, text);
	free(fn);
	if (none)
		missed(at, "Decisions", where, "as -decisions says");
	return none;
}

/* Decide loop l of function fi; a candidate is appended to st->c. */
static void
decide(struct state *st, unsigned fi, const struct nv_loops *ls, unsigned l,
       const struct nv_liveness *lv, const char *where, LLVMValueRef at)
{
	const struct nv_loop *lp = &ls->v[l];
	struct facts f = { 0 };
	struct nv_trip trip;
	int64_t width = 0, enable = -1;
	unsigned vf, ic = 1, peak = 0, inv = 0, base = lv ? lv->max_units : 0, est;
	long long minc = nv_knob_int(NV_KNOB_VECTORIZER_MIN_TRIP_COUNT);
	long long force_vf = nv_knob_int(NV_KNOB_FORCE_VECTOR_WIDTH);
	long long max_ic = nv_knob_int(NV_KNOB_FORCE_TARGET_MAX_VECTOR_INTERLEAVE);
	long long scalar_ic = nv_knob_int(NV_KNOB_FORCE_TARGET_MAX_SCALAR_INTERLEAVE);
	struct cand *c;

	if (nv_loop_md_has(ls, l, "llvm.loop.isvectorized"))
		return;
	nv_loop_md_int(ls, l, "llvm.loop.vectorize.width", &width);
	if (nv_loop_md_has(ls, l, "llvm.loop.vectorize.enable") &&
	    !nv_loop_md_int(ls, l, "llvm.loop.vectorize.enable", &enable))
		enable = 1;
	if (enable == 0 || width == 1) {
		missed(at, "MissedExplicitlyDisabled", where, "vectorization is explicitly disabled");
		return;
	}
	/* #pragma unroll N gives unroll.count, #pragma unroll unroll.enable
	 * (clang's CUDA: unroll fully when the trip count is known). */
	if (nv_loop_md_has(ls, l, "llvm.loop.unroll.count") || nv_loop_md_has(ls, l, "llvm.loop.unroll.full") ||
	    nv_loop_md_has(ls, l, "llvm.loop.unroll.enable")) {
		missed(at, "UnrollPragma", where,
		       "#pragma unroll chooses the shape of this loop; nv-unroll carries it out");
		return;
	}
	if (!nv_loop_is_simplified(ls, l) || lp->nlatches != 1) {
		missed(at, "CFGNotUnderstood", where, "loop control flow is not understood by vectorizer");
		return;
	}
	if (lp->nexiting > 1 && !nv_knob_int(NV_KNOB_ENABLE_EARLY_EXIT_VECTORIZATION)) {
		missed(at, "UncountableEarlyExitLoopsDisabled", where,
		       "Auto-vectorization of loops with uncountable early exit is not enabled");
		return;
	}
	if ((nv_trip_count(ls, l, &trip) == NV_TRIP_UNKNOWN || trip.step_value) && lp->nexiting == 1) {
		missed(at, "CantComputeNumberOfIterations", where,
		       "could not determine number of loop iterations (%s)",
		       trip.step_value ? "the IV steps by a run-time value" : trip.why ? trip.why : "?");
		return;
	}
	scan(st->m, ls, l, &f);
	if (f.tag) {
		missed(at, f.tag, where, "%s", f.why);
		return;
	}
	vf = force_vf ? (unsigned)force_vf : 0;
	if (trip.kind == NV_TRIP_CONST && trip.btc + 1 < (uint64_t)minc) {
		if (scalar_ic < 2) {
			missed(at, "LowTripCount", where,
			       "The trip count is below the minial threshold value. (%llu < %lld; nv-unroll "
			       "takes it)", (unsigned long long)trip.btc + 1, minc);
			return;
		}
		vf = 1;
	}
	if (!f.accesses && vf != 1) {
		if (scalar_ic < 2) {
			missed(at, "VectorizationNotBeneficial", where,
			       "the cost-model indicates that vectorization is not beneficial (no load or "
			       "store to widen into ld/st.v2/.v4)");
			return;
		}
		vf = 1;
	}
	if (!vf) {
		vf = f.widest >= WIDE_BYTES ? 1 : WIDE_BYTES / f.widest;
		if (vf > 4)
			vf = 4;
	}
	if (lv)
		pressure(lv, ls, l, &peak, &inv);
	est = estimate(peak, inv, vf);
	while (vf > 1 && !force_vf && lv && !fits(st, base, est)) {
		vf /= 2;
		est = estimate(peak, inv, vf);
	}
	if (vf == 1 && scalar_ic < 2) {
		missed(at, "VectorizationNotBeneficial", where,
		       "the cost-model indicates that vectorization is not beneficial (%s)",
		       f.widest >= WIDE_BYTES ? "its accesses are already 16 bytes wide"
		                              : "even two lanes would need more registers than occupancy allows");
		return;
	}
	if (vf == 1)
		max_ic = scalar_ic;
	for (unsigned k = 2; k <= (unsigned)max_ic; k *= 2)
		if (!lv || fits(st, base, estimate(peak, inv, vf * k)))
			ic = k;
	if (replay(ls, l, at, where, &vf, &ic))
		return;
	est = estimate(peak, inv, vf * ic);
	st->c = xrealloc(st->c, (st->nc + 1) * sizeof(*st->c));
	c = &st->c[st->nc++];
	memset(c, 0, sizeof(*c));
	c->fn = fi;
	c->loop = l;
	c->vf = vf;
	c->ic = ic;
	c->bytes = vf * f.widest;
	c->where = xstrdup(where);
	c->at = at;
	c->est = est;
	c->base = base;
	c->alias_risk = f.alias_risk;
	nv_remark(NV_REMARK_ANALYSIS, PASS, "VectorizationDecision", at,
	          "%s: VF %u, interleave %u (widest access %u bytes; register estimate %u, function %u)",
	          where, vf, ic, f.widest, est, base);
}

static void
decide_function(struct state *st, unsigned fi, LLVMValueRef fn)
{
	struct nv_fn_loops a;
	struct nv_liveness lv;
	int have_lv;
	char **labels;
	size_t len, need;
	const char *fname = LLVMGetValueName2(fn, &len);

	nv_fn_loops_build(&a, fn);
	if (!a.ls.n) {
		nv_fn_loops_release(&a);
		return;
	}
	have_lv = nv_liveness_build(&lv, &a.g, LLVMGetModuleDataLayout(st->m), &need) == 0;
	labels = nv_cfg_labels(&a.g);
	for (unsigned l = 0; l < a.ls.n; l++) {
		LLVMValueRef at = LLVMGetFirstInstruction(a.g.bb[a.ls.v[l].header]);
		char *where;

		if (a.ls.v[l].nchildren)
			continue; /* outer loops: cicc leaves them too */
		while (at && LLVMIsAPHINode(at))
			at = LLVMGetNextInstruction(at);
		where = xasprintf("loop %s in %.*s", labels[a.ls.v[l].header], (int)len, fname);
		decide(st, fi, &a.ls, l, have_lv ? &lv : NULL, where, at);
		free(where);
	}
	nv_cfg_labels_free(&a.g, labels);
	if (have_lv)
		nv_liveness_release(&lv);
	nv_fn_loops_release(&a);
}

/* --- a try --- */

/* Before LLVM's run, the loop's preheader gets a call to the keeper fn
 * with the value each header phi starts with.  When the trip count is a
 * constant, LLVM enters the vector loop unconditionally and folds the phis
 * of scalar.ph into the values the vector loop leaves; versioning then
 * needs the start values back (see version()), and the call keeps them. */
static void
keep_starts(LLVMValueRef fn, const struct nv_fn_loops *a, unsigned l, unsigned k)
{
	LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
	LLVMValueRef args[64];
	LLVMBasicBlockRef ph, hdr = a->g.bb[a->ls.v[l].header];
	LLVMBuilderRef b;
	unsigned n = 0;

	if (a->ls.v[l].preheader == NV_NONE)
		return;
	ph = a->g.bb[a->ls.v[l].preheader];
	args[n++] = LLVMConstInt(LLVMInt32TypeInContext(ctx), k, 0);
	for (LLVMValueRef p = LLVMGetFirstInstruction(hdr); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
		LLVMValueRef start = NULL;

		for (unsigned i = 0; i < LLVMCountIncoming(p) && !start; i++)
			if (LLVMGetIncomingBlock(p, i) == ph)
				start = LLVMGetIncomingValue(p, i);
		if (!start || n == sizeof(args) / sizeof(*args))
			return; /* version() finds no keeper and refuses where it needs one */
		args[n++] = start;
	}
	b = LLVMCreateBuilderInContext(ctx);
	LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(ph));
	LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
	LLVMDisposeBuilder(b);
}

/* The keeper call of each candidate after LLVM's run (NULL where none), in keep[k]. */
static void
find_keepers(LLVMValueRef fn, LLVMValueRef *keep, unsigned nc)
{
	memset(keep, 0, nc * sizeof(*keep));
	for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef call = LLVMGetUser(u);
		unsigned long long k = LLVMConstIntGetZExtValue(LLVMGetOperand(call, 0));

		if (k < nc)
			keep[k] = call;
	}
}

static void
drop_keepers(LLVMValueRef fn)
{
	while (LLVMGetFirstUse(fn))
		LLVMInstructionEraseFromParent(LLVMGetUser(LLVMGetFirstUse(fn)));
	LLVMDeleteFunction(fn);
}

static void
mark(struct state *st, LLVMModuleRef w, LLVMValueRef keeper)
{
	unsigned fi = (unsigned)-1;
	LLVMValueRef fn = NULL;
	struct nv_fn_loops a;
	int built = 0;

	for (unsigned k = 0; k < st->nc; k++) {
		struct cand *c = &st->c[k];

		if (c->tag)
			continue;
		if (c->fn != fi) {
			if (built)
				nv_fn_loops_release(&a);
			fi = c->fn;
			fn = nth_function(w, fi);
			nv_fn_loops_build(&a, fn);
			built = 1;
		}
		nv_loop_md_remove(&a.ls, c->loop, "llvm.loop.vectorize.");
		nv_loop_md_remove(&a.ls, c->loop, "llvm.loop.interleave.");
		nv_loop_md_set(&a.ls, c->loop, "llvm.loop.vectorize.enable", 1, 1);
		nv_loop_md_set(&a.ls, c->loop, "llvm.loop.vectorize.width", 1, (int32_t)c->vf);
		nv_loop_md_set(&a.ls, c->loop, "llvm.loop.interleave.count", 1, (int32_t)c->ic);
		nv_loop_md_set(&a.ls, c->loop, MD_ID, 1, (int32_t)k);
		keep_starts(keeper, &a, c->loop, k);
	}
	if (built)
		nv_fn_loops_release(&a);
}

static void
set_llvm_options(void)
{
	char ee[64], epi[64], fvf[64];
	const char *args[] = { "nv-vectorize", ee, epi, fvf, "-vectorizer-min-trip-count=0",
	                       "-epilogue-vectorization-minimum-VF=1000000" };
	long long evf = nv_knob_int(NV_KNOB_EPILOGUE_VECTORIZATION_FORCE_VF);

	snprintf(ee, sizeof(ee), "-enable-early-exit-vectorization=%d",
	         (int)nv_knob_int(NV_KNOB_ENABLE_EARLY_EXIT_VECTORIZATION));
	snprintf(epi, sizeof(epi), "-enable-epilogue-vectorization=%d",
	         (int)(nv_knob_int(NV_KNOB_ENABLE_EPILOGUE_VECTORIZATION) && evf > 1));
	snprintf(fvf, sizeof(fvf), "-epilogue-vectorization-force-VF=%lld", evf);
	LLVMParseCommandLineOptions((int)(sizeof(args) / sizeof(*args)), args, NULL);
}

static unsigned
pow2_floor(unsigned long long x)
{
	unsigned p = 1;

	while ((unsigned long long)p * 2 <= x && p < WIDE_BYTES)
		p *= 2;
	return p;
}

/* The alignment a wide access needs to stay one ld/st (0 for a scalar one). */
static unsigned
needed_align(LLVMTargetDataRef td, LLVMValueRef i)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(i);
	LLVMTypeRef ty;

	if (op != LLVMLoad && op != LLVMStore)
		return 0;
	ty = LLVMTypeOf(op == LLVMLoad ? i : LLVMGetOperand(i, 0));
	if (LLVMGetTypeKind(ty) != LLVMVectorTypeKind)
		return 0;
	return pow2_floor(LLVMStoreSizeOfType(td, ty));
}

static int
name_starts(LLVMBasicBlockRef bb, const char *prefix)
{
	return !strncmp(LLVMGetBasicBlockName(bb), prefix, strlen(prefix));
}

/* The vector loop of a try, by its blocks. */
struct vloop {
	LLVMBasicBlockRef header, ph, middle;
	LLVMBasicBlockRef *blocks;
	unsigned nblocks;
};

struct chain {
	const struct vloop *v;
	LLVMValueRef from[MAX_CHAIN], to[MAX_CHAIN];
	unsigned n;
};

static int
in_vloop(const struct vloop *v, LLVMBasicBlockRef bb)
{
	for (unsigned i = 0; i < v->nblocks; i++)
		if (v->blocks[i] == bb)
			return 1;
	return 0;
}

static int
chain_op(LLVMOpcode op)
{
	switch (op) {
	case LLVMGetElementPtr: case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMAnd:
	case LLVMOr: case LLVMXor: case LLVMZExt: case LLVMSExt: case LLVMTrunc: case LLVMPtrToInt:
	case LLVMIntToPtr: case LLVMBitCast: case LLVMAddrSpaceCast:
		return 1;
	default:
		return 0;
	}
}

/* Can v's value in the first vector iteration be computed in vector.ph? */
static int
computable(const struct vloop *v, LLVMValueRef x, unsigned depth)
{
	if (!LLVMIsAInstruction(x) || !in_vloop(v, LLVMGetInstructionParent(x)))
		return 1;
	if (LLVMIsAPHINode(x))
		return LLVMGetInstructionParent(x) == v->header && nv_phi_incoming(x, v->ph);
	if (depth >= MAX_CHAIN || !chain_op(LLVMGetInstructionOpcode(x)))
		return 0;
	for (int i = 0; i < LLVMGetNumOperands(x); i++)
		if (!computable(v, LLVMGetOperand(x, (unsigned)i), depth + 1))
			return 0;
	return 1;
}

static LLVMValueRef
first_value(LLVMBuilderRef b, struct chain *c, LLVMValueRef x)
{
	LLVMValueRef n;

	if (!LLVMIsAInstruction(x) || !in_vloop(c->v, LLVMGetInstructionParent(x)))
		return x;
	if (LLVMIsAPHINode(x))
		return nv_phi_incoming(x, c->v->ph);
	for (unsigned i = 0; i < c->n; i++)
		if (c->from[i] == x)
			return c->to[i];
	n = LLVMInstructionClone(x);
	for (int i = 0; i < LLVMGetNumOperands(x); i++)
		LLVMSetOperand(n, (unsigned)i, first_value(b, c, LLVMGetOperand(x, (unsigned)i)));
	LLVMInsertIntoBuilderWithName(b, n, "nv.vec.first");
	if (c->n < MAX_CHAIN) {
		c->from[c->n] = x;
		c->to[c->n++] = n;
	}
	return n;
}

static int
phi_in(LLVMValueRef x, LLVMBasicBlockRef bb)
{
	return LLVMIsAPHINode(x) && LLVMGetInstructionParent(x) == bb;
}

/* Can the scalar loop after sph be entered from vector.ph?  Each header
 * phi takes from sph a phi of sph (whose other entry is the start value)
 * or, where LLVM folded that phi away, the value the vector loop leaves:
 * then the keeper's operand of the same rank is the start value. */
static LLVMBasicBlockRef
scalar_header(LLVMBasicBlockRef sph, LLVMValueRef keep)
{
	LLVMValueRef t = LLVMGetBasicBlockTerminator(sph);
	LLVMBasicBlockRef hdr;
	unsigned j = 0, folded = 0, nk = keep ? (unsigned)LLVMGetNumArgOperands(keep) : 0;

	if (!t || !LLVMIsABranchInst(t) || LLVMIsConditional(t))
		return NULL;
	hdr = LLVMGetSuccessor(t, 0);
	for (LLVMValueRef p = LLVMGetFirstInstruction(hdr); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
		LLVMValueRef r = nv_phi_incoming(p, sph);

		if (!r)
			return NULL;
		j++;
		if (phi_in(r, sph))
			continue;
		if (j >= nk || LLVMTypeOf(LLVMGetOperand(keep, j)) != LLVMTypeOf(p))
			return NULL;
		folded++;
	}
	return !folded || j + 1 == nk ? hdr : NULL;
}

/* Give each header phi that takes a folded value from sph a phi of sph:
 * that value from sph's other predecessors, the start value from vector.ph. */
static void
unfold_starts(LLVMBuilderRef b, LLVMBasicBlockRef sph, LLVMBasicBlockRef hdr, LLVMBasicBlockRef ph,
              LLVMValueRef keep)
{
	LLVMValueRef sv = LLVMBasicBlockAsValue(sph), body = LLVMGetFirstInstruction(sph);
	unsigned j = 0;

	while (LLVMIsAPHINode(body))
		body = LLVMGetNextInstruction(body);

	for (LLVMValueRef p = LLVMGetFirstInstruction(hdr); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
		unsigned at = 0;
		LLVMValueRef r, n, start;

		j++;
		while (LLVMGetIncomingBlock(p, at) != sph)
			at++;
		r = LLVMGetIncomingValue(p, at);
		if (phi_in(r, sph))
			continue;
		LLVMPositionBuilderBefore(b, body);
		n = LLVMBuildPhi(b, LLVMTypeOf(p), "nv.vec.start");
		for (LLVMUseRef u = LLVMGetFirstUse(sv); u; u = LLVMGetNextUse(u)) {
			LLVMValueRef t = LLVMGetUser(u);
			LLVMBasicBlockRef from;

			if (!LLVMIsATerminatorInst(t) || (from = LLVMGetInstructionParent(t)) == ph)
				continue;
			LLVMAddIncoming(n, &r, &from, 1);
		}
		start = LLVMGetOperand(keep, j);
		LLVMAddIncoming(n, &start, &ph, 1);
		LLVMSetOperand(p, at, n);
	}
}

/* Branch from vector.ph to the scalar loop unless every misaligned wide
 * access of the vector loop is aligned in its first iteration; then mark
 * them aligned.  Returns NULL, or why it cannot. */
static const char *
version(LLVMModuleRef w, const struct vloop *v, LLVMValueRef *ops, unsigned *need, unsigned n,
        LLVMValueRef keep)
{
	LLVMContextRef ctx = LLVMGetModuleContext(w);
	LLVMBasicBlockRef sph = NULL, hdr;
	LLVMValueRef term = LLVMGetBasicBlockTerminator(v->ph), mterm, acc, ok;
	LLVMBuilderRef b;
	LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
	struct chain c = { .v = v };

	if (!nv_knob_int(NV_KNOB_VECTORIZE_VERSION_ALIGN))
		return "alignment is not provable and -vectorize-version-align=0";
	if (nv_knob_int(NV_KNOB_EPILOGUE_VECTORIZATION_FORCE_VF) > 1)
		return "alignment is not provable, and a loop with a vectorized epilogue is not versioned";
	if (!v->ph || !v->middle || !term || LLVMGetNumSuccessors(term) != 1)
		return "alignment is not provable, and LLVM left no vector.ph to test it in";
	mterm = LLVMGetBasicBlockTerminator(v->middle);
	for (unsigned s = 0; mterm && s < LLVMGetNumSuccessors(mterm); s++)
		if (name_starts(LLVMGetSuccessor(mterm, s), "scalar.ph"))
			sph = LLVMGetSuccessor(mterm, s);
	if (!sph)
		return "alignment is not provable, and no scalar loop is left to fall back to";
	for (LLVMValueRef p = LLVMGetFirstInstruction(sph); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
		LLVMValueRef start = NULL;

		for (unsigned i = 0; i < LLVMCountIncoming(p) && !start; i++)
			if (LLVMGetIncomingBlock(p, i) != v->middle)
				start = LLVMGetIncomingValue(p, i);
		if (!start)
			return "alignment is not provable, and the scalar loop has no entry but the vector one";
	}
	if (!(hdr = scalar_header(sph, keep)))
		return "alignment is not provable, and the scalar loop's start values are lost";
	for (unsigned i = 0; i < n; i++)
		if (!computable(v, LLVMGetOperand(ops[i], LLVMIsALoadInst(ops[i]) ? 0 : 1), 0))
			return "alignment is not provable, and an address cannot be computed before the loop";
	b = LLVMCreateBuilderInContext(ctx);
	LLVMPositionBuilderBefore(b, term);
	acc = NULL;
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef p = first_value(b, &c, LLVMGetOperand(ops[i], LLVMIsALoadInst(ops[i]) ? 0 : 1));
		LLVMValueRef bits = LLVMBuildPtrToInt(b, p, i64, "nv.vec.addr");

		bits = LLVMBuildAnd(b, bits, LLVMConstInt(i64, need[i] - 1, 0), "nv.vec.mis");
		acc = acc ? LLVMBuildOr(b, acc, bits, "nv.vec.mis") : bits;
	}
	ok = LLVMBuildICmp(b, LLVMIntEQ, acc, LLVMConstInt(i64, 0, 0), "nv.vec.aligned");
	ok = LLVMBuildFreeze(b, ok, "nv.vec.aligned.fr");
	LLVMInstructionEraseFromParent(term);
	LLVMPositionBuilderAtEnd(b, v->ph);
	LLVMBuildCondBr(b, ok, v->header, sph);
	for (LLVMValueRef p = LLVMGetFirstInstruction(sph); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
		LLVMValueRef start = NULL;
		LLVMBasicBlockRef from = v->ph;

		for (unsigned i = 0; i < LLVMCountIncoming(p) && !start; i++)
			if (LLVMGetIncomingBlock(p, i) != v->middle && LLVMGetIncomingBlock(p, i) != v->ph)
				start = LLVMGetIncomingValue(p, i);
		LLVMAddIncoming(p, &start, &from, 1);
	}
	unfold_starts(b, sph, hdr, v->ph, keep);
	LLVMDisposeBuilder(b);
	for (unsigned i = 0; i < n; i++)
		LLVMSetAlignment(ops[i], need[i]);
	return NULL;
}

/* Judge candidate k after LLVM's run on w: carried out, and every wide
 * access aligned (or versioned)?  Sets c->tag/why when not. */
static void
judge(LLVMModuleRef w, struct cand *c, const struct nv_loops *ls, unsigned k, LLVMValueRef keep)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(w);
	struct vloop v = { 0 };
	LLVMValueRef ops[256];
	unsigned need[256], nbad = 0, nwide = 0, nepi_bad = 0, nscalar = 0;
	int found = 0;
	const char *why;

	for (unsigned l = 0; l < ls->n; l++) {
		const struct nv_loop *lp = &ls->v[l];
		int64_t id;
		int main_loop;

		if (!nv_loop_md_int(ls, l, MD_ID, &id) || id != (int64_t)k)
			continue;
		main_loop = name_starts(ls->cfg->bb[lp->header], "vector.body");
		if (name_starts(ls->cfg->bb[lp->header], "vec.epilog.vector.body"))
			c->epilogue = 1;
		if (main_loop) {
			found = 1;
			v.header = ls->cfg->bb[lp->header];
			v.ph = lp->preheader != NV_NONE ? ls->cfg->bb[lp->preheader] : NULL;
			v.middle = lp->nexits == 1 ? ls->cfg->bb[lp->exits[0]] : NULL;
			v.blocks = xmalloc(lp->nblocks * sizeof(*v.blocks));
			v.nblocks = lp->nblocks;
			for (unsigned b = 0; b < lp->nblocks; b++)
				v.blocks[b] = ls->cfg->bb[lp->blocks[b]];
		}
		for (unsigned b = 0; b < lp->nblocks; b++)
			for (LLVMValueRef i = LLVMGetFirstInstruction(ls->cfg->bb[lp->blocks[b]]); i;
			     i = LLVMGetNextInstruction(i)) {
				unsigned a = needed_align(td, i);

				if (!a) {
					nscalar += main_loop && (LLVMIsALoadInst(i) || LLVMIsAStoreInst(i));
					continue;
				}
				nwide += main_loop;
				if (LLVMGetAlignment(i) >= a)
					continue;
				if (!main_loop)
					nepi_bad++;
				else if (nbad < 256) {
					ops[nbad] = i;
					need[nbad++] = a;
				} else {
					nepi_bad++;
				}
			}
	}
	free(c->why);
	c->why = NULL;
	if (!found && c->alias_risk) {
		c->tag = "CantReorderMemOps";
		c->why = xstrdup("loop not vectorized: cannot prove it is safe to reorder memory "
		                 "operations (LLVM emits no run-time overlap checks for a GPU: mark the "
		                 "pointers __restrict__)");
	} else if (!found) {
		c->tag = "NotCarriedOut";
		c->why = xstrdup("LLVM's loop-vectorize did not vectorize it (an instruction it cannot "
		                 "widen, or a dependence between iterations)");
	} else if (c->vf > 1 && !nwide) {
		c->tag = "VectorizationNotBeneficial";
		c->why = xstrdup("the cost-model indicates that vectorization is not beneficial (no "
		                 "access is consecutive, so none becomes ld/st.v2/.v4)");
	} else if (c->vf > 1 && nwide < nscalar / c->vf) {
		c->tag = "VectorizationNotBeneficial";
		c->why = xasprintf("the cost-model indicates that vectorization is not beneficial (only %u "
		                   "of %u accesses become ld/st.v2/.v4; the rest are gathered lane by lane)",
		                   nwide, nwide + nscalar / c->vf);
	} else if (nepi_bad) {
		c->tag = "NotAligned";
		c->why = xstrdup("the wide accesses of the vectorized epilogue are not provably aligned");
	} else if (nbad && (why = version(w, &v, ops, need, nbad, keep))) {
		c->tag = "NotAligned";
		c->why = xasprintf("%s; ptxas would split its wide accesses into scalar ones", why);
	}
	c->wide = nwide;
	c->fixed = c->tag ? 0 : nbad;
	free(v.blocks);
}

/* Remove our marks from every loop of w. */
static void
unmark(LLVMModuleRef w)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(w); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			nv_md_loop_remove(LLVMGetBasicBlockTerminator(bb), MD_ID);
}

/* One try on a copy of st->m.  Returns the copy when every candidate was
 * carried out, else NULL (the refused ones now have a tag). */
static LLVMModuleRef
try_once(struct state *st, int *rc)
{
	LLVMModuleRef w = LLVMCloneModule(st->m);
	LLVMContextRef ctx = LLVMGetModuleContext(w);
	LLVMTypeRef kty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 1);
	LLVMValueRef keeper = LLVMAddFunction(w, KEEP, kty);
	LLVMValueRef *keep = xmalloc(st->nc * sizeof(*keep));
	unsigned fi = (unsigned)-1, refused = 0;
	struct nv_fn_loops a;
	int built = 0;

	mark(st, w, keeper);
	set_llvm_options();
	*rc = nv_run_pipeline(w, st->tm,
	                      "function(loop-vectorize<interleave-forced-only;vectorize-forced-only>,"
	                      "infer-alignment)");
	find_keepers(keeper, keep, st->nc);
	for (unsigned k = 0; !*rc && k < st->nc; k++) {
		struct cand *c = &st->c[k];

		if (c->tag)
			continue;
		if (c->fn != fi) {
			if (built)
				nv_fn_loops_release(&a);
			fi = c->fn;
			nv_fn_loops_build(&a, nth_function(w, fi));
			built = 1;
		}
		judge(w, c, &a.ls, k, keep[k]);
		refused += c->tag != NULL;
		if (c->fixed) { /* versioning added an edge: rebuild */
			nv_fn_loops_release(&a);
			fi = (unsigned)-1;
			built = 0;
		}
	}
	if (built)
		nv_fn_loops_release(&a);
	drop_keepers(keeper);
	free(keep);
	if (*rc || refused) {
		LLVMDisposeModule(w);
		return NULL;
	}
	return w;
}

static void
report(const struct cand *c)
{
	if (c->tag) {
		missed(c->at, c->tag, c->where, "%s", c->why);
		return;
	}
	if (c->vf == 1) {
		nv_remark(NV_REMARK_PASSED, PASS, "Interleaved", c->at,
		          "%s: interleaved loop (interleaved count: %u)", c->where, c->ic);
		return;
	}
	nv_remark(NV_REMARK_PASSED, PASS, "Vectorized", c->at,
	          "%s: vectorized loop (vectorization width: %u, interleaved count: %u): %u accesses "
	          "of up to %u bytes, %s, %s remainder", c->where, c->vf, c->ic, c->wide, c->bytes,
	          c->fixed ? "versioned on a run-time alignment test" : "aligned", c->epilogue ? "vectorized" : "scalar");
}

int
nv_vectorize_module(LLVMModuleRef *mp, LLVMTargetMachineRef tm, int sm)
{
	struct state st = { *mp, tm, sm > 0 ? sm : 75, NULL, 0 };
	LLVMModuleRef done = NULL;
	unsigned fi = 0;
	int rc;

	nv_diag_llvm_remarks(0); /* ours say what LLVM's loop-vectorize did, and why */
	rc = nv_run_pipeline(st.m, tm, nv_stdpipe_find("loop-canon")->passes);
	for (LLVMValueRef f = LLVMGetFirstFunction(st.m); !rc && f; f = LLVMGetNextFunction(f), fi++)
		if (!LLVMIsDeclaration(f))
			decide_function(&st, fi, f);
	for (unsigned t = 0; !rc && st.nc && !done && t < MAX_TRIES; t++) {
		unsigned left = 0;

		for (unsigned k = 0; k < st.nc; k++)
			left += st.c[k].tag == NULL;
		if (!left)
			break;
		done = try_once(&st, &rc);
	}
	for (unsigned k = 0; k < st.nc; k++) {
		if (!rc) {
			if (!done && !st.c[k].tag) {
				st.c[k].tag = "NotCarriedOut";
				st.c[k].why = xstrdup("no try carried out every decision");
			}
			report(&st.c[k]); /* before the module its `at` is in goes */
		}
		free(st.c[k].where);
		free(st.c[k].why);
	}
	if (!rc && done) {
		unmark(done);
		LLVMDisposeModule(*mp);
		*mp = done;
	} else if (done) {
		LLVMDisposeModule(done);
	}
	free(st.c);
	nv_diag_llvm_remarks(1);
	return rc;
}
