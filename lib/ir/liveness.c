#include "liveness.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "../base/util.h"

unsigned
nv_type_units(LLVMTargetDataRef td, LLVMTypeRef ty)
{
	switch (LLVMGetTypeKind(ty)) {
	case LLVMVoidTypeKind:
	case LLVMLabelTypeKind:
	case LLVMMetadataTypeKind:
	case LLVMTokenTypeKind:
		return 0;
	case LLVMIntegerTypeKind:
		if (LLVMGetIntTypeWidth(ty) == 1)
			return 0;
		return (LLVMGetIntTypeWidth(ty) + 31) / 32;
	case LLVMPointerTypeKind:
		return (LLVMPointerSizeForAS(td, LLVMGetPointerAddressSpace(ty)) + 3) / 4;
	default:
		return (unsigned)((LLVMStoreSizeOfType(td, ty) + 3) / 4);
	}
}

static int
tracked(LLVMValueRef v)
{
	LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(v));

	if (k == LLVMVoidTypeKind || k == LLVMTokenTypeKind || k == LLVMMetadataTypeKind)
		return 0;
	return !LLVMIsAAllocaInst(v);
}

/* Does v live past its own block: an argument, a phi operand, or used in
 * another block? */
static int
crosses_blocks(LLVMValueRef v)
{
	LLVMBasicBlockRef home;

	if (LLVMIsAArgument(v))
		return 1;
	home = LLVMGetInstructionParent(v);
	for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (!LLVMIsAInstruction(user) || LLVMIsAPHINode(user) ||
		    LLVMGetInstructionParent(user) != home)
			return 1;
	}
	return 0;
}

static void
add_value(struct nv_liveness *lv, LLVMValueRef v, LLVMTargetDataRef td)
{
	LLVMTypeRef ty = LLVMTypeOf(v);
	unsigned char pred = LLVMGetTypeKind(ty) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(ty) == 1;
	unsigned char units = (unsigned char)nv_type_units(td, ty);

	if (!crosses_blocks(v)) {
		lv->local_pred[lv->nlocals] = pred;
		lv->local_units[lv->nlocals] = units;
		nv_ptrmap_put(&lv->local, v, lv->nlocals++);
		return;
	}
	lv->val[lv->nvals] = v;
	lv->pred[lv->nvals] = pred;
	lv->units[lv->nvals] = units;
	nv_ptrmap_put(&lv->index, v, lv->nvals++);
}

#define SET(s, i) ((s)[(i) / 64] |= UINT64_C(1) << ((i) % 64))
#define CLR(s, i) ((s)[(i) / 64] &= ~(UINT64_C(1) << ((i) % 64)))
#define HAS(s, i) (((s)[(i) / 64] >> ((i) % 64)) & 1)

int
nv_live_has(const struct nv_liveness *lv, const uint64_t *s, unsigned v)
{
	(void)lv;
	return (int)HAS(s, v);
}

const uint64_t *
nv_live_in(const struct nv_liveness *lv, unsigned b)
{
	return lv->in + (size_t)b * lv->words;
}

const uint64_t *
nv_live_out(const struct nv_liveness *lv, unsigned b)
{
	return lv->out + (size_t)b * lv->words;
}

unsigned
nv_live_count(const struct nv_liveness *lv, const uint64_t *s)
{
	unsigned n = 0;

	for (unsigned w = 0; w < lv->words; w++)
		n += (unsigned)__builtin_popcountll(s[w]);
	return n;
}

unsigned
nv_live_units(const struct nv_liveness *lv, const uint64_t *s)
{
	unsigned n = 0;

	for (unsigned w = 0; w < lv->words; w++)
		for (uint64_t x = s[w]; x; x &= x - 1)
			n += lv->units[w * 64 + (unsigned)__builtin_ctzll(x)];
	return n;
}

unsigned
nv_live_max_in(const struct nv_liveness *lv, unsigned *at)
{
	unsigned most = 0;

	for (unsigned b = 0; b < lv->cfg->n; b++) {
		unsigned u = nv_live_units(lv, nv_live_in(lv, b));

		if (u > most) {
			most = u;
			if (at)
				*at = b;
		}
	}
	return most;
}

