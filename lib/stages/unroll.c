#include "unroll.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Support.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "../base/decisions.h"
#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/ptrmap.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfg.h"
#include "../ir/cost.h"
#include "../ir/dom.h"
#include "../ir/fold.h"
#include "../ir/indvars.h"
#include "../ir/loops.h"
#include "stdpipe.h"

#define PASS "nv-unroll"

/* Our own loop properties, removed before the module is written. */
#define MD_ID "nv.unroll.id"         /* i32: which decision the loop carries */
#define MD_SEEN "nv.unroll.seen"     /* decided in an earlier round */
#define MD_HIDDEN "nv.unroll.hidden" /* we added llvm.loop.unroll.disable */
#define MD_UNROLLED "nv.unroll.unrolled" /* unrolled by a factor, its body replicated */
#define MD_DISABLE "llvm.loop.unroll.disable"
#define MD_RUNTIME_DISABLE "llvm.loop.unroll.runtime.disable"

#define MAX_PEEL 7       /* LLVM's unroll-peel-max-count */
#define MAX_ROUNDS 64    /* loop nests deeper than this are left alone above it */
#define HUGE_BUDGET 1000000000u

static const struct nv_unroll_config configs[] = {
	{ 'A', 2, -1, -1, -1, -1, "standard pipeline at O1/O2: every default" },
	{ 'B', -1, 0, 0, 0, 0, "code size: only known trip counts, fully" },
	{ 'C', -1, -1, -1, -1, -1, "normal optimizer: every default at the stage's -O" },
	{ 'D', -1, 0, 0, -1, -1, "late and conservative: no partial or runtime unrolling" },
	{ 'E', 3, 0, 0, -1, 0, "aggressive O3 slot: O3 budgets, no partial, runtime or profile" },
	{ 'F', -1, -1, -1, -1, -1, "user-configured: every parameter from the knobs" },
	{ 'P', -1, 0, 0, 0, 0, "early: where a #pragma unroll loop sits in a loop that stays, loops rotated and small #pragma unroll nests unrolled" },
};

const struct nv_unroll_config *
nv_unroll_config(char c)
{
	for (size_t i = 0; i < sizeof(configs) / sizeof(*configs); i++)
		if (configs[i].name == c)
			return &configs[i];
	return NULL;
}

static int
has_fn_attr(LLVMValueRef fn, const char *name)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));

	return kind && LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* A knob's value, or dflt when it was left at -1. */
static long long
knob_or(int id, long long dflt)
{
	long long v = nv_knob_int(id);

	return v < 0 ? dflt : v;
}

/* A configuration's switch: its own value, else the knob. */
static int
switch_of(int cfg, int knob)
{
	return cfg >= 0 ? cfg : (int)nv_knob_int(knob);
}

void
nv_unroll_params(struct nv_unroll_params *up, LLVMValueRef fn, const struct nv_unroll_config *cfg,
                 int olevel)
{
	int size = fn && (has_fn_attr(fn, "minsize") || has_fn_attr(fn, "optsize"));

	if (cfg->olevel >= 0)
		olevel = cfg->olevel;
	memset(up, 0, sizeof(*up));
	/* cicc: 405 from O2 up, 150 at O1 and for minsize/optsize functions */
	up->threshold = (unsigned)knob_or(NV_KNOB_UNROLL_THRESHOLD, olevel >= 2 && !size ? 405 : 150);
	/* cicc's partial budget, a known trip count's and a runtime unroll's
	 * alike: 202 (405 / 2) from O2 up, 150 (the seed's) at O1 and for
	 * minsize/optsize functions.  Measured on cicc 13 with loops of k float
	 * multiply-adds: 64 trips unrolled x16 up to a body of 12 units, x8 up
	 * to 24, x4 up to 50, x2 up to 98, rolled from 106 (150 matched 18 of
	 * 29 such probes, 202 all); odd trip counts 7..99 with a remainder, 48
	 * of 52 (150: 24); stepping by 32 from threadIdx.x at run time, x4 up
	 * to 50 and x2 up to the 95 gate (150: 23 of 28, 202 all).  t/5002 */
	up->partial_threshold =
	        (unsigned)knob_or(NV_KNOB_UNROLL_PARTIAL_THRESHOLD, olevel >= 2 && !size ? 202 : 150);
	up->boost = (unsigned)nv_knob_int(NV_KNOB_UNROLL_MAX_PERCENT_THRESHOLD_BOOST);
	up->max_analyze = (unsigned)nv_knob_int(NV_KNOB_UNROLL_MAX_ITERATION_COUNT_TO_ANALYZE);
	up->pragma_threshold = (unsigned)nv_knob_int(NV_KNOB_PRAGMA_UNROLL_THRESHOLD);
	up->count = (unsigned)nv_knob_int(NV_KNOB_UNROLL_COUNT);
	up->default_count = 4;
	up->max_count = (unsigned)knob_or(NV_KNOB_UNROLL_MAX_COUNT, UINT32_MAX);
	up->full_max_count = (unsigned)knob_or(NV_KNOB_UNROLL_FULL_MAX_COUNT, UINT32_MAX);
	up->peel_count = (int)nv_knob_int(NV_KNOB_UNROLL_PEEL_COUNT);
	up->max_upper_bound = (unsigned)nv_knob_int(NV_KNOB_UNROLL_MAX_UPPERBOUND);
	up->max_pragma_upper_bound = (unsigned)nv_knob_int(NV_KNOB_MAX_PRAGMA_UPPERBOUND_UNROLL);
	up->runtime_threshold = (unsigned)nv_knob_int(NV_KNOB_RUNTIME_UNROLL_THRESHOLD);
	up->flat_trip = (unsigned)nv_knob_int(NV_KNOB_FLAT_LOOP_TRIPCOUNT_THRESHOLD);
	up->assumed_size = (unsigned)nv_knob_int(NV_KNOB_UNROLL_ASSUMED_SIZE);
	up->array_indexed = (int)nv_knob_int(NV_KNOB_UNROLL_LOCAL_ARRAY_INDEXED);
	up->small_function = (unsigned)nv_knob_int(NV_KNOB_UNROLL_SMALL_FUNCTION_SIZE);
	up->allow_partial = switch_of(cfg->partial, NV_KNOB_UNROLL_ALLOW_PARTIAL);
	up->allow_remainder = (int)nv_knob_int(NV_KNOB_UNROLL_ALLOW_REMAINDER);
	up->runtime = switch_of(cfg->runtime, NV_KNOB_UNROLL_RUNTIME);
	/* LLVM's UP.UpperBound: NVPTX's TTI leaves it off, and cicc leaves a
	 * loop of at most 7 trips (i < (n & 7)) rolled */
	up->upper_bound = cfg->upperbound > 0 && up->max_upper_bound > 0;
	up->profile = cfg->profile != 0;
	up->runtime_convergent = (int)nv_knob_int(NV_KNOB_UNROLL_RUNTIME_CONVERGENT);
	up->waterfall = (int)nv_knob_int(NV_KNOB_WATERFALL_UNROLLING_FORCE_EPILOGUE);
	up->epilog = (int)nv_knob_int(NV_KNOB_UNROLL_RUNTIME_EPILOG);
	up->seal_rolled = cfg->name == 'D' && nv_knob_int(NV_KNOB_UNROLL_SEAL_ROLLED);
	up->early = cfg->name == 'P';
	up->early_size = (uint64_t)nv_knob_int(NV_KNOB_UNROLL_EARLY_SIZE);
	up->early_around = (unsigned)nv_knob_int(NV_KNOB_UNROLL_EARLY_AROUND);
	up->multi_exit = (int)nv_knob_int(NV_KNOB_UNROLL_MULTI_EXIT);
	up->runtime_may_wrap = (int)nv_knob_int(NV_KNOB_UNROLL_RUNTIME_MAY_WRAP);
}

/* What the decision needs to know about one loop. */
struct facts {
	struct nv_trip trip;
	uint64_t tc;         /* exact trip count, 0 if unknown */
	uint64_t max_tc;     /* a maximum trip count when tc is unknown, else 0 */
	uint64_t multiple;   /* the trip count is a multiple of this */
	uint64_t est_tc;     /* from branch weights, 0 if none */
	unsigned side_exits; /* exits besides the latch's, tc (max_tc if merged) counted at the latch */
	int merged;          /* a side exit is or'ed into the latch's test: LLVM sees max_tc only */
	unsigned body;
	int innermost, simplified, convergent, calls;
	uint64_t array;      /* elements of the largest local array accessed, 0 if none */
	char array_name[64];
	int const_array;     /* some local array accessed only at constant indices */
	int64_t pragma_count;
	int pragma_full, pragma_enable, disabled, runtime_disabled;
	int ordered;         /* atomics, fences, volatile accesses or asm statements */
	int replicated;      /* unrolled by a factor before, or vectorized */
	const char *label;   /* the header's name, for messages */
	LLVMValueRef at;     /* where remarks point, without a source location */
	struct nv_srcloc loc; /* the loop's start in the source (-lineinfo), if known */
};

/* Estimated size after unrolling by count. */
static uint64_t
unrolled_size(unsigned body, uint64_t count)
{
	unsigned marginal = body > NV_COST_LOOP_FIXED ? body - NV_COST_LOOP_FIXED : 1;

	return NV_COST_LOOP_FIXED + count * marginal;
}

/* --- what is in the loop --- */

static int
callee_is(LLVMValueRef call, const char *attr)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(attr, strlen(attr));
	LLVMValueRef callee = LLVMGetCalledValue(call);

	if (LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind))
		return 1;
	return callee && LLVMIsAFunction(callee) &&
	       LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind);
}

/* The alloca a pointer is an address into, through GEPs and casts;
 * *indexed set when a GEP on the way has an index that is not a constant
 * (unrolling the loop the address is in can make it one). */
static LLVMValueRef
underlying_alloca(LLVMValueRef p, int *indexed)
{
	*indexed = 0;
	for (int depth = 0; p && depth < 32; depth++) {
		if (LLVMIsAAllocaInst(p))
			return p;
		if (LLVMIsAGetElementPtrInst(p))
			for (unsigned i = 1; i < (unsigned)LLVMGetNumOperands(p); i++)
				*indexed |= !LLVMIsAConstantInt(LLVMGetOperand(p, i));
		if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) || LLVMIsAAddrSpaceCastInst(p))
			p = LLVMGetOperand(p, 0);
		else if (LLVMIsAConstantExpr(p) && (LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
		                                    LLVMGetConstOpcode(p) == LLVMAddrSpaceCast))
			p = LLVMGetOperand(p, 0);
		else
			return NULL;
	}
	return NULL;
}

/* Elements of an array alloca (dimensions multiplied, unknown ones as
 * assumed), 0 for a scalar or a struct. */
static uint64_t
array_elements(LLVMValueRef alloca, unsigned assumed)
{
	LLVMTypeRef t = LLVMGetAllocatedType(alloca);
	LLVMValueRef n = LLVMGetOperand(alloca, 0);
	uint64_t size = 1;
	int array = 0;

	while (LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
		uint64_t d = LLVMGetArrayLength2(t);

		size *= d ? d : assumed;
		if (size > UINT32_MAX)
			size = UINT32_MAX;
		array = 1;
		t = LLVMGetElementType(t);
	}
	if (!LLVMIsAConstantInt(n)) {
		size *= assumed;
		array = 1;
	} else if (LLVMConstIntGetZExtValue(n) > 1) {
		size *= LLVMConstIntGetZExtValue(n);
		array = 1;
	}
	return array ? size : 0;
}

/* Elements of an array type (dimensions multiplied), 0 if t is no array. */
static uint64_t
type_elements(LLVMTypeRef t)
{
	uint64_t size = 1;

	if (LLVMGetTypeKind(t) != LLVMArrayTypeKind)
		return 0;
	for (; LLVMGetTypeKind(t) == LLVMArrayTypeKind; t = LLVMGetElementType(t)) {
		size *= LLVMGetArrayLength2(t);
		if (size > UINT32_MAX)
			size = UINT32_MAX;
	}
	return size > 1 ? size : 0;
}

