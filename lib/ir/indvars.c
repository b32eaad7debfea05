#include "indvars.h"

#include <string.h>

#include <llvm-c/Core.h>

#include "fold.h"

/* Did the front end leave add i without no-wrap flags (nv_trip_mark_source_wrap)? */
static int
source_wrap(LLVMValueRef i)
{
	return LLVMGetMetadata(i, LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(i)), NV_MD_SOURCE_WRAP,
	                                                   sizeof(NV_MD_SOURCE_WRAP) - 1)) != NULL;
}

static int
is_signed(LLVMIntPredicate p)
{
	return p == LLVMIntSLT || p == LLVMIntSLE || p == LLVMIntSGT || p == LLVMIntSGE;
}

static LLVMIntPredicate
swapped(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntSLT: return LLVMIntSGT;
	case LLVMIntSLE: return LLVMIntSGE;
	case LLVMIntSGT: return LLVMIntSLT;
	case LLVMIntSGE: return LLVMIntSLE;
	case LLVMIntULT: return LLVMIntUGT;
	case LLVMIntULE: return LLVMIntUGE;
	case LLVMIntUGT: return LLVMIntULT;
	case LLVMIntUGE: return LLVMIntULE;
	default: return p;
	}
}

static LLVMIntPredicate
inverse(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntEQ: return LLVMIntNE;
	case LLVMIntNE: return LLVMIntEQ;
	case LLVMIntSLT: return LLVMIntSGE;
	case LLVMIntSLE: return LLVMIntSGT;
	case LLVMIntSGT: return LLVMIntSLE;
	case LLVMIntSGE: return LLVMIntSLT;
	case LLVMIntULT: return LLVMIntUGE;
	case LLVMIntULE: return LLVMIntUGT;
	case LLVMIntUGT: return LLVMIntULE;
	case LLVMIntUGE: return LLVMIntULT;
	}
	return p;
}

static int
invariant(const struct nv_loops *ls, unsigned l, LLVMValueRef v)
{
	unsigned b;

	if (LLVMIsAConstantInt(v) || LLVMIsAArgument(v))
		return 1;
	if (!LLVMIsAInstruction(v))
		return 0;
	b = nv_cfg_index(ls->cfg, LLVMGetInstructionParent(v));
	return b != NV_NONE && !nv_loop_contains(ls, l, b);
}

/*
 * The first k >= 0 at which "s + k*c pred b" fails, in w bits: the
 * backedge-taken count.  -1 when it never fails before the value wraps
 * (or the shape is one we do not solve).  Arithmetic is done in 128 bits
 * so the infinite-precision exit value can be checked against the range.
 */
static int
solve(LLVMIntPredicate p, uint64_t s, int64_t c, uint64_t b, unsigned w, uint64_t *k)
{
	__int128 lo, hi, S, B, C = c, n;
	int sg = is_signed(p);

	if (!nv_int_icmp(p, s, b, w)) {
		*k = 0;
		return 0;
	}
	if (p == LLVMIntEQ) {
		*k = 1;
		return c == 0 ? -1 : 0;
	}
	if (p == LLVMIntNE) {
		uint64_t d = nv_int_mask(c > 0 ? b - s : s - b, w), m = c > 0 ? (uint64_t)c : (uint64_t)-c;

		if (c == 0 || d % m)
			return -1;
		*k = d / m;
		return 0;
	}
	S = sg ? (__int128)nv_int_sext(s, w) : (__int128)s;
	B = sg ? (__int128)nv_int_sext(b, w) : (__int128)b;
	lo = sg ? -((__int128)1 << (w - 1)) : 0;
	hi = sg ? ((__int128)1 << (w - 1)) - 1 : (__int128)nv_int_mask(~UINT64_C(0), w); /* the largest w-bit value */
	switch (p) {
	case LLVMIntSLT: case LLVMIntULT:
		if (c <= 0)
			return -1;
		n = (B - S + C - 1) / C;
		break;
	case LLVMIntSLE: case LLVMIntULE:
		if (c <= 0)
			return -1;
		n = (B - S) / C + 1;
		break;
	case LLVMIntSGT: case LLVMIntUGT:
		if (c >= 0)
			return -1;
		n = (S - B + (-C) - 1) / (-C);
		break;
	case LLVMIntSGE: case LLVMIntUGE:
		if (c >= 0)
			return -1;
		n = (S - B) / (-C) + 1;
		break;
	default:
		return -1;
	}
	/* the value that fails the test must exist without wrapping */
	if (S + n * C < lo || S + n * C > hi)
		return -1;
	*k = (uint64_t)n;
	return 0;
}

