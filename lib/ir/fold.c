#include "fold.h"

#include <stddef.h>
#include <stdint.h>

/* An integer constant of at most 64 bits: its width and zero-extended bits. */
static int
const_int(LLVMValueRef v, unsigned *width, uint64_t *bits)
{
	if (!v || !LLVMIsAConstantInt(v))
		return 0;
	*width = LLVMGetIntTypeWidth(LLVMTypeOf(v));
	if (*width > 64)
		return 0;
	*bits = LLVMConstIntGetZExtValue(v);
	return 1;
}

int64_t
nv_int_sext(uint64_t x, unsigned w)
{
	return w >= 64 ? (int64_t)x : (int64_t)(x << (64 - w)) >> (64 - w);
}

uint64_t
nv_int_mask(uint64_t x, unsigned w)
{
	return w >= 64 ? x : x & ((UINT64_C(1) << w) - 1);
}

int
nv_int_icmp(LLVMIntPredicate p, uint64_t a, uint64_t b, unsigned w)
{
	int64_t sa = nv_int_sext(a, w), sb = nv_int_sext(b, w);

	switch (p) {
	case LLVMIntEQ: return a == b;
	case LLVMIntNE: return a != b;
	case LLVMIntUGT: return a > b;
	case LLVMIntUGE: return a >= b;
	case LLVMIntULT: return a < b;
	case LLVMIntULE: return a <= b;
	case LLVMIntSGT: return sa > sb;
	case LLVMIntSGE: return sa >= sb;
	case LLVMIntSLT: return sa < sb;
	case LLVMIntSLE: return sa <= sb;
	}
	return 0;
}

int
nv_int_binop(LLVMOpcode op, uint64_t a, uint64_t b, unsigned w, uint64_t *r)
{
	int64_t sa = nv_int_sext(a, w), sb = nv_int_sext(b, w);

	switch (op) {
	case LLVMAdd: *r = a + b; break;
	case LLVMSub: *r = a - b; break;
	case LLVMMul: *r = a * b; break;
	case LLVMAnd: *r = a & b; break;
	case LLVMOr: *r = a | b; break;
	case LLVMXor: *r = a ^ b; break;
	case LLVMShl: case LLVMLShr: case LLVMAShr:
		if (b >= w)
			return 0;
		*r = op == LLVMShl ? a << b : op == LLVMLShr ? a >> b : (uint64_t)(sa >> b);
		break;
	case LLVMUDiv: case LLVMURem:
		if (!b)
			return 0;
		*r = op == LLVMUDiv ? a / b : a % b;
		break;
	case LLVMSDiv: case LLVMSRem:
		if (!b || (sb == -1 && sa == nv_int_sext(UINT64_C(1) << (w - 1), w)))
			return 0;
		*r = (uint64_t)(op == LLVMSDiv ? sa / sb : sa % sb);
		break;
	default:
		return 0;
	}
	*r = nv_int_mask(*r, w);
	return 1;
}

/* A phi whose incoming values are all the same constant, or that has one
 * incoming edge (its value then dominates the phi). */
static LLVMValueRef
fold_phi(LLVMValueRef phi)
{
	unsigned n = LLVMCountIncoming(phi);
	LLVMValueRef v = n ? LLVMGetIncomingValue(phi, 0) : NULL;

	if (n == 1)
		return v == phi ? NULL : v;
	if (!v || !LLVMIsAConstant(v))
		return NULL;
	for (unsigned i = 1; i < n; i++)
		if (LLVMGetIncomingValue(phi, i) != v)
			return NULL;
	return v;
}

LLVMValueRef
nv_fold(LLVMValueRef inst)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(inst);
	LLVMTypeRef ty = LLVMTypeOf(inst);
	unsigned wa, wb;
	uint64_t a, b, r;
	int c;

	switch (op) {
	case LLVMPHI:
		return fold_phi(inst);
	case LLVMSelect:
		if (!const_int(LLVMGetOperand(inst, 0), &wa, &a))
			return NULL;
		return LLVMGetOperand(inst, a ? 1 : 2);
	case LLVMICmp:
		if (!const_int(LLVMGetOperand(inst, 0), &wa, &a) ||
		    !const_int(LLVMGetOperand(inst, 1), &wb, &b))
			return NULL;
		c = nv_int_icmp(LLVMGetICmpPredicate(inst), a, b, wa);
		return LLVMConstInt(ty, (unsigned long long)c, 0);
	case LLVMZExt:
	case LLVMSExt:
	case LLVMTrunc:
		if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(ty) > 64 ||
		    !const_int(LLVMGetOperand(inst, 0), &wa, &a))
			return NULL;
		r = op == LLVMSExt ? (uint64_t)nv_int_sext(a, wa) : a;
		return LLVMConstInt(ty, nv_int_mask(r, LLVMGetIntTypeWidth(ty)), 0);
	case LLVMAdd:
	case LLVMSub:
	case LLVMMul:
	case LLVMAnd:
	case LLVMOr:
	case LLVMXor:
	case LLVMShl:
	case LLVMLShr:
	case LLVMAShr:
	case LLVMUDiv:
	case LLVMSDiv:
	case LLVMURem:
	case LLVMSRem:
		if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind ||
		    !const_int(LLVMGetOperand(inst, 0), &wa, &a) ||
		    !const_int(LLVMGetOperand(inst, 1), &wb, &b) || !nv_int_binop(op, a, b, wa, &r))
			return NULL;
		return LLVMConstInt(ty, r, 0);
	default:
		return NULL;
	}
}