/* Per block: upward-exposed uses (phis aside) and definitions. */
static void
local_sets(struct nv_liveness *lv, uint64_t *use, uint64_t *def)
{
	const struct nv_cfg *g = lv->cfg;

	for (unsigned b = 0; b < g->n; b++) {
		uint64_t *u = use + (size_t)b * lv->words, *d = def + (size_t)b * lv->words;

		for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]); i; i = LLVMGetNextInstruction(i)) {
			unsigned vi;

			if (LLVMGetInstructionOpcode(i) != LLVMPHI)
				for (int k = 0; k < LLVMGetNumOperands(i); k++) {
					vi = nv_ptrmap_get(&lv->index, LLVMGetOperand(i, k));
					if (vi != NV_NONE && !HAS(d, vi))
						SET(u, vi);
				}
			vi = nv_ptrmap_get(&lv->index, i);
			if (vi != NV_NONE)
				SET(d, vi);
		}
	}
}

/* Add to s the values s's block passes to the phis of successor sb. */
static void
phi_uses(const struct nv_liveness *lv, unsigned from, unsigned sb, uint64_t *s)
{
	const struct nv_cfg *g = lv->cfg;

	for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[sb]);
	     i && LLVMGetInstructionOpcode(i) == LLVMPHI; i = LLVMGetNextInstruction(i))
		for (unsigned k = 0; k < LLVMCountIncoming(i); k++)
			if (LLVMGetIncomingBlock(i, k) == g->bb[from]) {
				unsigned vi = nv_ptrmap_get(&lv->index, LLVMGetIncomingValue(i, k));

				if (vi != NV_NONE)
					SET(s, vi);
			}
}

/* Count a set: values, register units, predicates; keep the maxima. */
static void
tally(const struct nv_liveness *lv, const uint64_t *s, unsigned *n, unsigned *u, unsigned *p)
{
	unsigned cn = 0, cu = 0, cp = 0;

	for (unsigned w = 0; w < lv->words; w++)
		for (uint64_t x = s[w]; x; x &= x - 1) {
			unsigned v = w * 64 + (unsigned)__builtin_ctzll(x);

			cn++;
			cu += lv->units[v];
			cp += lv->pred[v];
		}
	*n = cn > *n ? cn : *n;
	*u = cu > *u ? cu : *u;
	*p = cp > *p ? cp : *p;
}

/* The values live just before instruction `before` of block b (NULL: at
 * its top, after the phis): the crossing ones in set s, the block's own
 * marked in local_live. */
static void
snapshot(const struct nv_liveness *lv, unsigned b, const uint64_t *s, LLVMValueRef before,
         struct nv_live_peak *pk)
{
	pk->n = 0;
	pk->before = before;
	pk->block = b;
	for (unsigned w = 0; w < lv->words; w++)
		for (uint64_t x = s[w]; x; x &= x - 1)
			pk->val[pk->n++] = lv->val[w * 64 + (unsigned)__builtin_ctzll(x)];
	for (LLVMValueRef i = LLVMGetFirstInstruction(lv->cfg->bb[b]); i; i = LLVMGetNextInstruction(i)) {
		unsigned li = nv_ptrmap_get(&lv->local, i);

		if (li != NV_NONE && lv->local_live[li])
			pk->val[pk->n++] = i;
	}
}

/* One point of block b's walk, just before instruction `before` (NULL: the
 * top): the crossing values in tmp and the block's own (ln values, lu
 * units, lp predicates) raise the maxima *n, *u, *p; with pk, the point is
 * kept when it has more units than any before. */
static void
point(const struct nv_liveness *lv, unsigned b, const uint64_t *tmp, LLVMValueRef before, unsigned ln,
      unsigned lu, unsigned lp, unsigned *n, unsigned *u, unsigned *p, struct nv_live_peak *pk)
{
	unsigned cn = 0, cu = 0, cp = 0;

	tally(lv, tmp, &cn, &cu, &cp);
	cn += ln, cu += lu, cp += lp;
	if (pk && cu > pk->units) {
		pk->units = cu;
		snapshot(lv, b, tmp, before, pk);
	}
	*n = cn > *n ? cn : *n;
	*u = cu > *u ? cu : *u;
	*p = cp > *p ? cp : *p;
}

/* The most values (and units, and predicates) live at once at any point
 * between the instructions of block b: walk it backwards from live-out,
 * live_before = (live_after - def) | uses.  Values local to the block are
 * counted on the side (local_live marks them between last use and def).
 * With pk, the first point (from the bottom) of the most units is kept
 * there. */
