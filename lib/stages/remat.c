#include "remat.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include "../base/decisions.h"
#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfgedit.h"
#include "../ir/cost.h"
#include "../ir/liveness.h"
#include "../ir/loops.h"
#include "../ir/occupancy.h"
#include "../ir/typesize.h"
#include "../ir/uniform.h"

#define PASS "nv-remat"
#define ROUNDS 5
#define PTX_KERNEL_CC 71

void
nv_remat_opts_from_knobs(struct nv_remat_opts *o, int sm)
{
	o->sm = sm;
	o->do_remat = (int)nv_knob_int(NV_KNOB_DO_REMAT);
	o->iv = (int)nv_knob_int(NV_KNOB_REMAT_IV);
	o->opaque_sreg = (int)nv_knob_int(NV_KNOB_REMAT_OPAQUE_SREG);
	o->load = (int)nv_knob_int(NV_KNOB_REMAT_LOAD);
	o->nlo = (int)nv_knob_int(NV_KNOB_SIMPLIFY_LIVE_OUT);
	o->narrow = (int)nv_knob_int(NV_KNOB_REMAT_NARROW);
	o->sink = (int)nv_knob_int(NV_KNOB_REMAT_SINK);
	o->base_reuse = (int)nv_knob_int(NV_KNOB_REMAT_BASE_REUSE);
	o->loop_through = (int)nv_knob_int(NV_KNOB_REMAT_LOOP_THROUGH);
	o->call_pin = (int)nv_knob_int(NV_KNOB_REMAT_CALL_PIN);
	o->uniform_base = (int)nv_knob_int(NV_KNOB_REMAT_UNIFORM_BASE);
	o->ceiling = nv_knob_int(NV_KNOB_REMAT_MAXREG_CEILING);
	o->for_occ = nv_knob_int(NV_KNOB_REMAT_FOR_OCC);
	o->occ_reach = nv_knob_int(NV_KNOB_REMAT_OCC_REACH);
	o->use_limit = nv_knob_int(NV_KNOB_REMAT_USE_LIMIT);
	o->loop_trip = nv_knob_int(NV_KNOB_REMAT_LOOP_TRIP);
	o->gep_cost = nv_knob_int(NV_KNOB_REMAT_GEP_COST);
	o->single_cost_limit = nv_knob_int(NV_KNOB_REMAT_SINGLE_COST_LIMIT);
	o->max_live_limit = nv_knob_int(NV_KNOB_REMAT_MAX_LIVE_LIMIT);
	o->lli_factor = nv_knob_int(NV_KNOB_REMAT_LLI_FACTOR);
	o->ignore_single_cost = (int)nv_knob_int(NV_KNOB_REMAT_IGNORE_SINGLE_COST);
	o->dump = (int)nv_knob_int(NV_KNOB_DUMP_REMAT);
	o->dump_iv = (int)nv_knob_int(NV_KNOB_DUMP_REMAT_IV);
	o->dump_load = (int)nv_knob_int(NV_KNOB_DUMP_REMAT_LOAD);
	o->dump_nlo = (int)nv_knob_int(NV_KNOB_DUMP_SIMPLIFY_LIVE_OUT);
	o->skip = nv_knob_str(NV_KNOB_NO_REMAT);
}

/* ---- what may be recomputed ---------------------------------------- */

static const char *
value_name(LLVMValueRef v)
{
	size_t len;
	const char *s = LLVMGetValueName2(v, &len);

	return len ? s : "";
}

/* How a remark of kind names v: its name, else the instruction as LLVM
 * prints it (its slot and what it computes), cut short; printed only when
 * such a remark goes somewhere, as printing numbers the whole function. */
static const char *
remark_name(enum nv_remark_kind kind, LLVMValueRef v)
{
	static char buf[80];
	const char *s = value_name(v);
	char *t;
	size_t n;

	if (*s || !nv_remark_enabled(kind, PASS) || !LLVMIsAInstruction(v))
		return s;
	t = LLVMPrintValueToString(v);
	s = t + strspn(t, " ");
	n = strcspn(s, "!"); /* no metadata */
	while (n && s[n - 1] == ' ')
		n--;
	if (n > 72)
		snprintf(buf, sizeof(buf), "%.69s...", s);
	else
		snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
	LLVMDisposeMessage(t);
	return buf;
}

static int
is_invariant_load(LLVMValueRef v)
{
	unsigned kind;

	if (!LLVMIsALoadInst(v) || LLVMGetVolatile(v) || LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic)
		return 0;
	kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(v)), "invariant.load", 14);
	return LLVMGetMetadata(v, kind) != NULL;
}

/* An instruction that computes its value from its operands alone: the
 * same operands give the same value wherever it runs. */
static int
is_pure(LLVMValueRef v)
{
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMAdd: case LLVMFAdd: case LLVMSub: case LLVMFSub: case LLVMMul: case LLVMFMul:
	case LLVMUDiv: case LLVMSDiv: case LLVMFDiv: case LLVMURem: case LLVMSRem: case LLVMFRem:
	case LLVMShl: case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
	case LLVMFNeg: case LLVMTrunc: case LLVMZExt: case LLVMSExt: case LLVMFPToUI:
	case LLVMFPToSI: case LLVMUIToFP: case LLVMSIToFP: case LLVMFPTrunc: case LLVMFPExt:
	case LLVMPtrToInt: case LLVMIntToPtr: case LLVMBitCast: case LLVMAddrSpaceCast:
	case LLVMGetElementPtr: case LLVMICmp: case LLVMFCmp: case LLVMSelect:
		return 1;
	default:
		return 0;
	}
}

/* ---- per-function state --------------------------------------------- */

struct clone { LLVMValueRef orig, block, clone; };

struct fn {
	LLVMValueRef f;
	LLVMTargetDataRef td;
	const struct nv_remat_opts *o;
	int kernel;
	struct nv_fn_loops a;
	struct nv_liveness lv;
	int have_lv;
	char **label;
	unsigned char *cand;      /* liveness index -> candidate this round */
	struct clone *cl;         /* clones made this round */
	unsigned ncl, capcl;
	LLVMBuilderRef b;
	unsigned created;
};

static unsigned
loop_depth(const struct fn *s, unsigned b)
{
	unsigned l = s->a.ls.innermost[b];

	return l == NV_NONE ? 0 : s->a.ls.v[l].depth;
}

static int
analyze(struct fn *s)
{
	size_t need;

	nv_fn_loops_build(&s->a, s->f);
	if (nv_liveness_build(&s->lv, &s->a.g, s->td, &need)) {
		nv_remark(NV_REMARK_MISSED, PASS, "TooLarge", s->f,
		          "no rematerialization: the live sets would take %zu bytes", need);
		nv_fn_loops_release(&s->a);
		return -1;
	}
	s->have_lv = 1;
	s->label = nv_cfg_labels(&s->a.g);
	return 0;
}

static void
release(struct fn *s)
{
	if (!s->have_lv)
		return;
	nv_cfg_labels_free(&s->a.g, s->label);
	nv_liveness_release(&s->lv);
	nv_fn_loops_release(&s->a);
	free(s->cand);
	s->cand = NULL;
	s->have_lv = 0;
}

static unsigned
in_units(const struct fn *s, unsigned b)
{
	return nv_live_units(&s->lv, nv_live_in(&s->lv, b));
}

static unsigned
out_units(const struct fn *s, unsigned b)
{
	return nv_live_units(&s->lv, nv_live_out(&s->lv, b));
}

static unsigned
block_of(const struct fn *s, LLVMValueRef inst)
{
	return nv_cfg_index(&s->a.g, LLVMGetInstructionParent(inst));
}

/* Is v there for free at the top of block b: a constant, a kernel
 * parameter (ptxas reads those from the constant bank), or a value live
 * into b that stays live (not a candidate of this round)? */
static int
available(const struct fn *s, LLVMValueRef v, unsigned b)
{
	unsigned i;

	if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v))
		return 1;
	if (LLVMIsAArgument(v) && s->kernel)
		return 1;
	i = nv_ptrmap_get(&s->lv.index, v);
	return i != NV_NONE && !(s->cand && s->cand[i]) && nv_live_has(&s->lv, nv_live_in(&s->lv, b), i);
}

static int
clonable(const struct fn *s, LLVMValueRef v)
{
	return LLVMIsAInstruction(v) &&
	       (is_pure(v) || nv_cfg_sreg_read(v) || (s->o->load && is_invariant_load(v)));
}

struct chain {
	LLVMValueRef v[64];
	unsigned n, cost, loads;
};

static unsigned
inst_cost(const struct fn *s, LLVMValueRef v)
{
	unsigned c;

	if (LLVMIsALoadInst(v))
		return (unsigned)s->o->lli_factor;
	c = nv_cost_inst(v);
	return c ? c : 1;
}

/* Collect, operands first, what must be cloned to recompute v at the top
 * of block b; -1 if something on the way cannot be. */
static int
chain_build(const struct fn *s, LLVMValueRef v, unsigned b, unsigned depth, unsigned max_depth,
            struct chain *c)
{
	int n = LLVMGetNumOperands(v);

	for (unsigned i = 0; i < c->n; i++)
		if (c->v[i] == v)
			return 0;
	if (!clonable(s, v) || depth > max_depth || c->n == sizeof(c->v) / sizeof(*c->v))
		return -1;
	for (int i = 0; i < n; i++) {
		LLVMValueRef op = LLVMGetOperand(v, (unsigned)i);

		if (LLVMIsACallInst(v) && i == n - 1)
			break; /* the callee */
		if (available(s, op, b))
			continue;
		if (!LLVMIsAInstruction(op) || chain_build(s, op, b, depth + 1, max_depth, c))
			return -1;
	}
	c->v[c->n++] = v;
	c->cost += inst_cost(s, v);
	c->loads += LLVMIsALoadInst(v) != 0;
	return 0;
}

/* The blocks (other than its own) where v is used: for a phi, the end of
 * the incoming block.  Returns how many; blocks land in out[0..]. */
static unsigned
use_blocks(const struct fn *s, LLVMValueRef v, unsigned def, unsigned *out, unsigned cap)
{
	unsigned n = 0;

	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (LLVMIsAPHINode(user)) {
			unsigned k = LLVMCountIncoming(user);

			for (unsigned i = 0; i < k; i++) {
				unsigned b;

				if (LLVMGetIncomingValue(user, i) != v)
					continue;
				b = nv_cfg_index(&s->a.g, LLVMGetIncomingBlock(user, i));
				if (b != def) {
					unsigned j = 0;

					while (j < n && out[j] != b)
						j++;
					if (j == n && n < cap)
						out[n++] = b;
					else if (j == n)
						return cap + 1;
				}
			}
		} else {
			unsigned b = block_of(s, user), j = 0;

			if (b == def)
				continue;
			while (j < n && out[j] != b)
				j++;
			if (j == n && n < cap)
				out[n++] = b;
			else if (j == n)
				return cap + 1;
		}
	}
	return n;
}

/* ---- cloning -------------------------------------------------------- */

static LLVMValueRef
first_insertion_point(LLVMBasicBlockRef bb)
{
	LLVMValueRef i = LLVMGetFirstInstruction(bb);

	while (i && LLVMIsAPHINode(i))
		i = LLVMGetNextInstruction(i);
	return i;
}

static LLVMValueRef
clone_find(const struct fn *s, LLVMValueRef orig, LLVMBasicBlockRef bb)
{
	for (unsigned i = 0; i < s->ncl; i++)
		if (s->cl[i].orig == orig && s->cl[i].block == (LLVMValueRef)bb)
			return s->cl[i].clone;
	return NULL;
}

