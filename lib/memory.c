#include "memory.h"

#include <stdint.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

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

/*
 * lower-aggr-copies.  Requires nothing; changes calls to llvm.memcpy and
 * llvm.memset (zero) that copy a whole local struct or array into or out
 * of it into one load and store per field, so that SROA after it can keep
 * the aggregate in registers: LLVM's SROA leaves an alloca whose only uses
 * are such intrinsics (a float4 filled under a condition, then copied to
 * shared memory) in local memory, where cicc keeps none.  Only aggregates
 * of at most MAX_LEAVES fields that cover every byte (no padding, no odd
 * widths) are lowered, so the copy moves the same bytes.
 */

#define MAX_LEAVES 16 /* fields copied one by one; more is a real block copy */

struct leaf {
	LLVMTypeRef ty;
	uint64_t off;
};

struct leaves {
	struct leaf v[MAX_LEAVES];
	unsigned n;
	uint64_t bytes;
};

/* Collect the scalar (or vector) fields of ty at off; 0 when too many or
 * of a width that is not whole bytes. */
static int
flatten(LLVMTargetDataRef td, LLVMTypeRef ty, uint64_t off, struct leaves *l)
{
	switch (LLVMGetTypeKind(ty)) {
	case LLVMStructTypeKind:
		for (unsigned i = 0; i < LLVMCountStructElementTypes(ty); i++)
			if (!flatten(td, LLVMStructGetTypeAtIndex(ty, i),
			             off + LLVMOffsetOfElement(td, ty, i), l))
				return 0;
		return 1;
	case LLVMArrayTypeKind: {
		LLVMTypeRef el = LLVMGetElementType(ty);
		uint64_t n = LLVMGetArrayLength2(ty), step = LLVMABISizeOfType(td, el);

		for (uint64_t i = 0; i < n; i++)
			if (!flatten(td, el, off + i * step, l))
				return 0;
		return 1;
	}
	case LLVMIntegerTypeKind: case LLVMHalfTypeKind: case LLVMBFloatTypeKind:
	case LLVMFloatTypeKind: case LLVMDoubleTypeKind: case LLVMPointerTypeKind:
	case LLVMVectorTypeKind:
		if (l->n == MAX_LEAVES || LLVMSizeOfTypeInBits(td, ty) != 8 * LLVMStoreSizeOfType(td, ty))
			return 0;
		l->v[l->n++] = (struct leaf){ ty, off };
		l->bytes += LLVMStoreSizeOfType(td, ty);
		return 1;
	default:
		return 0;
	}
}

/* The alloca p is (through address-space casts), or NULL. */
static LLVMValueRef
alloca_of(LLVMValueRef p)
{
	while (LLVMIsAAddrSpaceCastInst(p))
		p = LLVMGetOperand(p, 0);
	return LLVMIsAAllocaInst(p) ? p : NULL;
}

static unsigned
arg_align(LLVMValueRef call, unsigned arg)
{
	unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
	LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, arg + 1, kind);

	return a ? (unsigned)LLVMGetEnumAttributeValue(a) : 1;
}

/* The alignment of base + off when base is aligned to a. */
static unsigned
align_at(unsigned a, uint64_t off)
{
	while (a > 1 && off % a)
		a /= 2;
	return a;
}

static LLVMValueRef
field_ptr(LLVMBuilderRef b, LLVMContextRef ctx, LLVMValueRef base, uint64_t off)
{
	LLVMValueRef idx = LLVMConstInt(LLVMInt64TypeInContext(ctx), off, 0);

	return off ? LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(ctx), base, &idx, 1, "") : base;
}

enum copy_kind { NOT_A_COPY, MEMCPY, MEMSET };

static enum copy_kind
copy_kind(LLVMValueRef call)
{
	LLVMValueRef callee = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
	unsigned id = callee && LLVMIsAFunction(callee) ? LLVMGetIntrinsicID(callee) : 0;

	if (!id)
		return NOT_A_COPY;
	if (id == LLVMLookupIntrinsicID("llvm.memcpy", 11))
		return MEMCPY;
	if (id == LLVMLookupIntrinsicID("llvm.memset", 11))
		return MEMSET;
	return NOT_A_COPY;
}

/* Lower one memcpy or memset call if it copies a whole small aggregate
 * alloca; 1 when it did. */
static int
lower_copy(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call, enum copy_kind kind)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	LLVMValueRef len = LLVMGetOperand(call, 2), vol = LLVMGetOperand(call, 3);
	LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1);
	LLVMValueRef a = alloca_of(dst);
	struct leaves l = { .n = 0 };
	LLVMTypeRef ty;

	if (!a && kind == MEMCPY)
		a = alloca_of(src);
	if (!a || !LLVMIsAConstantInt(len) || !LLVMIsAConstantInt(vol) || LLVMConstIntGetZExtValue(vol))
		return 0;
	if (kind == MEMSET && (!LLVMIsAConstantInt(src) || LLVMConstIntGetZExtValue(src)))
		return 0;
	ty = LLVMGetAllocatedType(a);
	if ((LLVMGetTypeKind(ty) != LLVMStructTypeKind && LLVMGetTypeKind(ty) != LLVMArrayTypeKind) ||
	    !nv_type_sized(ty) || LLVMABISizeOfType(td, ty) != LLVMConstIntGetZExtValue(len) ||
	    !flatten(td, ty, 0, &l) || l.bytes != LLVMConstIntGetZExtValue(len))
		return 0;
	LLVMPositionBuilderBefore(b, call);
	for (unsigned i = 0; i < l.n; i++) {
		LLVMValueRef v = LLVMConstNull(l.v[i].ty), st;

		if (kind == MEMCPY) {
			v = LLVMBuildLoad2(b, l.v[i].ty, field_ptr(b, ctx, src, l.v[i].off), "");
			LLVMSetAlignment(v, align_at(arg_align(call, 1), l.v[i].off));
		}
		st = LLVMBuildStore(b, v, field_ptr(b, ctx, dst, l.v[i].off));
		LLVMSetAlignment(st, align_at(arg_align(call, 0), l.v[i].off));
	}
	LLVMInstructionEraseFromParent(call);
	return 1;
}

unsigned
nv_memory_lower_aggr_copies(LLVMModuleRef m)
{
	LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
				enum copy_kind k = copy_kind(i);

				next = LLVMGetNextInstruction(i);
				if (k != NOT_A_COPY)
					n += lower_copy(m, b, i, k);
			}
	LLVMDisposeBuilder(b);
	return n;
}
