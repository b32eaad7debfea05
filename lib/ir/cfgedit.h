#ifndef NV_IR_CFGEDIT_H
#define NV_IR_CFGEDIT_H
/*
 * cfgedit: CFG surgery that LLVM-C lacks.  Every function keeps the IR
 * valid: phis are updated whenever an edge disappears.
 */
#include <llvm-c/Types.h>

/* Drop the incoming entries of bb's phis for the edge from pred, keeping
 * the first `keep` of them (a br with both targets equal has two). */
void nv_phi_drop_edge(LLVMBasicBlockRef bb, LLVMBasicBlockRef pred, unsigned keep);
/* The value phi takes on the edge from pred (the first such entry), or NULL. */
LLVMValueRef nv_phi_incoming(LLVMValueRef phi, LLVMBasicBlockRef pred);
/* Turn a br/switch of bb on a constant into an unconditional br; 1 if changed. */
int nv_cfg_fold_terminator(LLVMBasicBlockRef bb);
/* Delete the blocks of fn not reachable from its entry; for each, before it
 * goes, call on_delete(block, index in the function, arg).  Returns how many. */
unsigned nv_cfg_delete_unreachable(LLVMValueRef fn,
                                   void (*on_delete)(LLVMBasicBlockRef, unsigned, void *),
                                   void *arg);
/* Does i compute a value from its operands and do nothing else: no memory,
 * no call, nothing that can trap (no division)?  Phis included. */
int nv_cfg_pure(LLVMValueRef i);
/* The name of the function call instruction i calls directly, or NULL
 * (not a call, or an indirect one). */
const char *nv_cfg_callee_name(LLVMValueRef i);
/* Is i a call of llvm.lifetime.start or llvm.lifetime.end? */
int nv_cfg_lifetime_marker(LLVMValueRef i);
/* Is i a read of a PTX special register (llvm.nvvm.read.ptx.sreg.*)
 * whose value is the same wherever the thread reads it (tid, ctaid, the
 * dimensions, laneid, ...; not clock, globaltimer, smid or warpid),
 * writing nothing? */
int nv_cfg_sreg_read(LLVMValueRef i);
/* Move instruction i, keeping its name, to just before `before` (in the
 * same function; the caller keeps operands dominating). */
void nv_cfg_move_before(LLVMValueRef i, LLVMValueRef before);
/* Erase instructions without uses or side effects until none is left; count. */
unsigned nv_cfg_erase_dead(LLVMValueRef fn);
/* Fold (nv_fold) every instruction of fn that folds, until none does; count. */
unsigned nv_cfg_fold_all(LLVMValueRef fn);
/* Call fn on each function m defines, with one builder for them all; the
 * sum of what it returns. */
unsigned nv_cfg_each_defined(LLVMModuleRef m, unsigned (*fn)(LLVMValueRef f, LLVMBuilderRef b));
/* The pass thread-cleanup-dests: every edge into a block of only phis and a
 * br or switch on a phi of constants (clang's cleanup destinations) goes
 * straight to the successor its constant picks, where that successor does
 * not dominate the block.  Returns how many edges. */
unsigned nv_cfg_thread_cleanup_dests(LLVMModuleRef m);

#endif