/* The PTX name of the thread's index or dimension register v reads
 * (llvm.nvvm.read.ptx.sreg.tid.x: "tid.x"), or NULL. */
static const char *
index_sreg(LLVMValueRef v)
{
	static const char *const regs[] = { "tid.", "ntid.", "ctaid.", "nctaid.", "laneid" };
	const char *name;
	size_t len;

	if (!nv_cfg_sreg_read(v) || LLVMTypeOf(v) != LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v))))
		return NULL;
	name = LLVMGetValueName2(LLVMGetCalledValue(v), &len) + 24;
	for (size_t k = 0; k < sizeof(regs) / sizeof(*regs); k++)
		if (!strncmp(name, regs[k], strlen(regs[k])))
			return name;
	return NULL;
}

/* Clone v (and what it needs) at the top of block b, named prefix + name.
 * A read of the thread's index or dimensions cloned into a block no deeper
 * in loops (after a loop) is inline assembly: LLVM's machine CSE would
 * merge a plain copy with the read it copies, and every chain over it with
 * the original, so that the value stayed live through the loop after all;
 * ptxas reads the register again, as for cicc's rematerialized %tid.x. */
static LLVMValueRef
clone_into(struct fn *s, LLVMValueRef v, unsigned b, const char *prefix)
{
	LLVMBasicBlockRef bb = s->a.g.bb[b];
	LLVMValueRef c = clone_find(s, v, bb), at;
	int n = LLVMGetNumOperands(v);
	const char *reg = NULL;
	char *name;

	if (c)
		return c;
	/* Not into a deeper loop: there a copy would be read every trip, and
	 * machine LICM hoists a plain one back out. */
	if (s->o->opaque_sreg && loop_depth(s, b) <= loop_depth(s, block_of(s, v)))
		reg = index_sreg(v);
	if (!reg) {
		c = LLVMInstructionClone(v);
		for (int i = 0; i < n; i++) {
			LLVMValueRef op = LLVMGetOperand(v, (unsigned)i);

			if (LLVMIsACallInst(v) && i == n - 1)
				break;
			if (!available(s, op, b))
				LLVMSetOperand(c, (unsigned)i, clone_into(s, op, b, "remat_"));
		}
	}
	at = first_insertion_point(bb);
	/* Clones of this round stay in the order they were made. */
	for (unsigned i = 0; i < s->ncl; i++)
		if (s->cl[i].block == (LLVMValueRef)bb && LLVMGetInstructionParent(s->cl[i].clone) == bb)
			at = LLVMGetNextInstruction(s->cl[i].clone);
	LLVMPositionBuilderBefore(s->b, at);
	name = xasprintf("%s%s", prefix, value_name(v));
	if (reg) {
		LLVMTypeRef t = LLVMTypeOf(v), ft = LLVMFunctionType(t, NULL, 0, 0);
		char *text = xasprintf("mov.u32 $0, %%%s;", reg);
		LLVMValueRef fn = LLVMGetInlineAsm(ft, text, strlen(text), "=r", 2, 0, 0, LLVMInlineAsmDialectATT, 0);

		c = LLVMBuildCall2(s->b, ft, fn, NULL, 0, name);
		free(text);
	} else {
		LLVMInsertIntoBuilderWithName(s->b, c, name);
	}
	free(name);
	if (s->ncl == s->capcl) {
		s->capcl = s->capcl ? 2 * s->capcl : 64;
		s->cl = xrealloc(s->cl, s->capcl * sizeof(*s->cl));
	}
	s->cl[s->ncl++] = (struct clone){ v, (LLVMValueRef)bb, c };
	s->created++;
	return c;
}

/* v's users, each once, at most MAX_USERS of them (a use beyond stays on
 * v, which then stays too): into users[], their number returned. */
#define MAX_USERS 256
static unsigned
distinct_users(LLVMValueRef v, LLVMValueRef *users)
{
	unsigned n = 0;

	for (LLVMUseRef u = LLVMGetFirstUse(v); u && n < MAX_USERS; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);
		unsigned j = 0;

		while (j < n && users[j] != user)
			j++;
		if (j == n)
			users[n++] = user;
	}
	return n;
}

/* Point every use of v outside block def at a clone made in the using block. */
static void
rewrite_uses(struct fn *s, LLVMValueRef v, unsigned def, const char *prefix)
{
	LLVMValueRef users[MAX_USERS];
	unsigned n = distinct_users(v, users);
	for (unsigned k = 0; k < n; k++) {
		LLVMValueRef user = users[k];
		int nops = LLVMGetNumOperands(user);

		if (LLVMIsAPHINode(user)) {
			unsigned cnt = LLVMCountIncoming(user);

			for (unsigned i = 0; i < cnt; i++) {
				unsigned b = nv_cfg_index(&s->a.g, LLVMGetIncomingBlock(user, i));

				if (LLVMGetIncomingValue(user, i) == v && b != def)
					LLVMSetOperand(user, i, clone_into(s, v, b, prefix));
			}
			continue;
		}
		if (block_of(s, user) == def)
			continue;
		for (int i = 0; i < nops; i++)
			if (LLVMGetOperand(user, (unsigned)i) == v)
				LLVMSetOperand(user, (unsigned)i, clone_into(s, v, block_of(s, user), prefix));
	}
}

static int
erasable(LLVMValueRef v)
{
	return LLVMIsAInstruction(v) && !LLVMGetFirstUse(v) &&
	       (is_pure(v) || nv_cfg_sreg_read(v) || (LLVMIsALoadInst(v) && !LLVMGetVolatile(v)));
}

/*
 * Delete each of vs[0..n) once nothing uses it, and then what only they
 * used.  A worklist, not recursion: one value can be an operand twice, or
 * another's operand and in vs too, and must be deleted once (csmith seed
 * 20379: two picked candidates, one feeding the other).
 */
static void
erase_dead_all(const LLVMValueRef *vs, size_t n)
{
	size_t cap = n + 16, top = 0;
	LLVMValueRef *w = xmalloc(cap * sizeof(*w));

	for (size_t i = 0; i < n; i++)
		w[top++] = vs[i];
	while (top) {
		LLVMValueRef v = w[--top];
		unsigned nops;

		if (!erasable(v))
			continue; /* still used: its last user puts it back */
		for (size_t i = 0; i < top;)
			if (w[i] == v)
				w[i] = w[--top]; /* no entry may outlive v */
			else
				i++;
		nops = (unsigned)LLVMGetNumOperands(v);
		if (top + nops > cap) {
			cap = 2 * (top + nops);
			w = xrealloc(w, cap * sizeof(*w));
		}
		for (unsigned i = 0; i < nops; i++) {
			LLVMValueRef op = LLVMGetOperand(v, i);
			size_t j = 0;

			while (j < top && w[j] != op)
				j++;
			if (j == top && LLVMIsAInstruction(op))
				w[top++] = op;
		}
		LLVMInstructionEraseFromParent(v);
	}
	free(w);
}

static void
erase_dead(LLVMValueRef v)
{
	erase_dead_all(&v, 1);
}

/* ---- 0. narrowing: a widened value is its 32-bit twin, extended ---------- */

#define NARROW_DEPTH 8

static int
is_widenable(LLVMOpcode op)
{
	return op == LLVMAdd || op == LLVMMul || op == LLVMShl;
}

/* Does the 64-bit x compute ext(y) for the 32-bit y (ext a zext, or a sext
 * when sgn)?  x is ext(y) itself, a constant equal to the constant y
 * extended, or y's opcode on operands computing ext of y's operands where y
 * cannot wrap (nuw, nsw): then no step of x wraps either. */
static int
widens(LLVMValueRef x, LLVMValueRef y, int sgn, unsigned depth)
{
	LLVMOpcode op;
	LLVMValueRef x0, x1, y0, y1;

	if (LLVMIsAConstantInt(x) && LLVMIsAConstantInt(y))
		return sgn ? LLVMConstIntGetSExtValue(x) == LLVMConstIntGetSExtValue(y)
		           : LLVMConstIntGetZExtValue(x) == LLVMConstIntGetZExtValue(y);
	if (!LLVMIsAInstruction(x))
		return 0;
	op = LLVMGetInstructionOpcode(x);
	if (op == (sgn ? LLVMSExt : LLVMZExt))
		return LLVMGetOperand(x, 0) == y;
	if (!depth || !is_widenable(op) || !LLVMIsAInstruction(y) || LLVMGetInstructionOpcode(y) != op ||
	    !(sgn ? LLVMGetNSW(y) : LLVMGetNUW(y)))
		return 0;
	x0 = LLVMGetOperand(x, 0), x1 = LLVMGetOperand(x, 1);
	y0 = LLVMGetOperand(y, 0), y1 = LLVMGetOperand(y, 1);
	if (widens(x0, y0, sgn, depth - 1) && widens(x1, y1, sgn, depth - 1))
		return 1;
	return op != LLVMShl && widens(x0, y1, sgn, depth - 1) && widens(x1, y0, sgn, depth - 1);
}

/* The first extension of a 32-bit value among x's leaves, or NULL. */
static LLVMValueRef
ext_leaf(LLVMValueRef x, unsigned depth)
{
	LLVMOpcode op;

	if (!LLVMIsAInstruction(x))
		return NULL;
	op = LLVMGetInstructionOpcode(x);
	if ((op == LLVMZExt || op == LLVMSExt) && LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(x, 0))) == 32)
		return x;
	if (!depth || !is_widenable(op))
		return NULL;
	for (unsigned k = 0; k < 2; k++) {
		LLVMValueRef e = ext_leaf(LLVMGetOperand(x, k), depth - 1);

		if (e)
			return e;
	}
	return NULL;
}

static const char *
opname(LLVMValueRef v)
{
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMAdd: return "add";
	case LLVMMul: return "mul";
	default: return "shl";
	}
}

/* Is the program undefined before block bx is reached if the i1 c is
 * poison: a conditional branch on c, or on an and/or of it (poison in,
 * poison out), in a block that strictly dominates bx? */
static int
branched_on_before(const struct fn *s, LLVMValueRef c, unsigned bx, unsigned depth)
{
	for (LLVMUseRef w = LLVMGetFirstUse(c); w; w = LLVMGetNextUse(w)) {
		LLVMValueRef user = LLVMGetUser(w);
		LLVMOpcode op = LLVMIsAInstruction(user) ? LLVMGetInstructionOpcode(user) : LLVMRet;
		unsigned bb;

		if ((op == LLVMAnd || op == LLVMOr) && depth && branched_on_before(s, user, bx, depth - 1))
			return 1;
		if (!LLVMIsABranchInst(user) || !LLVMIsConditional(user) || LLVMGetCondition(user) != c)
			continue;
		bb = block_of(s, user);
		if (bb != NV_NONE && bb != bx && nv_dom_dominates(&s->a.d, bb, bx))
			return 1;
	}
	return 0;
}

/* Is the program undefined before block bx is reached if y is poison: a
 * branch on a comparison of y that runs first? */
static int
poison_is_ub_before(const struct fn *s, LLVMValueRef y, unsigned bx)
{
	for (LLVMUseRef u = LLVMGetFirstUse(y); u; u = LLVMGetNextUse(u))
		if (LLVMIsAICmpInst(LLVMGetUser(u)) && branched_on_before(s, LLVMGetUser(u), bx, 2))
			return 1;
	return 0;
}

/* The 32-bit twin of the widened x: an instruction built on the value v
 * that x extends (within NARROW_DEPTH users of it), of x's opcode, that
 * widens() to x and dominates x.  Breadth-first over v's users. */
