#ifndef NV_IR_LOOPS_H
#define NV_IR_LOOPS_H
/*
 * loops: natural loops, as LLVM's LoopInfo finds them.  A back edge is an
 * edge t -> h where h dominates t; a loop is its header h and every block
 * that reaches one of h's back edges without passing h.  Loops that share
 * a header are one loop.  Loops are listed outermost first, each after its
 * parent; blocks of a loop are in function order.  Irreducible cycles are
 * not loops.  Read-only: rebuild after changing the CFG.
 */
#include <stdint.h>

#include <llvm-c/Types.h>

#include "../base/remarks.h"
#include "cfg.h"
#include "dom.h"

struct nv_loop {
	unsigned header, parent, depth; /* parent: loop index or NV_NONE; depth 1 = outermost */
	unsigned *blocks, nblocks;      /* in function order */
	unsigned *latches, nlatches;    /* blocks with a back edge to the header */
	unsigned *exiting, nexiting;    /* blocks in the loop with a successor outside */
	unsigned *exits, nexits;        /* blocks outside with a predecessor inside (unique) */
	unsigned preheader;             /* the single outside predecessor of the header, if it
	                                   branches only to the header; else NV_NONE */
	unsigned nchildren;
};

struct nv_loops {
	const struct nv_cfg *cfg;
	struct nv_loop *v;
	unsigned n;
	unsigned *innermost; /* block -> innermost loop containing it, or NV_NONE */
};

/* Find the loops of g (d must be its dominator tree). */
void nv_loops_build(struct nv_loops *ls, const struct nv_cfg *g, const struct nv_dom *d);
/* True if loop l contains block b. */
int nv_loop_contains(const struct nv_loops *ls, unsigned l, unsigned b);
/* Loop-simplify form: a preheader, one latch, and exits reached only from inside. */
int nv_loop_is_simplified(const struct nv_loops *ls, unsigned l);
/* LCSSA form: every use outside the loop of a value defined in it is a phi
 * in an exit block. */
int nv_loop_is_lcssa(const struct nv_loops *ls, unsigned l);
void nv_loops_release(struct nv_loops *ls);

/* A function's CFG, dominator tree and loops, built together. */
struct nv_fn_loops {
	struct nv_cfg g;
	struct nv_dom d;
	struct nv_loops ls;
};
void nv_fn_loops_build(struct nv_fn_loops *a, LLVMValueRef fn);
void nv_fn_loops_release(struct nv_fn_loops *a);

/* llvm.loop metadata, on the terminator of the loop's (single) latch. */

/* That terminator, or NULL when the loop has several latches. */
LLVMValueRef nv_loop_latch_term(const struct nv_loops *ls, unsigned l);

/* The value of an integer loop property ("llvm.loop.unroll.count"); 0 if absent. */
int nv_loop_md_int(const struct nv_loops *ls, unsigned l, const char *name, int64_t *out);
/* True if the loop has the property ("llvm.loop.unroll.disable"), with or without operand. */
int nv_loop_md_has(const struct nv_loops *ls, unsigned l, const char *name);
/* Set a property on the loop's llvm.loop node (creating it): with an i32
 * value, or none if has_value is 0.  Other properties are kept; a property
 * of the same name is replaced.  -1 if the loop has no single latch. */
int nv_loop_md_set(const struct nv_loops *ls, unsigned l, const char *name, int has_value,
                   int32_t value);
/* Remove every property whose name starts with prefix ("llvm.loop.unroll.");
 * the metadata goes when none is left.  -1 if the loop has no single latch. */
int nv_loop_md_remove(const struct nv_loops *ls, unsigned l, const char *prefix);

/* The same on any terminator t with an llvm.loop node (after unrolling, a
 * branch that is no longer a latch may still carry one); t may be NULL. */
int nv_md_loop_int(LLVMValueRef t, const char *name, int64_t *out);
int nv_md_loop_has(LLVMValueRef t, const char *name);
int nv_md_loop_set(LLVMValueRef t, const char *name, int has_value, int32_t value);
int nv_md_loop_remove(LLVMValueRef t, const char *prefix);

/* Where loop l starts in the source, as LLVM's Loop::getStartLoc: the first
 * DILocation of its llvm.loop node (clang puts the for/while there), else the
 * debug location of the preheader's or the header's terminator.  0 if none. */
int nv_loop_srcloc(const struct nv_loops *ls, unsigned l, struct nv_srcloc *loc);

#endif