/* Elements of the largest array in a struct alloca (llm.c's Packed128, a
 * std::array, a struct with a counter beside its array): cicc counts them
 * as an array's.  A struct { int n; float v[8]; } loop over v of 8 trips
 * and 88 units, a struct { unsigned d, v[5]; int f; } one of 5 trips and
 * 101 units: cicc unrolls both fully (x6 and x5 budgets), t/5001. */
static uint64_t
wrapped_elements(LLVMValueRef alloca)
{
	LLVMTypeRef t = LLVMGetAllocatedType(alloca);
	uint64_t most = 0;

	if (!LLVMIsAConstantInt(LLVMGetOperand(alloca, 0)) ||
	    LLVMConstIntGetZExtValue(LLVMGetOperand(alloca, 0)) != 1)
		return 0;
	while (LLVMGetTypeKind(t) == LLVMStructTypeKind && LLVMCountStructElementTypes(t) == 1)
		t = LLVMStructGetTypeAtIndex(t, 0);
	if (LLVMGetTypeKind(t) != LLVMStructTypeKind)
		return type_elements(t);
	for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++) {
		uint64_t n = type_elements(LLVMStructGetTypeAtIndex(t, i));

		if (n > most)
			most = n;
	}
	return most;
}

/* Whether some address into p (through GEPs and casts) has an index that
 * is not a constant, or p escapes into a call: SROA cannot split such an
 * alloca into scalars, so it stays in local memory unless unrolling makes
 * its indices constant.  An array only ever indexed by constants (the
 * fragments of a WMMA tile after the loops over them were unrolled) is
 * split anyway and gives no reason to unroll further. */
static int
stays_in_memory(LLVMValueRef p, int depth)
{
	if (depth > 16)
		return 1;
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef in = LLVMGetUser(u);

		if (LLVMIsAGetElementPtrInst(in)) {
			for (unsigned i = 1; i < (unsigned)LLVMGetNumOperands(in); i++)
				if (!LLVMIsAConstantInt(LLVMGetOperand(in, i)))
					return 1;
			if (stays_in_memory(in, depth + 1))
				return 1;
		} else if (LLVMIsABitCastInst(in) || LLVMIsAAddrSpaceCastInst(in)) {
			if (stays_in_memory(in, depth + 1))
				return 1;
		} else if (LLVMIsACallInst(in)) {
			LLVMValueRef callee = LLVMGetCalledValue(in);

			if (!(callee && LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee)))
				return 1;
		} else if (LLVMIsAStoreInst(in) && LLVMGetOperand(in, 0) == p) {
			return 1; /* its address is stored */
		} else if (!LLVMIsALoadInst(in) && !LLVMIsAStoreInst(in)) {
			return 1; /* a phi, a select, a ptrtoint: not followed */
		}
	}
	return 0;
}

/* The array alloca a pointer is an address into, when it stays in memory;
 * cache remembers each alloca's answer (1 stays, 2 split); *indexed as
 * underlying_alloca says. */
static LLVMValueRef
local_array(LLVMValueRef p, struct nv_ptrmap *cache, int *indexed)
{
	LLVMValueRef a = underlying_alloca(p, indexed);
	unsigned k;

	if (!a)
		return NULL;
	k = nv_ptrmap_get(cache, a);
	if (k == NV_NONE) {
		k = LLVMIsAConstantInt(LLVMGetOperand(a, 0)) && !stays_in_memory(a, 0) ? 2 : 1;
		nv_ptrmap_put(cache, a, k);
	}
	return k == 1 ? a : NULL;
}

static void
scan_body(const struct nv_loops *ls, unsigned l, const struct nv_unroll_params *up, struct facts *f)
{
	const struct nv_loop *lp = &ls->v[l];
	struct nv_ptrmap cache;

	nv_ptrmap_init(&cache, 8);

	for (unsigned i = 0; i < lp->nblocks; i++)
		for (LLVMValueRef in = LLVMGetFirstInstruction(ls->cfg->bb[lp->blocks[i]]); in;
		     in = LLVMGetNextInstruction(in)) {
			LLVMOpcode op = LLVMGetInstructionOpcode(in);
			LLVMValueRef a = NULL;
			uint64_t n;

			if (op == LLVMCall) {
				LLVMValueRef callee = LLVMGetCalledValue(in);
				size_t len = 0;
				const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";

				f->convergent |= callee_is(in, "convergent");
				if (!(callee && LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee)))
					f->calls = 1;
				else if (!strncmp(name, "llvm.nvvm.membar", 16) || !strncmp(name, "llvm.nvvm.fence", 15))
					f->ordered = 1;
				if (callee && LLVMIsAInlineAsm(callee))
					f->ordered = 1;
			} else if (op == LLVMFence || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
				f->ordered = 1;
			} else if (op == LLVMLoad || op == LLVMStore) {
				int indexed;

				f->ordered |= LLVMGetVolatile(in) || LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic;

				/* an array this loop reads only at constant indices
				 * is promoted (or not) whatever becomes of the loop:
				 * no reason to unroll it (CUB's merge-sort loop, whose
				 * keys[8] another loop indexes at run time) */
				a = local_array(LLVMGetOperand(in, op == LLVMLoad ? 0 : 1), &cache, &indexed);
				if (a && up->array_indexed && !indexed) {
					f->const_array = 1;
					a = NULL;
				}
			}
			if (a && !(n = array_elements(a, up->assumed_size)))
				n = wrapped_elements(a);
			if (a && n > f->array) {
				size_t len;
				const char *name = LLVMGetValueName2(a, &len);

				f->array = n;
				if (len)
					snprintf(f->array_name, sizeof(f->array_name), "%%%.*s",
					         (int)(len > 40 ? 40 : len), name);
				else
					snprintf(f->array_name, sizeof(f->array_name), "(unnamed alloca)");
			}
		}
	nv_ptrmap_release(&cache);
}

/* The trip count that branch weights on the latch suggest, 0 if none. */
static uint64_t
profile_trip(const struct nv_loops *ls, unsigned l)
{
	const struct nv_loop *lp = &ls->v[l];
	LLVMValueRef t, prof, ops[3];
	LLVMContextRef ctx;
	uint64_t back, exit;
	unsigned len;
	const char *s;

	if (lp->nlatches != 1)
		return 0;
	t = LLVMGetBasicBlockTerminator(ls->cfg->bb[lp->latches[0]]);
	ctx = LLVMGetTypeContext(LLVMTypeOf(t));
	prof = LLVMGetMetadata(t, LLVMGetMDKindIDInContext(ctx, "prof", 4));
	if (!prof || LLVMGetNumSuccessors(t) != 2 || LLVMGetMDNodeNumOperands(prof) != 3)
		return 0;
	LLVMGetMDNodeOperands(prof, ops);
	s = ops[0] ? LLVMGetMDString(ops[0], &len) : NULL;
	if (!s || len != 14 || memcmp(s, "branch_weights", 14) || !LLVMIsAConstantInt(ops[1]) ||
	    !LLVMIsAConstantInt(ops[2]))
		return 0;
	back = LLVMConstIntGetZExtValue(ops[1]);
	exit = LLVMConstIntGetZExtValue(ops[2]);
	if (LLVMGetSuccessor(t, 0) != ls->cfg->bb[lp->header]) {
		uint64_t x = back;

		back = exit;
		exit = x;
	}
	return exit ? back / exit + 1 : 0;
}

static void
gather(const struct nv_loops *ls, unsigned l, const struct nv_unroll_params *up, char **labels,
       struct facts *f)
{
	const struct nv_loop *lp = &ls->v[l];
	LLVMBasicBlockRef h = ls->cfg->bb[lp->header];

	memset(f, 0, sizeof(*f));
	f->label = labels ? labels[lp->header] : "";
	f->at = LLVMGetFirstInstruction(h);
	while (f->at && LLVMIsAPHINode(f->at))
		f->at = LLVMGetNextInstruction(f->at);
	nv_loop_srcloc(ls, l, &f->loc);
	f->innermost = lp->nchildren == 0;
	f->simplified = nv_loop_is_simplified(ls, l);
	f->body = nv_cost_loop(ls, l);
	f->multiple = 1;
	if ((up->multi_exit ? nv_trip_count_latch(ls, l, &f->trip) : nv_trip_count(ls, l, &f->trip)) ==
	            NV_TRIP_CONST && f->trip.btc < UINT32_MAX) {
		f->tc = f->trip.btc + 1;
		f->multiple = f->tc;
		f->side_exits = f->trip.side_exits;
		if (f->trip.merged) {
			f->max_tc = f->tc;
			f->tc = 0;
			f->multiple = 1;
			f->merged = 1;
		}
	} else {
		if (f->trip.kind != NV_TRIP_UNKNOWN && f->trip.has_max && f->trip.max_btc < UINT32_MAX)
			f->max_tc = f->trip.max_btc + 1;
		if (f->trip.kind != NV_TRIP_UNKNOWN && f->trip.multiple)
			f->multiple = f->trip.multiple;
	}
	if (up->profile)
		f->est_tc = profile_trip(ls, l);
	scan_body(ls, l, up, f);
	if (!nv_loop_md_int(ls, l, "llvm.loop.unroll.count", &f->pragma_count))
		f->pragma_count = 0;
	f->pragma_full = nv_loop_md_has(ls, l, "llvm.loop.unroll.full");
	f->pragma_enable = nv_loop_md_has(ls, l, "llvm.loop.unroll.enable");
	f->disabled = nv_loop_md_has(ls, l, MD_DISABLE);
	f->runtime_disabled = nv_loop_md_has(ls, l, "llvm.loop.unroll.runtime.disable");
	f->replicated = nv_loop_md_has(ls, l, MD_UNROLLED) || nv_loop_md_has(ls, l, "llvm.loop.isvectorized");
}

/* --- level 3: simulating the iterations to see what folds --- */

/* Known integer values of the loop's instructions in one iteration. */
struct sim {
	struct nv_ptrmap index;  /* instruction -> slot */
	uint64_t *val, *prev;
	unsigned char *known, *prev_known;
	unsigned n;
};

static int
sim_value(const struct sim *s, LLVMValueRef v, uint64_t *out)
{
	unsigned k;

	if (LLVMIsAConstantInt(v) && LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64) {
		*out = LLVMConstIntGetZExtValue(v);
		return 1;
	}
	k = nv_ptrmap_get(&s->index, v);
	if (k == NV_NONE || !s->known[k])
		return 0;
	*out = s->val[k];
	return 1;
}

/* Evaluate an integer instruction whose operands are known; 1 if it folds. */
static int
sim_eval(const struct sim *s, LLVMValueRef in, uint64_t *r)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(in);
	LLVMTypeRef t = LLVMTypeOf(in);
	uint64_t a, b, c;
	unsigned w, wa;

	if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || (w = LLVMGetIntTypeWidth(t)) > 64)
		return 0;
	switch (op) {
	case LLVMICmp:
		if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(in, 0))) != LLVMIntegerTypeKind ||
		    !sim_value(s, LLVMGetOperand(in, 0), &a) || !sim_value(s, LLVMGetOperand(in, 1), &b))
			return 0;
		wa = LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(in, 0)));
		*r = (uint64_t)nv_int_icmp(LLVMGetICmpPredicate(in), a, b, wa);
		return 1;
	case LLVMZExt: case LLVMSExt: case LLVMTrunc:
		if (!sim_value(s, LLVMGetOperand(in, 0), &a))
			return 0;
		wa = LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(in, 0)));
		*r = nv_int_mask(op == LLVMSExt ? (uint64_t)nv_int_sext(a, wa) : a, w);
		return 1;
	case LLVMSelect:
		if (!sim_value(s, LLVMGetOperand(in, 0), &c) ||
		    !sim_value(s, LLVMGetOperand(in, c ? 1 : 2), r))
			return 0;
		return 1;
	default:
		if (LLVMGetNumOperands(in) != 2 || !sim_value(s, LLVMGetOperand(in, 0), &a) ||
		    !sim_value(s, LLVMGetOperand(in, 1), &b))
			return 0;
		return nv_int_binop(op, a, b, w, r);
	}
}