/* Largest count possible when only start (or only the bound) is known. */
static void
max_count(struct nv_trip *t, uint64_t s0)
{
	unsigned w = t->width;
	int sg = is_signed(t->pred);
	uint64_t extreme;

	switch (t->pred) {
	case LLVMIntSLT: case LLVMIntSLE: case LLVMIntULT: case LLVMIntULE:
		extreme = nv_int_mask(~UINT64_C(0), sg ? w - 1 : w); /* SMAX or UMAX */
		break;
	case LLVMIntSGT: case LLVMIntSGE: case LLVMIntUGT: case LLVMIntUGE:
		extreme = sg ? (UINT64_C(1) << (w - 1)) : 0;
		break;
	default:
		return;
	}
	t->has_max = solve(t->pred, s0, t->step, extreme, w, &t->max_btc) == 0;
}

/*
 * The largest unsigned value v can take, as ScalarEvolution's ranges see it
 * in the shapes that bound a loop: a constant, x & C, x urem C, x udiv C,
 * x lshr C, a zero extension, a select or a umin of such.  All ones if
 * nothing is known.
 */
static uint64_t
umax_of(LLVMValueRef v, int depth)
{
	LLVMTypeRef t = LLVMTypeOf(v);
	unsigned w;
	uint64_t all, a, b;

	if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || (w = LLVMGetIntTypeWidth(t)) > 64)
		return UINT64_MAX;
	all = nv_int_mask(~UINT64_C(0), w);
	if (LLVMIsAConstantInt(v))
		return LLVMConstIntGetZExtValue(v);
	if (depth > 8 || !LLVMIsAInstruction(v))
		return all;
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMAnd:
		a = umax_of(LLVMGetOperand(v, 0), depth + 1);
		b = umax_of(LLVMGetOperand(v, 1), depth + 1);
		return a < b ? a : b;
	case LLVMURem:
		a = umax_of(LLVMGetOperand(v, 0), depth + 1);
		if (!LLVMIsAConstantInt(LLVMGetOperand(v, 1)) ||
		    !(b = LLVMConstIntGetZExtValue(LLVMGetOperand(v, 1))))
			return a;
		return a < b - 1 ? a : b - 1;
	case LLVMUDiv: case LLVMLShr:
		a = umax_of(LLVMGetOperand(v, 0), depth + 1);
		if (!LLVMIsAConstantInt(LLVMGetOperand(v, 1)))
			return a;
		b = LLVMConstIntGetZExtValue(LLVMGetOperand(v, 1));
		if (LLVMGetInstructionOpcode(v) == LLVMUDiv)
			return b ? a / b : a;
		return b < 64 ? a >> b : 0;
	case LLVMZExt:
		return umax_of(LLVMGetOperand(v, 0), depth + 1);
	case LLVMSelect:
		a = umax_of(LLVMGetOperand(v, 1), depth + 1);
		b = umax_of(LLVMGetOperand(v, 2), depth + 1);
		return a > b ? a : b;
	case LLVMCall: {
		LLVMValueRef callee = LLVMGetCalledValue(v);
		size_t len;
		const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";

		if (strncmp(name, "llvm.umin.", 10))
			return all;
		a = umax_of(LLVMGetOperand(v, 0), depth + 1);
		b = umax_of(LLVMGetOperand(v, 1), depth + 1);
		return a < b ? a : b;
	}
	default:
		return all;
	}
}

/* The largest signed value of v: a constant, an smin with one, or what
 * umax_of knows when that is non-negative.  INT64_MAX if nothing. */
static int64_t
smax_of(LLVMValueRef v, int depth)
{
	LLVMValueRef callee;
	unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
	uint64_t u;
	size_t len;

	if (LLVMIsAConstantInt(v))
		return LLVMConstIntGetSExtValue(v);
	if (depth < 8 && LLVMIsACallInst(v) && (callee = LLVMGetCalledValue(v)) &&
	    LLVMIsAFunction(callee) && !strncmp(LLVMGetValueName2(callee, &len), "llvm.smin.", 10)) {
		int64_t a = smax_of(LLVMGetOperand(v, 0), depth + 1), b = smax_of(LLVMGetOperand(v, 1), depth + 1);

		return a < b ? a : b;
	}
	u = umax_of(v, depth);
	return u <= nv_int_mask(~UINT64_C(0), w - 1) ? (int64_t)u : INT64_MAX;
}

/*
 * The signed range [lo, hi] of v as ScalarEvolution's ranges see it where
 * nothing tells the value's range but the arithmetic: what umax_of knows
 * when non-negative, constants, sign extensions, selects, and adds and
 * subtractions of such (nsw, or not overflowing).  A read of a special
 * register is unknown here, as cicc's analyses see it (LLVM knows tid.x <
 * 1024 from a range attribute; cicc does not).  0 if nothing is known.
 */
