#ifndef NV_IR_FOLD_H
#define NV_IR_FOLD_H
/*
 * fold: what an instruction evaluates to when its operands are known, for
 * the integer operations that conditions are built from (icmp, and, or,
 * xor, add, sub, mul, shifts, zext, sext, trunc, select, single-valued phi).
 * LLVM-C has no ConstantFoldInstruction; integers wider than 64 bits are
 * left alone.
 */
#include <stdint.h>

#include <llvm-c/Core.h>

/* Integers of w <= 64 bits held zero-extended in a uint64_t. */

/* x masked to w bits. */
uint64_t nv_int_mask(uint64_t x, unsigned w);
/* x (w bits) sign-extended to 64. */
int64_t nv_int_sext(uint64_t x, unsigned w);
/* Whether "a pred b" holds for w-bit a and b. */
int nv_int_icmp(LLVMIntPredicate p, uint64_t a, uint64_t b, unsigned w);
/* a op b in w bits (add, sub, mul, and, or, xor, shifts, and the divisions
 * and remainders); 0 when op is none of those or the result is undefined
 * (division by zero, overflowing sdiv, oversized shift). */
int nv_int_binop(LLVMOpcode op, uint64_t a, uint64_t b, unsigned w, uint64_t *r);

/* The value inst can be replaced with (a constant, or an operand for a
 * select or phi), or NULL when it does not fold. */
LLVMValueRef nv_fold(LLVMValueRef inst);

#endif
