#ifndef NV_IR_COST_H
#define NV_IR_COST_H
/*
 * cost: instruction costs for NVPTX, in the spirit of LLVM's CodeMetrics
 * and the NVPTX TTI: roughly issue slots, not latency.  Casts that are
 * register renames, phis and constant-offset GEPs (folded into [reg+imm]
 * addressing) are free; integer division, f32/f64 division and square root
 * are expensive; a call pays for its .param marshalling.
 */
#include <llvm-c/Types.h>

#include "loops.h"

/* The cost of one instruction. */
unsigned nv_cost_inst(LLVMValueRef inst);
/* The cost of a block. */
unsigned nv_cost_block(LLVMBasicBlockRef bb);
/* The cost of loop l's body: every block in it, nested loops included. */
unsigned nv_cost_loop(const struct nv_loops *ls, unsigned l);
/* What an unrolled copy does not repeat: the compare and branch of the back
 * edge (LLVM's BEInsns).  With it, cicc's 405 budget fully unrolls a 9-unit
 * body up to 57 iterations, exactly as cicc 13 does. */
#define NV_COST_LOOP_FIXED 2

#endif