/* The cost of the fully unrolled loop after folding what the iterations
 * make constant: header phis start from their preheader values and take
 * their latch values; a branch on a known condition skips the dead side. */
static uint64_t
simulate(const struct nv_loops *ls, unsigned l, uint64_t tc)
{
	const struct nv_loop *lp = &ls->v[l];
	const struct nv_cfg *g = ls->cfg;
	struct sim s = { 0 };
	unsigned char *live = xcalloc(g->n, 1);
	LLVMBasicBlockRef pre = lp->preheader != NV_NONE ? g->bb[lp->preheader] : NULL;
	LLVMBasicBlockRef latch = g->bb[lp->latches[0]];
	uint64_t cost = 0;
	unsigned *order;
	unsigned norder = 0;

	/* loop blocks in reverse post-order, so definitions come before uses */
	order = xcalloc(lp->nblocks, sizeof(*order));
	for (unsigned i = 0; i < g->nrpo; i++)
		if (nv_loop_contains(ls, l, g->rpo[i]))
			order[norder++] = g->rpo[i];
	for (unsigned i = 0; i < norder; i++)
		for (LLVMValueRef in = LLVMGetFirstInstruction(g->bb[order[i]]); in;
		     in = LLVMGetNextInstruction(in))
			s.n++;
	nv_ptrmap_init(&s.index, s.n);
	s.n = 0;
	for (unsigned i = 0; i < norder; i++)
		for (LLVMValueRef in = LLVMGetFirstInstruction(g->bb[order[i]]); in;
		     in = LLVMGetNextInstruction(in))
			nv_ptrmap_put(&s.index, in, s.n++);
	s.val = xcalloc(s.n, sizeof(*s.val));
	s.prev = xcalloc(s.n, sizeof(*s.prev));
	s.known = xcalloc(s.n, 1);
	s.prev_known = xcalloc(s.n, 1);

	for (uint64_t k = 0; k < tc; k++) {
		unsigned slot = 0;

		memset(live, 0, g->n);
		live[lp->header] = 1;
		memcpy(s.prev, s.val, s.n * sizeof(*s.val));
		memcpy(s.prev_known, s.known, s.n);
		memset(s.known, 0, s.n);
		for (unsigned i = 0; i < norder; i++) {
			unsigned b = order[i];

			for (LLVMValueRef in = LLVMGetFirstInstruction(g->bb[b]); in;
			     in = LLVMGetNextInstruction(in), slot++) {
				uint64_t v;

				if (!live[b])
					continue;
				if (LLVMIsAPHINode(in) && b == lp->header) {
					LLVMValueRef from = NULL;

					for (unsigned e = 0; e < LLVMCountIncoming(in); e++)
						if (LLVMGetIncomingBlock(in, e) == (k ? latch : pre))
							from = LLVMGetIncomingValue(in, e);
					if (from && k && !LLVMIsAConstantInt(from)) {
						unsigned p = nv_ptrmap_get(&s.index, from);

						if (p != NV_NONE && s.prev_known[p])
							s.val[slot] = s.prev[p], s.known[slot] = 1;
					} else if (from && sim_value(&s, from, &v)) {
						s.val[slot] = v, s.known[slot] = 1;
					}
					continue;
				}
				if (LLVMIsATerminatorInst(in)) {
					unsigned ns = LLVMGetNumSuccessors(in);
					LLVMValueRef cond = LLVMIsABranchInst(in) && LLVMIsConditional(in)
					                            ? LLVMGetCondition(in) : NULL;
					int taken = -1;

					if (cond && sim_value(&s, cond, &v))
						taken = v ? 0 : 1;
					else if (cond)
						cost += nv_cost_inst(in);
					for (unsigned e = 0; e < ns; e++) {
						unsigned t = nv_cfg_index(g, LLVMGetSuccessor(in, e));

						if ((taken < 0 || (unsigned)taken == e) && t != NV_NONE &&
						    t != lp->header && nv_loop_contains(ls, l, t))
							live[t] = 1;
					}
					continue;
				}
				if (sim_eval(&s, in, &v))
					s.val[slot] = v, s.known[slot] = 1;
				else
					cost += nv_cost_inst(in);
			}
		}
	}
	nv_ptrmap_release(&s.index);
	free(s.val);
	free(s.prev);
	free(s.known);
	free(s.prev_known);
	free(order);
	free(live);
	return cost;
}

/* --- level 4: peeling --- */

static int
loop_invariant(const struct nv_loops *ls, unsigned l, LLVMValueRef v)
{
	unsigned b;

	if (!LLVMIsAInstruction(v))
		return 1;
	b = nv_cfg_index(ls->cfg, LLVMGetInstructionParent(v));
	return b == NV_NONE || !nv_loop_contains(ls, l, b);
}

/* Iterations after which a header phi is loop-invariant: 1 when its latch
 * value is invariant, one more than another header phi's when it is that
 * phi; 0 never (within MAX_PEEL). */
static unsigned
phi_invariance(const struct nv_loops *ls, unsigned l, LLVMValueRef phi, unsigned depth)
{
	LLVMBasicBlockRef latch = ls->cfg->bb[ls->v[l].latches[0]];
	LLVMValueRef v = NULL;
	unsigned k;

	if (depth > MAX_PEEL)
		return 0;
	for (unsigned e = 0; e < LLVMCountIncoming(phi); e++)
		if (LLVMGetIncomingBlock(phi, e) == latch)
			v = LLVMGetIncomingValue(phi, e);
	if (!v || v == phi)
		return 0;
	if (loop_invariant(ls, l, v))
		return 1;
	if (LLVMIsAPHINode(v) && LLVMGetInstructionParent(v) == ls->cfg->bb[ls->v[l].header] &&
	    (k = phi_invariance(ls, l, v, depth + 1)))
		return k + 1;
	return 0;
}

/* Iterations after which a compare of the IV with a constant no longer
 * changes (if (i == 0), if (i < 3)): peeling them leaves the loop with a
 * fixed branch.  0 if none. */
static unsigned
compare_peel(const struct nv_loops *ls, unsigned l, const struct facts *f)
{
	const struct nv_loop *lp = &ls->v[l];
	const struct nv_trip *t = &f->trip;
	LLVMValueRef exiting;
	uint64_t start;
	unsigned best = 0, w = t->width;
	uint64_t horizon = f->tc ? f->tc : 64;

	if (t->kind == NV_TRIP_UNKNOWN || !t->iv || t->step_value || !LLVMIsAConstantInt(t->start) || w > 64)
		return 0;
	start = LLVMConstIntGetZExtValue(t->start);
	exiting = LLVMGetBasicBlockTerminator(ls->cfg->bb[t->exiting]);
	for (unsigned i = 0; i < lp->nblocks; i++) {
		LLVMValueRef term = LLVMGetBasicBlockTerminator(ls->cfg->bb[lp->blocks[i]]), c, x, k;
		int on_next;
		unsigned first = 0;

		if (!term || term == exiting || !LLVMIsABranchInst(term) || !LLVMIsConditional(term))
			continue;
		c = LLVMGetCondition(term);
		if (!LLVMIsAICmpInst(c))
			continue;
		x = LLVMGetOperand(c, 0);
		k = LLVMGetOperand(c, 1);
		if (!LLVMIsAConstantInt(k) || LLVMGetIntTypeWidth(LLVMTypeOf(k)) != w)
			continue;
		if (x == t->iv)
			on_next = 0;
		else if (LLVMIsAInstruction(x) && LLVMGetInstructionOpcode(x) == LLVMAdd &&
		         LLVMGetOperand(x, 0) == t->iv && LLVMIsAConstantInt(LLVMGetOperand(x, 1)) &&
		         (uint64_t)LLVMConstIntGetSExtValue(LLVMGetOperand(x, 1)) == (uint64_t)t->step)
			on_next = 1;
		else
			continue;
		/* the first iteration where the outcome differs from iteration 0,
		 * and it must then hold to the end (or a long way) */
		{
			uint64_t kc = LLVMConstIntGetZExtValue(k);
			LLVMIntPredicate p = LLVMGetICmpPredicate(c);
			int v0 = -1, ok = 1;

			for (uint64_t it = 0; it < horizon && ok; it++) {
				uint64_t iv = nv_int_mask(start + (it + (uint64_t)on_next) * (uint64_t)t->step, w);
				int v = nv_int_icmp(p, iv, kc, w);

				if (it == 0)
					v0 = v;
				else if (!first && v != v0)
					first = (unsigned)it;
				else if (first && v == v0)
					ok = 0;
				if (!first && it >= MAX_PEEL)
					break;
			}
			if (ok && first && first <= MAX_PEEL && first > best)
				best = first;
		}
	}
	return best;
}

/* --- the cascade --- */

/* Whether a runtime remainder goes after the unrolled loop.  cicc 13
 * (measured) puts it there where the counter starts at a constant, and
 * before the loop where it starts at a run-time value (i = threadIdx.x),
 * calls in the loop or not: a prolog leaves the unrolled loop its own exit
 * test, where an epilog needs a second counter (a grid-stride loop: 22
 * registers as cicc's, 30 with an epilog).  A loop under a bare #pragma
 * unroll keeps an epilog: its unrolled loop's count, bounded by the
 * epilog's counter, lets the late unroll finish it once an outer unroll
 * makes its bound constant (attention_row's tile copies; with a prolog
 * they stay loops, and ptxas spills 7 KB where cicc's PTX, which unrolls
 * its prolog fully, spills nothing). */
static int
wants_epilog(const struct nv_unroll_params *up, const struct facts *f)
{
	int run_time_start = f->trip.kind != NV_TRIP_UNKNOWN && f->trip.start &&
	                     !LLVMIsAConstant(f->trip.start);

	if (!up->waterfall)
		return up->epilog || f->calls;
	return up->epilog || f->pragma_full || f->pragma_enable || !run_time_start;
}