static LLVMValueRef
twin_of(const struct fn *s, LLVMValueRef x, LLVMValueRef v, int sgn)
{
	LLVMValueRef q[64];
	unsigned head = 0, tail = 0, level_end, depth = 0, bx = block_of(s, x);
	LLVMOpcode op = LLVMGetInstructionOpcode(x);

	q[tail++] = v;
	level_end = tail;
	while (head < tail && depth <= NARROW_DEPTH) {
		LLVMValueRef n = q[head++];

		for (LLVMUseRef u = LLVMGetFirstUse(n); u; u = LLVMGetNextUse(u)) {
			LLVMValueRef y = LLVMGetUser(u);
			unsigned by;
			int seen = 0;

			if (!LLVMIsAInstruction(y) || !is_widenable(LLVMGetInstructionOpcode(y)) ||
			    LLVMTypeOf(y) != LLVMTypeOf(v))
				continue;
			for (unsigned k = 0; k < tail && !seen; k++)
				seen = q[k] == y;
			if (seen)
				continue;
			by = block_of(s, y);
			if (LLVMGetInstructionOpcode(y) == op && by != NV_NONE &&
			    y != x && nv_dom_inst_dominates(&s->a.d, y, x) &&
			    widens(x, y, sgn, NARROW_DEPTH) && poison_is_ub_before(s, y, bx))
				return y;
			if (tail < 64)
				q[tail++] = y;
		}
		if (head == level_end) {
			depth++;
			level_end = tail;
		}
	}
	return NULL;
}

static unsigned
narrow_widened(struct fn *s)
{
	LLVMValueRef *xs = NULL, *dead = NULL;
	size_t nx = 0, cap = 0, nd = 0;
	unsigned done = 0;

	/* 64-bit sums, products and shifts, last first: a widened root before
	 * the pieces it is built of */
	for (LLVMBasicBlockRef bb = LLVMGetLastBasicBlock(s->f); bb; bb = LLVMGetPreviousBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetLastInstruction(bb); i; i = LLVMGetPreviousInstruction(i)) {
			LLVMTypeRef t = LLVMTypeOf(i);

			if (!is_widenable(LLVMGetInstructionOpcode(i)) || LLVMGetTypeKind(t) != LLVMIntegerTypeKind ||
			    LLVMGetIntTypeWidth(t) != 64)
				continue;
			if (nx == cap) {
				cap = cap ? 2 * cap : 64;
				xs = xrealloc(xs, cap * sizeof(*xs));
			}
			xs[nx++] = i;
		}
	if (!nx)
		return 0;
	nv_fn_loops_build(&s->a, s->f);
	s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
	dead = xmalloc(nx * sizeof(*dead));
	for (size_t k = 0; k < nx; k++) {
		LLVMValueRef x = xs[k], e, y, z;
		unsigned live = 0;
		int sgn;

		/* a piece only a narrowed root used goes with it */
		for (LLVMUseRef u = LLVMGetFirstUse(x); u && !live; u = LLVMGetNextUse(u)) {
			LLVMValueRef user = LLVMGetUser(u);
			size_t j = 0;

			while (j < nd && dead[j] != user)
				j++;
			live = j == nd;
		}
		if (!live || block_of(s, x) == NV_NONE || !(e = ext_leaf(x, NARROW_DEPTH)))
			continue;
		sgn = LLVMGetInstructionOpcode(e) == LLVMSExt;
		if (!(y = twin_of(s, x, LLVMGetOperand(e, 0), sgn)))
			continue;
		LLVMPositionBuilderBefore(s->b, x);
		z = sgn ? LLVMBuildSExt(s->b, y, LLVMTypeOf(x), "narrowed")
		        : LLVMBuildZExt(s->b, y, LLVMTypeOf(x), "narrowed");
		nv_remark(NV_REMARK_PASSED, PASS, "Narrowed", x,
		          "a 64-bit %s of %s-extended 32-bit values is the %s of a 32-bit %s that cannot wrap: "
		          "recomputed from it (narrowed)",
		          opname(x), sgn ? "sign" : "zero", sgn ? "sext" : "zext", opname(y));
		LLVMReplaceAllUsesWith(x, z);
		dead[nd++] = x;
		s->created++;
		done++;
	}
	erase_dead_all(dead, nd);
	free(dead);
	free(xs);
	LLVMDisposeBuilder(s->b);
	nv_fn_loops_release(&s->a);
	return done;
}

/* ---- 1. the main loop ----------------------------------------------- */

struct cand {
	LLVMValueRef v;
	unsigned def, units, cost, nblocks, chain;
	int load;
};

static int
by_cost(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	return a->def < b->def ? -1 : a->def > b->def;
}

static unsigned
max_in(const struct fn *s, unsigned *at)
{
	return nv_live_max_in(&s->lv, at);
}

/* The integer value of f's string attribute kind (its first, for a list
 * "x,y,z"); 0 when absent. */
static long long
fn_attr_int(LLVMValueRef f, const char *kind)
{
	LLVMAttributeRef at = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind, (unsigned)strlen(kind));
	unsigned len;

	return at ? atoll(LLVMGetStringAttributeValue(at, &len)) : 0;
}

/* The most registers ptxas gives a thread of f before it spills: 255, or
 * what a kernel's __launch_bounds__(T, B) leave, B blocks of T threads
 * resident at once. */
static unsigned
register_cap(const struct fn *s)
{
	long long threads = fn_attr_int(s->f, "nvvm.maxntid"), blocks = fn_attr_int(s->f, "nvvm.minctasm");
	unsigned r;

	if (!s->kernel || !s->o->sm || threads <= 0 || threads > 1024 || blocks < 0 || blocks > 64)
		return NV_MAX_REGS_PER_THREAD;
	r = nv_occupancy_regs_for(s->o->sm, (unsigned)((threads + 31) / 32 * (blocks ? blocks : 1)));
	return r ? r : NV_MAX_REGS_PER_THREAD;
}

/* The register target: a ceiling when one binds (-remat-maxreg-ceiling,
 * .maxnreg, __launch_bounds__), else the next occupancy step (no lower
 * than 100/remat-for-occ of today, no higher than remat-occ-reach percent
 * of today: today is an estimate of ptxas's count, a quarter off either
 * way, and one step below it is often none below ptxas's), else 80% of
 * today.  *hard says the program's own limit binds (.maxnreg,
 * __launch_bounds__, 255): above it ptxas spills, which costs more than
 * any recomputation. */
static unsigned
reg_target(const struct fn *s, unsigned now, const char **why, int *hard)
{
	long long ceiling = s->o->ceiling, m = fn_attr_int(s->f, "nvvm.maxnreg");
	unsigned cap = register_cap(s);

	*hard = 0;
	if (m > 0 && (!ceiling || m < ceiling)) {
		ceiling = m;
		*hard = m < now;
	}
	if (ceiling && ceiling < now) {
		*why = "register ceiling";
		return (unsigned)ceiling;
	}
	if (cap < now) {
		*why = cap < NV_MAX_REGS_PER_THREAD ? "__launch_bounds__" : "255 registers a thread";
		*hard = 1;
		return cap;
	}
	if (s->o->for_occ && s->o->sm) {
		unsigned w = nv_occupancy_warps(s->o->sm, now), floor = (unsigned)(now * 100 / s->o->for_occ);
		unsigned r = now;

		while (r > 1 && nv_occupancy_warps(s->o->sm, r - 1) <= w)
			r--;
		if (r > 1) {
			unsigned reach = (unsigned)(now * s->o->occ_reach / 100);

			r--; /* the largest count with more warps */
			if (r < floor)
				r = floor;
			*why = "occupancy";
			if (reach < r) {
				r = reach;
				*why = "occupancy, within reach";
			}
			return r;
		}
		*why = "occupancy (at its best)";
		return now;
	}
	*why = "80% of the current pressure";
	return now * 4 / 5;
}

/* -decisions: a replayed "target=N" for the function replaces the
 * target; -save-decisions: the target taken is saved, "remat FILE:LINE in
 * FUNCTION target=N" at the function's first line. */
static void
replay_target(const struct fn *s, unsigned *target, const char **why)
{
	struct nv_decision dec;
	struct nv_srcloc loc;
	const char *want;
	char text[32], *name;
	size_t len;

	if (!nv_decisions_on())
		return;
	nv_srcloc_of_function(s->f, &loc);
	name = xstrdup(LLVMGetValueName2(s->f, &len));
	want = nv_decision_begin(&dec, "remat", &loc, name);
	if (want) {
		unsigned t;
		int n = -1;

		if (sscanf(want, "target=%u%n", &t, &n) == 1 && n == (int)strlen(want) && t >= 1 &&
		    t <= 4 * NV_MAX_REGS_PER_THREAD) {
			*target = t;
			*why = "as -decisions says";
		} else {
			nv_warn("decision '%s %s': not a remat choice (target=N, register units)", dec.key, want);
		}
	}
	snprintf(text, sizeof(text), "target=%u", *target);
	nv_decision_end(&dec, text);
	free(name);
}

