#include "cost.h"

#include <string.h>

#include <llvm-c/Core.h>

/* Intrinsics, by name prefix: what they cost.  ex2.approx (__expf,
 * -use_fast_math's expf) costs what cicc's unroller counts, one: loops of
 * k __expf stepping by 32 are unrolled by 4 up to k = 11, by 2 up to 14.
 * A funnel shift (a rotate) costs three, its expansion (shl, lshr, or):
 * a 10-trip loop of k add-xor-rotates cicc unrolls by 2 up to k = 16 and
 * leaves rolled from 20 (a ChaCha double round, 32 of them). */
static const struct {
	const char *prefix;
	unsigned cost;
} intrinsics[] = {
	{ "llvm.dbg.", 0 },       { "llvm.lifetime.", 0 },    { "llvm.assume", 0 },
	{ "llvm.experimental.noalias", 0 }, { "llvm.nvvm.read.ptx.sreg.", 1 },
	{ "llvm.sqrt.", 10 },     { "llvm.nvvm.sqrt.", 10 },  { "llvm.nvvm.div.", 10 },
	{ "llvm.nvvm.rcp.", 4 },  { "llvm.nvvm.rsqrt.", 4 },  { "llvm.sin.", 4 },
	{ "llvm.cos.", 4 },       { "llvm.exp2.", 4 },        { "llvm.log2.", 4 },
	{ "llvm.nvvm.ex2.", 1 },  { "llvm.nvvm.lg2.", 4 },    { "llvm.nvvm.barrier", 1 },
	{ "llvm.nvvm.shfl.", 2 }, { "llvm.memcpy.", 8 },      { "llvm.memset.", 8 },
	{ "llvm.fshl.", 3 },      { "llvm.fshr.", 3 },
};

static unsigned
call_cost(LLVMValueRef call)
{
	LLVMValueRef callee = LLVMGetCalledValue(call);
	size_t len;
	const char *name;

	if (callee && LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee)) {
		name = LLVMGetValueName2(callee, &len);
		for (size_t i = 0; i < sizeof(intrinsics) / sizeof(*intrinsics); i++)
			if (!strncmp(name, intrinsics[i].prefix, strlen(intrinsics[i].prefix)))
				return intrinsics[i].cost;
		return 1;
	}
	if (LLVMIsAInlineAsm(callee))
		return 1;
	/* a real call: .param stores and loads for every argument, the call, the return */
	return 20 + 2 * (unsigned)LLVMGetNumArgOperands(call);
}

static int
is_wide(LLVMValueRef v)
{
	LLVMTypeRef t = LLVMTypeOf(v);

	return LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) > 32;
}

static unsigned
gep_cost(LLVMValueRef gep)
{
	for (int k = 1; k < LLVMGetNumOperands(gep); k++)
		if (!LLVMIsAConstant(LLVMGetOperand(gep, k)))
			return 1; /* a mad.wide / add for the variable part */
	return 0;
}

unsigned
nv_cost_inst(LLVMValueRef i)
{
	switch (LLVMGetInstructionOpcode(i)) {
	case LLVMPHI: case LLVMBitCast: case LLVMPtrToInt: case LLVMIntToPtr: case LLVMTrunc:
	case LLVMFreeze: case LLVMAlloca: case LLVMExtractValue: case LLVMInsertValue:
	case LLVMUnreachable:
		return 0;
	case LLVMGetElementPtr:
		return gep_cost(i);
	case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem:
		return is_wide(i) ? 40 : 20;
	case LLVMFDiv: case LLVMFRem:
		return LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMDoubleTypeKind ? 20 : 10;
	case LLVMMul:
		return is_wide(i) ? 2 : 1;
	case LLVMCall:
		return call_cost(i);
	case LLVMAtomicRMW: case LLVMAtomicCmpXchg:
		return 4;
	case LLVMSwitch:
		return 1 + LLVMGetNumSuccessors(i) / 2;
	default:
		return 1;
	}
}

unsigned
nv_cost_block(LLVMBasicBlockRef bb)
{
	unsigned c = 0;

	for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
		c += nv_cost_inst(i);
	return c;
}

unsigned
nv_cost_loop(const struct nv_loops *ls, unsigned l)
{
	unsigned c = 0;

	for (unsigned i = 0; i < ls->v[l].nblocks; i++)
		c += nv_cost_block(ls->cfg->bb[ls->v[l].blocks[i]]);
	return c;
}