static void
decide_none(struct nv_unroll_decision *d, unsigned level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
decide_none(struct nv_unroll_decision *d, unsigned level, const char *fmt, ...)
{
	va_list ap;

	d->how = NV_UNROLL_NONE;
	d->level = level;
	d->count = 1;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
}

static void
decide(struct nv_unroll_decision *d, enum nv_unroll_how how, unsigned level, uint64_t count,
       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
decide(struct nv_unroll_decision *d, enum nv_unroll_how how, unsigned level, uint64_t count,
       const char *fmt, ...)
{
	va_list ap;

	d->how = how;
	d->level = level;
	d->count = (unsigned)count;
	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
}

#define NOTE(f, ...) \
	nv_remark_loc(NV_REMARK_ANALYSIS, PASS, "UnrollCascade", (f)->at, &(f)->loc, __VA_ARGS__)

static int
is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Level 2: #pragma unroll N.  1 when it decided. */
static int
level_pragma_count(const struct nv_unroll_params *up, const struct facts *f, unsigned mult,
                   struct nv_unroll_decision *d)
{
	uint64_t c = (uint64_t)f->pragma_count, budget = (uint64_t)mult * up->pragma_threshold;
	/* LLVM makes no remainder for a loop with exits besides its latch (one
	 * merged into the latch's test is no other exit to it) */
	int no_rem = !up->allow_remainder || f->convergent || (f->side_exits && !f->merged);

	if (f->pragma_count <= 0) {
		NOTE(f, "level 2: loop %s has no #pragma unroll N", f->label);
		return 0;
	}
	if (c == 1) {
		decide_none(d, 2, "#pragma unroll 1 keeps it rolled");
		return 1;
	}
	if (f->tc && c >= f->tc && unrolled_size(f->body, f->tc) <= budget) {
		decide(d, NV_UNROLL_FULL, 2, f->tc,
		       "#pragma unroll %llu covers all %llu iterations", (unsigned long long)c,
		       (unsigned long long)f->tc);
		return 1;
	}
	if (f->merged && c >= f->max_tc && unrolled_size(f->body, f->max_tc) <= budget) {
		decide(d, NV_UNROLL_UPPER, 2, f->max_tc,
		       "#pragma unroll %llu covers all %llu iterations at most", (unsigned long long)c,
		       (unsigned long long)f->max_tc);
		return 1;
	}
	if (f->multiple % c && no_rem) {
		nv_remark_loc(NV_REMARK_MISSED, PASS, "RemainderNotAllowed", f->at, &f->loc,
		          "loop %s: #pragma unroll %llu: remainder loops not allowed (%s), trip multiple %llu",
		          f->label, (unsigned long long)c,
		          f->convergent ? "convergent calls in the loop"
		          : f->side_exits ? "exits besides the latch" : "unroll-allow-remainder=0",
		          (unsigned long long)f->multiple);
		while (c > 1 && f->multiple % c)
			c--;
	}
	while (c > 1 && (unrolled_size(f->body, c) > budget || (no_rem && f->multiple % c)))
		c--;
	if (c != (uint64_t)f->pragma_count)
		NOTE(f, "level 2: loop %s: #pragma unroll %lld reduced to %llu (size %llu, budget %llu)",
		     f->label, (long long)f->pragma_count, (unsigned long long)c,
		     (unsigned long long)unrolled_size(f->body, (uint64_t)f->pragma_count),
		     (unsigned long long)budget);
	if (c < 2) {
		NOTE(f, "level 2: loop %s: no factor of #pragma unroll %lld fits; lower levels decide",
		     f->label, (long long)f->pragma_count);
		return 0;
	}
	decide(d, f->multiple % c ? NV_UNROLL_RUNTIME : NV_UNROLL_PARTIAL, 2, c,
	       "#pragma unroll %lld", (long long)f->pragma_count);
	d->epilog = wants_epilog(up, f);
	d->nounroll = NV_NOUNROLL_NOW;
	return 1;
}

/* Level 3: full unrolling, of the trip count or its upper bound. */
static int
level_full(const struct nv_loops *ls, unsigned l, const struct nv_unroll_params *up,
           const struct facts *f, unsigned mult, struct nv_unroll_decision *d)
{
	int pragma = f->pragma_full || f->pragma_enable;
	uint64_t budget = (uint64_t)mult * (pragma ? up->pragma_threshold : up->threshold), size;

	if (f->tc) {
		size = unrolled_size(f->body, f->tc);
		if (!pragma && f->tc > up->full_max_count) {
			NOTE(f, "level 3: loop %s: trip count %llu over unroll-full-max-count %u", f->label,
			     (unsigned long long)f->tc, up->full_max_count);
			return 0;
		}
		if (size <= budget) {
			decide(d, NV_UNROLL_FULL, 3, f->tc,
			       "%strip count %llu, size %llu within %s %llu", pragma ? "#pragma unroll: " : "",
			       (unsigned long long)f->tc, (unsigned long long)size,
			       pragma ? "the pragma budget" : "the threshold", (unsigned long long)budget);
			return 1;
		}
		if (!pragma && f->tc <= up->max_analyze && ls->v[l].nlatches == 1) {
			uint64_t dyn = simulate(ls, l, f->tc), rolled = f->tc * f->body;
			uint64_t boost = dyn ? 100 * rolled / dyn : up->boost;

			if (boost > up->boost)
				boost = up->boost;
			if (dyn * 100 < budget * boost) {
				decide(d, NV_UNROLL_FULL, 3, f->tc,
				       "trip count %llu: size %llu folds to %llu, within the threshold %llu "
				       "boosted %llu%%", (unsigned long long)f->tc, (unsigned long long)size,
				       (unsigned long long)dyn, (unsigned long long)budget,
				       (unsigned long long)boost);
				return 1;
			}
			NOTE(f, "level 3: loop %s: %llu iterations cost %llu, %llu after folding; over "
			     "%llu boosted %llu%%", f->label, (unsigned long long)f->tc,
			     (unsigned long long)size, (unsigned long long)dyn, (unsigned long long)budget,
			     (unsigned long long)boost);
			return 0;
		}
		NOTE(f, "level 3: loop %s: %llu iterations cost %llu, over %s %llu", f->label,
		     (unsigned long long)f->tc, (unsigned long long)size,
		     pragma ? "the pragma budget" : "the threshold", (unsigned long long)budget);
		return 0;
	}
	if (f->max_tc) {
		unsigned limit = pragma ? up->max_pragma_upper_bound : up->upper_bound ? up->max_upper_bound : 0;

		/* a count at the latch with a side exit merged into its test is
		 * a constant trip count to cicc, whose IR keeps the two exits
		 * apart: the same gates, carried out as an upper-bound unroll */
		if (f->merged)
			limit = pragma ? UINT32_MAX : up->full_max_count;

		size = unrolled_size(f->body, f->max_tc);
		if (f->max_tc <= limit && size <= budget) {
			decide(d, NV_UNROLL_UPPER, 3, f->max_tc,
			       "%strip count of at most %llu, size %llu within %llu",
			       f->merged ? "" : "unknown ",
			       (unsigned long long)f->max_tc, (unsigned long long)size,
			       (unsigned long long)budget);
			return 1;
		}
		NOTE(f, "level 3: loop %s: %s, at most %llu (upper-bound limit %u, size %llu, budget %llu)",
		     f->label, f->merged ? "counted at the latch" : "trip count unknown", (unsigned long long)f->max_tc,
		     limit, (unsigned long long)size,
		     (unsigned long long)budget);
		return 0;
	}
	NOTE(f, "level 3: loop %s: trip count unknown (%s)", f->label,
	     f->trip.kind == NV_TRIP_SYMBOLIC ? "depends on runtime values"
	                                      : f->trip.why ? f->trip.why : "not computable");
	return 0;
}

/* cicc computes no trip count for an inclusive exit test (i <= n, i >= n)
 * that steps by more than one from a start known only at run time (the
 * count (bound - start) / step + 1 may overflow), so it leaves such a loop
 * rolled where the count is needed: llm.c's for (t2 = threadIdx.x; t2 <= t;
 * t2 += 256).  A start of 0 or a unit step it counts; a step known only at
 * run time (i += stride) it counts under a strict test only, and only in a
 * loop without atomics, fences, volatile accesses or asm statements
 * (measured: a grid-stride histogram's atomicAdd loop stays rolled, the
 * same loop storing plainly is unrolled x4; one converting bf16 through
 * cuda_bf16.hpp's asm, or loading with __ldcs, stays rolled, where a
 * constant step is unrolled with the asm all the same).  Nor does it count
 * an IV stepping by a constant other than 1 whose add carries no no-wrap
 * flag for the test
 * (unsigned i += 32, size_t i += 32: SCEV, with no mustprogress loops,
 * cannot rule out the IV wrapping past the bound), where int i += 32 (nsw)
 * it unrolls x4; measured on each (t/5002), and on independent code, where
 * unrolling them cost up to 30% more PTX instructions for no register
 * gain (nv-unroll-runtime-may-wrap=1: unroll them all the same). */
/* ...unless the start's range keeps the first step from overflowing and
 * the start within one step behind zero: counting up by s, a start in
 * [-s, max - s]; counting down, in [min + s, s] (signed tests).  Measured on
 * nvcc (t/5002): from threadIdx.x % 32, n & 255, x % 64 - 32 it unrolls x4,
 * from threadIdx.x (no range in cicc), x & 0x7fffffe0 stepping by 32, or
 * x % 32 - 64 it does not: llm.c's softmax_forward_kernel5's write-back
 * loop from the lane. */
static int
start_counted_by_cicc(const struct facts *f)
{
	LLVMIntPredicate p = f->trip.pred;
	int64_t lo, hi, s = f->trip.step, smax;

	if (f->trip.step_value || f->trip.width > 64 || f->trip.width < 2 ||
	    !(p == LLVMIntSLE || p == LLVMIntSGE) || !nv_trip_start_range(&f->trip, &lo, &hi))
		return 0;
	smax = (int64_t)nv_int_mask(~UINT64_C(0), f->trip.width - 1);
	if (s > 0)
		return s <= smax && lo >= -s && hi <= smax - s;
	return s >= -smax && hi <= -s && lo >= -smax - 1 - s;
}

static int
uncounted_by_cicc(const struct nv_unroll_params *up, const struct facts *f)
{
	LLVMIntPredicate p = f->trip.pred;

	if (!f->tc && f->trip.kind == NV_TRIP_SYMBOLIC && f->trip.step_value && f->ordered)
		return 1;
	if (!f->tc && f->trip.kind == NV_TRIP_SYMBOLIC && (f->trip.may_wrap || f->trip.nuw_only) &&
	    !up->runtime_may_wrap)
		return 1;
	return !f->tc && f->trip.kind == NV_TRIP_SYMBOLIC &&
	       (p == LLVMIntSLE || p == LLVMIntULE || p == LLVMIntSGE || p == LLVMIntUGE) &&
	       (f->trip.step > 1 || f->trip.step < -1 || f->trip.step_value) && f->trip.start &&
	       !LLVMIsAConstantInt(f->trip.start) && !start_counted_by_cicc(f);
}

/* Level 4: peeling. */
static int
level_peel(const struct nv_loops *ls, unsigned l, const struct nv_unroll_params *up,
           const struct facts *f, unsigned mult, struct nv_unroll_decision *d)
{
	unsigned k = 0, phis = 0, cmps;
	const char *why;

	if (!f->innermost || ls->v[l].nlatches != 1) {
		NOTE(f, "level 4: loop %s: only innermost loops are peeled", f->label);
		return 0;
	}
	if (up->peel_count < 0 && nv_loop_md_has(ls, l, "llvm.loop.peeled.count")) {
		NOTE(f, "level 4: loop %s: already peeled", f->label);
		return 0;
	}
	if (up->peel_count >= 0) {
		k = (unsigned)up->peel_count;
		why = "unroll-peel-count";
	} else {
		for (LLVMValueRef p = LLVMGetFirstInstruction(ls->cfg->bb[ls->v[l].header]);
		     p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
			unsigned n = phi_invariance(ls, l, p, 0);

			if (n > phis)
				phis = n;
		}
		cmps = compare_peel(ls, l, f);
		k = phis > cmps ? phis : cmps;
		why = phis >= cmps ? "a header phi becomes invariant" : "a compare of the IV becomes fixed";
	}
	if (!k) {
		NOTE(f, "level 4: loop %s: nothing to gain from peeling", f->label);
		return 0;
	}
	if (f->tc && f->tc <= k) {
		NOTE(f, "level 4: loop %s: peeling %u of %llu iterations is full unrolling", f->label, k,
		     (unsigned long long)f->tc);
		return 0;
	}
	if (up->peel_count < 0 && (uint64_t)k * f->body > (uint64_t)mult * up->threshold) {
		NOTE(f, "level 4: loop %s: peeling %u iterations costs %llu, over the threshold %llu",
		     f->label, k, (unsigned long long)k * f->body,
		     (unsigned long long)mult * up->threshold);
		return 0;
	}
	decide(d, NV_UNROLL_PEEL, 4, k, "%s after %u iteration%s", why, k, k == 1 ? "" : "s");
	return 1;
}

/* Level 5: static partial unrolling of a known trip count. */
static int
level_partial(const struct nv_unroll_params *up, const struct facts *f,
              struct nv_unroll_decision *d)
{
	unsigned marginal = f->body > NV_COST_LOOP_FIXED ? f->body - NV_COST_LOOP_FIXED : 1;
	int pragma = f->pragma_full || f->pragma_enable;
	/* a #pragma unroll too big to unroll fully is unrolled as far as the
	 * pragma budget goes (LLVM raises the partial threshold to it; cicc's
	 * bf16TensorCoreGemm: trip 64 by 8, the PTX loop marked nounroll) */
	unsigned budget = pragma && up->pragma_threshold > up->partial_threshold ? up->pragma_threshold
	                                                                          : up->partial_threshold;
	uint64_t c;

	if (!f->tc || !f->innermost) {
		NOTE(f, "level 5: loop %s: %s", f->label,
		     !f->tc ? "no constant trip count" : "not innermost");
		return 0;
	}
	if (!up->allow_partial && !pragma) {
		NOTE(f, "level 5: loop %s: partial unrolling is off", f->label);
		return 0;
	}
	if (f->convergent && !up->runtime_convergent) {
		NOTE(f, "level 5: loop %s: convergent calls and unroll-runtime-convergent=0", f->label);
		return 0;
	}
	c = up->count ? up->count
	              : budget > NV_COST_LOOP_FIXED ? (budget - NV_COST_LOOP_FIXED) / marginal : 0;
	if (c > up->max_count)
		c = up->max_count;
	if (c > f->tc)
		c = f->tc;
	while (c > 0 && (f->tc % c || !is_pow2(c)))
		c--;
	if (c <= 1 && up->count) {
		/* a forced count that does not divide: halve it into the budget */
		c = up->count;
		while (c > 1 && (unrolled_size(f->body, c) > budget || c >= f->tc))
			c >>= 1;
		if (c > 1 && f->tc % c && (!up->allow_remainder || f->convergent || f->side_exits))
			c = 1;
	}
	if (c <= 1) {
		NOTE(f, "level 5: loop %s: no power of two divides %llu within the %s %u",
		     f->label, (unsigned long long)f->tc,
		     budget != up->partial_threshold ? "pragma budget" : "partial threshold", budget);
		return 0;
	}
	if (c == f->tc) {
		decide(d, NV_UNROLL_FULL, 5, c, "unroll-count=%u covers all %llu iterations",
		       up->count, (unsigned long long)f->tc);
		return 1;
	}
	if (budget != up->partial_threshold)
		decide(d, f->tc % c ? NV_UNROLL_RUNTIME : NV_UNROLL_PARTIAL, 5, c,
		       "#pragma unroll: %llu iterations too big to unroll fully; the largest "
		       "power-of-two factor within the pragma budget %u", (unsigned long long)f->tc, budget);
	else
		decide(d, f->tc % c ? NV_UNROLL_RUNTIME : NV_UNROLL_PARTIAL, 5, c,
		       "trip count %llu: largest power-of-two factor within the partial threshold %u",
		       (unsigned long long)f->tc, budget);
	d->epilog = wants_epilog(up, f);
	d->nounroll = pragma ? NV_NOUNROLL_NOW : d->how == NV_UNROLL_RUNTIME ? NV_NOUNROLL_LATE
	                                                                  : NV_NOUNROLL_NONE;
	return 1;
}

/* Whether a known maximum trip count leaves the loop unrolled by c fewer
 * than flat-loop-tripcount-threshold trips.  cicc leaves i < min(n, 20)
 * rolled and unrolls i < min(n, 21) by 4, whatever the body: (max - 1) / 4
 * is 4, then 5.  (LLVM's own rule, no runtime unrolling below
 * unroll-max-upperbound = 8, is the weaker.) */
static int
flat_at_most(const struct nv_unroll_params *up, const struct facts *f, uint64_t c)
{
	return !f->tc && f->max_tc && !up->count &&
	       ((f->max_tc - 1) / c < up->flat_trip || f->max_tc < up->max_upper_bound);
}

/* Level 6: runtime unrolling. */
static int
level_runtime(const struct nv_unroll_params *up, const struct facts *f,
              struct nv_unroll_decision *d)
{
	uint64_t est = f->tc ? f->tc : f->est_tc ? f->est_tc : f->max_tc, c;

	if (!f->innermost || f->runtime_disabled || !up->runtime) {
		NOTE(f, "level 6: loop %s: %s", f->label,
		     !f->innermost ? "not innermost"
		     : f->runtime_disabled ? "llvm.loop.unroll.runtime.disable" : "runtime unrolling is off");
		return 0;
	}
	if (f->body > up->runtime_threshold) {
		NOTE(f, "level 6: loop %s: body size %u over runtime-unroll-threshold %u", f->label,
		     f->body, up->runtime_threshold);
		return 0;
	}
	if (f->trip.kind == NV_TRIP_UNKNOWN) {
		NOTE(f, "level 6: loop %s: no trip count expression for a remainder loop (%s)", f->label,
		     f->trip.why ? f->trip.why : "not computable");
		return 0;
	}
	if (uncounted_by_cicc(up, f)) {
		if ((f->trip.may_wrap || f->trip.nuw_only) && !up->runtime_may_wrap &&
		    !(f->trip.step_value && f->ordered))
			NOTE(f, "level 6: loop %s: an IV stepping by %lld, its add not nsw, may wrap past the bound of its %s test: no trip count (nv-unroll-runtime-may-wrap=0)",
			     f->label, (long long)f->trip.step,
			     f->trip.pred >= LLVMIntSGT ? "signed" : "unsigned");
		else if (f->trip.step_value && f->ordered)
			NOTE(f, "level 6: loop %s: a step known only at run time, and atomics, fences, volatile accesses or asm in the loop",
			     f->label);
		else if (f->trip.step_value)
			NOTE(f, "level 6: loop %s: an inclusive exit test stepping by a run-time value from a run-time start",
			     f->label);
		else
			NOTE(f, "level 6: loop %s: an inclusive exit test stepping by %lld from a run-time start",
			     f->label, (long long)f->trip.step);
		return 0;
	}
	if (est && est < up->flat_trip) {
		NOTE(f, "level 6: loop %s: expected trip count %llu under flat-loop-tripcount-threshold %u",
		     f->label, (unsigned long long)est, up->flat_trip);
		return 0;
	}

	if (f->convergent) {
		NOTE(f, "level 6: loop %s: a remainder loop would run convergent calls on fewer iterations",
		     f->label);
		return 0;
	}
	if (f->side_exits) {
		NOTE(f, "level 6: loop %s: no remainder loop for a loop with exits besides its latch",
		     f->label);
		return 0;
	}
	if (!up->allow_remainder) {
		NOTE(f, "level 6: loop %s: remainder loops not allowed", f->label);
		return 0;
	}
	c = up->count ? up->count : up->default_count;
	while (c > 1 && (unrolled_size(f->body, c) > up->partial_threshold || (f->tc && c >= f->tc)))
		c >>= 1;
	if (c > up->max_count)
		c = up->max_count;
	if (c <= 1) {
		NOTE(f, "level 6: loop %s: even x2 is over the partial threshold %u", f->label,
		     up->partial_threshold);
		return 0;
	}
	if (flat_at_most(up, f, c)) {
		NOTE(f, "level 6: loop %s: at most %llu iterations, %llu or fewer of the loop unrolled by "
		     "%llu: under flat-loop-tripcount-threshold %u", f->label,
		     (unsigned long long)f->max_tc, (unsigned long long)(f->max_tc - 1) / c,
		     (unsigned long long)c, up->flat_trip);
		return 0;
	}
	decide(d, NV_UNROLL_RUNTIME, 6, c, "%s trip count, body size %u%s%s",
	       f->tc ? "odd constant" : "unknown", f->body,
	       f->calls && !up->epilog && !up->waterfall ? " (calls in the loop force an epilog remainder)" : "",
	       !f->tc && (f->trip.may_wrap || f->trip.nuw_only)
	               ? "; an IV that may wrap past the bound counted (nv-unroll-runtime-may-wrap)" : "");
	d->epilog = wants_epilog(up, f);
	d->nounroll = NV_NOUNROLL_LATE;
	return 1;
}

/* After the cascade: a tiny function can afford x2 where a size gate said no. */
static int
level_small_function(const struct nv_unroll_params *up, const struct facts *f, unsigned fnsize,
                     unsigned mult, struct nv_unroll_decision *d)
{
	uint64_t est = f->tc ? f->tc : f->est_tc ? f->est_tc : f->max_tc;

	if (fnsize >= up->small_function || !f->innermost || f->convergent ||
	    unrolled_size(f->body, 2) > (uint64_t)mult * up->threshold || (est && est < up->flat_trip) ||
	    flat_at_most(up, f, up->default_count))
		return 0;
	if (f->tc && f->tc % 2 == 0 && up->allow_partial) {
		decide(d, NV_UNROLL_PARTIAL, 7, 2, "small function (size %u < %u)", fnsize,
		       up->small_function);
		return 1;
	}
	if (up->runtime && up->allow_remainder && !f->runtime_disabled && f->trip.kind != NV_TRIP_UNKNOWN &&
	    !f->side_exits && !uncounted_by_cicc(up, f)) {
		decide(d, NV_UNROLL_RUNTIME, 7, 2, "small function (size %u < %u)%s", fnsize,
		       up->small_function,
		       !f->tc && f->trip.kind == NV_TRIP_SYMBOLIC && (f->trip.may_wrap || f->trip.nuw_only)
		               ? "; an IV that may wrap past the bound counted (nv-unroll-runtime-may-wrap)" : "");
		d->epilog = wants_epilog(up, f);
		d->nounroll = NV_NOUNROLL_LATE;
		return 1;
	}
	return 0;
}

static void
cascade(const struct nv_loops *ls, unsigned l, const struct nv_unroll_params *up,
        const struct facts *f, unsigned fnsize, struct nv_unroll_decision *d)
{
	unsigned mult = 1;

	memset(d, 0, sizeof(*d));
	if (!f->simplified || ls->v[l].nlatches != 1) {
		decide_none(d, 0, "not in loop-simplify form (no preheader or several latches)");
		return;
	}
	if (f->disabled) {
		decide_none(d, 0, "llvm.loop.unroll.disable (#pragma unroll 1, or a remainder or already unrolled loop)");
		return;
	}
	if (up->early && (!(f->pragma_full || f->pragma_enable || f->pragma_count > 1) || !f->tc)) {
		decide_none(d, 0, "the early unroll takes only #pragma unroll loops of known trip count");
		return;
	}
	/* level 1 */
	if (f->array) {
		mult = f->array < 6 ? (unsigned)f->array : 6;
		NOTE(f, "level 1: loop %s accesses local array %s of %llu elements: budgets x%u", f->label,
		     f->array_name, (unsigned long long)f->array, mult);
	} else if (f->const_array) {
		NOTE(f, "level 1: loop %s accesses a local array only at constant indices: budgets x1", f->label);
	} else {
		NOTE(f, "level 1: loop %s accesses no local array: budgets x1", f->label);
	}
	if (f->side_exits)
		NOTE(f, "loop %s: %u exit%s besides the latch%s; counted at the latch: at most %llu "
		     "iterations, the other exits kept as branches (nv-unroll-multi-exit)", f->label,
		     f->side_exits, f->side_exits == 1 ? "" : "s", f->merged ? ", one in its test" : "",
		     (unsigned long long)(f->tc ? f->tc : f->max_tc));
	if (up->early) {
		/* config P: a #pragma unroll loop of known trip count, fully,
		 * before LLVM's simplification can thread its latch into the
		 * loop around it (a GEMM mainloop's k loop under #pragma unroll
		 * 1: merged, never unrolled, its fragments left in local
		 * memory); plain clang's full unroll runs there too.  Which
		 * loops come here is early_takes()'s.  Anything else waits for
		 * the main unroll, unmarked. */
		if (!level_pragma_count(up, f, mult, d) && !level_full(ls, l, up, f, mult, d))
			decide_none(d, 3, "not fully unrolled within the pragma budget");
		if (d->how != NV_UNROLL_FULL) {
			decide_none(d, d->level, "the early unroll unrolls only fully; the main unroll decides");
			d->nounroll = NV_NOUNROLL_NONE;
		}
		return;
	}
	if (level_pragma_count(up, f, mult, d) || level_full(ls, l, up, f, mult, d) ||
	    level_peel(ls, l, up, f, mult, d) || level_partial(up, f, d) || level_runtime(up, f, d) ||
	    level_small_function(up, f, fnsize, mult, d)) {
		if (f->side_exits)
			snprintf(d->why + strlen(d->why), sizeof(d->why) - strlen(d->why),
			         "; counted at the latch, %u other exit%s kept", f->side_exits,
			         f->side_exits == 1 ? "" : "s");
		return;
	}
	decide_none(d, 6, "no level of the cascade found a profitable factor (body size %u)", f->body);
	/* The last word on a loop whose trip count is known, so whose full
	 * unroll was over the budget, and that no unroll or vectorizer has
	 * replicated: ptxas would unroll it all the same (imageDenoising's NLM:
	 * the loop around a fully unrolled one, 255 registers unrolled by
	 * ptxas, 55 left rolled; cicc's keeps float induction variables, whose
	 * loops ptxas cannot count: 63).  A loop unrolled by a factor stays
	 * open to ptxas, as cicc leaves it. */
	if (up->seal_rolled && f->tc && !f->replicated) {
		d->nounroll = NV_NOUNROLL_NOW;
		strncat(d->why, "; marked nounroll", sizeof(d->why) - strlen(d->why) - 1);
	}
}

/* --- driving LLVM's loop-unroll --- */

/* Which LLVM run carries out a decision: the metadata runs (epilog or
 * prolog remainders), the upper-bound run, one peel run per count. */
enum { G_EPILOG, G_PROLOG, G_UPPER, G_PEEL };

static unsigned
group_of(const struct nv_unroll_decision *d)
{
	switch (d->how) {
	case NV_UNROLL_RUNTIME: return d->epilog ? G_EPILOG : G_PROLOG;
	case NV_UNROLL_UPPER: return G_UPPER;
	case NV_UNROLL_PEEL: return G_PEEL + d->count;
	default: return G_EPILOG;
	}
}

struct pending {
	struct nv_unroll_decision d;
	unsigned group;
	unsigned insts;     /* instructions in the loop before */
	unsigned depth;     /* loop depth of the header before */
	int exiting;        /* it had one exit, the latch's count test */
	int kept_exits;     /* runtime: unrolled with no remainder, an exit test in each copy */
	int remains;        /* a fully unrolled loop is still there */
	int done;           /* the loop shows the transformation */
	char *where;        /* function and loop, for the result remark */
	struct nv_srcloc loc; /* the loop's start in the source */
	LLVMValueRef fn;
};

struct state {
	LLVMModuleRef m;
	LLVMTargetMachineRef tm;
	const struct nv_unroll_config *cfg;
	int olevel;
	struct pending *p;
	unsigned np;
	int seal_vectorized;        /* -unroll-seal-vectorized */
	LLVMValueRef *early;        /* config P: the functions it takes */
	unsigned char *early_inside; /* ... and whether it took a nest inside a loop in one */
	unsigned nearly;
};

static unsigned
loop_insts(const struct nv_loops *ls, unsigned l)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ls->v[l].nblocks; i++)
		for (LLVMValueRef in = LLVMGetFirstInstruction(ls->cfg->bb[ls->v[l].blocks[i]]); in;
		     in = LLVMGetNextInstruction(in))
			n++;
	return n;
}