static void
pressure(struct nv_liveness *lv, unsigned b, uint64_t *tmp, struct nv_live_peak *pk)
{
	const struct nv_cfg *g = lv->cfg;
	unsigned n = 0, u = 0, p = 0, ln = 0, lu = 0, lp = 0;

	memcpy(tmp, nv_live_out(lv, b), lv->words * sizeof(uint64_t));
	tally(lv, tmp, &n, &u, &p);
	if (pk) {
		pk->units = u;
		snapshot(lv, b, tmp, NULL, pk);
		pk->before = LLVMGetLastInstruction(g->bb[b]);
	}
	for (LLVMValueRef i = LLVMGetLastInstruction(g->bb[b]); i; i = LLVMGetPreviousInstruction(i)) {
		unsigned vi = nv_ptrmap_get(&lv->index, i), li = nv_ptrmap_get(&lv->local, i);

		if (LLVMGetInstructionOpcode(i) == LLVMPHI)
			break; /* phis are defined together at the top: counted below */
		if (vi != NV_NONE)
			CLR(tmp, vi);
		if (li != NV_NONE && lv->local_live[li]) {
			lv->local_live[li] = 0;
			ln--, lu -= lv->local_units[li], lp -= lv->local_pred[li];
		}
		for (int k = 0; k < LLVMGetNumOperands(i); k++) {
			LLVMValueRef op = LLVMGetOperand(i, k);
			unsigned oi = nv_ptrmap_get(&lv->index, op), ol = nv_ptrmap_get(&lv->local, op);

			if (oi != NV_NONE)
				SET(tmp, oi);
			if (ol != NV_NONE && !lv->local_live[ol]) {
				lv->local_live[ol] = 1;
				ln++, lu += lv->local_units[ol], lp += lv->local_pred[ol];
			}
		}
		point(lv, b, tmp, i, ln, lu, lp, &n, &u, &p, pk);
	}
	/* at the top, after the phis: the live-in values and the phis (a phi
	 * used only in its block is no longer live above its def) */
	for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]);
	     i && LLVMGetInstructionOpcode(i) == LLVMPHI; i = LLVMGetNextInstruction(i)) {
		unsigned vi = nv_ptrmap_get(&lv->index, i), li = nv_ptrmap_get(&lv->local, i);

		if (vi != NV_NONE)
			SET(tmp, vi);
		if (li != NV_NONE)
			lv->local_live[li] = 0;
	}
	point(lv, b, tmp, NULL, 0, 0, 0, &n, &u, &p, pk);
	if (pk)
		return;
	lv->block_max[b] = n;
	lv->block_max_units[b] = u;
	lv->max_live = n > lv->max_live ? n : lv->max_live;
	lv->max_units = u > lv->max_units ? u : lv->max_units;
	lv->max_preds = p > lv->max_preds ? p : lv->max_preds;
}

int
nv_live_peak(struct nv_liveness *lv, struct nv_live_peak *pk)
{
	unsigned at = NV_NONE, most = 0;
	uint64_t *tmp;

	memset(pk, 0, sizeof(*pk));
	for (unsigned b = 0; b < lv->cfg->n; b++)
		if (at == NV_NONE || lv->block_max_units[b] > most)
			at = b, most = lv->block_max_units[b];
	if (at == NV_NONE)
		return -1;
	tmp = xcalloc(lv->words, sizeof(uint64_t));
	pk->val = xcalloc(lv->nvals + lv->nlocals + 1, sizeof(*pk->val));
	memset(lv->local_live, 0, lv->nlocals ? lv->nlocals : 1);
	pressure(lv, at, tmp, pk);
	free(tmp);
	return 0;
}