static int
srange_of(LLVMValueRef v, int depth, int64_t *lo, int64_t *hi)
{
	LLVMTypeRef t = LLVMTypeOf(v);
	unsigned w;
	int64_t smin, smax, a0, a1, b0, b1;
	__int128 l, h; /* operands of w <= 64 bits: sums fit */
	uint64_t u;
	LLVMOpcode op;

	if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || (w = LLVMGetIntTypeWidth(t)) > 64 || w < 2)
		return 0;
	smax = (int64_t)nv_int_mask(~UINT64_C(0), w - 1);
	smin = -smax - 1;
	if (LLVMIsAConstantInt(v)) {
		*lo = *hi = LLVMConstIntGetSExtValue(v);
		return 1;
	}
	if ((u = umax_of(v, depth)) <= (uint64_t)smax) {
		*lo = 0;
		*hi = (int64_t)u;
		return 1;
	}
	if (depth > 8 || !LLVMIsAInstruction(v))
		return 0;
	switch (op = LLVMGetInstructionOpcode(v)) {
	case LLVMSExt:
		if (srange_of(LLVMGetOperand(v, 0), depth + 1, lo, hi))
			return 1;
		/* whatever the narrower value, it is within its own type */
		w = LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(v, 0)));
		*hi = (int64_t)nv_int_mask(~UINT64_C(0), w - 1);
		*lo = -*hi - 1;
		return 1;
	case LLVMSelect:
		if (!srange_of(LLVMGetOperand(v, 1), depth + 1, &a0, &a1) ||
		    !srange_of(LLVMGetOperand(v, 2), depth + 1, &b0, &b1))
			return 0;
		*lo = a0 < b0 ? a0 : b0;
		*hi = a1 > b1 ? a1 : b1;
		return 1;
	case LLVMAdd: case LLVMSub:
		if (!srange_of(LLVMGetOperand(v, 0), depth + 1, &a0, &a1) ||
		    !srange_of(LLVMGetOperand(v, 1), depth + 1, &b0, &b1))
			return 0;
		l = op == LLVMAdd ? (__int128)a0 + b0 : (__int128)a0 - b1;
		h = op == LLVMAdd ? (__int128)a1 + b1 : (__int128)a1 - b0;
		if (l < smin || h > smax) {
			if (!LLVMGetNSW(v))
				return 0; /* it may wrap */
			l = l < smin ? smin : l; /* an nsw result stays within */
			h = h > smax ? smax : h;
			if (l > h)
				return 0;
		}
		*lo = (int64_t)l;
		*hi = (int64_t)h;
		return 1;
	case LLVMOr:
		/* x | C with C < 0 (LLVM's form of (x & 31) - 32) is in [C, -1] */
		if (LLVMIsAConstantInt(LLVMGetOperand(v, 1)) &&
		    (b0 = LLVMConstIntGetSExtValue(LLVMGetOperand(v, 1))) < 0) {
			*lo = b0;
			*hi = -1;
			return 1;
		}
		if (!srange_of(LLVMGetOperand(v, 0), depth + 1, &a0, &a1) ||
		    !srange_of(LLVMGetOperand(v, 1), depth + 1, &b0, &b1) || a0 < 0 || b0 < 0)
			return 0;
		*lo = a0 > b0 ? a0 : b0;
		if (LLVMGetIsDisjoint(v) && a1 <= smax - b1) {
			*hi = a1 + b1;
		} else {
			for (u = (uint64_t)(a1 | b1); u & (u + 1); u |= u >> 1)
				;
			*hi = (int64_t)u;
		}
		return 1;
	default:
		return 0;
	}
}

int
nv_trip_start_range(const struct nv_trip *t, int64_t *lo, int64_t *hi)
{
	return t->start && srange_of(t->start, 0, lo, hi);
}

/*
 * A maximum trip count from the bound's range, when the count is not
 * constant: "iv < n & 7" from 0 runs at most 7 times (LLVM's
 * getSmallConstantMaxTripCount).  An exit on equality counts on the
 * increment not wrapping (nuw, or nsw within the non-negative range).
 */