static unsigned
function_size(LLVMValueRef fn)
{
	unsigned n = 0;

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
		n += nv_cost_block(b);
	return n;
}

/* Loop analyses of one function, rebuilt whenever the CFG changed. */
static int
remarks_on(void)
{
	return nv_remark_enabled(NV_REMARK_PASSED, PASS) || nv_remark_enabled(NV_REMARK_MISSED, PASS) ||
	       nv_remark_enabled(NV_REMARK_ANALYSIS, PASS);
}

static int early_takes(const struct nv_loops *ls, unsigned l, const struct nv_unroll_params *up, int *inside);
static int early_canon(struct state *st);

static const char *const how_word[] = {
	[NV_UNROLL_NONE] = "none", [NV_UNROLL_FULL] = "full", [NV_UNROLL_UPPER] = "upper",
	[NV_UNROLL_PARTIAL] = "partial", [NV_UNROLL_RUNTIME] = "runtime", [NV_UNROLL_PEEL] = "peel",
};
static const char *const mark_word[] = { [NV_NOUNROLL_NONE] = "none", [NV_NOUNROLL_NOW] = "now",
	                                 [NV_NOUNROLL_LATE] = "late" };

/* A decision as the decisions file has it: "full count=16", "runtime
 * count=4 remainder=epilog mark=late", "none", "none mark=now". */