int
nv_liveness_build(struct nv_liveness *lv, const struct nv_cfg *g, LLVMTargetDataRef td,
                  size_t *need)
{
	unsigned cap = LLVMCountParams(g->fn);
	uint64_t *use, *def, *tmp;
	size_t setsz;
	int changed = 1;

	memset(lv, 0, sizeof(*lv));
	lv->cfg = g;
	for (unsigned b = 0; b < g->n; b++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]); i; i = LLVMGetNextInstruction(i))
			cap++;
	lv->val = xcalloc(cap ? cap : 1, sizeof(*lv->val));
	lv->units = xcalloc(cap ? cap : 1, 1);
	lv->pred = xcalloc(cap ? cap : 1, 1);
	lv->local_units = xcalloc(cap ? cap : 1, 1);
	lv->local_pred = xcalloc(cap ? cap : 1, 1);
	lv->local_live = xcalloc(cap ? cap : 1, 1);
	nv_ptrmap_init(&lv->index, cap);
	nv_ptrmap_init(&lv->local, cap);
	for (LLVMValueRef a = LLVMGetFirstParam(g->fn); a; a = LLVMGetNextParam(a))
		add_value(lv, a, td);
	for (unsigned b = 0; b < g->n; b++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(g->bb[b]); i; i = LLVMGetNextInstruction(i))
			if (tracked(i))
				add_value(lv, i, td);
	lv->words = (lv->nvals + 63) / 64;
	if (!lv->words)
		lv->words = 1;
	setsz = (size_t)(g->n ? g->n : 1) * lv->words;
	*need = 4 * setsz * sizeof(uint64_t); /* in, out, use, def */
	if (*need > NV_LIVENESS_MAX_BYTES)
		return -1;
	lv->in = xcalloc(setsz, sizeof(uint64_t));
	lv->out = xcalloc(setsz, sizeof(uint64_t));
	use = xcalloc(setsz, sizeof(uint64_t));
	def = xcalloc(setsz, sizeof(uint64_t));
	tmp = xcalloc(lv->words, sizeof(uint64_t));
	local_sets(lv, use, def);
	/* Backward problem: visit blocks in post-order until nothing changes. */
	while (changed) {
		changed = 0;
		for (unsigned k = g->nrpo; k-- > 0;) {
			unsigned b = g->rpo[k];
			uint64_t *in = lv->in + (size_t)b * lv->words, *out = lv->out + (size_t)b * lv->words;

			memset(tmp, 0, lv->words * sizeof(uint64_t));
			for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
				const uint64_t *sin = nv_live_in(lv, g->succ[e]);

				for (unsigned w = 0; w < lv->words; w++)
					tmp[w] |= sin[w];
				phi_uses(lv, b, g->succ[e], tmp);
			}
			memcpy(out, tmp, lv->words * sizeof(uint64_t));
			for (unsigned w = 0; w < lv->words; w++) {
				uint64_t v = use[(size_t)b * lv->words + w] |
				             (out[w] & ~def[(size_t)b * lv->words + w]);

				if (v != in[w]) {
					in[w] = v;
					changed = 1;
				}
			}
		}
	}
	lv->block_max = xcalloc(g->n ? g->n : 1, sizeof(unsigned));
	lv->block_max_units = xcalloc(g->n ? g->n : 1, sizeof(unsigned));
	for (unsigned k = 0; k < g->nrpo; k++)
		pressure(lv, g->rpo[k], tmp, NULL);
	free(use);
	free(def);
	free(tmp);
	return 0;
}

int
nv_liveness_check(const struct nv_liveness *lv, unsigned *bad)
{
	const struct nv_cfg *g = lv->cfg;
	size_t setsz = (size_t)(g->n ? g->n : 1) * lv->words;
	uint64_t *use = xcalloc(setsz, sizeof(uint64_t)), *def = xcalloc(setsz, sizeof(uint64_t));
	uint64_t *tmp = xcalloc(lv->words, sizeof(uint64_t));
	int rc = 0;

	local_sets((struct nv_liveness *)lv, use, def);
	for (unsigned k = 0; k < g->nrpo && !rc; k++) {
		unsigned b = g->rpo[k];
		const uint64_t *in = nv_live_in(lv, b), *out = nv_live_out(lv, b);

		memset(tmp, 0, lv->words * sizeof(uint64_t));
		for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
			for (unsigned w = 0; w < lv->words; w++)
				tmp[w] |= nv_live_in(lv, g->succ[e])[w];
			phi_uses(lv, b, g->succ[e], tmp);
		}
		for (unsigned w = 0; w < lv->words && !rc; w++)
			if (out[w] != tmp[w] ||
			    in[w] != (use[(size_t)b * lv->words + w] | (out[w] & ~def[(size_t)b * lv->words + w])))
				rc = -1;
		if (rc)
			*bad = b;
	}
	/* nothing but arguments may be live into the entry */
	for (unsigned v = LLVMCountParams(g->fn); !rc && g->n && v < lv->nvals; v++)
		if (HAS(nv_live_in(lv, 0), v)) {
			*bad = 0;
			rc = -1;
		}
	free(use);
	free(def);
	free(tmp);
	return rc;
}

void
nv_liveness_release(struct nv_liveness *lv)
{
	free(lv->val);
	free(lv->units);
	free(lv->pred);
	free(lv->in);
	free(lv->out);
	free(lv->block_max);
	free(lv->block_max_units);
	free(lv->local_units);
	free(lv->local_pred);
	free(lv->local_live);
	nv_ptrmap_release(&lv->index);
	nv_ptrmap_release(&lv->local);
	memset(lv, 0, sizeof(*lv));
}