static int
main_loop(struct fn *s)
{
	const struct nv_remat_opts *o = s->o;
	unsigned target = 0, prev_max = 0;
	unsigned max_depth = o->do_remat >= 3 ? 4 : o->do_remat == 2 ? 2 : 0;
	const char *why = "";
	int hard = 0;

	for (int round = 0; round < ROUNDS; round++) {
		unsigned at = 0, maxin, need, nc = 0, high = 0, total = 0, got = 0, picked = 0;
		uint64_t *meet;
		struct cand *cv;

		if (analyze(s))
			return -1;
		maxin = max_in(s, &at);
		if (round == 0) {
			unsigned maxout = 0;

			for (unsigned b = 0; b < s->a.g.n; b++)
				if (out_units(s, b) > maxout)
					maxout = out_units(s, b);
			if (o->dump >= 1)
				fprintf(stderr, "Func %s: maxIn = %u, maxOut = %u\n", value_name(s->f), maxin,
				        maxout);
			target = reg_target(s, s->lv.max_units > maxin ? s->lv.max_units : maxin, &why, &hard);
			replay_target(s, &target, &why);
			nv_remark(NV_REMARK_ANALYSIS, PASS, "Pressure", s->f,
			          "most register units live into a block: %u (peak %u); target %u (%s)", maxin,
			          s->lv.max_units, target, why);
		}
		if (o->dump >= 2)
			for (unsigned b = 0; b < s->a.g.n; b++)
				if (nv_cfg_reachable(&s->a.g, b))
					fprintf(stderr, "Block %s: live-in = %u\n", s->label[b] + 1, in_units(s, b));
		if (maxin <= target || (round > 0 && maxin >= prev_max)) {
			release(s);
			break;
		}
		prev_max = maxin;
		need = maxin - target;
		/* The values live into every block at the peak. */
		meet = xmalloc(s->lv.words * sizeof(*meet));
		memset(meet, 0xff, s->lv.words * sizeof(*meet));
		for (unsigned b = 0; b < s->a.g.n; b++) {
			const uint64_t *in = nv_live_in(&s->lv, b);

			if (!nv_cfg_reachable(&s->a.g, b) || in_units(s, b) < maxin)
				continue;
			high++;
			for (unsigned w = 0; w < s->lv.words; w++)
				meet[w] &= in[w];
		}
		s->cand = xcalloc(s->lv.nvals + 1, 1);
		cv = xcalloc(s->lv.nvals + 1, sizeof(*cv));
		for (unsigned i = 0; i < s->lv.nvals && high; i++)
			if (nv_live_has(&s->lv, meet, i) && LLVMIsAInstruction(s->lv.val[i]))
				s->cand[i] = 1;
		for (unsigned i = 0; i < s->lv.nvals && high; i++) {
			LLVMValueRef v = s->lv.val[i];
			unsigned blocks[64], nb, def, base = 0, factor = 0, chain = 0;
			int load = 0, ok = 1;
			unsigned long long cost;

			if (!s->cand[i] || !s->lv.units[i] || !clonable(s, v))
				continue;
			def = block_of(s, v);
			nb = use_blocks(s, v, def, blocks, 64);
			if (nb == 0 || nb > 64)
				continue;
			for (unsigned k = 0; k < nb && ok; k++) {
				struct chain c = { .n = 0 };
				unsigned d = loop_depth(s, blocks[k]), dd = loop_depth(s, def), f = 1;

				if (chain_build(s, v, blocks[k], 0, max_depth, &c) || (o->do_remat == 1 && c.n > 1)) {
					ok = 0;
					break;
				}
				if (c.cost > base)
					base = c.cost;
				if (c.n > chain)
					chain = c.n;
				load |= c.loads > 0;
				for (unsigned j = dd; j < d && f < 1000000; j++)
					f *= (unsigned)o->loop_trip;
				factor += f;
			}
			if (!ok)
				continue;
			cost = (unsigned long long)base * factor;
			if (cost > 0x7fffffff)
				cost = 0x7fffffff;
			if (nb > (unsigned)o->use_limit && factor >= (unsigned)o->loop_trip) {
				nv_remark(NV_REMARK_MISSED, PASS, "UseLimit", v,
				          "'%s' stays live: used in %u blocks (remat-use-limit=%lld) inside loops",
				          remark_name(NV_REMARK_MISSED, v), nb, o->use_limit);
				continue;
			}
			if (LLVMIsAGetElementPtrInst(v) && cost > (unsigned long long)o->gep_cost && !hard) {
				nv_remark(NV_REMARK_MISSED, PASS, "GEPCost", v,
				          "'%s' stays live: recomputing the address costs %llu (remat-gep-cost=%lld)",
				          remark_name(NV_REMARK_MISSED, v), cost, o->gep_cost);
				continue;
			}
			if (cost > (unsigned long long)o->single_cost_limit && !o->ignore_single_cost && !hard) {
				nv_remark(NV_REMARK_MISSED, PASS, "SingleCost", v,
				          "'%s' stays live: pulling it in costs %llu (remat-single-cost-limit=%lld)",
				          remark_name(NV_REMARK_MISSED, v), cost, o->single_cost_limit);
				continue;
			}
			cv[nc++] = (struct cand){ v, def, s->lv.units[i], (unsigned)cost, nb, chain, load };
		}
		free(meet);
		qsort(cv, nc, sizeof(*cv), by_cost);
		for (unsigned k = 0; k < nc && got < need && picked < (unsigned)o->max_live_limit; k++) {
			got += cv[k].units;
			total += cv[k].cost;
			picked++;
		}
		if (o->dump >= 4) {
			fprintf(stderr, "Total pull-in cost = %u\n", total);
			fprintf(stderr, "Reducing %u live-ins\n", picked);
		}
		if (!picked) {
			nv_remark(NV_REMARK_ANALYSIS, PASS, "NoCandidates", s->f,
			          "live-in pressure %u stays above the target %u (%s): nothing in %u candidates can be pulled in",
			          maxin, target, why, nc);
			free(cv);
			release(s);
			break;
		}
		s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
		for (unsigned k = 0; k < picked; k++) {
			const char *kind = cv[k].chain > 1 ? "remat_" : "uclone_";

			nv_remark(NV_REMARK_PASSED, PASS, cv[k].chain > 1 ? "Rematerialized" : "UseCloned",
			          cv[k].v, "'%s' recomputed in %u blocks (%s%u instructions%s, cost %u) for %s target %u",
			          remark_name(NV_REMARK_PASSED, cv[k].v), cv[k].nblocks, kind, cv[k].chain,
			          cv[k].load ? ", reloads invariant memory" : "", cv[k].cost, why, target);
			if (cv[k].load && o->dump_load)
				fprintf(stderr, "Load remat: %s\n", value_name(cv[k].v));
			rewrite_uses(s, cv[k].v, cv[k].def, kind);
		}
		LLVMDisposeBuilder(s->b);
		s->ncl = 0;
		{
			unsigned *before = xmalloc(s->a.g.n * sizeof(*before)), n = s->a.g.n;
			LLVMBasicBlockRef *bbs = xmalloc(n * sizeof(*bbs));
			char **names = xmalloc(n * sizeof(*names));

			for (unsigned b = 0; b < n; b++) {
				before[b] = in_units(s, b);
				bbs[b] = s->a.g.bb[b];
				names[b] = xstrdup(s->label[b] + 1);
			}
			{
				LLVMValueRef *dead = xmalloc(picked * sizeof(*dead));

				for (unsigned k = 0; k < picked; k++)
					dead[k] = cv[k].v;
				erase_dead_all(dead, picked);
				free(dead);
			}
			release(s);
			if (o->dump >= 4 && !analyze(s)) {
				for (unsigned b = 0; b < n; b++)
					if (bbs[b] == s->a.g.bb[b] && in_units(s, b) != before[b])
						fprintf(stderr, "Block %s: live-in changed from %u to %u\n", names[b],
						        before[b], in_units(s, b));
				release(s);
			}
			for (unsigned b = 0; b < n; b++)
				free(names[b]);
			free(names);
			free(bbs);
			free(before);
		}
		free(cv);
	}
	return 0;
}

/* ---- 2. IV demotion ------------------------------------------------- */

struct range { long long lo, hi; };

#define I32_MIN (-2147483648LL)
#define I32_MAX 2147483647LL

static int
type_range(LLVMTypeRef t, int sign, struct range *r)
{
	unsigned w;

	if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind || (w = LLVMGetIntTypeWidth(t)) > 62)
		return -1;
	*r = sign ? (struct range){ -(1LL << (w - 1)), (1LL << (w - 1)) - 1 } : (struct range){ 0, (1LL << w) - 1 };
	return 0;
}

/* The values an integer may take, as far as its definition shows. */
static int
value_range(LLVMValueRef v, int depth, struct range *r)
{
	struct range a, b;

	if (LLVMIsAConstantInt(v)) {
		if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
			return -1;
		r->lo = r->hi = LLVMConstIntGetSExtValue(v);
		return 0;
	}
	if (!LLVMIsAInstruction(v) || depth > 8)
		return -1;
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMSExt:
		if (value_range(LLVMGetOperand(v, 0), depth + 1, r))
			return type_range(LLVMTypeOf(LLVMGetOperand(v, 0)), 1, r);
		return 0;
	case LLVMZExt:
		if (!value_range(LLVMGetOperand(v, 0), depth + 1, r) && r->lo >= 0)
			return 0;
		if (LLVMGetNNeg(v))
			return type_range(LLVMTypeOf(LLVMGetOperand(v, 0)), 1, r) || (r->lo = 0);
		return type_range(LLVMTypeOf(LLVMGetOperand(v, 0)), 0, r);
	case LLVMAdd:
	case LLVMSub:
		if (value_range(LLVMGetOperand(v, 0), depth + 1, &a) ||
		    value_range(LLVMGetOperand(v, 1), depth + 1, &b))
			return -1;
		if (LLVMGetInstructionOpcode(v) == LLVMSub)
			b = (struct range){ -b.hi, -b.lo };
		*r = (struct range){ a.lo + b.lo, a.hi + b.hi };
		return 0;
	case LLVMAnd:
		if (value_range(LLVMGetOperand(v, 1), depth + 1, &b) || b.lo != b.hi || b.lo < 0)
			return -1;
		*r = (struct range){ 0, b.lo };
		return 0;
	case LLVMSelect:
		if (value_range(LLVMGetOperand(v, 1), depth + 1, &a) ||
		    value_range(LLVMGetOperand(v, 2), depth + 1, &b))
			return -1;
		*r = (struct range){ a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi };
		return 0;
	default:
		return -1;
	}
}

static int
loop_invariant(const struct fn *s, unsigned l, LLVMValueRef v)
{
	return !LLVMIsAInstruction(v) || !nv_loop_contains(&s->a.ls, l, block_of(s, v));
}

static LLVMIntPredicate
swap_pred(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntSLT: return LLVMIntSGT;
	case LLVMIntSGT: return LLVMIntSLT;
	case LLVMIntSLE: return LLVMIntSGE;
	case LLVMIntSGE: return LLVMIntSLE;
	case LLVMIntULT: return LLVMIntUGT;
	case LLVMIntUGT: return LLVMIntULT;
	case LLVMIntULE: return LLVMIntUGE;
	case LLVMIntUGE: return LLVMIntULE;
	default: return p;
	}
}

static LLVMIntPredicate
invert_pred(LLVMIntPredicate p)
{
	switch (p) {
	case LLVMIntEQ: return LLVMIntNE;
	case LLVMIntNE: return LLVMIntEQ;
	case LLVMIntSLT: return LLVMIntSGE;
	case LLVMIntSGE: return LLVMIntSLT;
	case LLVMIntSGT: return LLVMIntSLE;
	case LLVMIntSLE: return LLVMIntSGT;
	case LLVMIntULT: return LLVMIntUGE;
	case LLVMIntUGE: return LLVMIntULT;
	case LLVMIntUGT: return LLVMIntULE;
	default: return LLVMIntUGT;
	}
}

/* Do the IV p (start s, step c, continuing while `X pred bound` where X is
 * p or p + c) and p + c stay within 32 signed bits on every iteration? */
static int
iv_fits(LLVMValueRef start, long long c, int x_is_next, LLVMIntPredicate pred, LLVMValueRef bound,
        const char **why)
{
	struct range rs, rb;
	long long lo, hi;
	int up = c > 0, strict;

	if (value_range(start, 0, &rs) || value_range(bound, 0, &rb)) {
		*why = "the start or the bound has no known range";
		return 0;
	}
	switch (pred) {
	case LLVMIntULT: case LLVMIntULE: case LLVMIntUGT: case LLVMIntUGE:
		if (rs.lo < 0 || rb.lo < 0) {
			*why = "an unsigned test on values that may be negative";
			return 0;
		}
		/* fall through */
	case LLVMIntSLT: case LLVMIntSLE: case LLVMIntSGT: case LLVMIntSGE: {
		int lt = pred == LLVMIntSLT || pred == LLVMIntSLE || pred == LLVMIntULT || pred == LLVMIntULE;

		if (lt != up) {
			*why = "the test does not bound the direction the IV moves";
			return 0;
		}
		/* The phi takes the start and then steps that passed the test; the
		 * step that fails it is the last value computed. */
		strict = pred == LLVMIntSLT || pred == LLVMIntULT || pred == LLVMIntSGT || pred == LLVMIntUGT;
		if (up) {
			long long pmax = rb.hi - strict + (x_is_next ? 0 : c);

			lo = rs.lo;
			hi = (rs.hi > pmax ? rs.hi : pmax) + c;
		} else {
			long long pmin = rb.lo + strict + (x_is_next ? 0 : c);

			lo = (rs.lo < pmin ? rs.lo : pmin) + c;
			hi = rs.hi;
		}
		break;
	}
	case LLVMIntNE:
		/* Stepping by one until equal: the start must be on the right side. */
		if ((c != 1 && c != -1) || (up ? rs.hi > rb.lo - (x_is_next ? 1 : 0) :
		                                 rs.lo < rb.hi + (x_is_next ? 1 : 0))) {
			*why = "an equality test that the IV might step past";
			return 0;
		}
		lo = up ? rs.lo : rb.lo - 1;
		hi = up ? rb.hi + 1 : rs.hi;
		break;
	default:
		*why = "an unsupported exit test";
		return 0;
	}
	if (lo < I32_MIN || hi > I32_MAX) {
		*why = "its values may not fit 32 bits";
		return 0;
	}
	return 1;
}

