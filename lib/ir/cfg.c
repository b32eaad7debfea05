#include "cfg.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "../base/util.h"

static void
compute_rpo(struct nv_cfg *g)
{
	/* Iterative DFS: (block, next successor) frames. */
	unsigned *stack = xmalloc(2 * (g->n + 1) * sizeof(*stack)), top = 0, k = g->n;
	char *seen = xcalloc(g->n ? g->n : 1, 1);

	g->rpo = xmalloc((g->n ? g->n : 1) * sizeof(*g->rpo));
	g->rpo_num = xmalloc((g->n ? g->n : 1) * sizeof(*g->rpo_num));
	for (unsigned b = 0; b < g->n; b++)
		g->rpo_num[b] = NV_NONE;
	if (g->n) {
		stack[top++] = 0;
		stack[top++] = g->succ_off[0];
		seen[0] = 1;
	}
	while (top) {
		unsigned b = stack[top - 2], *i = &stack[top - 1];

		if (*i < g->succ_off[b + 1]) {
			unsigned s = g->succ[(*i)++];

			if (!seen[s]) {
				seen[s] = 1;
				stack[top++] = s;
				stack[top++] = g->succ_off[s];
			}
			continue;
		}
		top -= 2;
		g->rpo[--k] = b;
	}
	/* rpo was filled from the end: shift the reachable part to the front. */
	g->nrpo = g->n - k;
	memmove(g->rpo, g->rpo + k, g->nrpo * sizeof(*g->rpo));
	for (unsigned i = 0; i < g->nrpo; i++)
		g->rpo_num[g->rpo[i]] = i;
	free(stack);
	free(seen);
}

void
nv_cfg_build(struct nv_cfg *g, LLVMValueRef fn)
{
	unsigned nedge = 0, *fill;

	memset(g, 0, sizeof(*g));
	g->fn = fn;
	g->n = LLVMCountBasicBlocks(fn);
	g->bb = xcalloc(g->n ? g->n : 1, sizeof(*g->bb));
	LLVMGetBasicBlocks(fn, g->bb);
	nv_ptrmap_init(&g->index, g->n);
	for (unsigned b = 0; b < g->n; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);

		nv_ptrmap_put(&g->index, g->bb[b], b);
		nedge += t ? LLVMGetNumSuccessors(t) : 0;
	}
	g->succ_off = xcalloc(g->n + 1, sizeof(unsigned));
	g->pred_off = xcalloc(g->n + 1, sizeof(unsigned));
	g->succ = xmalloc((nedge ? nedge : 1) * sizeof(unsigned));
	g->pred = xmalloc((nedge ? nedge : 1) * sizeof(unsigned));
	nedge = 0;
	for (unsigned b = 0; b < g->n; b++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);
		unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;

		g->succ_off[b] = nedge;
		for (unsigned k = 0; k < ns; k++) {
			unsigned s = nv_ptrmap_get(&g->index, LLVMGetSuccessor(t, k));

			g->succ[nedge++] = s;
			g->pred_off[s + 1]++;
		}
	}
	g->succ_off[g->n] = nedge;
	for (unsigned b = 0; b < g->n; b++)
		g->pred_off[b + 1] += g->pred_off[b];
	fill = xcalloc(g->n ? g->n : 1, sizeof(*fill));
	for (unsigned b = 0; b < g->n; b++)
		for (unsigned e = g->succ_off[b]; e < g->succ_off[b + 1]; e++) {
			unsigned s = g->succ[e];

			g->pred[g->pred_off[s] + fill[s]++] = b;
		}
	free(fill);
	compute_rpo(g);
}

unsigned
nv_cfg_index(const struct nv_cfg *g, LLVMBasicBlockRef b)
{
	return nv_ptrmap_get(&g->index, b);
}

int
nv_cfg_reachable(const struct nv_cfg *g, unsigned b)
{
	return g->rpo_num[b] != NV_NONE;
}

void
nv_cfg_reach(const struct nv_cfg *g, unsigned from, int backward, unsigned avoid, unsigned char *mark,
             unsigned *stack)
{
	unsigned top = 0;

	memset(mark, 0, g->n);
	stack[top++] = from;
	while (top) {
		unsigned b = stack[--top];
		const unsigned *e = backward ? g->pred + g->pred_off[b] : g->succ + g->succ_off[b];
		unsigned n = backward ? nv_cfg_npred(g, b) : nv_cfg_nsucc(g, b);

		for (unsigned k = 0; k < n; k++)
			if (e[k] != avoid && !mark[e[k]]) {
				mark[e[k]] = 1;
				stack[top++] = e[k];
			}
	}
}

/* LLVM's function-local slot numbering: unnamed arguments first, then
 * each unnamed block followed by its unnamed non-void instructions.  Calls
 * fn(block, label) for every block. */
static void
number_blocks(LLVMValueRef f, void (*fn)(LLVMBasicBlockRef, char *, void *), void *arg)
{
	unsigned slot = 0;
	size_t len;

	for (LLVMValueRef a = LLVMGetFirstParam(f); a; a = LLVMGetNextParam(a))
		slot += (LLVMGetValueName2(a, &len), len == 0);
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
		const char *name = LLVMGetBasicBlockName(b);

		fn(b, *name ? xasprintf("%%%s", name) : xasprintf("%%%u", slot++), arg);
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
			if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind &&
			    (LLVMGetValueName2(i, &len), len == 0))
				slot++;
	}
}

struct label_all {
	const struct nv_cfg *g;
	char **out;
};

static void
keep_label(LLVMBasicBlockRef b, char *label, void *arg)
{
	struct label_all *la = arg;

	la->out[nv_cfg_index(la->g, b)] = label;
}

char **
nv_cfg_labels(const struct nv_cfg *g)
{
	struct label_all la = { g, xcalloc(g->n ? g->n : 1, sizeof(char *)) };

	number_blocks(g->fn, keep_label, &la);
	return la.out;
}

void
nv_cfg_labels_free(const struct nv_cfg *g, char **labels)
{
	for (unsigned b = 0; labels && b < g->n; b++)
		free(labels[b]);
	free(labels);
}

struct label_one {
	LLVMBasicBlockRef want;
	char *label;
};

static void
find_label(LLVMBasicBlockRef b, char *label, void *arg)
{
	struct label_one *lo = arg;

	if (b == lo->want)
		lo->label = label;
	else
		free(label);
}

char *
nv_block_label(LLVMBasicBlockRef bb)
{
	struct label_one lo = { bb, NULL };

	number_blocks(LLVMGetBasicBlockParent(bb), find_label, &lo);
	return lo.label ? lo.label : xstrdup("%?");
}

void
nv_cfg_release(struct nv_cfg *g)
{
	free(g->bb);
	free(g->succ_off);
	free(g->succ);
	free(g->pred_off);
	free(g->pred);
	free(g->rpo);
	free(g->rpo_num);
	nv_ptrmap_release(&g->index);
	memset(g, 0, sizeof(*g));
}