static void
bound_max(struct nv_trip *t, LLVMValueRef next, uint64_t s0)
{
	uint64_t bmax = umax_of(t->bound, 0), smax = nv_int_mask(~UINT64_C(0), t->width - 1), k;
	int sg = is_signed(t->pred);

	if (sg) {
		int64_t b = smax_of(t->bound, 0);

		if (b == INT64_MAX || b < 0)
			return;
		bmax = (uint64_t)b;
	}
	if (t->step <= 0 || bmax > nv_int_mask(~UINT64_C(0), t->width) || (sg && bmax > smax))
		return;
	switch (t->pred) {
	case LLVMIntSLT: case LLVMIntSLE: case LLVMIntULT: case LLVMIntULE:
		if (sg && s0 > smax)
			return;
		if (solve(t->pred, s0, t->step, bmax, t->width, &k))
			return;
		break;
	case LLVMIntNE: {
		/* the IV must reach the bound before it wraps: under nsw from a
		 * non-negative start, the bound's signed maximum holds */
		int64_t b = smax_of(t->bound, 0);

		if (next && LLVMGetNSW(next) && s0 <= smax && b != INT64_MAX && b >= 0 &&
		    (uint64_t)b < bmax)
			bmax = (uint64_t)b;
		else if (!next || !(LLVMGetNUW(next) || (LLVMGetNSW(next) && s0 <= smax && bmax <= smax)))
			return;
		k = s0 <= bmax ? (bmax - s0) / (uint64_t)t->step : 0;
		break;
	}
	default:
		return;
	}
	if (!t->has_max || k < t->max_btc) {
		t->max_btc = k;
		t->has_max = 1;
	}
}

/*
 * Brute force, as ScalarEvolution's exhaustive evaluation: a header phi
 * with a constant start whose next value, and the tested value, are
 * integer expressions of it (divisions and shifts included) is stepped
 * through at most NV_BRUTE_MAX iterations.
 */
#define NV_BRUTE_MAX 100 /* LLVM's MaxBruteForceIterations */

static int
eval(const struct nv_loops *ls, unsigned l, LLVMValueRef v, LLVMValueRef phi, uint64_t pv,
     int depth, uint64_t *out)
{
	LLVMOpcode op;
	unsigned w;
	uint64_t a, b;

	if (v == phi) {
		*out = pv;
		return 0;
	}
	if (LLVMIsAConstantInt(v)) {
		if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
			return -1;
		*out = LLVMConstIntGetZExtValue(v);
		return 0;
	}
	if (depth > 8 || !LLVMIsAInstruction(v) || invariant(ls, l, v) ||
	    LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind)
		return -1;
	w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
	op = LLVMGetInstructionOpcode(v);
	if (w > 64 || eval(ls, l, LLVMGetOperand(v, 0), phi, pv, depth + 1, &a))
		return -1;
	if (op == LLVMZExt || op == LLVMSExt || op == LLVMTrunc) {
		unsigned iw = LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(v, 0)));

		*out = nv_int_mask(op == LLVMSExt ? (uint64_t)nv_int_sext(a, iw) : a, w);
		return 0;
	}
	if (LLVMGetNumOperands(v) != 2 || eval(ls, l, LLVMGetOperand(v, 1), phi, pv, depth + 1, &b))
		return -1;
	return nv_int_binop(op, a, b, w, out) ? 0 : -1;
}

static int
brute_force(const struct nv_loops *ls, unsigned l, unsigned latch, LLVMValueRef tested,
            LLVMIntPredicate p, LLVMValueRef bound, struct nv_trip *t)
{
	const struct nv_cfg *g = ls->cfg;

	if (!LLVMIsAConstantInt(bound) || LLVMGetIntTypeWidth(LLVMTypeOf(bound)) > 64)
		return -1;
	for (LLVMValueRef phi = LLVMGetFirstInstruction(g->bb[ls->v[l].header]);
	     phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi)) {
		LLVMValueRef start = NULL, next = NULL;
		uint64_t pv, val, b = LLVMConstIntGetZExtValue(bound);
		unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(bound));

		if (LLVMGetTypeKind(LLVMTypeOf(phi)) != LLVMIntegerTypeKind || LLVMCountIncoming(phi) != 2)
			continue;
		for (unsigned k = 0; k < 2; k++) {
			unsigned from = nv_cfg_index(g, LLVMGetIncomingBlock(phi, k));

			if (from == latch)
				next = LLVMGetIncomingValue(phi, k);
			else if (!nv_loop_contains(ls, l, from))
				start = LLVMGetIncomingValue(phi, k);
		}
		if (!start || !next || !LLVMIsAConstantInt(start) ||
		    LLVMGetIntTypeWidth(LLVMTypeOf(phi)) > 64)
			continue;
		pv = LLVMConstIntGetZExtValue(start);
		for (uint64_t k = 0; k <= NV_BRUTE_MAX; k++) {
			if (eval(ls, l, tested, phi, pv, 0, &val))
				break;
			if (!nv_int_icmp(p, val, b, w)) {
				t->iv = phi;
				t->start = start;
				t->bound = bound;
				t->pred = p;
				t->width = LLVMGetIntTypeWidth(LLVMTypeOf(phi));
				t->btc = t->max_btc = k;
				t->has_max = 1;
				t->multiple = k + 1;
				t->kind = NV_TRIP_CONST;
				return 0;
			}
			if (eval(ls, l, next, phi, pv, 0, &pv))
				break;
		}
	}
	return -1;
}