static unsigned
demote_ivs(struct fn *s)
{
	unsigned done = 0;

	if (analyze(s))
		return 0;
	s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
	for (unsigned l = 0; l < s->a.ls.n; l++) {
		const struct nv_loop *lp = &s->a.ls.v[l];
		LLVMBasicBlockRef H = s->a.g.bb[lp->header], P, L;
		LLVMValueRef term, cmp;

		if (lp->preheader == NV_NONE || lp->nlatches != 1)
			continue;
		P = s->a.g.bb[lp->preheader];
		L = s->a.g.bb[lp->latches[0]];
		term = LLVMGetBasicBlockTerminator(L);
		if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term) || !LLVMIsAICmpInst(cmp = LLVMGetCondition(term)))
			continue;
		for (LLVMValueRef p = LLVMGetFirstInstruction(H); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
			LLVMTypeRef i64 = LLVMTypeOf(p), i32;
			LLVMValueRef start = NULL, next = NULL, x, bound, c, np, step, sub, nsub, ncmp, nb, s32;
			LLVMIntPredicate pred;
			const char *why = NULL;
			long long cv;
			int x_next;

			if (LLVMGetTypeKind(i64) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(i64) != 64 ||
			    LLVMCountIncoming(p) != 2)
				continue;
			for (unsigned i = 0; i < 2; i++)
				if (LLVMGetIncomingBlock(p, i) == P)
					start = LLVMGetIncomingValue(p, i);
				else
					next = LLVMGetIncomingValue(p, i);
			if (!start || !LLVMIsAInstruction(next) || LLVMGetInstructionOpcode(next) != LLVMAdd)
				continue;
			c = LLVMGetOperand(next, 0) == p ? LLVMGetOperand(next, 1) : LLVMGetOperand(next, 1) == p ? LLVMGetOperand(next, 0) : NULL;
			if (!c || !LLVMIsAConstantInt(c) || (cv = LLVMConstIntGetSExtValue(c)) == 0 || cv > 65536 || cv < -65536)
				continue;
			x = LLVMGetOperand(cmp, 0);
			bound = LLVMGetOperand(cmp, 1);
			pred = LLVMGetICmpPredicate(cmp);
			if (x != p && x != next) {
				LLVMValueRef t = x;

				x = bound;
				bound = t;
				pred = swap_pred(pred);
			}
			if ((x != p && x != next) || !loop_invariant(s, l, bound))
				continue;
			if (LLVMGetSuccessor(term, 0) != H)
				pred = invert_pred(pred);
			x_next = x == next;
			if (!iv_fits(start, cv, x_next, pred, bound, &why)) {
				nv_remark(NV_REMARK_MISSED, PASS, "IVNotDemoted", p, "64-bit IV '%s' stays 64-bit: %s",
				          value_name(p), why);
				continue;
			}
			i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(i64));
			LLVMPositionBuilderBefore(s->b, LLVMGetBasicBlockTerminator(P));
			s32 = LLVMBuildTrunc(s->b, start, i32, "iv_base_clone_");
			nb = LLVMBuildTrunc(s->b, bound, i32, "iv_base_clone_");
			LLVMPositionBuilderBefore(s->b, p);
			np = LLVMBuildPhi(s->b, i32, "newBaseIV");
			LLVMPositionBuilderBefore(s->b, next);
			step = LLVMBuildNSWAdd(s->b, np, LLVMConstInt(i32, (unsigned long long)cv, 1), "demoteIV");
			nsub = LLVMBuildSExt(s->b, step, i64, "substIV");
			{
				LLVMValueRef vals[2] = { s32, step };
				LLVMBasicBlockRef bbs[2] = { P, L };

				LLVMAddIncoming(np, vals, bbs, 2);
			}
			LLVMPositionBuilderBefore(s->b, first_insertion_point(H));
			sub = LLVMBuildSExt(s->b, np, i64, "substIV");
			LLVMPositionBuilderBefore(s->b, term);
			{
				LLVMValueRef nx = x_next ? step : np, a0 = LLVMGetOperand(cmp, 0) == bound ? nb : nx;

				ncmp = LLVMBuildICmp(s->b, LLVMGetICmpPredicate(cmp), a0, a0 == nb ? nx : nb, "");
			}
			LLVMSetOperand(term, 0, ncmp);
			LLVMReplaceAllUsesWith(next, nsub);
			LLVMReplaceAllUsesWith(p, sub);
			erase_dead(cmp);
			LLVMInstructionEraseFromParent(next);
			if (s->o->dump_iv)
				fprintf(stderr, "demoteIV: %s in loop %s: 64 -> 32 bits (step %lld)\n",
				        value_name(sub), s->label[lp->header] + 1, cv);
			nv_remark(NV_REMARK_PASSED, PASS, "IVDemoted", np,
			          "64-bit IV demoted to 32 bits in loop %s (step %lld): one register instead of two",
			          s->label[lp->header] + 1, cv);
			LLVMInstructionEraseFromParent(p);
			erase_dead(nsub);
			s->created += 6;
			done++;
			break; /* the header's phis changed: one IV per loop and round */
		}
	}
	LLVMDisposeBuilder(s->b);
	release(s);
	return done;
}

/* ---- 3. NLO: simplify live-outs --------------------------------------- */

static unsigned
simplify_live_out(struct fn *s)
{
	unsigned done = 0;

	if (analyze(s))
		return 0;
	s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
	for (unsigned i = 0; i < s->lv.nvals; i++) {
		LLVMValueRef v = s->lv.val[i], users[64];
		unsigned def, n = 0, width = 0, ok = 1, phi = 0;
		LLVMTypeRef t = LLVMTypeOf(v);

		if (!LLVMIsAInstruction(v))
			continue;
		def = block_of(s, v);
		if (def == NV_NONE || !nv_live_has(&s->lv, nv_live_out(&s->lv, def), i))
			continue;
		for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
			LLVMValueRef user = LLVMGetUser(u);

			if (LLVMIsAPHINode(user) || n == 64) {
				phi = 1;
				break;
			}
			if (block_of(s, user) == def)
				continue;
			users[n++] = user;
			if (LLVMGetInstructionOpcode(user) != LLVMTrunc)
				ok = 0;
			else if (LLVMGetIntTypeWidth(LLVMTypeOf(user)) > width)
				width = LLVMGetIntTypeWidth(LLVMTypeOf(user));
		}
		if (phi || !n)
			continue;
		/* nloNewBit: the value leaves the block only to be truncated. */
		if (ok && LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 64 && width <= 32) {
			LLVMTypeRef nt = LLVMIntTypeInContext(LLVMGetTypeContext(t), width);
			LLVMValueRef at = LLVMIsAPHINode(v) ? first_insertion_point(s->a.g.bb[def]) : LLVMGetNextInstruction(v), nb;

			LLVMPositionBuilderBefore(s->b, at);
			nb = LLVMBuildTrunc(s->b, v, nt, "nloNewBit");
			for (unsigned k = 0; k < n; k++) {
				if (LLVMTypeOf(users[k]) == nt) {
					LLVMReplaceAllUsesWith(users[k], nb);
					LLVMInstructionEraseFromParent(users[k]);
				} else {
					LLVMSetOperand(users[k], 0, nb);
				}
			}
			if (s->o->dump_nlo)
				fprintf(stderr, "nloNewBit: %s leaves %s as i%u\n", value_name(v), s->label[def] + 1, width);
			nv_remark(NV_REMARK_PASSED, PASS, "LiveOutNarrowed", v,
			          "'%s' leaves its block truncated to i%u (nloNewBit)", remark_name(NV_REMARK_PASSED, v),
			          width);
			s->created++;
			done++;
			continue;
		}
		/* nloNewAdd: a constant offset from a value that is live where it is used. */
		if (s->o->nlo >= 2 && s->lv.units[i] &&
		    (LLVMIsAGetElementPtrInst(v) || LLVMGetInstructionOpcode(v) == LLVMAdd)) {
			LLVMValueRef base = LLVMGetOperand(v, 0);
			int nops = LLVMGetNumOperands(v), good = LLVMIsAInstruction(base) || LLVMIsAArgument(base);

			for (int k = 1; k < nops && good; k++)
				good = LLVMIsAConstantInt(LLVMGetOperand(v, (unsigned)k)) != NULL;
			for (unsigned k = 0; k < n && good; k++) {
				unsigned b = block_of(s, users[k]);

				good = b != NV_NONE && available(s, base, b) &&
				       (LLVMIsAGetElementPtrInst(v) || loop_depth(s, b) <= loop_depth(s, def));
			}
			if (!good)
				continue;
			if (s->o->dump_nlo)
				fprintf(stderr, "nloNewAdd: %s recomputed after %s\n", value_name(v), s->label[def] + 1);
			nv_remark(NV_REMARK_PASSED, PASS, "LiveOutRecomputed", v,
			          "'%s' (a constant offset from a value live anyway) recomputed where it is used (nloNewAdd)",
			          remark_name(NV_REMARK_PASSED, v));
			rewrite_uses(s, v, def, "nloNewAdd");
			s->ncl = 0;
			erase_dead(v);
			done++;
		}
	}
	s->ncl = 0;
	LLVMDisposeBuilder(s->b);
	release(s);
	return done;
}

/* ---- 0. Loop-through (remat-loop-through) ---------------------------- */

#define LT_DEPTH 6   /* instructions deep a recomputed chain may go */
#define LT_USES 1    /* blocks after the loop it may be recomputed in */
#define LT_CHAIN 10  /* instructions a recomputed chain may have */
#define LT_UNITS 1   /* register units a value needs (predicates are not counted) */

/* What loop-through recomputes: integer and address arithmetic and casts
 * between them; no division (slow), no floating point, no loads, and no
 * reads of the thread's index: recomputed (as inline assembly) after the
 * loop, they took llm.c's fused_residual_forward.cu layernorm_forward_kernel1
 * to 28 registers (22 without them; 24 with loop-through off).  A read
 * that lives through the loop anyway is a leaf like any live value. */
static int
lt_cheap(LLVMValueRef v)
{
	switch (LLVMGetInstructionOpcode(v)) {
	case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr: case LLVMAShr:
	case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMTrunc: case LLVMZExt: case LLVMSExt:
	case LLVMPtrToInt: case LLVMIntToPtr: case LLVMAddrSpaceCast: case LLVMGetElementPtr:
		return 1;
	default:
		return 0;
	}
}

/* The blocks reachable from block h without passing block def (def itself
 * not marked): where a use of a value defined in def keeps it live at h. */
static void
reach_from(const struct fn *s, unsigned h, unsigned def, unsigned char *mark, unsigned *stack)
{
	if (h == def) {
		memset(mark, 0, s->a.g.n);
		return;
	}
	nv_cfg_reach(&s->a.g, h, 0, def, mark, stack);
	mark[h] = 1;
}

/* Can v, live through loop l and used nowhere in it, be recomputed at its
 * uses after it?  Every use that keeps it live at l's header (in a block
 * reachable from there without passing v's definition, mark) lies outside
 * l, in the same loop as v's definition (not deeper: recomputed once, not
 * every trip), in at most LT_USES blocks, each of which can rebuild v from
 * what is live there anyway (constants, kernel parameters, values live
 * into the block, none of them this round's candidates) with integer and
 * address arithmetic alone (lt_cheap: no loads, nothing with side effects).  The blocks
 * land in out[]; returns how many, 0 if v stays. */