static void
choice_text(const struct nv_unroll_decision *d, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%s", how_word[d->how]);

	if (d->how != NV_UNROLL_NONE)
		k += snprintf(buf + k, n - (size_t)k, " count=%u", d->count);
	if (d->how == NV_UNROLL_RUNTIME)
		k += snprintf(buf + k, n - (size_t)k, " remainder=%s", d->epilog ? "epilog" : "prolog");
	if (d->nounroll != NV_NOUNROLL_NONE)
		snprintf(buf + k, n - (size_t)k, " mark=%s", mark_word[d->nounroll]);
}

/* The decision a choice's words give, over d; 0, or -1 when they are not
 * one (d untouched). */
static int
choice_read(const char *text, struct nv_unroll_decision *d)
{
	struct nv_unroll_decision c = { .how = NV_UNROLL_NONE, .count = 0, .epilog = 1 };
	char *words = xstrdup(text), *save = NULL;
	int rc = -1, first = 1;

	for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save), first = 0) {
		size_t i, n = 0;
		const char *v;

		if (first) {
			for (i = 0; i < sizeof(how_word) / sizeof(*how_word) && strcmp(w, how_word[i]); i++)
				;
			if (i == sizeof(how_word) / sizeof(*how_word))
				goto out;
			c.how = (enum nv_unroll_how)i;
		} else if (!strncmp(w, "count=", 6)) {
			long long k;

			if (nv_parse_int(w + 6, 1, 1 << 20, &k))
				goto out;
			c.count = (unsigned)k;
		} else if (!strncmp(w, "remainder=", 10) && (!strcmp(w + 10, "epilog") || !strcmp(w + 10, "prolog"))) {
			c.epilog = !strcmp(w + 10, "epilog");
		} else if (!strncmp(w, "mark=", 5)) {
			for (v = w + 5; n < sizeof(mark_word) / sizeof(*mark_word) && strcmp(v, mark_word[n]); n++)
				;
			if (n == sizeof(mark_word) / sizeof(*mark_word))
				goto out;
			c.nounroll = (int)n;
		} else {
			goto out;
		}
	}
	if ((c.how == NV_UNROLL_NONE) != (c.count == 0) || (c.how != NV_UNROLL_NONE && c.count < 2 &&
	                                                     c.how != NV_UNROLL_PEEL && c.how != NV_UNROLL_FULL))
		goto out;
	c.level = 0;
	snprintf(c.why, sizeof(c.why), "as -decisions says");
	*d = c;
	rc = 0;
out:
	free(words);
	return rc;
}

/* The run's name in the decisions file: unroll (the main unroll), unroll-P,
 * unroll-D. */
static void
stage_name(const struct state *st, char *buf, size_t n)
{
	if (st->cfg->name == 'C')
		snprintf(buf, n, "unroll");
	else
		snprintf(buf, n, "unroll-%c", st->cfg->name);
}

/* -decisions: a replayed choice for the loop at loc in fn replaces d;
 * -save-decisions: the choice taken is saved. */
static void
replay(struct state *st, LLVMValueRef fn, const struct nv_srcloc *loc, struct nv_unroll_decision *d)
{
	struct nv_decision dec;
	const char *want;
	char stage[16], text[96];
	size_t len;
	char *name;

	if (!nv_decisions_on())
		return;
	name = xstrdup(LLVMGetValueName2(fn, &len));
	stage_name(st, stage, sizeof(stage));
	want = nv_decision_begin(&dec, stage, loc, name);
	if (want && choice_read(want, d))
		nv_warn("decision '%s %s': not an unroll choice (none, full, upper, partial, runtime or peel, "
		        "then count=N, remainder=epilog|prolog, mark=none|now|late)", dec.key, want);
	choice_text(d, text, sizeof(text));
	nv_decision_end(&dec, text);
	free(name);
}

int
nv_unroll_decisions_finish(LLVMModuleRef m, const struct nv_unroll_config *cfg)
{
	struct state st = { .cfg = cfg };
	char stage[16];

	stage_name(&st, stage, sizeof(stage));
	return nv_decisions_finish(m, stage);
}

/* Decide the loops of fn that are ready (not decided, inner loops all
 * decided), and mark them for the LLVM runs.  Returns how many were ready. */
static unsigned
decide_function(struct state *st, LLVMValueRef fn)
{
	struct nv_fn_loops a;
	struct nv_unroll_params up;
	unsigned ready = 0, fnsize, *seen;
	int early = -1, in_loop = 0;
	char **labels = NULL;
	size_t len;
	const char *fname = LLVMGetValueName2(fn, &len);

	nv_fn_loops_build(&a, fn);
	if (!a.ls.n) {
		nv_fn_loops_release(&a);
		return 0;
	}
	nv_unroll_params(&up, fn, st->cfg, st->olevel);
	fnsize = function_size(fn);
	if (remarks_on())
		labels = nv_cfg_labels(&a.g);
	seen = xcalloc(a.ls.n, sizeof(*seen));
	for (unsigned i = 0; up.early && i < st->nearly && early < 0; i++)
		if (st->early[i] == fn)
			early = (int)i;
	/* a nest inside a loop taken in an earlier round (gone now, unrolled) */
	in_loop = early >= 0 && st->early_inside[early];
	for (unsigned l = 0; l < a.ls.n; l++) {
		int inside = 0;

		seen[l] = nv_loop_md_has(&a.ls, l, MD_SEEN);
		/* config P passes over every loop it does not take, unmarked */
		if (up.early && !seen[l])
			seen[l] = early < 0 || !early_takes(&a.ls, l, &up, &inside);
		in_loop |= !seen[l] && inside;
	}
	if (early >= 0)
		st->early_inside[early] = (unsigned char)in_loop;
	/* a prologue's nest (in no loop) goes with a nest inside a loop */
	for (unsigned l = 0; l < a.ls.n && up.early && early >= 0 && !in_loop; l++) {
		int inside = 0;

		if (!seen[l] && early_takes(&a.ls, l, &up, &inside) && !inside)
			seen[l] = 1;
	}
	/* innermost first: a loop is ready when no unseen loop is inside it */
	for (unsigned l = 0; l < a.ls.n; l++) {
		struct facts f;
		struct pending *p;
		int inner_pending = 0;

		if (seen[l] || a.ls.v[l].nlatches != 1)
			continue;
		for (unsigned k = 0; k < a.ls.n && !inner_pending; k++)
			inner_pending = k != l && !seen[k] && a.ls.v[k].nlatches == 1 &&
			                nv_loop_contains(&a.ls, l, a.ls.v[k].header);
		if (inner_pending)
			continue;
		ready++;
		gather(&a.ls, l, &up, labels, &f);
		st->p = xrealloc(st->p, (st->np + 1) * sizeof(*st->p));
		p = &st->p[st->np];
		memset(p, 0, sizeof(*p));
		cascade(&a.ls, l, &up, &f, fnsize, &p->d);
		replay(st, fn, &f.loc, &p->d);
		p->group = group_of(&p->d);
		p->insts = loop_insts(&a.ls, l);
		p->depth = a.ls.v[l].depth;
		p->exiting = a.ls.v[l].nexiting == 1 && !f.trip.merged && !f.trip.side_exits;
		p->fn = fn;
		p->where = xasprintf("loop %s in %.*s", f.label, (int)len, fname);
		p->loc = f.loc;
		nv_loop_md_set(&a.ls, l, MD_SEEN, 0, 0);
		if (p->d.how == NV_UNROLL_NONE) {
			if (p->d.nounroll == NV_NOUNROLL_NOW)
				nv_loop_md_set(&a.ls, l, MD_DISABLE, 0, 0);
			/* the main unroll says what becomes of it, unless a file did */
			if (!up.early || !strcmp(p->d.why, "as -decisions says"))
				nv_remark_loc(NV_REMARK_MISSED, PASS, "NotUnrolled", f.at, &f.loc,
				              "%s not unrolled: %s", p->where, p->d.why);
			free(p->where);
			continue;
		}
		nv_remark_loc(NV_REMARK_ANALYSIS, PASS, "UnrollDecision", f.at, &f.loc,
		              "%s: level %u decides %s %u: %s",
		          p->where, p->d.level,
		          p->d.how == NV_UNROLL_PEEL ? "peel" : p->d.how == NV_UNROLL_FULL ||
		                                               p->d.how == NV_UNROLL_UPPER ? "full unroll of"
		                                                                           : "unroll by",
		          p->d.count, p->d.why);
		nv_loop_md_remove(&a.ls, l, "llvm.loop.unroll.");
		if (p->d.how == NV_UNROLL_FULL)
			nv_loop_md_set(&a.ls, l, "llvm.loop.unroll.full", 0, 0);
		else if (p->d.how == NV_UNROLL_PARTIAL || p->d.how == NV_UNROLL_RUNTIME)
			nv_loop_md_set(&a.ls, l, "llvm.loop.unroll.count", 1, (int32_t)p->d.count);
		nv_loop_md_set(&a.ls, l, MD_ID, 1, (int32_t)st->np);
		st->np++;
	}
	free(seen);
	if (labels)
		nv_cfg_labels_free(&a.g, labels);
	nv_fn_loops_release(&a);
	return ready;
}

