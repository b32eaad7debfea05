#ifndef NV_STAGES_SELECT_H
#define NV_STAGES_SELECT_H
/*
 * select: select formation, run by name from pipeline text (stdpipe), and
 * single-bit tests in the shape NVPTX selects well (nv-llc, before selection).
 */
#include <llvm-c/Types.h>

/* select-formation over every function of m: a block (not a loop header)
 * whose phis all choose between the same two sets of values, each value
 * computed before the branches that lead there (a compare-exchange
 * "if (b < a) swap(a, b)" with its payload), gets one i1 phi saying which
 * set came in, and its phis become selects on it; a remark per block.  A
 * function so changed then gets SimplifyCFG and InstSimplify, which fold
 * that i1 phi into the branch's condition and the branch away (the other
 * functions are left exactly as they were).  Under -nv-select-formation=1
 * (the default) only where one conditional branch decides, at 2 at any
 * join; at least -nv-select-formation-min-phis phis; under a float compare
 * two at most unless -nv-select-formation-fcmp.  Nothing at 0.  Returns
 * the number of phis replaced. */
unsigned nv_select_formation(LLVMModuleRef m);

/* Bit tests in the shape NVPTX's instruction selection compiles well (run
 * by nv-llc just before it): a single-bit test (x & 4) != 0 whose every
 * user is a select on it or an xor with a compare becomes (x & 4) == 0,
 * the selects' arms swapped and the compares inverted.  Selection turns
 * the != 0 form into a shift, a mask and a compare (shr, and, setp.ne),
 * where the == 0 form is a mask and a compare, as cicc's PTX has it
 * (bench's bitonic_sort_shared: a shift in each of its 55 stages).  Under
 * -nv-bit-test-eq=0 nothing.  Returns the number of tests rewritten. */
unsigned nv_select_bit_tests(LLVMModuleRef m);

#endif