static unsigned
through_uses(const struct fn *s, unsigned l, LLVMValueRef v, const unsigned char *mark, unsigned *out,
             int chains)
{
	unsigned def = block_of(s, v), n = 0;

	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);
		unsigned cnt = LLVMIsAPHINode(user) ? LLVMCountIncoming(user) : 1;

		for (unsigned i = 0; i < cnt; i++) {
			unsigned b, j = 0;

			if (LLVMIsAPHINode(user)) {
				if (LLVMGetIncomingValue(user, i) != v)
					continue;
				b = nv_cfg_index(&s->a.g, LLVMGetIncomingBlock(user, i));
			} else {
				b = block_of(s, user);
			}
			if (b == NV_NONE || !mark[b])
				continue;
			if (nv_loop_contains(&s->a.ls, l, b) || s->a.ls.innermost[b] != s->a.ls.innermost[def])
				return 0;
			while (j < n && out[j] != b)
				j++;
			if (j == n && n == LT_USES)
				return 0;
			if (j == n)
				out[n++] = b;
		}
	}
	for (unsigned j = 0; j < n && chains; j++) {
		struct chain c = { .n = 0 };

		if (chain_build(s, v, out[j], 0, LT_DEPTH, &c) || c.loads || c.n > LT_CHAIN)
			return 0;
		for (unsigned k = 0; k < c.n; k++)
			if (!lt_cheap(c.v[k]))
				return 0;
	}
	return n;
}

/* Point v's uses in block b (for a phi: its operands coming from b) at a
 * clone made at b's top. */
static void
rewrite_uses_in(struct fn *s, LLVMValueRef v, unsigned b)
{
	LLVMValueRef users[MAX_USERS];
	unsigned n = distinct_users(v, users);
	for (unsigned k = 0; k < n; k++) {
		LLVMValueRef user = users[k];

		if (LLVMIsAPHINode(user)) {
			unsigned cnt = LLVMCountIncoming(user);

			for (unsigned i = 0; i < cnt; i++)
				if (LLVMGetIncomingValue(user, i) == v &&
				    nv_cfg_index(&s->a.g, LLVMGetIncomingBlock(user, i)) == b)
					LLVMSetOperand(user, i, clone_into(s, v, b, "lt_"));
			continue;
		}
		if (block_of(s, user) != b)
			continue;
		for (int i = 0; i < LLVMGetNumOperands(user); i++)
			if (LLVMGetOperand(user, (unsigned)i) == v)
				LLVMSetOperand(user, (unsigned)i, clone_into(s, v, b, "lt_"));
	}
}

/* One loop: recompute after it what lives through it unused.  Returns
 * how many values no longer do. */
static unsigned
through_loop(struct fn *s, unsigned l, unsigned char *mark, unsigned *stack, const struct nv_ptrmap *made)
{
	unsigned h = s->a.ls.v[l].header, nc = 0, done = 0, changed = 1;
	unsigned *cands = xmalloc((s->lv.nvals + 1) * sizeof(*cands));
	const uint64_t *in = nv_live_in(&s->lv, h);
	unsigned blocks[LT_USES];

	memset(s->cand, 0, s->lv.nvals + 1);
	for (unsigned i = 0; i < s->lv.nvals; i++) {
		LLVMValueRef v = s->lv.val[i];

		if (!nv_live_has(&s->lv, in, i) || s->lv.units[i] < LT_UNITS || !LLVMIsAInstruction(v) ||
		    !clonable(s, v) || LLVMIsALoadInst(v) || block_of(s, v) == NV_NONE ||
		    nv_ptrmap_get(made, v) != NV_NONE)
			continue;
		s->cand[i] = 1;
		cands[nc++] = i;
	}
	/* First what no operand changes: uses inside l, or too deep. */
	for (unsigned k = 0; k < nc; k++) {
		LLVMValueRef v = s->lv.val[cands[k]];

		reach_from(s, h, block_of(s, v), mark, stack);
		if (!through_uses(s, l, v, mark, blocks, 0))
			s->cand[cands[k]] = 0;
	}
	/* A candidate that cannot go is live through l after all, and may
	 * then feed the others: drop it and look again. */
	while (changed) {
		changed = 0;
		for (unsigned k = 0; k < nc; k++) {
			LLVMValueRef v = s->lv.val[cands[k]];

			if (!s->cand[cands[k]])
				continue;
			reach_from(s, h, block_of(s, v), mark, stack);
			if (!through_uses(s, l, v, mark, blocks, 1)) {
				s->cand[cands[k]] = 0;
				changed = 1;
			}
		}
	}
	for (unsigned k = 0; k < nc; k++) {
		LLVMValueRef v = s->lv.val[cands[k]];
		unsigned nb;

		if (!s->cand[cands[k]])
			continue;
		reach_from(s, h, block_of(s, v), mark, stack);
		nb = through_uses(s, l, v, mark, blocks, 1);
		if (!nb)
			continue; /* cannot happen: the set above is stable */
		if (nv_remark_enabled(NV_REMARK_PASSED, PASS))
			nv_remark(NV_REMARK_PASSED, PASS, "LoopThrough", v,
			          "'%s' recomputed after the loop at '%s' (in %u block%s) instead of living through it unused",
			          remark_name(NV_REMARK_PASSED, v), s->label[h] + 1, nb, nb == 1 ? "" : "s");
		for (unsigned j = 0; j < nb; j++)
			rewrite_uses_in(s, v, blocks[j]);
		done++;
	}
	{
		LLVMValueRef *gone = xmalloc((nc + 1) * sizeof(*gone));
		unsigned ng = 0;

		for (unsigned k = 0; k < nc; k++)
			if (s->cand[cands[k]])
				gone[ng++] = s->lv.val[cands[k]];
		erase_dead_all(gone, ng);
		free(gone);
	}
	free(cands);
	return done;
}

/* A value computed before a loop, unused in it and used after it (a
 * write-back's addresses, computed for the first loads) lives through the
 * loop; cicc's PTX recomputes it after.  Whatever the pressure estimate
 * says (ptxas's peak is not where the live-in sets put it): recompute it
 * at its uses after the loop where that is cheap and lengthens no other
 * value's range.  One loop a round, outermost first, liveness rebuilt
 * after each change. */
static void
loop_through(struct fn *s)
{
	unsigned total = 0;
	struct nv_ptrmap made; /* values this made: not moved again after the next loop */

	/* Under a launch bound's register cap ptxas allocates at the edge,
	 * where a recomputation that moves pressure may spill (llm.c's
	 * layernorm_backward_kernel10): leave those kernels alone. */
	if (register_cap(s) < NV_MAX_REGS_PER_THREAD)
		return;
	nv_ptrmap_init(&made, 64);

	for (int round = 0; round < 64; round++) {
		unsigned done = 0;
		unsigned char *mark;
		unsigned *stack;

		if (analyze(s))
			break;
		s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
		s->cand = xcalloc(s->lv.nvals + 1, 1);
		mark = xmalloc(s->a.g.n + 1);
		stack = xmalloc((s->a.g.n + 1) * sizeof(*stack));
		for (unsigned l = 0; l < s->a.ls.n && !done; l++)
			done = through_loop(s, l, mark, stack, &made);
		free(mark);
		free(stack);
		for (unsigned i = 0; i < s->ncl; i++)
			nv_ptrmap_put(&made, s->cl[i].clone, 1);
		s->ncl = 0;
		LLVMDisposeBuilder(s->b);
		s->b = NULL;
		release(s);
		total += done;
		if (!done)
			break;
	}
	nv_ptrmap_release(&made);
	if (total && s->o->dump)
		fprintf(stderr, "loop through: %u values in %s\n", total, value_name(s->f));
}

/* ---- 0. Base reuse (remat-base-reuse) -------------------------------- */

/* x is idx * size: idx itself for size 1, (shl idx, k) with 1 << k ==
 * size, or (mul idx, size).  Returns idx and sets *size, or NULL. */
static LLVMValueRef
scaled_index(LLVMValueRef x, unsigned long long *size)
{
	LLVMValueRef c;

	*size = 1;
	if (!LLVMIsAInstruction(x) || LLVMGetNumOperands(x) != 2)
		return x;
	c = LLVMGetOperand(x, 1);
	if (!LLVMIsAConstantInt(c))
		return x;
	switch (LLVMGetInstructionOpcode(x)) {
	case LLVMShl:
		if (LLVMConstIntGetZExtValue(c) >= 63)
			return x;
		*size = 1ULL << LLVMConstIntGetZExtValue(c);
		return LLVMGetOperand(x, 0);
	case LLVMMul:
		*size = LLVMConstIntGetZExtValue(c);
		return *size ? LLVMGetOperand(x, 0) : x;
	default:
		return x;
	}
}

/* Is v needed after instruction at: live out of at's block, or used in
 * that block after it? */
static int
needed_after(const struct fn *s, LLVMValueRef v, LLVMValueRef at)
{
	unsigned b = block_of(s, at), i = nv_ptrmap_get(&s->lv.index, v);

	if (i != NV_NONE && nv_live_has(&s->lv, nv_live_out(&s->lv, b), i))
		return 1;
	for (LLVMValueRef x = LLVMGetNextInstruction(at); x; x = LLVMGetNextInstruction(x))
		for (int k = 0; k < LLVMGetNumOperands(x); k++)
			if (LLVMGetOperand(x, (unsigned)k) == v)
				return 1;
	return 0;
}

/* A GEP q = P + idx * size (one index, P the same base) among idx's
 * users that dominates at and is needed after it; NULL if none. */
static LLVMValueRef
live_base(const struct fn *s, LLVMValueRef p, LLVMValueRef idx, unsigned long long size, LLVMValueRef at)
{
	for (LLVMUseRef u = LLVMGetFirstUse(idx); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef q = LLVMGetUser(u);

		if (q == at || !LLVMIsAGetElementPtrInst(q) || LLVMGetNumOperands(q) != 2 ||
		    LLVMGetOperand(q, 0) != p || LLVMGetOperand(q, 1) != idx ||
		    block_of(s, q) == NV_NONE ||
		    LLVMABISizeOfType(s->td, LLVMGetGEPSourceElementType(q)) != size)
			continue;
		if (nv_dom_inst_dominates(&s->a.d, q, at) && needed_after(s, q, at))
			return q;
	}
	return NULL;
}

/* LSR expands a loop's start address P + (A + B) from its pieces, where
 * P + B is already a GEP that stays live (a per-thread base): the pieces of
 * B then stay live too, through whatever lies between (cicc's PTX keeps
 * one of the two).  Rewrite the address as that GEP + A, where B and its
 * index are needed nowhere after it (else they would stay live beside the
 * base, as in llm.c's fused_classifier_kernel1, whose other loop starts read
 * the same index).  Sound in the
 * pointer's index width (the sum is taken modulo it either way); the reused
 * GEP loses its no-wrap flags, so that it is not poison where the sum was
 * not. */