static enum nv_trip_kind
unknown(struct nv_trip *t, const char *why)
{
	t->kind = NV_TRIP_UNKNOWN;
	t->why = why;
	return t->kind;
}

/*
 * A phi in the loop body whose incoming values are all the same computation
 * (one opcode, the very same operands), as GVN's PRE leaves "iv + 1" copied
 * into both arms of a branch, stands for that computation: its first
 * incoming value.  Anything else is itself.
 */
static LLVMValueRef
through_copies(const struct nv_loops *ls, unsigned l, LLVMValueRef v)
{
	LLVMValueRef first;
	unsigned n;

	if (!LLVMIsAPHINode(v) || LLVMGetInstructionParent(v) == ls->cfg->bb[ls->v[l].header] ||
	    (n = LLVMCountIncoming(v)) == 0)
		return v;
	first = LLVMGetIncomingValue(v, 0);
	if (!LLVMIsABinaryOperator(first) && !LLVMIsACastInst(first))
		return v;
	for (unsigned k = 1; k < n; k++) {
		LLVMValueRef x = LLVMGetIncomingValue(v, k);

		if (x == first)
			continue;
		if (!LLVMIsAInstruction(x) || LLVMGetInstructionOpcode(x) != LLVMGetInstructionOpcode(first) ||
		    LLVMTypeOf(x) != LLVMTypeOf(first) || LLVMGetNumOperands(x) != LLVMGetNumOperands(first))
			return v;
		for (int o = 0; o < LLVMGetNumOperands(x); o++)
			if (LLVMGetOperand(x, (unsigned)o) != LLVMGetOperand(first, (unsigned)o))
				return v;
	}
	return first;
}

/* v as x + c (add or sub of a constant); 0 if it is not. */
static int
plus_const(LLVMValueRef v, LLVMValueRef *x, uint64_t *c)
{
	LLVMOpcode op;
	LLVMValueRef a, b;

	if (!LLVMIsABinaryOperator(v))
		return 0;
	op = LLVMGetInstructionOpcode(v);
	a = LLVMGetOperand(v, 0);
	b = LLVMGetOperand(v, 1);
	if (op == LLVMAdd && LLVMIsAConstantInt(a)) {
		LLVMValueRef t = a;

		a = b;
		b = t;
	}
	if ((op != LLVMAdd && op != LLVMSub) || !LLVMIsAConstantInt(b))
		return 0;
	*x = a;
	*c = LLVMConstIntGetZExtValue(b);
	if (op == LLVMSub)
		*c = -*c;
	return 1;
}

/*
 * b - s as a constant *d (modulo 2^64; callers mask to the width), when it
 * is one: two constants, one value plus constants, or two phis of one block
 * that keep the same difference on every edge, as two counters of an outer
 * loop moving in step do (an inner loop from i*8 while != i*8 + 8, the
 * exit test LFTR writes).  LLVM's SCEV finds it by subtracting the two
 * add recurrences.
 */
static int
const_diff(LLVMValueRef b, LLVMValueRef s, unsigned depth, uint64_t *d)
{
	LLVMValueRef x, bv, sv;
	uint64_t c, cs, dk = 0;
	unsigned n;
	int known = 0;

	if (b == s) {
		*d = 0;
		return 1;
	}
	if (LLVMIsAConstantInt(b) && LLVMIsAConstantInt(s)) {
		*d = LLVMConstIntGetZExtValue(b) - LLVMConstIntGetZExtValue(s);
		return 1;
	}
	if (depth >= 6)
		return 0;
	if (plus_const(b, &x, &c) && const_diff(x, s, depth + 1, d)) {
		*d += c;
		return 1;
	}
	if (plus_const(s, &x, &c) && const_diff(b, x, depth + 1, d)) {
		*d -= c;
		return 1;
	}
	if (!LLVMIsAPHINode(b) || !LLVMIsAPHINode(s) ||
	    LLVMGetInstructionParent(b) != LLVMGetInstructionParent(s) ||
	    (n = LLVMCountIncoming(b)) != LLVMCountIncoming(s) || n == 0)
		return 0;
	for (unsigned k = 0; k < n; k++) {
		LLVMBasicBlockRef from = LLVMGetIncomingBlock(b, k);
		unsigned j = 0;
		uint64_t e;

		while (j < n && LLVMGetIncomingBlock(s, j) != from)
			j++;
		if (j == n)
			return 0;
		bv = LLVMGetIncomingValue(b, k);
		sv = LLVMGetIncomingValue(s, j);
		/* b + c and s + c on a back edge keep the difference */
		if (plus_const(bv, &x, &c) && x == b && plus_const(sv, &x, &cs) && x == s && c == cs)
			continue;
		if (!const_diff(bv, sv, depth + 1, &e) || (known && e != dk))
			return 0;
		dk = e;
		known = 1;
	}
	if (!known)
		return 0;
	*d = dk;
	return 1;
}

