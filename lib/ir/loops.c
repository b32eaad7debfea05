#include "loops.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "../base/remarks.h"
#include "../base/util.h"

/* One natural loop per header: header h, body marked in `in`. */
static void
collect_body(const struct nv_cfg *g, unsigned h, const unsigned *latch, unsigned nlatch, char *in)
{
	unsigned *work = xmalloc((g->n + 1) * sizeof(unsigned)), top = 0;

	in[h] = 1;
	for (unsigned i = 0; i < nlatch; i++)
		if (!in[latch[i]]) {
			in[latch[i]] = 1;
			work[top++] = latch[i];
		}
	while (top) {
		unsigned b = work[--top];

		for (unsigned e = g->pred_off[b]; e < g->pred_off[b + 1]; e++) {
			unsigned p = g->pred[e];

			if (!in[p] && nv_cfg_reachable(g, p)) {
				in[p] = 1;
				work[top++] = p;
			}
		}
	}
	free(work);
}

static void
push(unsigned **v, unsigned *n, unsigned x)
{
	for (unsigned i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = x;
}

static int
by_size_desc(const void *a, const void *b)
{
	const struct nv_loop *x = a, *y = b;

	if (x->nblocks != y->nblocks)
		return x->nblocks < y->nblocks ? 1 : -1;
	return x->header < y->header ? -1 : x->header > y->header;
}

int
nv_loop_contains(const struct nv_loops *ls, unsigned l, unsigned b)
{
	const struct nv_loop *lp = &ls->v[l];
	unsigned lo = 0, hi = lp->nblocks;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (lp->blocks[mid] == b)
			return 1;
		if (lp->blocks[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void
edges(struct nv_loops *ls, unsigned l)
{
	const struct nv_cfg *g = ls->cfg;
	struct nv_loop *lp = &ls->v[l];
	unsigned outside_preds = 0, op = NV_NONE;

	for (unsigned i = 0; i < lp->nblocks; i++) {
		unsigned b = lp->blocks[i];

		for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
			unsigned s = g->succ[e];

			if (s == lp->header)
				push(&lp->latches, &lp->nlatches, b);
			if (!nv_loop_contains(ls, l, s)) {
				push(&lp->exiting, &lp->nexiting, b);
				push(&lp->exits, &lp->nexits, s);
			}
		}
	}
	for (unsigned e = g->pred_off[lp->header]; e < g->pred_off[lp->header + 1]; e++) {
		unsigned p = g->pred[e];

		if (!nv_loop_contains(ls, l, p) && p != op) {
			outside_preds++;
			op = p;
		}
	}
	lp->preheader = NV_NONE;
	if (outside_preds == 1 && nv_cfg_nsucc(g, op) == 1)
		lp->preheader = op;
}

void
nv_loops_build(struct nv_loops *ls, const struct nv_cfg *g, const struct nv_dom *d)
{
	char *in = xcalloc(g->n ? g->n : 1, 1);

	memset(ls, 0, sizeof(*ls));
	ls->cfg = g;
	for (unsigned h = 0; h < g->n; h++) {
		unsigned *latch = NULL, nlatch = 0;
		struct nv_loop *lp;

		if (!nv_cfg_reachable(g, h))
			continue;
		for (unsigned e = g->pred_off[h]; e < g->pred_off[h + 1]; e++) {
			unsigned t = g->pred[e];

			if (nv_cfg_reachable(g, t) && nv_dom_dominates(d, h, t))
				push(&latch, &nlatch, t);
		}
		if (!nlatch)
			continue;
		memset(in, 0, g->n);
		collect_body(g, h, latch, nlatch, in);
		free(latch);
		ls->v = xrealloc(ls->v, (ls->n + 1) * sizeof(*ls->v));
		lp = &ls->v[ls->n++];
		memset(lp, 0, sizeof(*lp));
		lp->header = h;
		for (unsigned b = 0; b < g->n; b++)
			if (in[b])
				push(&lp->blocks, &lp->nblocks, b);
	}
	free(in);
	/* Outermost first: a loop's parent is the smallest earlier loop holding its header. */
	if (ls->n)
		qsort(ls->v, ls->n, sizeof(*ls->v), by_size_desc);
	ls->innermost = xmalloc((g->n ? g->n : 1) * sizeof(unsigned));
	for (unsigned b = 0; b < g->n; b++)
		ls->innermost[b] = NV_NONE;
	for (unsigned l = 0; l < ls->n; l++) {
		struct nv_loop *lp = &ls->v[l];

		lp->parent = NV_NONE;
		for (unsigned k = l; k-- > 0;)
			if (nv_loop_contains(ls, k, lp->header) &&
			    (lp->parent == NV_NONE || ls->v[k].nblocks < ls->v[lp->parent].nblocks))
				lp->parent = k;
		lp->depth = lp->parent == NV_NONE ? 1 : ls->v[lp->parent].depth + 1;
		if (lp->parent != NV_NONE)
			ls->v[lp->parent].nchildren++;
		for (unsigned i = 0; i < lp->nblocks; i++)
			ls->innermost[lp->blocks[i]] = l; /* later loops are smaller: innermost wins */
		edges(ls, l);
	}
}

int
nv_loop_is_simplified(const struct nv_loops *ls, unsigned l)
{
	const struct nv_cfg *g = ls->cfg;
	const struct nv_loop *lp = &ls->v[l];

	if (lp->preheader == NV_NONE || lp->nlatches != 1)
		return 0;
	for (unsigned i = 0; i < lp->nexits; i++) {
		unsigned x = lp->exits[i];

		for (unsigned e = g->pred_off[x]; e < g->pred_off[x + 1]; e++)
			if (!nv_loop_contains(ls, l, g->pred[e]))
				return 0;
	}
	return 1;
}

int
nv_loop_is_lcssa(const struct nv_loops *ls, unsigned l)
{
	const struct nv_cfg *g = ls->cfg;
	const struct nv_loop *lp = &ls->v[l];

	for (unsigned i = 0; i < lp->nblocks; i++)
		for (LLVMValueRef v = LLVMGetFirstInstruction(g->bb[lp->blocks[i]]); v;
		     v = LLVMGetNextInstruction(v))
			for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
				LLVMValueRef user = LLVMGetUser(u);
				unsigned ub;

				if (!LLVMIsAInstruction(user))
					continue;
				ub = nv_cfg_index(g, LLVMGetInstructionParent(user));
				if (ub == NV_NONE || nv_loop_contains(ls, l, ub) || !nv_cfg_reachable(g, ub))
					continue;
				/* a phi in an exit block, reached from inside, is the LCSSA form */
				if (LLVMGetInstructionOpcode(user) != LLVMPHI)
					return 0;
				for (unsigned k = 0; k < LLVMCountIncoming(user); k++)
					if (LLVMGetIncomingValue(user, k) == v &&
					    !nv_loop_contains(ls, l, nv_cfg_index(g, LLVMGetIncomingBlock(user, k))))
						return 0;
			}
	return 1;
}

void
nv_loops_release(struct nv_loops *ls)
{
	for (unsigned l = 0; l < ls->n; l++) {
		free(ls->v[l].blocks);
		free(ls->v[l].latches);
		free(ls->v[l].exiting);
		free(ls->v[l].exits);
	}
	free(ls->v);
	free(ls->innermost);
	memset(ls, 0, sizeof(*ls));
}

/* llvm.loop metadata */

static unsigned
loop_kind(LLVMContextRef ctx)
{
	return LLVMGetMDKindIDInContext(ctx, "llvm.loop", 9);
}

LLVMValueRef
nv_loop_latch_term(const struct nv_loops *ls, unsigned l)
{
	const struct nv_loop *lp = &ls->v[l];

	return lp->nlatches == 1 ? LLVMGetBasicBlockTerminator(ls->cfg->bb[lp->latches[0]]) : NULL;
}

/* The operands of t's llvm.loop node (as values), or NULL. */
static LLVMValueRef *
loop_props(LLVMValueRef t, unsigned *n)
{
	LLVMValueRef id, *ops;

	*n = 0;
	if (!t)
		return NULL;
	id = LLVMGetMetadata(t, loop_kind(LLVMGetTypeContext(LLVMTypeOf(t))));
	if (!id)
		return NULL;
	*n = LLVMGetMDNodeNumOperands(id);
	ops = xcalloc(*n ? *n : 1, sizeof(*ops));
	LLVMGetMDNodeOperands(id, ops);
	return ops;
}

/* The name of a property node (its first operand, an MDString), or NULL. */
static const char *
prop_name(LLVMValueRef op, unsigned *len)
{
	LLVMValueRef *sub;
	unsigned k;
	const char *s;

	if (!op || !LLVMIsAMDNode(op) || (k = LLVMGetMDNodeNumOperands(op)) < 1)
		return NULL;
	sub = xcalloc(k, sizeof(*sub));
	LLVMGetMDNodeOperands(op, sub);
	s = sub[0] ? LLVMGetMDString(sub[0], len) : NULL;
	free(sub);
	return s;
}

/* The property node called name among ops[1..], or NULL. */
static LLVMValueRef
find_prop(LLVMValueRef *ops, unsigned n, const char *name)
{
	for (unsigned i = 1; i < n; i++) {
		unsigned len;
		const char *s = prop_name(ops[i], &len);

		if (s && len == strlen(name) && !memcmp(s, name, len))
			return ops[i];
	}
	return NULL;
}

int
nv_md_loop_int(LLVMValueRef t, const char *name, int64_t *out)
{
	unsigned n;
	LLVMValueRef *ops = loop_props(t, &n), p, two[2];
	int found = 0;

	p = ops ? find_prop(ops, n, name) : NULL;
	if (p && LLVMGetMDNodeNumOperands(p) == 2) {
		LLVMGetMDNodeOperands(p, two);
		if (two[1] && LLVMIsAConstantInt(two[1])) {
			*out = LLVMConstIntGetSExtValue(two[1]);
			found = 1;
		}
	}
	free(ops);
	return found;
}

int
nv_md_loop_has(LLVMValueRef t, const char *name)
{
	unsigned n;
	LLVMValueRef *ops = loop_props(t, &n);
	int found = ops && find_prop(ops, n, name);

	free(ops);
	return found;
}

/* Give loop l a new llvm.loop node: the old properties except those whose
 * name starts with drop (and the one called add_name), then the property
 * add (if any).  With no properties left the metadata goes. */
static int
rebuild(LLVMValueRef t, const char *drop, const char *add_name, LLVMMetadataRef add)
{
	LLVMValueRef *ops;
	LLVMContextRef ctx;
	LLVMMetadataRef *md, tmp, id;
	unsigned n, k = 1;

	if (!t)
		return -1;
	ctx = LLVMGetTypeContext(LLVMTypeOf(t));
	ops = loop_props(t, &n);
	md = xcalloc(n + 2, sizeof(*md));
	for (unsigned i = 1; i < n; i++) {
		unsigned len;
		const char *s = prop_name(ops[i], &len);

		if (!ops[i] || (s && drop && len >= strlen(drop) && !memcmp(s, drop, strlen(drop))) ||
		    (s && add_name && len == strlen(add_name) && !memcmp(s, add_name, len)))
			continue;
		md[k++] = LLVMValueAsMetadata(ops[i]);
	}
	if (add)
		md[k++] = add;
	if (k == 1) {
		LLVMSetMetadata(t, loop_kind(ctx), NULL);
	} else {
		/* A loop id is distinct and refers to itself: build it on a temporary. */
		tmp = LLVMTemporaryMDNode(ctx, NULL, 0);
		md[0] = tmp;
		id = LLVMMDNodeInContext2(ctx, md, k);
		LLVMMetadataReplaceAllUsesWith(tmp, id);
		LLVMSetMetadata(t, loop_kind(ctx), LLVMMetadataAsValue(ctx, id));
	}
	free(md);
	free(ops);
	return 0;
}

int
nv_md_loop_set(LLVMValueRef t, const char *name, int has_value, int32_t value)
{
	LLVMContextRef ctx;
	LLVMMetadataRef pv[2];

	if (!t)
		return -1;
	ctx = LLVMGetTypeContext(LLVMTypeOf(t));
	pv[0] = LLVMMDStringInContext2(ctx, name, strlen(name));
	if (has_value)
		pv[1] = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), (unsigned)value, 1));
	return rebuild(t, NULL, name, LLVMMDNodeInContext2(ctx, pv, has_value ? 2 : 1));
}

