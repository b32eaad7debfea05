#ifndef NV_IR_INDVARS_H
#define NV_IR_INDVARS_H
/*
 * indvars: the basic induction variable that controls a loop's exit, and
 * how many times the back edge is taken (LLVM's backedge-taken count; the
 * trip count is one more).
 *
 * Handles a loop with one latch and one exiting block, that block being
 * the header (while form) or the latch (rotated do-while form, as clang's
 * loops are after loop-rotate), exiting on icmp of the IV (the header phi,
 * or its next value phi + C / phi - C) against a loop-invariant bound, with
 * any of <, <=, >, >=, == and !=, signed or unsigned, counting up or down.
 * Integers up to 64 bits.  The count is exact, computed in the IV's width;
 * where the IV would wrap before the exit test fails it is unknown.  A
 * step that is loop-invariant but not a constant (i += blockDim.x, phi + S)
 * gives a symbolic count with step_value set and step 0: LLVM's SCEV can
 * still count it (by a division), cicc unrolls such loops at run time.
 */
#include <stdint.h>

#include <llvm-c/Core.h>

#include "loops.h"

enum nv_trip_kind {
	NV_TRIP_UNKNOWN,
	NV_TRIP_CONST,    /* btc is exact */
	NV_TRIP_SYMBOLIC, /* start/bound are loop-invariant values, not both constant */
};

struct nv_trip {
	enum nv_trip_kind kind;
	const char *why;      /* for UNKNOWN: what shape was not understood */
	LLVMValueRef iv;      /* the header phi */
	LLVMValueRef start;   /* its value on entry */
	LLVMValueRef bound;   /* what it is compared with */
	int64_t step;         /* 0 where step_value is set */
	LLVMValueRef step_value; /* a loop-invariant step that is not a constant */
	LLVMIntPredicate pred; /* the loop continues while (iv or iv+step) pred bound */
	int on_next;          /* the test sees iv + step */
	unsigned width;
	uint64_t btc;         /* backedge-taken count, for CONST */
	uint64_t max_btc;     /* an upper bound on it, when has_max */
	int has_max;
	uint64_t multiple;    /* the trip count is a multiple of this */
	unsigned exiting;     /* the exiting block */
	unsigned side_exits;  /* nv_trip_count_latch: exits besides the latch's count */
	int merged;           /* one of them is in the latch's test, or'ed with the IV's */
	int may_wrap;         /* SYMBOLIC: a relational test on an IV stepping by a constant
	                         other than +/-1 whose add has no no-wrap flag for the test
	                         (nsw for a signed one, nuw or nsw for an unsigned one): the
	                         count assumes the IV does not wrap past the bound, which
	                         LLVM's SCEV does not (Unpredictable) on a loop that is not
	                         mustprogress */
	int nuw_only;         /* SYMBOLIC: such an IV under an unsigned test, its add nuw but
	                         not nsw: the nuw LLVM infers on clang's mustprogress loops
	                         (unsigned i += 32), which cicc's loops are not */
};

/* Analyse loop l.  Returns t->kind. */
enum nv_trip_kind nv_trip_count(const struct nv_loops *ls, unsigned l, struct nv_trip *t);

/* Like nv_trip_count, but a loop with other exiting blocks besides its latch
 * is counted at the latch when that count is a constant (LLVM's unroller:
 * the latch exit's count, the other exits kept as branches), and so is a
 * latch that exits on (iv test) | (other test), merged says so (LLVM sees
 * only a maximum there).  The count is then the most iterations the loop
 * runs, side_exits says so; a symbolic count of such a loop is unknown. */
enum nv_trip_kind nv_trip_count_latch(const struct nv_loops *ls, unsigned l, struct nv_trip *t);

/* The signed range [lo, hi] of t's start as ScalarEvolution sees it from
 * the arithmetic alone (x & 31, x % 64 - 32, n & 255): a read of a special
 * register has no range here, as in cicc, where LLVM's reads carry one.
 * Returns 0 where nothing is known. */
int nv_trip_start_range(const struct nv_trip *t, int64_t *lo, int64_t *hi);

/*
 * The front end's wrap flags.  An integer add the front end left without
 * nsw or nuw (unsigned arithmetic: int i; i += blockDim.x) may get them
 * later from LLVM's range analyses (i < 256 and blockDim.x <= 1024 cannot
 * overflow), which cicc's passes do not infer: cicc counts no loop whose IV
 * steps by a run-time value through such an add, whatever its bound, and
 * leaves it rolled (i < 256: a block-stride loop zeroing shared memory).
 * nv_trip_mark_source_wrap marks each such add of m with metadata
 * NV_MD_SOURCE_WRAP, before the passes that infer flags (nv-opt's Phase I
 * does it); the trip count then treats a marked add as flagless.  Returns
 * how many it marked.
 */
#define NV_MD_SOURCE_WRAP "nv.src.wrap"
unsigned nv_trip_mark_source_wrap(LLVMModuleRef m);
/* Drop every such mark: the flags LLVM inferred are believed again. */
void nv_trip_forget_source_wrap(LLVMModuleRef m);

#endif