/* The count of the exit test cmp in the latch (or the header), the loop
 * going on while cmp is cont_true. */
static enum nv_trip_kind
count_test(const struct nv_loops *ls, unsigned l, struct nv_trip *t, LLVMValueRef cmp, int cont_true)
{
	const struct nv_cfg *g = ls->cfg;
	const struct nv_loop *lp = &ls->v[l];
	LLVMValueRef a, b, next = NULL, phi = NULL;
	LLVMIntPredicate p;
	unsigned latch = lp->latches[0];
	uint64_t d;

	t->multiple = 1;
		if (LLVMIsAICmpInst(cmp)) {
		p = LLVMGetICmpPredicate(cmp);
		a = LLVMGetOperand(cmp, 0);
		b = LLVMGetOperand(cmp, 1);
	} else {
		/* a bare i1 (a flag phi, say) is "cond != 0" */
		p = LLVMIntNE;
		a = cmp;
		b = LLVMConstInt(LLVMTypeOf(cmp), 0, 0);
	}
	if (!cont_true)
		p = inverse(p);
	if (invariant(ls, l, a) && !invariant(ls, l, b)) {
		LLVMValueRef x = a;

		a = b;
		b = x;
		p = swapped(p);
	}
	if (!invariant(ls, l, b))
		return unknown(t, "the bound varies in the loop");
	a = through_copies(ls, l, a);
	if (LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMIntegerTypeKind ||
	    LLVMGetIntTypeWidth(LLVMTypeOf(a)) > 64)
		return unknown(t, "the IV is not an integer of at most 64 bits");
	/* a is the header phi, or phi +/- C */
	if (LLVMIsAPHINode(a) && LLVMGetInstructionParent(a) == g->bb[lp->header]) {
		phi = a;
	} else if (LLVMIsABinaryOperator(a) &&
	           (LLVMGetInstructionOpcode(a) == LLVMAdd || LLVMGetInstructionOpcode(a) == LLVMSub)) {
		LLVMValueRef x = LLVMGetOperand(a, 0), y = LLVMGetOperand(a, 1);

		if (LLVMGetInstructionOpcode(a) == LLVMAdd &&
		    (LLVMIsAConstantInt(x) || (LLVMIsAPHINode(y) && LLVMGetInstructionParent(y) == g->bb[lp->header]))) {
			LLVMValueRef z = x;

			x = y;
			y = z;
		}
		if (LLVMIsAPHINode(x) && LLVMGetInstructionParent(x) == g->bb[lp->header] &&
		    (LLVMIsAConstantInt(y) || invariant(ls, l, y))) {
			phi = x;
			next = a;
		}
	}
	if ((!phi || LLVMCountIncoming(phi) != 2) && brute_force(ls, l, latch, a, p, b, t) == 0)
		return t->kind;
	if (!phi || LLVMCountIncoming(phi) != 2)
		return unknown(t, "the exit does not test a header phi or its increment");
	t->iv = phi;
	t->width = LLVMGetIntTypeWidth(LLVMTypeOf(phi));
	/* phi = [start, outside], [step value, latch] */
	for (unsigned k = 0; k < 2; k++) {
		unsigned from = nv_cfg_index(g, LLVMGetIncomingBlock(phi, k));
		LLVMValueRef v = through_copies(ls, l, LLVMGetIncomingValue(phi, k));

		if (from == latch) {
			if (next && v != next)
				return unknown(t, "the tested increment is not the IV's next value");
			next = v;
		} else if (!nv_loop_contains(ls, l, from)) {
			t->start = v;
		}
	}
	if (!t->start || !next || !LLVMIsABinaryOperator(next) ||
	    (LLVMGetInstructionOpcode(next) != LLVMAdd && LLVMGetInstructionOpcode(next) != LLVMSub)) {
		if (brute_force(ls, l, latch, a, p, b, t) == 0)
			return t->kind;
		return unknown(t, "the IV is not phi + constant");
	}
	{
		LLVMValueRef x = LLVMGetOperand(next, 0), y = LLVMGetOperand(next, 1);
		int sub = LLVMGetInstructionOpcode(next) == LLVMSub;

		if (!sub && x != phi) {
			LLVMValueRef z = x;

			x = y;
			y = z;
		}
		if (x == phi && !sub && !LLVMIsAConstantInt(y) && invariant(ls, l, y)) {
			/* counted only where the step cannot wrap the test's
			 * signedness (int i; i += bs): cicc counts no
			 * i += blockDim.x, an unsigned add that may wrap */
			if (source_wrap(next) ||
			    (is_signed(p) ? !LLVMGetNSW(next)
			                  : p == LLVMIntEQ || p == LLVMIntNE || !LLVMGetNUW(next)))
				return unknown(t, "the IV steps by a run-time value and may wrap");
			t->step_value = y;
		} else if (x != phi || !LLVMIsAConstantInt(y))
			return unknown(t, "the IV step is neither a constant nor loop-invariant");
		else {
			t->step = LLVMConstIntGetSExtValue(y) * (sub ? -1 : 1);
			int rel = (t->step > 1 || t->step < -1) && p != LLVMIntEQ && p != LLVMIntNE;

			t->may_wrap = rel && !LLVMGetNSW(next) && (is_signed(p) || !LLVMGetNUW(next));
			t->nuw_only = rel && !is_signed(p) && !LLVMGetNSW(next) && LLVMGetNUW(next);
		}
	}
	t->on_next = a == next;
	t->bound = b;
	t->pred = p;
	if (!invariant(ls, l, t->start))
		return unknown(t, "the IV's start varies in the loop");
	if (t->step_value)
		return t->kind = NV_TRIP_SYMBOLIC; /* no count to solve for, no bound on it */
	if (LLVMIsAConstantInt(t->start) && LLVMIsAConstantInt(b)) {
		uint64_t s0 = nv_int_mask(LLVMConstIntGetZExtValue(t->start) +
		                           (t->on_next ? (uint64_t)t->step : 0), t->width);

		if (solve(p, s0, t->step, nv_int_mask(LLVMConstIntGetZExtValue(b), t->width), t->width,
		          &t->btc))
			return unknown(t, "the IV wraps before the exit");
		t->max_btc = t->btc;
		t->has_max = 1;
		t->multiple = t->btc + 1;
		return t->kind = NV_TRIP_CONST;
	}
	/* an (in)equality test needs only the distance from start to bound */
	if ((p == LLVMIntEQ || p == LLVMIntNE) && const_diff(b, t->start, 0, &d)) {
		uint64_t s0 = nv_int_mask(t->on_next ? (uint64_t)t->step : 0, t->width);

		if (solve(p, s0, t->step, nv_int_mask(d, t->width), t->width, &t->btc))
			return unknown(t, "the IV wraps before the exit");
		t->max_btc = t->btc;
		t->has_max = 1;
		t->multiple = t->btc + 1;
		return t->kind = NV_TRIP_CONST;
	}
	if (LLVMIsAConstantInt(t->start)) {
		uint64_t s0 = nv_int_mask(LLVMConstIntGetZExtValue(t->start) +
		                          (t->on_next ? (uint64_t)t->step : 0), t->width);

		max_count(t, s0);
		bound_max(t, next, s0);
	} else if (LLVMIsAConstantInt(b) && t->step > 0 && t->width <= 64 &&
	           (is_signed(p) ? LLVMGetNSW(next) : LLVMGetNUW(next)) &&
	           (!is_signed(p) || umax_of(t->start, 0) <= nv_int_mask(~UINT64_C(0), t->width - 1))) {
		/* a start known by its range only (j = 1 & i; j < 15; j += 2):
		 * an IV that cannot wrap runs longest from the smallest start,
		 * 0 here, as ScalarEvolution's constant maximum from the start's
		 * range */
		uint64_t k, s0 = nv_int_mask(t->on_next ? (uint64_t)t->step : 0, t->width);

		if (solve(p, s0, t->step, nv_int_mask(LLVMConstIntGetZExtValue(b), t->width), t->width, &k) == 0 &&
		    (!t->has_max || k < t->max_btc)) {
			t->max_btc = k;
			t->has_max = 1;
		}
	}
	return t->kind = NV_TRIP_SYMBOLIC;
}