int
nv_md_loop_remove(LLVMValueRef t, const char *prefix)
{
	return rebuild(t, prefix, NULL, NULL);
}

int
nv_loop_md_int(const struct nv_loops *ls, unsigned l, const char *name, int64_t *out)
{
	return nv_md_loop_int(nv_loop_latch_term(ls, l), name, out);
}

int
nv_loop_md_has(const struct nv_loops *ls, unsigned l, const char *name)
{
	return nv_md_loop_has(nv_loop_latch_term(ls, l), name);
}

int
nv_loop_md_set(const struct nv_loops *ls, unsigned l, const char *name, int has_value,
               int32_t value)
{
	return nv_md_loop_set(nv_loop_latch_term(ls, l), name, has_value, value);
}

int
nv_loop_md_remove(const struct nv_loops *ls, unsigned l, const char *prefix)
{
	return nv_md_loop_remove(nv_loop_latch_term(ls, l), prefix);
}

void
nv_fn_loops_build(struct nv_fn_loops *a, LLVMValueRef fn)
{
	nv_cfg_build(&a->g, fn);
	nv_dom_build(&a->d, &a->g, 0);
	nv_loops_build(&a->ls, &a->g, &a->d);
}

void
nv_fn_loops_release(struct nv_fn_loops *a)
{
	nv_loops_release(&a->ls);
	nv_dom_release(&a->d);
	nv_cfg_release(&a->g);
}

