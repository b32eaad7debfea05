#ifndef NV_FOLD_H
#define NV_FOLD_H
/*
 * fold: what an instruction evaluates to when its operands are known, for
 * the integer operations that conditions are built from (icmp, and, or,
 * xor, add, sub, mul, shifts, zext, sext, trunc, select, single-valued phi).
 * LLVM-C has no ConstantFoldInstruction; integers wider than 64 bits are
 * left alone.
 */
#include <llvm-c/Types.h>

/* The value inst can be replaced with (a constant, or an operand for a
 * select or phi), or NULL when it does not fold. */
LLVMValueRef nv_fold(LLVMValueRef inst);

#endif
