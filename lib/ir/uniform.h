#ifndef NV_IR_UNIFORM_H
#define NV_IR_UNIFORM_H
/*
 * uniform: which values of a function are the same in every thread of a
 * warp, as LLVM's UniformityAnalysis decides for NVPTX, conservatively (a
 * value it calls uniform may be called divergent here, never the reverse).
 * Sources of divergence: the thread and lane index (tid, laneid,
 * lanemask), the clocks, the arguments of a function that is not a kernel
 * (args_uniform 0), loads through generic or local pointers, atomics,
 * calls of anything but LLVM's intrinsics that compute from their operands
 * and a few NVVM ones (the fixed special registers).  A value computed from
 * a divergent one is divergent; a phi is divergent if a block with a
 * divergent branch reaches it, and a value defined in a loop with a
 * divergent branch is divergent where it is used outside that loop.
 * Read-only: rebuild after changing the function.
 */
#include <llvm-c/Types.h>

#include "../base/ptrmap.h"

struct nv_uniform {
	struct nv_ptrmap divergent; /* value -> 1 */
	LLVMValueRef fn;
	int args_uniform;
};

void nv_uniform_build(struct nv_uniform *u, LLVMValueRef fn, int args_uniform);
/* True if v (an instruction or argument of the function, or a constant) is uniform. */
int nv_uniform_is(const struct nv_uniform *u, LLVMValueRef v);
void nv_uniform_release(struct nv_uniform *u);

#endif