static int
inst_srcloc(LLVMValueRef in, struct nv_srcloc *loc)
{
	unsigned len = 0;

	if (!in)
		return 0;
	loc->file = LLVMGetDebugLocFilename(in, &len);
	loc->len = len;
	loc->line = LLVMGetDebugLocLine(in);
	loc->col = LLVMGetDebugLocColumn(in);
	return loc->file && loc->len && loc->line;
}

int
nv_loop_srcloc(const struct nv_loops *ls, unsigned l, struct nv_srcloc *loc)
{
	const struct nv_loop *lp = &ls->v[l];
	unsigned n;
	LLVMValueRef *ops = loop_props(nv_loop_latch_term(ls, l), &n);
	int found = 0;

	memset(loc, 0, sizeof(*loc));
	for (unsigned i = 1; i < n && !found; i++) {
		LLVMMetadataRef md, file;
		unsigned len = 0;

		if (!ops[i] || !LLVMIsAMDNode(ops[i]))
			continue;
		md = LLVMValueAsMetadata(ops[i]);
		if (LLVMGetMetadataKind(md) != LLVMDILocationMetadataKind)
			continue;
		file = LLVMDIScopeGetFile(LLVMDILocationGetScope(md));
		if (!file)
			continue;
		loc->file = LLVMDIFileGetFilename(file, &len);
		loc->len = len;
		loc->line = LLVMDILocationGetLine(md);
		loc->col = LLVMDILocationGetColumn(md);
		found = loc->line != 0;
	}
	free(ops);
	if (!found && lp->preheader != NV_NONE)
		found = inst_srcloc(LLVMGetBasicBlockTerminator(ls->cfg->bb[lp->preheader]), loc);
	if (!found)
		found = inst_srcloc(LLVMGetBasicBlockTerminator(ls->cfg->bb[lp->header]), loc);
	return found;
}
