#ifndef NV_STAGES_VECTORIZE_H
#define NV_STAGES_VECTORIZE_H
/*
 * vectorize: GPU loop vectorization.  On a GPU a vectorized loop pays only
 * when its loads and stores become ld/st.v2/.v4, so the decision is ours:
 * innermost loops that are legal (one exit, a computable trip count, no
 * convergent calls, FP reductions only when reordering is allowed) get the
 * widest factor whose accesses fit 16 bytes (at most 4) within an
 * occupancy-bounded register estimate.  LLVM's loop-vectorize carries it
 * out, driven by llvm.loop.vectorize.* metadata.
 *
 * Alignment: a wide access that ptxas cannot prove aligned becomes scalar
 * loads again.  After LLVM's infer-alignment, each vector loop whose wide
 * accesses are still not aligned is versioned: vector.ph tests the address
 * of every such access in the first vector iteration, and branches to the
 * scalar loop when one is misaligned.  Every later iteration advances each
 * address by a multiple of its width, so the accesses are then marked
 * aligned.  A loop that can be neither proven nor versioned is left scalar.
 *
 * The work is tried on a copy of the module, and the loops LLVM would not
 * vectorize, or that would end in scalar loads, are taken out of the next
 * try; the module that comes back is the first try in which every decision
 * was carried out.
 */
#include <llvm-c/TargetMachine.h>

/* Vectorize *m's loops (at -O olevel, for sm_XX where sm > 0).  *m may be
 * replaced by a new module in the same context (the old one is disposed).
 * Returns 0, or -1 after reporting an error. */
int nv_vectorize_module(LLVMModuleRef *m, LLVMTargetMachineRef tm, int sm);

#endif
