#ifndef NV_IR_LIVENESS_H
#define NV_IR_LIVENESS_H
/*
 * liveness: which SSA values are live into and out of each block, as
 * bitvectors, and the register pressure that follows.
 *
 * Values are the function's arguments and the instructions that produce
 * one (allocas aside: they are stack slots, not registers).  The sets hold
 * only the values that cross a block boundary (arguments, phi operands and
 * values used outside their block): a value used only where it is defined
 * is in no live-in or live-out set, so it takes no room there; the
 * pressure walk counts it all the same.  A phi's
 * operand is used at the end of its incoming block; a phi is defined at
 * the top of its own.  So live_in(B) = use(B) | (live_out(B) - def(B)) and
 * live_out(B) = union over successors S of live_in(S) | phi_uses(S, B).
 * Unreachable blocks have empty sets.
 *
 * Register units: 32-bit registers a value needs (64-bit values and
 * pointers take 2, vectors their size); i1 values are predicates, counted
 * apart.  Pointer sizes come from the module's data layout.
 */
#include <stdint.h>

#include <llvm-c/Target.h>
#include <llvm-c/Types.h>

#include "../base/ptrmap.h"
#include "cfg.h"

struct nv_liveness {
	const struct nv_cfg *cfg;
	unsigned nvals, words;  /* values that cross blocks; 64-bit words per set */
	LLVMValueRef *val;      /* index -> value */
	struct nv_ptrmap index; /* value -> index */
	unsigned char *units;   /* register units per value (0 for predicates) */
	unsigned char *pred;    /* 1 for i1 values */
	unsigned nlocals;       /* values used only in their own block */
	struct nv_ptrmap local; /* value -> local index */
	unsigned char *local_units, *local_pred, *local_live;
	uint64_t *in, *out;     /* cfg->n sets of `words` words */
	unsigned *block_max;    /* most values live at a point between instructions of the block */
	unsigned *block_max_units;
	unsigned max_live, max_units, max_preds; /* over the function */
};

/* The most memory the live sets of one function may take (dense
 * bitvectors: blocks x crossing values x 2 bits). */
#define NV_LIVENESS_MAX_BYTES ((size_t)256 << 20)

/* Compute liveness for g's function; td is the module's data layout.
 * Returns 0, or -1 (lv empty, safe to release) when the sets would need more
 * than NV_LIVENESS_MAX_BYTES: *need then says how many. */
int nv_liveness_build(struct nv_liveness *lv, const struct nv_cfg *g, LLVMTargetDataRef td,
                      size_t *need);
/* True if value index v is in set s (a block's in or out). */
int nv_live_has(const struct nv_liveness *lv, const uint64_t *s, unsigned v);
/* The live-in / live-out set of block b. */
const uint64_t *nv_live_in(const struct nv_liveness *lv, unsigned b);
const uint64_t *nv_live_out(const struct nv_liveness *lv, unsigned b);
/* Number of values, and their register units, in a set. */
unsigned nv_live_count(const struct nv_liveness *lv, const uint64_t *s);
unsigned nv_live_units(const struct nv_liveness *lv, const uint64_t *s);
/* The most register units live into one block (the pressure cicc's remat
 * reads), and in *at (when not NULL, and the most is not 0) the first block
 * where that many are. */
unsigned nv_live_max_in(const struct nv_liveness *lv, unsigned *at);
/* Register units a value of type ty needs (0 for i1 and void). */
unsigned nv_type_units(LLVMTargetDataRef td, LLVMTypeRef ty);
/* The point of the function where the most register units are live: its
 * block, the instruction they are live just before (NULL: the block's top,
 * after its phis; its terminator: live out of it), and the values (crossing
 * and local) live there, which the caller frees.  Returns 0, or -1 for a
 * function with no block. */
struct nv_live_peak {
	unsigned block, units;
	LLVMValueRef before;
	LLVMValueRef *val;
	size_t n;
};
int nv_live_peak(struct nv_liveness *lv, struct nv_live_peak *pk);
/* Check the equations on every block; 0, or -1 with the block in *bad. */
int nv_liveness_check(const struct nv_liveness *lv, unsigned *bad);
void nv_liveness_release(struct nv_liveness *lv);

#endif
