#ifndef NV_STAGES_UNSWITCH_H
#define NV_STAGES_UNSWITCH_H
/*
 * loop-unswitch: a loop that branches on a loop-invariant condition every
 * thread of a warp agrees on (a kernel argument, a block index, values
 * computed from them) becomes one loop per value, as cicc's LoopUnswitch
 * does; conditions that may differ between threads stay in the loop.
 */
#include <llvm-c/Types.h>

/* The pass loop-unswitch (in nv-opt pipelines); returns how many loop
 * conditions were unswitched. */
unsigned nv_unswitch(LLVMModuleRef m);

#endif
