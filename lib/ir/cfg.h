#ifndef NV_IR_CFG_H
#define NV_IR_CFG_H
/*
 * cfg: a function's control-flow graph as indices.  Blocks are numbered
 * in function order (0 is the entry); successors and predecessors are
 * arrays (a predecessor with two edges to a block appears twice, as in
 * LLVM); rpo lists the reachable blocks in reverse post-order.
 * Read-only: rebuild after changing the CFG.
 */
#include <llvm-c/Types.h>

#include "../base/ptrmap.h"

struct nv_cfg {
	LLVMValueRef fn;
	unsigned n;
	LLVMBasicBlockRef *bb;
	unsigned *succ_off, *succ; /* successors of b: succ[succ_off[b] .. succ_off[b+1]) */
	unsigned *pred_off, *pred;
	unsigned *rpo, nrpo;       /* reachable blocks, reverse post-order */
	unsigned *rpo_num;         /* position in rpo, NV_NONE when unreachable */
	struct nv_ptrmap index;
};

/* Build the CFG of a function with a body. */
void nv_cfg_build(struct nv_cfg *g, LLVMValueRef fn);
/* The index of block b, or NV_NONE. */
unsigned nv_cfg_index(const struct nv_cfg *g, LLVMBasicBlockRef b);
/* True if b is reachable from the entry. */
int nv_cfg_reachable(const struct nv_cfg *g, unsigned b);
/* Mark in mark (g->n bytes) the blocks reachable from block from by one
 * edge or more, along successors or (backward) predecessors, not through
 * block avoid (NV_NONE: none), which is left unmarked; stack holds g->n + 1
 * entries.  from itself is marked only on a cycle. */
void nv_cfg_reach(const struct nv_cfg *g, unsigned from, int backward, unsigned avoid, unsigned char *mark,
                  unsigned *stack);
/* Every block's name as llvm-dis shows it ("%name", or "%N" for an unnamed
 * one), in one pass; free with nv_cfg_labels_free. */
char **nv_cfg_labels(const struct nv_cfg *g);
void nv_cfg_labels_free(const struct nv_cfg *g, char **labels);
/* One block's name as llvm-dis shows it (numbers its function: O(size)). */
char *nv_block_label(LLVMBasicBlockRef bb);
void nv_cfg_release(struct nv_cfg *g);

#define nv_cfg_nsucc(g, b) ((g)->succ_off[(b) + 1] - (g)->succ_off[b])
#define nv_cfg_npred(g, b) ((g)->pred_off[(b) + 1] - (g)->pred_off[b])

#endif
