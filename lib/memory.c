#include "memory.h"

#include <stdint.h>

#include <llvm-c/Core.h>

#include "diag.h"
#include "knobs.h"
#include "typesize.h"

/*
 * set-local-array-alignment.  Requires nothing of the IR; changes only the
 * alignment of allocas, so it preserves every analysis.  Run late, after
 * the SROA that follows unrolling: what is still an alloca then stays in
 * local memory, and a 16-byte-aligned array lets the load-store vectorizer
 * that follows write it with st.local.v4 (LLVM's own raises an alloca to
 * 4 at most).  cicc raises arrays only, not structs: a lone struct keeps
 * its alignment, an array of them does not.
 */

#define MAX_LOCAL_ALIGN 16 /* cicc: the widest ld/st.local.v4 */

/* The bytes an alloca reserves when known at compile time, else 0; *array
 * says whether it is an array (of an array type, or more than one). */
static uint64_t
static_size(LLVMModuleRef m, LLVMValueRef a, int *array)
{
	LLVMTypeRef ty = LLVMGetAllocatedType(a);
	LLVMValueRef n = LLVMGetOperand(a, 0);
	uint64_t count;

	if (!LLVMIsAConstantInt(n) || !nv_type_sized(ty))
		return 0;
	count = LLVMConstIntGetZExtValue(n);
	*array = LLVMGetTypeKind(ty) == LLVMArrayTypeKind || count > 1;
	return count * nv_type_alloc_size(m, ty);
}

/* The alignment cicc gives an array of size bytes. */
static unsigned
wanted_align(uint64_t size)
{
	uint64_t a = size & -size;

	if (nv_knob_int(NV_KNOB_USE_MAX_LOCAL_ARRAY_ALIGNMENT) || a > MAX_LOCAL_ALIGN)
		return MAX_LOCAL_ALIGN;
	return (unsigned)a;
}

static unsigned
align_alloca(LLVMModuleRef m, LLVMValueRef a)
{
	int array = 0;
	uint64_t size = static_size(m, a, &array);
	unsigned was = LLVMGetAlignment(a), want;

	if (!size || !array)
		return 0;
	want = wanted_align(size);
	if (want <= was)
		return 0;
	LLVMSetAlignment(a, want);
	nv_remark(NV_REMARK_PASSED, "set-local-array-alignment", "LocalArrayAligned", a,
	          "local array of %llu bytes aligned to %u (was %u)", (unsigned long long)size, want,
	          was);
	return 1;
}

unsigned
nv_memory_align_local_arrays(LLVMModuleRef m)
{
	unsigned n = 0;

	if (nv_knob_int(NV_KNOB_DISABLE_SET_LOCAL_ARRAY_ALIGNMENT))
		return 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				if (LLVMIsAAllocaInst(i))
					n += align_alloca(m, i);
	return n;
}
