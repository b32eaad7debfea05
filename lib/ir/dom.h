#ifndef NV_IR_DOM_H
#define NV_IR_DOM_H
/*
 * dom: dominator and post-dominator trees (Cooper, Harvey, Kennedy: "A
 * Simple, Fast Dominance Algorithm"), with O(1) dominance queries from DFS
 * numbers on the tree.  Unreachable blocks are in neither tree.  The
 * post-dominator tree has a virtual root (index cfg->n) joining every block
 * without successors, as LLVM's does.
 */
#include "cfg.h"

struct nv_dom {
	const struct nv_cfg *cfg;
	int post;
	unsigned root;  /* entry block, or the virtual exit cfg->n */
	unsigned *idom; /* immediate (post-)dominator; root's is itself; NV_NONE if not in the tree */
	unsigned *in, *out; /* DFS interval of each node on the tree */
};

/* Build the dominator tree (post = 0) or post-dominator tree (post = 1). */
void nv_dom_build(struct nv_dom *d, const struct nv_cfg *g, int post);
/* True if a (post-)dominates b; every block dominates itself. */
int nv_dom_dominates(const struct nv_dom *d, unsigned a, unsigned b);
/* True if instruction a dominates instruction b (of the dominator tree's
 * function): a's block dominates b's, or a is b or comes before it. */
int nv_dom_inst_dominates(const struct nv_dom *d, LLVMValueRef a, LLVMValueRef b);
void nv_dom_release(struct nv_dom *d);

#endif