/* Every loop of the module, with its analyses; fn(loop) may edit metadata
 * but not the CFG. */
static void
each_loop(LLVMModuleRef m, void (*fn)(struct state *, const struct nv_loops *, unsigned),
          struct state *st)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct nv_fn_loops a;

		if (LLVMIsDeclaration(f))
			continue;
		nv_fn_loops_build(&a, f);
		for (unsigned l = 0; l < a.ls.n; l++)
			fn(st, &a.ls, l);
		nv_fn_loops_release(&a);
	}
}

static int64_t
loop_id(const struct nv_loops *ls, unsigned l)
{
	int64_t id;

	return nv_loop_md_int(ls, l, MD_ID, &id) ? id : -1;
}

static unsigned current_group;

/* Only the loops of the current group are visible to LLVM. */
static void
show_group(struct state *st, const struct nv_loops *ls, unsigned l)
{
	int64_t id = loop_id(ls, l);
	int mine = id >= 0 && (unsigned)id < st->np && st->p[id].group == current_group;

	if (mine && nv_loop_md_has(ls, l, MD_HIDDEN)) {
		nv_loop_md_remove(ls, l, MD_HIDDEN);
		nv_loop_md_remove(ls, l, MD_DISABLE);
	} else if (!mine && !nv_loop_md_has(ls, l, MD_DISABLE)) {
		nv_loop_md_set(ls, l, MD_DISABLE, 0, 0);
		nv_loop_md_set(ls, l, MD_HIDDEN, 0, 0);
	}
}

static void
unhide(struct state *st, const struct nv_loops *ls, unsigned l)
{
	(void)st;
	if (nv_loop_md_has(ls, l, MD_HIDDEN)) {
		nv_loop_md_remove(ls, l, MD_HIDDEN);
		nv_loop_md_remove(ls, l, MD_DISABLE);
	}
}

/* Every terminator of m carrying an llvm.loop node: after unrolling, the
 * old latch of a loop may be an exiting branch that keeps its node.  fn
 * gets the innermost loop around the terminator (NV_NONE if none). */
static void
each_loop_term(LLVMModuleRef m, void (*fn)(struct state *, LLVMValueRef, const struct nv_loops *, unsigned),
               struct state *st)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		unsigned kind = LLVMGetMDKindIDInContext(LLVMGetModuleContext(m), "llvm.loop", 9);
		struct nv_fn_loops a;

		if (LLVMIsDeclaration(f))
			continue;
		nv_fn_loops_build(&a, f);
		for (unsigned b = 0; b < a.g.n; b++) {
			LLVMValueRef t = LLVMGetBasicBlockTerminator(a.g.bb[b]);

			if (t && LLVMGetMetadata(t, kind))
				fn(st, t, &a.ls, a.ls.innermost[b]);
		}
		nv_fn_loops_release(&a);
	}
}

static void
unhide_term(LLVMValueRef t)
{
	if (nv_md_loop_has(t, MD_HIDDEN)) {
		nv_md_loop_remove(t, MD_HIDDEN);
		nv_md_loop_remove(t, MD_DISABLE);
	}
}

/* After the runs: what became of each decision, from where its id ended
 * up; then the ids go. */
static void
observe(struct state *st, LLVMValueRef t, const struct nv_loops *ls, unsigned l)
{
	int64_t id;
	struct pending *p;
	unsigned depth = l == NV_NONE ? 0 : ls->v[l].depth;

	unhide_term(t);
	if (l != NV_NONE && nv_md_loop_has(t, "llvm.loop.peeled.count")) {
		/* LLVM gives a peeled loop a new node, without our id */
		LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(t));

		for (unsigned i = 0; i < st->np; i++)
			if (st->p[i].d.how == NV_UNROLL_PEEL && st->p[i].fn == fn && st->p[i].depth == depth)
				st->p[i].done = 1;
	}
	if (!nv_md_loop_int(t, MD_ID, &id) || id < 0 || (unsigned)id >= st->np)
		return;
	p = &st->p[id];
	nv_md_loop_remove(t, MD_ID);
	switch (p->d.how) {
	case NV_UNROLL_FULL: case NV_UNROLL_UPPER:
		p->remains |= depth >= p->depth;
		break;
	case NV_UNROLL_PEEL:
		break;
	default:
		p->done |= depth >= p->depth && loop_insts(ls, l) > p->insts;
		/* LLVM, forced by the count and finding no trip count for a
		 * remainder (ScalarEvolution's, which may fail where ours
		 * counts), unrolls a loop of one exit keeping each copy's exit
		 * test (with a remainder, the latch's alone) */
		p->kept_exits |= p->d.how == NV_UNROLL_RUNTIME && depth >= p->depth && p->exiting &&
		                 p->d.count > 1 && ls->v[l].nexiting >= p->d.count;
		break;
	}
	/* LLVM marks the loop it unrolled (and even one it left alone) as
	 * already unrolled.  cicc keeps that mark, so the PTX says .pragma
	 * "nounroll", where the unroll count was the pragma's (LLVM's
	 * setLoopAlreadyUnrolled).  A runtime-unrolled loop gets it after the
	 * late unroll, which may still unroll it fully once its trip count is
	 * known (seal_runtime): ptxas would otherwise unroll it again, as it
	 * leaves cicc's runtime loops alone (a probe's SASS is 2.4x cicc's
	 * without the mark, 1.1x with it).  Other loops stay open. */
	if (l != NV_NONE && nv_loop_latch_term(ls, l) && p->d.how != NV_UNROLL_PEEL &&
	    p->d.how != NV_UNROLL_FULL && p->d.how != NV_UNROLL_UPPER && depth >= p->depth) {
		if (p->d.nounroll == NV_NOUNROLL_NOW)
			nv_loop_md_set(ls, l, MD_DISABLE, 0, 0);
		else
			nv_loop_md_remove(ls, l, MD_DISABLE);
		nv_loop_md_set(ls, l, MD_UNROLLED, 0, 0);
		if (p->d.nounroll == NV_NOUNROLL_LATE)
			nv_loop_md_set(ls, l, MD_RUNTIME_DISABLE, 0, 0);
		nv_loop_md_set(ls, l, MD_SEEN, 0, 0); /* its latch may be new */
	} else if (l != NV_NONE && nv_loop_latch_term(ls, l) && depth >= p->depth) {
		nv_loop_md_remove(ls, l, MD_DISABLE);
		nv_loop_md_set(ls, l, MD_SEEN, 0, 0);
	}
}

/* After the late unroll: a loop we unrolled at run time is done, and no
 * later stage asks which loops were unrolled.  So is a loop the vectorizer
 * made (the vector loop and its scalar remainder carry the same runtime
 * mark), under -unroll-seal-vectorized: its vector accesses already do four
 * elements an iteration, as cicc's runtime unroll by 4 of the scalar loop,
 * which ptxas leaves alone; left open, ptxas unrolls the vector loop again
 * (a row axpy: 16 elements an iteration, 40 registers; sealed 25, cicc 32). */
static void
seal_runtime(struct state *st, const struct nv_loops *ls, unsigned l)
{
	if (nv_loop_md_has(ls, l, MD_RUNTIME_DISABLE) && !nv_loop_md_has(ls, l, MD_DISABLE) &&
	    (st->seal_vectorized || !nv_loop_md_has(ls, l, "llvm.loop.isvectorized")))
		nv_loop_md_set(ls, l, MD_DISABLE, 0, 0);
	nv_loop_md_remove(ls, l, MD_UNROLLED);
}

static void
forget(struct state *st, LLVMValueRef t, const struct nv_loops *ls, unsigned l)
{
	(void)st, (void)ls, (void)l;
	unhide_term(t);
	nv_md_loop_remove(t, MD_SEEN);
	nv_md_loop_remove(t, MD_ID);
}

/* One run of LLVM's loop-unroll over the visible loops of a group.  Its
 * options are process-wide, so every run sets all that matter. */
static int
run_group(struct state *st, unsigned group)
{
	char peel[40], epi[40], ub[40], text[160];
	const char *args[] = {
		"nv-unroll", peel, epi, ub, "-unroll-threshold=1000000000",
		"-pragma-unroll-threshold=1000000000", "-unroll-allow-remainder=1",
	};
	unsigned upper = 0;

	for (unsigned i = 0; i < st->np; i++)
		if (st->p[i].group == group && st->p[i].d.how == NV_UNROLL_UPPER && st->p[i].d.count > upper)
			upper = st->p[i].d.count;
	snprintf(peel, sizeof(peel), "-unroll-peel-count=%u", group >= G_PEEL ? group - G_PEEL : 0);
	snprintf(epi, sizeof(epi), "-unroll-runtime-epilog=%d", group != G_PROLOG);
	snprintf(ub, sizeof(ub), "-unroll-max-upperbound=%u", upper);
	LLVMParseCommandLineOptions((int)(sizeof(args) / sizeof(*args)), args, NULL);
	snprintf(text, sizeof(text),
	         "function(loop-unroll<O3;no-partial;no-runtime;%s;%s;no-profile-peeling;full-unroll-max=%u>)",
	         group == G_UPPER ? "upperbound" : "no-upperbound", group >= G_PEEL ? "peeling" : "no-peeling",
	         upper);
	current_group = group;
	each_loop(st->m, show_group, st);
	if (st->cfg->name != 'P')
		return nv_run_pipeline(st->m, st->tm, text);
	/* config P runs LLVM's unroller over the functions it decided in
	 * alone: a loop pass puts every loop it sees into LCSSA form */
	text[strlen(text) - 1] = '\0';
	for (unsigned i = 0; i < st->np; i++) {
		unsigned k = 0;

		if (st->p[i].group != group)
			continue;
		while (k < i && (st->p[k].group != group || st->p[k].fn != st->p[i].fn))
			k++;
		if (k == i && nv_run_function_pipeline(st->p[i].fn, st->tm, text + strlen("function(")))
			return -1;
	}
	return 0;
}

static const char *
how_name(const struct nv_unroll_decision *d)
{
	switch (d->how) {
	case NV_UNROLL_FULL: return "completely unrolled";
	case NV_UNROLL_UPPER: return "completely unrolled to its maximum trip count";
	case NV_UNROLL_PARTIAL: return "unrolled";
	case NV_UNROLL_RUNTIME: return d->epilog ? "unrolled with an epilog remainder"
	                                        : "unrolled with a prolog remainder";
	case NV_UNROLL_PEEL: return "peeled";
	default: return "left";
	}
}