/* Whether cmp exits on either of two tests: or (select a, true, b) where
 * true exits, and (select a, b, false) where true goes on.  The tests in x. */
static int
merged_exit(LLVMValueRef cmp, int cont_true, LLVMValueRef x[2])
{
	LLVMOpcode op;
	LLVMValueRef k;

	if (!LLVMIsAInstruction(cmp))
		return 0;
	op = LLVMGetInstructionOpcode(cmp);
	if (op == LLVMOr || op == LLVMAnd) {
		if ((op == LLVMOr) != !cont_true)
			return 0;
		x[0] = LLVMGetOperand(cmp, 0);
		x[1] = LLVMGetOperand(cmp, 1);
		return 1;
	}
	if (op != LLVMSelect)
		return 0;
	/* select c, true, d is c | d; select c, d, false is c & d */
	k = LLVMGetOperand(cmp, cont_true ? 2 : 1);
	if (!LLVMIsAConstantInt(k) || LLVMConstIntGetZExtValue(k) != (unsigned long long)!cont_true)
		return 0;
	x[0] = LLVMGetOperand(cmp, 0);
	x[1] = LLVMGetOperand(cmp, cont_true ? 1 : 2);
	return 1;
}

static enum nv_trip_kind
count_exit(const struct nv_loops *ls, unsigned l, struct nv_trip *t, int latch_exit)
{
	const struct nv_cfg *g = ls->cfg;
	const struct nv_loop *lp = &ls->v[l];
	LLVMValueRef term, cmp, x[2];
	unsigned latch, e, side = 0;
	int cont_true;

	memset(t, 0, sizeof(*t));
	t->multiple = 1;
	if (lp->nlatches != 1)
		return unknown(t, "more than one latch");
	if (!lp->nexiting)
		return unknown(t, "no exiting block");
	latch = lp->latches[0];
	e = t->exiting = lp->exiting[0];
	if (lp->nexiting != 1) {
		unsigned k = 0;

		while (k < lp->nexiting && lp->exiting[k] != latch)
			k++;
		if (!latch_exit || k == lp->nexiting)
			return unknown(t, "more than one exiting block");
		e = t->exiting = latch;
		side = t->side_exits = lp->nexiting - 1;
	}
	if (e != latch && e != lp->header)
		return unknown(t, "the exit is neither in the header nor in the latch");
	term = LLVMGetBasicBlockTerminator(g->bb[e]);
	if (LLVMGetInstructionOpcode(term) != LLVMBr || !LLVMIsConditional(term))
		return unknown(t, "the exit is not a conditional branch");
	cmp = LLVMGetCondition(term);
	cont_true = nv_loop_contains(ls, l, nv_cfg_index(g, LLVMGetSuccessor(term, 0)));
	if (count_test(ls, l, t, cmp, cont_true) != NV_TRIP_UNKNOWN || !latch_exit || e != latch ||
	    !merged_exit(cmp, cont_true, x))
		return t->kind;
	/* the loop leaves when either test says so (simplifycfg merges an
	 * early break into the latch's test): a constant count of one is the
	 * most iterations, the other test a side exit */
	for (unsigned k = 0; k < 2; k++) {
		memset(t, 0, sizeof(*t));
		t->exiting = e;
		if (count_test(ls, l, t, x[k], cont_true) == NV_TRIP_CONST) {
			t->side_exits = side + 1;
			t->merged = 1;
			return t->kind;
		}
	}
	memset(t, 0, sizeof(*t));
	t->multiple = 1;
	return unknown(t, "the exit does not test a header phi or its increment");
}