static void
reuse_bases(struct fn *s)
{
	unsigned done = 0;

	if (analyze(s))
		return;
	s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
	for (unsigned b = 0; b < s->a.g.n; b++) {
		LLVMValueRef next;

		if (!nv_cfg_reachable(&s->a.g, b))
			continue;
		for (LLVMValueRef g = LLVMGetFirstInstruction(s->a.g.bb[b]); g; g = next) {
			LLVMValueRef p, off, q = NULL, rest = NULL, ng;
			LLVMTypeRef it, i8;

			next = LLVMGetNextInstruction(g);
			if (!LLVMIsAGetElementPtrInst(g) || LLVMGetNumOperands(g) != 2)
				continue;
			p = LLVMGetOperand(g, 0);
			off = LLVMGetOperand(g, 1);
			it = LLVMTypeOf(off);
			if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind ||
			    LLVMGetTypeKind(it) != LLVMIntegerTypeKind ||
			    LLVMABISizeOfType(s->td, LLVMGetGEPSourceElementType(g)) != 1 ||
			    !LLVMIsAInstruction(off) || LLVMGetInstructionOpcode(off) != LLVMAdd ||
			    LLVMGetIntTypeWidth(it) !=
			            LLVMGetIntTypeWidth(LLVMIntPtrTypeForASInContext(
			                    LLVMGetTypeContext(it), s->td, LLVMGetPointerAddressSpace(LLVMTypeOf(p)))))
				continue;
			for (unsigned k = 0; k < 2 && !q; k++) {
				unsigned long long size;
				LLVMValueRef idx = scaled_index(LLVMGetOperand(off, k), &size);

				/* only where the pieces die here: a piece needed
				 * further on would stay live beside the base */
				if (LLVMIsAConstant(idx) || needed_after(s, idx, g) ||
				    needed_after(s, LLVMGetOperand(off, k), g))
					continue;
				q = live_base(s, p, idx, size, g);
				rest = LLVMGetOperand(off, 1 - k);
			}
			if (!q)
				continue;
			i8 = LLVMInt8TypeInContext(LLVMGetTypeContext(it));
			LLVMGEPSetNoWrapFlags(q, 0);
			LLVMPositionBuilderBefore(s->b, g);
			ng = LLVMBuildGEP2(s->b, i8, q, &rest, 1, "base_reuse");
			if (nv_remark_enabled(NV_REMARK_PASSED, PASS)) {
				char gn[80];

				snprintf(gn, sizeof(gn), "%s", remark_name(NV_REMARK_PASSED, g));
				nv_remark(NV_REMARK_PASSED, PASS, "BaseReused", g,
				          "address '%s' recomputed from the base '%s', live there anyway, instead of from its pieces",
				          gn, remark_name(NV_REMARK_PASSED, q));
			}
			LLVMReplaceAllUsesWith(g, ng);
			LLVMInstructionEraseFromParent(g);
			erase_dead(off);
			done++;
		}
	}
	LLVMDisposeBuilder(s->b);
	s->b = NULL;
	release(s);
	if (done && s->o->dump)
		fprintf(stderr, "base reuse: %u addresses in %s\n", done, value_name(s->f));
}

/* ---- 4. In-block sinking (remat-sink) ------------------------------- */

/* Register units for the pressure a value adds within its block: a
 * predicate counts as one (ptxas has few, and spills them to registers). */
static unsigned
sink_units(const struct fn *s, LLVMValueRef v)
{
	unsigned u = nv_type_units(s->td, LLVMTypeOf(v));

	return u ? u : 1;
}

/* The order of a block's instructions, which sinking only permutes: a
 * slot per instruction, and a moved one takes the midpoint of its new
 * neighbours' positions (the block is renumbered when they run out). */
struct order {
	struct nv_ptrmap at; /* instruction -> slot in pos */
	double *pos;
	unsigned n;
};

static void
order_number(struct order *o, LLVMBasicBlockRef bb)
{
	unsigned k = 0;

	for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i), k++) {
		unsigned slot = nv_ptrmap_get(&o->at, i);

		if (slot == NV_NONE) {
			slot = o->n++;
			nv_ptrmap_put(&o->at, i, slot);
		}
		o->pos[slot] = k;
	}
}

static double
order_of(const struct order *o, LLVMValueRef i)
{
	return o->pos[nv_ptrmap_get(&o->at, i)];
}

/* Is x still needed at (or after) position p of block b, other than by
 * skip: live out of b, a kernel parameter (ptxas reads those from the
 * constant bank), or used in b at p or later? */
static int
needed_from(const struct fn *s, const struct order *o, unsigned b, LLVMValueRef x, double p,
            LLVMValueRef skip)
{
	unsigned i;
	LLVMBasicBlockRef bb = s->a.g.bb[b];

	if (LLVMIsAArgument(x))
		return s->kernel;
	i = nv_ptrmap_get(&s->lv.index, x);
	if (i != NV_NONE && nv_live_has(&s->lv, nv_live_out(&s->lv, b), i))
		return 1;
	for (LLVMUseRef u = LLVMGetFirstUse(x); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef in = LLVMGetUser(u);

		if (in != skip && LLVMIsAInstruction(in) && LLVMGetInstructionParent(in) == bb &&
		    order_of(o, in) >= p)
			return 1;
	}
	return 0;
}

/* Sink v, within block b, to just before its first user, where that
 * lengthens no other value's life by more than it shortens v's: every
 * operand is needed there anyway, but for one of no more units than v.
 * Returns 1 when v moved. */
static int
sink_one(struct fn *s, struct order *o, unsigned b, LLVMValueRef v)
{
	LLVMBasicBlockRef bb = s->a.g.bb[b];
	LLVMValueRef first = NULL, prev;
	double p, lo;
	unsigned longer = 0;
	int out = 0;

	if (!(is_pure(v) || nv_cfg_sreg_read(v)))
		return 0;
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef in = LLVMGetUser(u);

		if (!LLVMIsAInstruction(in))
			return 0;
		if (LLVMGetInstructionParent(in) != bb || LLVMIsAPHINode(in)) {
			out = 1;
			continue;
		}
		if (!first || order_of(o, in) < order_of(o, first))
			first = in;
	}
	/* Used only further on: to the end of the block. */
	if (out && !first)
		first = LLVMGetBasicBlockTerminator(bb);
	if (!first || (out && first != LLVMGetBasicBlockTerminator(bb)) || LLVMGetNextInstruction(v) == first)
		return 0;
	p = order_of(o, first);
	for (unsigned k = 0, n = (unsigned)LLVMGetNumOperands(v); k < n; k++) {
		LLVMValueRef x = LLVMGetOperand(v, k);

		if (LLVMIsAConstant(x) || LLVMIsABasicBlock(x) || LLVMIsAFunction(x) ||
		    (!LLVMIsAInstruction(x) && !LLVMIsAArgument(x)) || needed_from(s, o, b, x, p, v))
			continue;
		if (++longer > 1 || sink_units(s, x) > sink_units(s, v))
			return 0;
	}
	nv_cfg_move_before(v, first);
	prev = LLVMGetPreviousInstruction(v);
	lo = prev ? order_of(o, prev) : p - 1;
	o->pos[nv_ptrmap_get(&o->at, v)] = (lo + p) / 2;
	if ((lo + p) / 2 <= lo || (lo + p) / 2 >= p)
		order_number(o, bb);
	return 1;
}

static void
sink_in_blocks(struct fn *s)
{
	unsigned moved = 0;

	if (analyze(s))
		return;
	for (unsigned b = 0; b < s->a.g.n; b++) {
		LLVMBasicBlockRef bb = s->a.g.bb[b];
		struct order o = { .n = 0 };
		unsigned n = 0;

		if (!nv_cfg_reachable(&s->a.g, b))
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			n++;
		if (n < 3)
			continue;
		nv_ptrmap_init(&o.at, n);
		o.pos = xmalloc(n * sizeof(*o.pos));
		order_number(&o, bb);
		for (LLVMValueRef i = LLVMGetLastInstruction(bb), prev; i; i = prev) {
			prev = LLVMGetPreviousInstruction(i);
			moved += (unsigned)sink_one(s, &o, b, i);
		}
		nv_ptrmap_release(&o.at);
		free(o.pos);
	}
	release(s);
	if (moved)
		nv_remark(NV_REMARK_PASSED, PASS, "Sunk", s->f,
		          "%u instructions moved down to their first use in their block, where no other "
		          "value lives longer for it (straight-line pressure)",
		          moved);
}

/* ---- uniform bases ---------------------------------------------------- */

/*
 * A kernel that sets a row pointer before its loops (llm.c: const float *x
 * = inp + idx * C; then x[i] in each loop) keeps that 64-bit pointer live
 * through all of them in ordinary registers, where cicc's PTX keeps the
 * uniform offset idx * C and adds it to i in each loop: ptxas holds a
 * uniform integer in uniform registers, and reads the parameter's base
 * from the constant bank.  softmax_forward_kernel3: 22 registers, 14 so
 * (nvcc 14).  Here q = p[a], with p a kernel parameter and a uniform, used
 * only as the base of GEPs of its element type, q[b] in a loop that q is
 * not in, has each such use become p[a + b] (in 64 bits, as the GEPs
 * compute it: the same address, no inbounds).
 */

/* A kernel parameter, or an address space cast of one. */
static int
param_base(LLVMValueRef p)
{
	if (LLVMIsAAddrSpaceCastInst(p))
		p = LLVMGetOperand(p, 0);
	return LLVMIsAArgument(p) != NULL;
}

/* Is v a GEP of one index over element type t? */
static int
simple_gep(LLVMValueRef v, LLVMTypeRef t)
{
	return LLVMIsAGetElementPtrInst(v) && LLVMGetNumOperands(v) == 2 &&
	       LLVMGetGEPSourceElementType(v) == t;
}

static void
uniform_bases(struct fn *s)
{
	struct nv_uniform un;
	unsigned rewritten = 0;

	/* under a launch bound's register cap ptxas allocates at the edge,
	 * where the extra adds cost more than the pointer (llm.c's
	 * layernorm_backward_kernel10: an 8-byte spill became 32) */
	if (!s->kernel || register_cap(s) < NV_MAX_REGS_PER_THREAD)
		return;
	nv_fn_loops_build(&s->a, s->f);
	nv_uniform_build(&un, s->f, 1);
	s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
	for (unsigned bi = 0; bi < s->a.g.n; bi++) {
		for (LLVMValueRef q = LLVMGetFirstInstruction(s->a.g.bb[bi]), next; q; q = next) {
			LLVMTypeRef t;
			LLVMValueRef p, a;
			unsigned in_loop = 0;
			int ok = 1;

			next = LLVMGetNextInstruction(q);
			if (!LLVMIsAGetElementPtrInst(q) || LLVMGetNumOperands(q) != 2)
				continue;
			t = LLVMGetGEPSourceElementType(q);
			p = LLVMGetOperand(q, 0);
			a = LLVMGetOperand(q, 1);
			/* over bytes the row pointer is the offset unscaled: nothing to
			 * gain (cuda-samples' SobelCopyImage: 11 registers, 16 so) */
			if (!param_base(p) || LLVMIsAConstant(a) || !nv_uniform_is(&un, a) ||
			    LLVMTypeOf(a) != LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(a))) ||
			    !nv_type_sized(t) || LLVMABISizeOfType(s->td, t) < 2)
				continue;
			/* every use q[b], b an i64; at least one in a loop that q is not in */
			for (LLVMUseRef u = LLVMGetFirstUse(q); u && ok; u = LLVMGetNextUse(u)) {
				LLVMValueRef g = LLVMGetUser(u);
				unsigned l;

				if (!simple_gep(g, t) || LLVMGetOperand(g, 0) != q ||
				    LLVMTypeOf(LLVMGetOperand(g, 1)) != LLVMTypeOf(a)) {
					ok = 0;
					break;
				}
				l = s->a.ls.innermost[block_of(s, g)];
				while (l != NV_NONE && nv_loop_contains(&s->a.ls, l, bi))
					l = s->a.ls.v[l].parent;
				in_loop += l != NV_NONE;
			}
			if (!ok || !in_loop)
				continue;
			while (LLVMGetFirstUse(q)) {
				LLVMValueRef g = LLVMGetUser(LLVMGetFirstUse(q)), sum, nu;

				LLVMPositionBuilderBefore(s->b, g);
				sum = LLVMBuildAdd(s->b, a, LLVMGetOperand(g, 1), "ub.idx");
				nu = LLVMBuildGEP2(s->b, t, p, &sum, 1, "ub");
				LLVMInstructionSetDebugLoc(nu, LLVMInstructionGetDebugLoc(g));
				LLVMReplaceAllUsesWith(g, nu);
				LLVMInstructionEraseFromParent(g);
				rewritten++;
			}
			nv_remark(NV_REMARK_PASSED, PASS, "UniformBase", q,
			          "'%s' (a parameter plus a uniform offset) not kept live through the loops that use "
			          "it: each use adds the offset to its own index",
			          remark_name(NV_REMARK_PASSED, q));
			/* a use just after q was erased: go on from what follows q now */
			next = LLVMGetNextInstruction(q);
			LLVMInstructionEraseFromParent(q);
		}
	}
	LLVMDisposeBuilder(s->b);
	s->b = NULL;
	nv_uniform_release(&un);
	nv_fn_loops_release(&s->a);
	if (rewritten)
		nv_remark(NV_REMARK_ANALYSIS, PASS, "UniformBases", s->f,
		          "%u addresses computed from a parameter and a uniform offset in their loops", rewritten);
}

