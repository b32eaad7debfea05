#include "dom.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "../base/util.h"

/* The graph the algorithm walks: forward CFG, or reverse CFG plus the
 * virtual exit, in reverse post-order of that graph. */
struct view {
	unsigned n; /* nodes, the virtual exit included */
	unsigned *order, norder; /* RPO */
	unsigned *num;           /* node -> position in order */
	unsigned *pred_off, *pred; /* predecessors in the walked graph */
};

static void
forward_view(struct view *v, const struct nv_cfg *g)
{
	v->n = g->n;
	v->order = g->rpo;
	v->norder = g->nrpo;
	v->num = g->rpo_num;
	v->pred_off = g->pred_off;
	v->pred = g->pred;
}

/* Reverse graph: node n is the exit, the successor of every block without
 * successors; preds in it are the CFG's successors. */
static void
reverse_view(struct view *v, const struct nv_cfg *g)
{
	unsigned n = g->n + 1, nexit = 0, top = 0, k;
	unsigned *stack, *iter;
	char *seen;

	for (unsigned b = 0; b < g->n; b++)
		nexit += nv_cfg_nsucc(g, b) == 0;
	v->n = n;
	v->pred_off = xcalloc(n + 1, sizeof(unsigned));
	v->pred = xmalloc((g->succ_off[g->n] + nexit + 1) * sizeof(unsigned));
	k = 0;
	for (unsigned b = 0; b < g->n; b++) {
		v->pred_off[b] = k;
		for (unsigned i = g->succ_off[b]; i < g->succ_off[b + 1]; i++)
			v->pred[k++] = g->succ[i];
		if (nv_cfg_nsucc(g, b) == 0)
			v->pred[k++] = g->n;
	}
	v->pred_off[g->n] = v->pred_off[n] = k; /* the exit has no predecessor */
	/* successors in the reverse graph = CFG predecessors (+ exit -> sinks) */
	v->order = xmalloc(n * sizeof(unsigned));
	v->num = xmalloc(n * sizeof(unsigned));
	stack = xmalloc(n * sizeof(unsigned));
	iter = xcalloc(n, sizeof(unsigned));
	seen = xcalloc(n, 1);
	for (unsigned b = 0; b < n; b++)
		v->num[b] = NV_NONE;
	k = n;
	stack[top++] = g->n;
	seen[g->n] = 1;
	while (top) {
		unsigned b = stack[top - 1], s = NV_NONE;

		if (b == g->n) {
			while (iter[b] < g->n && s == NV_NONE) {
				unsigned c = iter[b]++;

				if (nv_cfg_nsucc(g, c) == 0 && !seen[c])
					s = c;
			}
		} else {
			while (iter[b] < nv_cfg_npred(g, b) && s == NV_NONE) {
				unsigned c = g->pred[g->pred_off[b] + iter[b]++];

				if (!seen[c])
					s = c;
			}
		}
		if (s != NV_NONE) {
			seen[s] = 1;
			stack[top++] = s;
			continue;
		}
		top--;
		v->order[--k] = b;
	}
	v->norder = n - k;
	memmove(v->order, v->order + k, v->norder * sizeof(unsigned));
	for (unsigned i = 0; i < v->norder; i++)
		v->num[v->order[i]] = i;
	free(stack);
	free(iter);
	free(seen);
}

static unsigned
intersect(const struct view *v, const unsigned *idom, unsigned a, unsigned b)
{
	while (a != b) {
		while (v->num[a] > v->num[b])
			a = idom[a];
		while (v->num[b] > v->num[a])
			b = idom[b];
	}
	return a;
}

/* DFS numbering of the tree for constant-time dominance queries. */
static void
number_tree(struct nv_dom *d, unsigned n)
{
	unsigned *child_off = xcalloc(n + 1, sizeof(unsigned)), *child = xmalloc(n * sizeof(unsigned));
	unsigned *fill = xcalloc(n, sizeof(unsigned)), *stack = xmalloc(2 * n * sizeof(unsigned));
	unsigned top = 0, clock = 0;

	for (unsigned b = 0; b < n; b++)
		if (d->idom[b] != NV_NONE && b != d->root)
			child_off[d->idom[b] + 1]++;
	for (unsigned b = 0; b < n; b++)
		child_off[b + 1] += child_off[b];
	for (unsigned b = 0; b < n; b++)
		if (d->idom[b] != NV_NONE && b != d->root)
			child[child_off[d->idom[b]] + fill[d->idom[b]]++] = b;
	d->in = xmalloc(n * sizeof(unsigned));
	d->out = xmalloc(n * sizeof(unsigned));
	for (unsigned b = 0; b < n; b++)
		d->in[b] = d->out[b] = NV_NONE;
	stack[top++] = d->root;
	stack[top++] = child_off[d->root];
	d->in[d->root] = clock++;
	while (top) {
		unsigned b = stack[top - 2], *i = &stack[top - 1];

		if (*i < child_off[b + 1]) {
			unsigned c = child[(*i)++];

			d->in[c] = clock++;
			stack[top++] = c;
			stack[top++] = child_off[c];
			continue;
		}
		d->out[b] = clock++;
		top -= 2;
	}
	free(child_off);
	free(child);
	free(fill);
	free(stack);
}

void
nv_dom_build(struct nv_dom *d, const struct nv_cfg *g, int post)
{
	struct view v;
	int changed = 1;

	memset(d, 0, sizeof(*d));
	d->cfg = g;
	d->post = post;
	if (post)
		reverse_view(&v, g);
	else
		forward_view(&v, g);
	d->root = post ? g->n : 0;
	d->idom = xmalloc((v.n ? v.n : 1) * sizeof(unsigned));
	for (unsigned b = 0; b < v.n; b++)
		d->idom[b] = NV_NONE;
	if (v.n == 0)
		goto out;
	d->idom[d->root] = d->root;
	while (changed) {
		changed = 0;
		for (unsigned i = 1; i < v.norder; i++) {
			unsigned b = v.order[i], nidom = NV_NONE;

			for (unsigned e = v.pred_off[b]; e < v.pred_off[b + 1]; e++) {
				unsigned p = v.pred[e];

				if (d->idom[p] == NV_NONE)
					continue;
				nidom = nidom == NV_NONE ? p : intersect(&v, d->idom, p, nidom);
			}
			if (nidom != NV_NONE && d->idom[b] != nidom) {
				d->idom[b] = nidom;
				changed = 1;
			}
		}
	}
	number_tree(d, v.n);
out:
	if (post) {
		free(v.order);
		free(v.num);
		free(v.pred_off);
		free(v.pred);
	}
}

int
nv_dom_dominates(const struct nv_dom *d, unsigned a, unsigned b)
{
	if (d->in[a] == NV_NONE || d->in[b] == NV_NONE)
		return 0;
	return d->in[a] <= d->in[b] && d->out[b] <= d->out[a];
}

int
nv_dom_inst_dominates(const struct nv_dom *d, LLVMValueRef a, LLVMValueRef b)
{
	LLVMBasicBlockRef ab = LLVMGetInstructionParent(a), bb = LLVMGetInstructionParent(b);

	if (ab != bb)
		return nv_dom_dominates(d, nv_cfg_index(d->cfg, ab), nv_cfg_index(d->cfg, bb));
	for (LLVMValueRef i = a; i; i = LLVMGetNextInstruction(i))
		if (i == b)
			return 1;
	return 0;
}

void
nv_dom_release(struct nv_dom *d)
{
	free(d->idom);
	free(d->in);
	free(d->out);
	memset(d, 0, sizeof(*d));
}