unsigned
nv_trip_mark_source_wrap(LLVMModuleRef m)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	unsigned kind = LLVMGetMDKindIDInContext(ctx, NV_MD_SOURCE_WRAP, sizeof(NV_MD_SOURCE_WRAP) - 1);
	LLVMValueRef md = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, NULL, 0));
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				if (LLVMGetInstructionOpcode(i) == LLVMAdd &&
				    LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMIntegerTypeKind && !LLVMGetNSW(i) &&
				    !LLVMGetNUW(i) && !LLVMIsAConstant(LLVMGetOperand(i, 0)) &&
				    !LLVMIsAConstant(LLVMGetOperand(i, 1))) {
					LLVMSetMetadata(i, kind, md);
					n++;
				}
	return n;
}

void
nv_trip_forget_source_wrap(LLVMModuleRef m)
{
	unsigned kind = LLVMGetMDKindIDInContext(LLVMGetModuleContext(m), NV_MD_SOURCE_WRAP,
	                                         sizeof(NV_MD_SOURCE_WRAP) - 1);

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				if (LLVMGetInstructionOpcode(i) == LLVMAdd && LLVMGetMetadata(i, kind))
					LLVMSetMetadata(i, kind, NULL);
}

enum nv_trip_kind
nv_trip_count(const struct nv_loops *ls, unsigned l, struct nv_trip *t)
{
	return count_exit(ls, l, t, 0);
}

enum nv_trip_kind
nv_trip_count_latch(const struct nv_loops *ls, unsigned l, struct nv_trip *t)
{
	if (count_exit(ls, l, t, 1) != NV_TRIP_CONST && t->side_exits) {
		memset(t, 0, sizeof(*t));
		t->multiple = 1;
		return unknown(t, "more than one exiting block, and no constant count at the latch");
	}
	return t->kind;
}