static void
report(const struct pending *p)
{
	LLVMValueRef at = p->fn; /* the loop may be gone: its source position, else the function */
	int ok = p->d.how == NV_UNROLL_FULL || p->d.how == NV_UNROLL_UPPER ? !p->remains : p->done;

	if (ok && p->kept_exits)
		nv_remark_loc(NV_REMARK_PASSED, PASS, "UnrolledKeepingExits", at, &p->loc,
		              "%s unrolled by a factor of %u with an exit test in each copy, not with a remainder: LLVM's ScalarEvolution found no trip count (level %u: %s)",
		              p->where, p->d.count, p->d.level, p->d.why);
	else if (ok)
		nv_remark_loc(NV_REMARK_PASSED, PASS, p->d.how == NV_UNROLL_PEEL ? "Peeled" : "Unrolled", at,
		              &p->loc,
		          "%s %s %s %u (level %u: %s)", p->where, how_name(&p->d),
		          p->d.how == NV_UNROLL_PEEL ? "by" : p->d.how == NV_UNROLL_FULL ||
		                                              p->d.how == NV_UNROLL_UPPER ? "with count" : "by a factor of",
		          p->d.count, p->d.level, p->d.why);
	else
		nv_remark_loc(NV_REMARK_MISSED, PASS, "NotApplied", at, &p->loc,
		          "%s: LLVM's loop-unroll did not carry out the decision (%s %u, level %u)",
		          p->where, how_name(&p->d), p->d.count, p->d.level);
}

static int
one_round(struct state *st, int *more)
{
	unsigned ready = 0, groups[64], ng = 0;
	int rc = 0;

	st->np = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(st->m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			ready += decide_function(st, f);
	*more = ready > 0;
	for (unsigned i = 0; i < st->np; i++) {
		unsigned k;

		for (k = 0; k < ng && groups[k] != st->p[i].group; k++)
			;
		if (k == ng && ng < sizeof(groups) / sizeof(*groups))
			groups[ng++] = st->p[i].group;
	}
	for (unsigned k = 0; k < ng && !rc; k++)
		rc = run_group(st, groups[k]);
	if (st->np)
		each_loop_term(st->m, observe, st);
	for (unsigned i = 0; i < st->np; i++) {
		if (!rc)
			report(&st->p[i]);
		free(st->p[i].where);
	}
	return rc;
}

/* An asm statement clang gives no willreturn: ScalarEvolution then cannot
 * trust the no-wrap flags of an IV stepped after one, counts no such loop,
 * and LLVM's loop-unroll, forced by our count, keeps an exit test in each
 * copy instead of a remainder.  Lone asm (not convergent: nv-link -cudafe)
 * returns; say so while LLVM unrolls (on), and take back after (off) what
 * was said (metadata MD_ASM_WR marks it, and goes with the copies). */
#define MD_ASM_WR "nv.asm.willreturn"
static void
asm_willreturn(LLVMModuleRef m, int on)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10),
		 wr = LLVMGetEnumAttributeKindForName("willreturn", 10),
		 md = LLVMGetMDKindIDInContext(ctx, MD_ASM_WR, sizeof(MD_ASM_WR) - 1);
	LLVMAttributeRef a = LLVMCreateEnumAttribute(ctx, wr, 0);
	LLVMValueRef mark = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, NULL, 0));

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
				LLVMValueRef callee;

				if (!LLVMIsACallInst(i) || !(callee = LLVMGetCalledValue(i)) ||
				    !LLVMIsAInlineAsm(callee))
					continue;
				if (on && !LLVMGetCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, conv) &&
				    !LLVMGetCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, wr)) {
					LLVMAddCallSiteAttribute(i, LLVMAttributeFunctionIndex, a);
					LLVMSetMetadata(i, md, mark);
				} else if (!on && LLVMGetMetadata(i, md)) {
					LLVMRemoveCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, wr);
					LLVMSetMetadata(i, md, NULL);
				}
			}
}

int
nv_unroll_module(LLVMModuleRef m, LLVMTargetMachineRef tm, const struct nv_unroll_config *cfg,
                 int olevel)
{
	struct state st = { m, tm, cfg, olevel, NULL, 0, (int)nv_knob_int(NV_KNOB_UNROLL_SEAL_VECTORIZED) };
	int more = 1, rc;

	nv_diag_llvm_remarks(0); /* ours say what LLVM's passes did here, and why */
	if (!nv_knob_int(NV_KNOB_UNROLL_SOURCE_WRAP))
		nv_trip_forget_source_wrap(m);
	if (cfg->name == 'P') {
		int taken = early_canon(&st);

		rc = taken < 0 ? -1 : 0;
		more = taken > 0;
	} else {
		rc = nv_run_pipeline(m, tm, nv_stdpipe_find("loop-canon")->passes);
	}
	if (!rc && !more) { /* config P, and no function it takes: untouched */
		nv_diag_llvm_remarks(1);
		return 0;
	}
	asm_willreturn(m, 1);
	for (unsigned r = 0; !rc && more && r < MAX_ROUNDS; r++)
		rc = one_round(&st, &more);
	asm_willreturn(m, 0);
	if (!rc)
		each_loop_term(m, forget, &st);
	if (!rc && cfg->name == 'D')
		each_loop(m, seal_runtime, &st);
	nv_diag_llvm_remarks(1);
	free(st.p);
	free(st.early);
	free(st.early_inside);
	return rc;
}

/* A #pragma unroll loop: full, or a count (which may cover a known trip
 * count), not disabled. */
static int
pragma_loop(const struct nv_loops *ls, unsigned l)
{
	int64_t c;

	return !nv_loop_md_has(ls, l, MD_DISABLE) &&
	       (nv_loop_md_has(ls, l, "llvm.loop.unroll.full") || nv_loop_md_has(ls, l, "llvm.loop.unroll.enable") ||
	        (nv_loop_md_int(ls, l, "llvm.loop.unroll.count", &c) && c > 1));
}

/* A loop a #pragma unroll asks for whole (full, or no count), not
 * disabled. */
static int
whole_pragma(const struct nv_loops *ls, unsigned l)
{
	return !nv_loop_md_has(ls, l, MD_DISABLE) &&
	       (nv_loop_md_has(ls, l, "llvm.loop.unroll.full") || nv_loop_md_has(ls, l, "llvm.loop.unroll.enable"));
}

/* The size of loop top's nest unrolled whole: each block's cost times the
 * trip counts of the loops around it up to top; UINT64_MAX when one of
 * them is no #pragma unroll loop asking for it whole or has no known trip
 * count. */
static uint64_t
nest_size(const struct nv_loops *ls, unsigned top)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < ls->v[top].nblocks; i++) {
		unsigned b = ls->v[top].blocks[i];
		uint64_t n = nv_cost_block(ls->cfg->bb[b]);

		for (unsigned l = ls->innermost[b];; l = ls->v[l].parent) {
			struct nv_trip t;

			if (!whole_pragma(ls, l) || nv_trip_count_latch(ls, l, &t) != NV_TRIP_CONST || t.merged ||
			    t.btc >= 1u << 20)
				return UINT64_MAX;
			n *= t.btc + 1;
			if (n > 1u << 30)
				return UINT64_MAX;
			if (l == top)
				break;
		}
		total += n;
	}
	return total;
}

/* What the loop around nest top does besides its #pragma unroll nests:
 * the cost of its blocks in none of them. */
static unsigned
around_cost(const struct nv_loops *ls, unsigned top)
{
	unsigned p = ls->v[top].parent, c = 0;

	for (unsigned i = 0; i < ls->v[p].nblocks; i++) {
		unsigned b = ls->v[p].blocks[i], l = ls->innermost[b];

		while (l != p && !whole_pragma(ls, l))
			l = ls->v[l].parent;
		if (l == p)
			c += nv_cost_block(ls->cfg->bb[b]);
	}
	return c;
}

/* Whether the early unroll takes loop l of a function it takes: l is a
 * #pragma unroll loop in a nest of them (top, the outermost: inside a loop
 * that stays a loop, or a prologue's, whose arrays the loops inside share),
 * and the whole nest unrolled is within -unroll-early-size (2430: the
 * full-unroll threshold with the largest local-array multiplier, x6).  A
 * nest any bigger is left whole to the main unroll: unrolled inside only,
 * it looked smaller to the main unroll after Phase I, which then unrolled
 * it all (cuda-samples' dmmaTensorCoreGemm: its 64-trip K loop, 16675 PTX
 * instructions where cicc's keeps the loop and has 4413). */
static int
early_takes(const struct nv_loops *ls, unsigned l, const struct nv_unroll_params *up, int *inside)
{
	unsigned top = l;

	if (!whole_pragma(ls, l))
		return 0;
	while (ls->v[top].parent != NV_NONE && whole_pragma(ls, ls->v[top].parent))
		top = ls->v[top].parent;
	*inside = ls->v[top].parent != NV_NONE;
	if (*inside && around_cost(ls, top) > up->early_around)
		return 0;
	return up->early_size && nest_size(ls, top) <= up->early_size;
}

/* Whether a function's loops are the early unroll's (config P): one of
 * its #pragma unroll loops sits inside a loop that stays a loop (no
 * #pragma unroll asking for it whole: #pragma unroll 1, no pragma, a
 * count).  Only there can LLVM's SimplifyCFG thread the inner loop's latch
 * into the loop around it.  Then its loops are rotated, and its #pragma
 * unroll nests that early_takes() allows are unrolled, the prologue's too
 * (a GEMM's first fragment load left for later made a pointer phi of the
 * fragment array, and a frame); a function whose #pragma unroll loops nest
 * only in each other (bench's attention_row) is left to the main unroll as
 * before. */
static int
early_function(const struct nv_loops *ls)
{
	for (unsigned l = 0; l < ls->n; l++) {
		if (!pragma_loop(ls, l))
			continue;
		for (unsigned a = ls->v[l].parent; a != NV_NONE; a = ls->v[a].parent)
			if (!whole_pragma(ls, a))
				return 1;
	}
	return 0;
}

static int
has_early_candidate(LLVMValueRef fn)
{
	struct nv_fn_loops a;
	int any = 0;

	nv_fn_loops_build(&a, fn);
	any = early_function(&a.ls);
	nv_fn_loops_release(&a);
	return any;
}

/* Config P puts into loop form only the functions it takes (st->early),
 * and only as far as it needs: loop-simplify and rotation, which the trip
 * counts are read from (without rotation neither the GEMM repro nor CUB's
 * single-tile reduce is counted), not loop-canon's LICM and IndVarSimplify,
 * which Phase I runs anyway (before them, bench's wmma_gemm_shared copy
 * loops came out with 90 more instructions).  The rest of the module stays
 * as the front end and the inliner left it (loop-canon over a whole module
 * changed what ptxas made of the stencil bench's loads).  Returns how many
 * functions it takes, or -1 after an error. */
#define EARLY_CANON "loop-simplify,lcssa,loop-mssa(loop-rotate),loop-simplify,lcssa"
static int
early_canon(struct state *st)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(st->m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && has_early_candidate(f)) {
			st->early = xrealloc(st->early, (st->nearly + 1) * sizeof(*st->early));
			st->early_inside = xrealloc(st->early_inside, st->nearly + 1);
			st->early_inside[st->nearly] = 0;
			st->early[st->nearly++] = f;
			if (nv_run_function_pipeline(f, st->tm, EARLY_CANON))
				return -1;
		}
	return (int)st->nearly;
}

/* --- hiding loops from LLVM's own unrollers (nv-opt) --- */

static void
hide_forced(struct state *st, const struct nv_loops *ls, unsigned l)
{
	(void)st;
	if (!nv_loop_md_has(ls, l, MD_DISABLE) &&
	    (nv_loop_md_has(ls, l, "llvm.loop.unroll.count") ||
	     nv_loop_md_has(ls, l, "llvm.loop.unroll.full") ||
	     nv_loop_md_has(ls, l, "llvm.loop.unroll.enable"))) {
		nv_loop_md_set(ls, l, MD_DISABLE, 0, 0);
		nv_loop_md_set(ls, l, MD_HIDDEN, 0, 0);
	}
}

void
nv_unroll_hide(LLVMModuleRef m)
{
	each_loop(m, hide_forced, NULL);
}

void
nv_unroll_unhide(LLVMModuleRef m)
{
	each_loop(m, unhide, NULL);
}