/* ---- call pins -------------------------------------------------------- */

/*
 * LLVM's machine sinking moves an instruction down to the block of its
 * uses, past whatever lies between, calls included, and ptxas does not
 * move it back across a call.  Where the instruction's operands die at it,
 * that trades one value live across the call for two or more: a sum over
 * an unrolled loop of pow() (libdevice's pow calls __internal_accurate_pow
 * and picks its special cases after the call) had every add sunk below the
 * last call, each result live across the calls after it: 44 registers
 * where nvcc takes 32, and 32 with pins.  An empty inline assembly
 * statement that reads the value at the end of its block keeps it there;
 * it emits two comment lines and no instruction.
 */

/* The most blocks x blocks-with-calls marked for one function. */
#define PIN_MAX_MARKS (16u << 20)

/* A call that PTX makes: to a function (libdevice's big ones left out of
 * line, vprintf), not an intrinsic or inline assembly. */
static int
real_call(LLVMValueRef i)
{
	LLVMValueRef callee;

	if (!LLVMIsACallInst(i))
		return 0;
	callee = LLVMGetCalledValue(i);
	if (LLVMIsAInlineAsm(callee))
		return 0;
	return !(LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee));
}

/* The inline assembly constraint that reads a value of type t, or NULL. */
static const char *
pin_constraint(const struct fn *s, LLVMTypeRef t)
{
	switch (LLVMGetTypeKind(t)) {
	case LLVMIntegerTypeKind:
		switch (LLVMGetIntTypeWidth(t)) {
		case 16: return "h";
		case 32: return "r";
		case 64: return "l";
		default: return NULL;
		}
	case LLVMFloatTypeKind:
		return "f";
	case LLVMDoubleTypeKind:
		return "d";
	case LLVMPointerTypeKind:
		return LLVMPointerSizeForAS(s->td, LLVMGetPointerAddressSpace(t)) == 8 ? "l" : "r";
	default:
		return NULL;
	}
}

/* Does a call come before instruction at in its block? */
static int
call_before(LLVMValueRef at)
{
	for (LLVMValueRef i = LLVMGetPreviousInstruction(at); i; i = LLVMGetPreviousInstruction(i))
		if (real_call(i))
			return 1;
	return 0;
}

/* Is v an address fixed for the function's life (a stack slot or a
 * global, cast or offset by constants), which ptxas rebuilds for free
 * (mov of __local_depot)? */
static int
fixed_address(LLVMValueRef v)
{
	for (;;) {
		if (LLVMIsAAllocaInst(v) || LLVMIsAGlobalValue(v))
			return 1;
		if (LLVMIsAAddrSpaceCastInst(v) || LLVMIsABitCastInst(v) ||
		    (LLVMIsAConstantExpr(v) && (LLVMGetConstOpcode(v) == LLVMAddrSpaceCast ||
		                                LLVMGetConstOpcode(v) == LLVMBitCast))) {
			v = LLVMGetOperand(v, 0);
			continue;
		}
		if (LLVMIsAGetElementPtrInst(v)) {
			for (int k = 1, n = LLVMGetNumOperands(v); k < n; k++)
				if (!LLVMIsAConstant(LLVMGetOperand(v, k)))
					return 0;
			v = LLVMGetOperand(v, 0);
			continue;
		}
		return 0;
	}
}

/* Does operand x of v (in block b) die at v: an instruction's value, not
 * live out of b, and not used in b after v? */
static int
dies_at(const struct fn *s, LLVMValueRef x, LLVMValueRef v, unsigned b)
{
	unsigned i;

	if (!LLVMIsAInstruction(x))
		return 0;
	i = nv_ptrmap_get(&s->lv.index, x);
	if (i != NV_NONE && nv_live_has(&s->lv, nv_live_out(&s->lv, b), i))
		return 0;
	for (LLVMValueRef n = LLVMGetNextInstruction(v); n; n = LLVMGetNextInstruction(n))
		for (int k = 0, c = LLVMGetNumOperands(n); k < c; k++)
			if (LLVMGetOperand(n, k) == x)
				return 0;
	return 1;
}

/* Should v, in block b, be pinned there?  Its users all lie in other
 * blocks (none a phi), a call lies between (after v in b, or in a block
 * that b reaches and that reaches a user, before the user in its block),
 * and its operands that die at it take more register units than it. */
static int
pin_wanted(const struct fn *s, LLVMValueRef v, unsigned b, const unsigned *cb, unsigned ncb,
           const unsigned char *fwd, const unsigned char *bwd)
{
	unsigned n = s->a.g.n, dying = 0, between = 0;
	LLVMValueRef u1 = NULL;

	if (!is_pure(v) || !pin_constraint(s, LLVMTypeOf(v)) || fixed_address(v))
		return 0;
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef in = LLVMGetUser(u);

		if (!LLVMIsAInstruction(in) || LLVMIsAPHINode(in) || block_of(s, in) == b)
			return 0;
		u1 = in;
	}
	if (!u1)
		return 0;
	for (LLVMValueRef i = LLVMGetNextInstruction(v); i && !between; i = LLVMGetNextInstruction(i))
		between = (unsigned)real_call(i);
	for (unsigned c = 0; c < ncb && !between; c++) {
		if (cb[c] == b || !bwd[(size_t)c * n + b])
			continue;
		for (LLVMUseRef u = LLVMGetFirstUse(v); u && !between; u = LLVMGetNextUse(u)) {
			LLVMValueRef in = LLVMGetUser(u);
			unsigned ub = block_of(s, in);

			between = fwd[(size_t)c * n + ub] || (ub == cb[c] && call_before(in));
		}
	}
	if (!between)
		return 0;
	for (int k = 0, c = LLVMGetNumOperands(v); k < c; k++) {
		LLVMValueRef x = LLVMGetOperand(v, k);
		int seen = 0;

		for (int j = 0; j < k; j++)
			seen |= LLVMGetOperand(v, j) == x;
		if (!seen && dies_at(s, x, v, b))
			dying += sink_units(s, x);
	}
	return dying > sink_units(s, v);
}

static void
pin_across_calls(struct fn *s)
{
	unsigned n, ncb = 0, pinned = 0, *cb, *stack;
	unsigned char *fwd, *bwd;

	/* the constraints are NVPTX's, and so is the sinking they stop */
	if (strncmp(LLVMGetTarget(LLVMGetGlobalParent(s->f)), "nvptx", 5))
		return;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s->f); bb && !ncb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			if (real_call(i)) {
				ncb = 1;
				break;
			}
	if (!ncb || analyze(s))
		return;
	n = s->a.g.n;
	cb = xmalloc(n * sizeof(*cb));
	ncb = 0;
	for (unsigned b = 0; b < n; b++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(s->a.g.bb[b]); i; i = LLVMGetNextInstruction(i))
			if (real_call(i)) {
				cb[ncb++] = b;
				break;
			}
	if ((size_t)ncb * n > PIN_MAX_MARKS) {
		nv_remark(NV_REMARK_MISSED, PASS, "PinsTooLarge", s->f,
		          "no call pins: %u blocks with calls in %u blocks", ncb, n);
		free(cb);
		release(s);
		return;
	}
	fwd = xmalloc((size_t)ncb * n);
	bwd = xmalloc((size_t)ncb * n);
	stack = xmalloc((n + 1) * sizeof(*stack) * 2);
	for (unsigned c = 0; c < ncb; c++) {
		nv_cfg_reach(&s->a.g, cb[c], 0, NV_NONE, fwd + (size_t)c * n, stack);
		nv_cfg_reach(&s->a.g, cb[c], 1, NV_NONE, bwd + (size_t)c * n, stack);
	}
	s->b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(s->f)));
	for (unsigned b = 0; b < n; b++) {
		LLVMBasicBlockRef bb = s->a.g.bb[b];
		LLVMValueRef term = LLVMGetBasicBlockTerminator(bb), want[64];
		unsigned nw = 0;

		if (!term || !nv_cfg_reachable(&s->a.g, b))
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i != term && nw < 64; i = LLVMGetNextInstruction(i))
			if (pin_wanted(s, i, b, cb, ncb, fwd, bwd))
				want[nw++] = i;
		for (unsigned k = 0; k < nw; k++) {
			LLVMTypeRef t = LLVMTypeOf(want[k]);
			LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(LLVMGetTypeContext(t)), &t, 1, 0);
			const char *con = pin_constraint(s, t);
			LLVMValueRef fn = LLVMGetInlineAsm(ft, "", 0, con, strlen(con), 1, 0, LLVMInlineAsmDialectATT, 0);
			LLVMValueRef call;

			LLVMPositionBuilderBefore(s->b, term);
			call = LLVMBuildCall2(s->b, ft, fn, &want[k], 1, "");
			LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(want[k]));
			nv_remark(NV_REMARK_PASSED, PASS, "Pinned", want[k],
			          "'%s' held in its block ahead of a call: machine sinking would move it past the call "
			          "and leave its operands live across it",
			          remark_name(NV_REMARK_PASSED, want[k]));
			pinned++;
		}
	}
	LLVMDisposeBuilder(s->b);
	s->b = NULL;
	free(stack);
	free(fwd);
	free(bwd);
	free(cb);
	release(s);
	if (pinned)
		nv_remark(NV_REMARK_PASSED, PASS, "CallPins", s->f,
		          "%u values held in their blocks ahead of calls (machine sinking would leave their "
		          "operands live across the calls)",
		          pinned);
}

/* ---- the module ------------------------------------------------------- */

static int
skipped(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, name, n))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

unsigned
nv_remat_module(LLVMModuleRef m, const struct nv_remat_opts *o)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
	unsigned created = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct fn s = { .f = f, .td = td, .o = o };

		if (LLVMIsDeclaration(f))
			continue;
		if (skipped(o->skip, value_name(f))) {
			if (o->dump)
				fprintf(stderr, "Skip rematerialization on %s\n", value_name(f));
			nv_remark(NV_REMARK_ANALYSIS, PASS, "Skipped", f, "Skip rematerialization on %s (no-remat)",
			          value_name(f));
			continue;
		}
		s.kernel = LLVMGetFunctionCallConv(f) == PTX_KERNEL_CC;
		if (o->narrow)
			narrow_widened(&s);
		if (o->uniform_base)
			uniform_bases(&s);
		if (o->base_reuse)
			reuse_bases(&s);
		if (o->loop_through)
			loop_through(&s);
		if (o->do_remat)
			main_loop(&s);
		if (o->iv)
			demote_ivs(&s);
		if (o->nlo)
			simplify_live_out(&s);
		if (o->sink)
			sink_in_blocks(&s);
		if (o->call_pin)
			pin_across_calls(&s);
		free(s.cl);
		created += s.created;
	}
	return created;
}
