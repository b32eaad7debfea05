#include "memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include "../base/knobs.h"
#include "../base/ptrmap.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfgedit.h"
#include "../ir/loops.h"
#include "../ir/typesize.h"
#include "target.h"

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
 * set-extern-shared-alignment.  Changes only the alignment of module-level
 * declarations.  The dynamic shared memory a launch gives (extern
 * __shared__ T a[]) starts 16-byte aligned whatever T is, and cicc
 * declares every such array .align 16: the load-store vectorizer that
 * follows may then read a float array four at a time (ld.shared.v4) where
 * the element type's alignment alone allows one.
 */

#define EXTERN_SHARED_ALIGN 16
#define ADDRSPACE_GENERIC 0
#define ADDRSPACE_GLOBAL 1
#define ADDRSPACE_SHARED 3

unsigned
nv_memory_align_extern_shared(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
		LLVMTypeRef ty = LLVMGlobalGetValueType(g);
		unsigned was = LLVMGetAlignment(g);

		if (!LLVMIsDeclaration(g) || LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != ADDRSPACE_SHARED ||
		    LLVMGetTypeKind(ty) != LLVMArrayTypeKind || LLVMGetArrayLength2(ty) != 0 ||
		    was >= EXTERN_SHARED_ALIGN)
			continue;
		LLVMSetAlignment(g, EXTERN_SHARED_ALIGN);
		nv_remark(NV_REMARK_PASSED, "set-extern-shared-alignment", "ExternSharedAligned", g,
		          "extern shared array '%s' aligned to %u (was %u): dynamic shared memory starts so aligned",
		          LLVMGetValueName2(g, &(size_t){ 0 }), EXTERN_SHARED_ALIGN, was);
		n++;
	}
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

/* A memcpy of len bytes between memory that is not an alloca of ours (a
 * struct assignment: int4 *dest = *src) as one load and store of
 * <len/4 x i32>, as cicc copies it: NVPTX's own lowering of the call loads
 * 16 bytes as two i64 without the non-coherent path (ld.global.nc.v4.u32
 * in cicc's PTX).  Lengths of 4, 8 and 16 bytes only; 1 when lowered. */
static int
lower_small_copy(LLVMBuilderRef b, LLVMContextRef ctx, LLVMValueRef call, uint64_t len)
{
	LLVMTypeRef ty;
	LLVMValueRef v;

	if (len != 4 && len != 8 && len != 16)
		return 0;
	ty = LLVMVectorType(LLVMInt32TypeInContext(ctx), (unsigned)(len / 4));
	LLVMPositionBuilderBefore(b, call);
	v = LLVMBuildLoad2(b, ty, LLVMGetOperand(call, 1), "");
	LLVMSetAlignment(v, arg_align(call, 1));
	LLVMSetAlignment(LLVMBuildStore(b, v, LLVMGetOperand(call, 0)), arg_align(call, 0));
	LLVMInstructionEraseFromParent(call);
	return 1;
}

/* Lower one memcpy or memset call if it copies a whole small aggregate
 * alloca, or a small memcpy between other memory; 1 when it did. */
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
	if (!LLVMIsAConstantInt(len) || !LLVMIsAConstantInt(vol) || LLVMConstIntGetZExtValue(vol))
		return 0;
	if (!a)
		return kind == MEMCPY && lower_small_copy(b, ctx, call, LLVMConstIntGetZExtValue(len));
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

/*
 * Generic shared addresses from one conversion.  Requires the IR as LLVM's
 * codegen IR passes leave it (run after them, before instruction
 * selection); changes only how generic pointers into shared memory are
 * computed, so it preserves the CFG.  LLVM's InferAddressSpaces rewrites
 * `gep (addrspacecast @shmem), i` into `addrspacecast (gep @shmem, i)` where
 * the user keeps a generic pointer (a wmma load, a call): one cvta.shared
 * per address, which ptxas cannot fold into an immediate offset, so every
 * address of an unrolled tile loop holds a register pair.  cicc converts
 * the base once and computes the addresses in the generic space; so do we.
 * cvta.shared adds the shared window's base, so cvta(B + i) == cvta(B) + i.
 */

struct casts {
	struct nv_ptrmap idx;   /* shared pointer -> index into gen[] */
	LLVMValueRef *gen;      /* its generic twin */
	size_t n, cap;
	LLVMBuilderRef b;
	unsigned conversions;
};

static int
is_ptr_in(LLVMValueRef v, unsigned as)
{
	LLVMTypeRef t = LLVMTypeOf(v);

	return LLVMGetTypeKind(t) == LLVMPointerTypeKind && LLVMGetPointerAddressSpace(t) == as;
}

/* Scalar pointers only: a vector of pointers is left as it is. */
static int
converts_shared(LLVMValueRef v)
{
	return is_ptr_in(LLVMGetOperand(v, 0), ADDRSPACE_SHARED) && is_ptr_in(v, ADDRSPACE_GENERIC);
}

static int
is_shared_to_generic(LLVMValueRef v)
{
	return LLVMIsAAddrSpaceCastInst(v) && converts_shared(v);
}

static int
is_const_gep(LLVMValueRef v)
{
	return LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMGetElementPtr;
}

/* A constant conversion of a constant GEP into shared memory, as
 * InferAddressSpaces leaves `gep (addrspacecast @sh), K` in an operand. */
static int
is_const_converted_gep(LLVMValueRef v)
{
	return LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMAddrSpaceCast &&
	       converts_shared(v) && is_const_gep(LLVMGetOperand(v, 0));
}

/* A GEP instruction whose only users are conversions to generic: it dies
 * once they are rewritten, so its generic twin costs nothing extra. */
static int
only_converted(LLVMValueRef gep)
{
	if (!LLVMIsAGetElementPtrInst(gep))
		return 0;
	for (LLVMUseRef u = LLVMGetFirstUse(gep); u; u = LLVMGetNextUse(u))
		if (!is_shared_to_generic(LLVMGetUser(u)))
			return 0;
	return 1;
}

/* Where a conversion of v goes: right after its definition. */
static void
after_def(LLVMBuilderRef b, LLVMValueRef v)
{
	LLVMBasicBlockRef bb;
	LLVMValueRef at;

	if (LLVMIsAArgument(v)) {
		bb = LLVMGetEntryBasicBlock(LLVMGetParamParent(v));
		at = LLVMGetFirstInstruction(bb);
	} else {
		at = LLVMGetNextInstruction(v);
	}
	while (at && LLVMIsAPHINode(at))
		at = LLVMGetNextInstruction(at);
	LLVMPositionBuilderBefore(b, at);
}

static LLVMValueRef generic_of(struct casts *c, LLVMValueRef v);

/* gep (an instruction or a constant) with its indices and flags over base
 * (a constant when gep is), a pointer in another address space: a
 * constant, or an instruction at b's position. */
static LLVMValueRef
gep_over(LLVMBuilderRef b, LLVMValueRef gep, LLVMValueRef base)
{
	unsigned n = (unsigned)LLVMGetNumOperands(gep) - 1;
	LLVMValueRef *ix = xmalloc(n * sizeof(*ix)), r;
	LLVMTypeRef ty = LLVMGetGEPSourceElementType(gep);
	LLVMGEPNoWrapFlags fl = LLVMGEPGetNoWrapFlags(gep);

	for (unsigned i = 0; i < n; i++)
		ix[i] = LLVMGetOperand(gep, i + 1);
	if (LLVMIsAConstant(gep))
		r = LLVMConstGEPWithNoWrapFlags(ty, base, ix, n, fl);
	else
		r = LLVMBuildGEPWithNoWrapFlags(b, ty, base, ix, n, "", fl);
	free(ix);
	return r;
}

static LLVMValueRef
generic_gep(struct casts *c, LLVMValueRef gep)
{
	LLVMValueRef base = generic_of(c, LLVMGetOperand(gep, 0));

	if (!LLVMIsAConstant(gep))
		LLVMPositionBuilderBefore(c->b, gep);
	return gep_over(c->b, gep, base);
}

/* The generic pointer equal to shared pointer v: a GEP chain over one
 * conversion of its root (the first value that is not a GEP, or is a GEP
 * with other users), each conversion made once. */
static LLVMValueRef
generic_of(struct casts *c, LLVMValueRef v)
{
	unsigned k = nv_ptrmap_get(&c->idx, v);
	LLVMTypeRef gp = LLVMPointerTypeInContext(LLVMGetTypeContext(LLVMTypeOf(v)), ADDRSPACE_GENERIC);
	LLVMValueRef g;

	if (k != NV_NONE)
		return c->gen[k];
	if (only_converted(v) || is_const_gep(v)) {
		g = generic_gep(c, v);
	} else if (LLVMIsAConstant(v)) {
		g = LLVMConstAddrSpaceCast(v, gp);
		c->conversions++;
	} else {
		after_def(c->b, v);
		g = LLVMBuildAddrSpaceCast(c->b, v, gp, "");
		c->conversions++;
	}
	if (c->n == c->cap)
		c->gen = xrealloc(c->gen, (c->cap = c->cap ? 2 * c->cap : 64) * sizeof(*c->gen));
	nv_ptrmap_put(&c->idx, v, (unsigned)c->n);
	c->gen[c->n++] = g;
	return g;
}

/* Delete the GEPs into shared memory that nothing uses any more. */
static void
erase_dead_geps(LLVMValueRef f)
{
	for (int again = 1; again;) {
		again = 0;
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
				next = LLVMGetNextInstruction(i);
				if (LLVMIsAGetElementPtrInst(i) && !LLVMGetFirstUse(i) && is_ptr_in(i, ADDRSPACE_SHARED)) {
					LLVMInstructionEraseFromParent(i);
					again = 1;
				}
			}
	}
}

/* The constant operands of i that convert a constant GEP: rebuilt over
 * the one conversion of their base. */
static unsigned
convert_operands(struct casts *c, LLVMValueRef i)
{
	unsigned n = 0;

	for (int k = 0; k < LLVMGetNumOperands(i); k++) {
		LLVMValueRef op = LLVMGetOperand(i, (unsigned)k);

		if (is_const_converted_gep(op)) {
			LLVMSetOperand(i, (unsigned)k, generic_of(c, LLVMGetOperand(op, 0)));
			n++;
		}
	}
	return n;
}

static unsigned
convert_once(struct casts *c, LLVMValueRef f)
{
	LLVMValueRef *todo = NULL;
	size_t n = 0, cap = 0;
	unsigned consts = 0;

	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
			LLVMValueRef p = is_shared_to_generic(i) ? LLVMGetOperand(i, 0) : NULL;

			if (!p || !(LLVMIsAGetElementPtrInst(p) || is_const_gep(p)))
				continue;
			if (n == cap)
				todo = xrealloc(todo, (cap = cap ? 2 * cap : 64) * sizeof(*todo));
			todo[n++] = i;
		}
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			consts += convert_operands(c, i);
	for (size_t i = 0; i < n; i++)
		LLVMReplaceAllUsesWith(todo[i], generic_of(c, LLVMGetOperand(todo[i], 0)));
	for (size_t i = 0; i < n; i++)
		LLVMInstructionEraseFromParent(todo[i]);
	if (n)
		erase_dead_geps(f);
	free(todo);
	return (unsigned)n + consts;
}

unsigned
nv_memory_convert_shared_once(LLVMModuleRef m)
{
	unsigned total = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct casts c = { .b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m)) };
		unsigned n;

		if (LLVMIsDeclaration(f)) {
			LLVMDisposeBuilder(c.b);
			continue;
		}
		nv_ptrmap_init(&c.idx, 64);
		n = convert_once(&c, f);
		if (n)
			nv_remark(NV_REMARK_PASSED, "nv-llc", "SharedConvertedOnce", f,
			          "%u generic addresses into shared memory computed from %u conversions",
			          n, c.conversions);
		total += n;
		nv_ptrmap_release(&c.idx);
		free(c.gen);
		LLVMDisposeBuilder(c.b);
	}
	return total;
}

/*
 * Escaping byval parameters.  NVPTX reads a byval parameter of a device
 * function with ld.param where every use is a load, and otherwise takes
 * the parameter's address in local memory, which it cannot do with 32-bit
 * local pointers.  The copy is what it would make of a kernel's.
 */

/* True if every use of p, through GEPs and casts, loads from it in the
 * entry block, where instruction selection reads the parameter in place
 * (a load in another block takes its address all the same). */
static int
only_loaded(LLVMValueRef p, LLVMBasicBlockRef entry, int depth)
{
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef i = LLVMGetUser(u);

		if (LLVMIsAInstruction(i) && LLVMGetInstructionParent(i) != entry)
			return 0;
		if (LLVMIsALoadInst(i))
			continue;
		if ((LLVMIsAGetElementPtrInst(i) || LLVMIsABitCastInst(i)) && LLVMGetOperand(i, 0) == p &&
		    depth < 16 && only_loaded(i, entry, depth + 1))
			continue;
		return 0;
	}
	return 1;
}

/* The alignment parameter i of f is given, else dflt. */
static unsigned
fn_param_align(LLVMValueRef f, unsigned i, unsigned dflt)
{
	unsigned kind = LLVMGetEnumAttributeKindForName("align", 5);
	LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(f, i + 1, kind);

	return a ? (unsigned)LLVMGetEnumAttributeValue(a) : dflt;
}

unsigned
nv_memory_copy_escaping_byval(LLVMModuleRef m)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), copied = 0;
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		unsigned n = LLVMCountParams(f);

		if (LLVMIsDeclaration(f) || nv_is_kernel(f))
			continue;
		for (unsigned i = 0; i < n; i++) {
			LLVMAttributeRef at = LLVMGetEnumAttributeAtIndex(f, i + 1, byval);
			LLVMValueRef arg = LLVMGetParam(f, i), copy, v;
			LLVMTypeRef ty;
			unsigned align;

			if (!at || only_loaded(arg, LLVMGetEntryBasicBlock(f), 0))
				continue;
			ty = LLVMGetTypeAttributeValue(at);
			align = fn_param_align(f, i, nv_type_align(m, ty));
			LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f)));
			copy = LLVMBuildAlloca(b, ty, "");
			LLVMSetAlignment(copy, align);
			LLVMReplaceAllUsesWith(arg, copy);
			/* a load of the whole, not a memcpy: at -O0 NVPTX would take
			 * the address of a memcpy's source */
			v = LLVMBuildLoad2(b, ty, arg, "");
			LLVMSetAlignment(v, align);
			LLVMSetAlignment(LLVMBuildStore(b, v, copy), align);
			nv_remark(NV_REMARK_PASSED, "nv-llc", "ByvalCopied", copy,
			          "parameter %u of a device function copied to a local: its address is taken, "
			          "or it is read after the entry block", i);
			copied++;
		}
	}
	LLVMDisposeBuilder(b);
	return copied;
}

LLVMValueRef
nv_memory_byval_device_fn(LLVMModuleRef m)
{
	unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f) || nv_is_kernel(f))
			continue;
		for (unsigned i = 0; i < LLVMCountParams(f); i++)
			if (LLVMGetEnumAttributeAtIndex(f, i + 1, byval))
				return f;
	}
	return NULL;
}

/* Collect the loads and stores through which p (an alloca, or an address
 * into it through GEPs and casts) is read or written; 0 when p escapes:
 * stored as a value, passed to a call other than a lifetime marker, or
 * used in any other way. */
static int
local_accesses(LLVMValueRef p, LLVMValueRef *acc, unsigned cap, unsigned *n, int depth)
{
	if (depth > 16)
		return 0;
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef in = LLVMGetUser(u);

		if (LLVMIsAGetElementPtrInst(in) || LLVMIsABitCastInst(in) || LLVMIsAAddrSpaceCastInst(in)) {
			if (!local_accesses(in, acc, cap, n, depth + 1))
				return 0;
		} else if (LLVMIsALoadInst(in) || (LLVMIsAStoreInst(in) && LLVMGetOperand(in, 1) == p &&
		                                   LLVMGetOperand(in, 0) != p)) {
			if (*n == cap)
				return 0;
			acc[(*n)++] = in;
		} else if (!nv_cfg_lifetime_marker(in)) {
			return 0;
		}
	}
	return 1;
}

unsigned
nv_memory_unvolatile_locals(LLVMModuleRef m)
{
	enum { CAP = 256 };
	LLVMValueRef acc[CAP];
	unsigned done = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f);

		for (LLVMValueRef a = LLVMGetFirstInstruction(entry); a; a = LLVMGetNextInstruction(a)) {
			unsigned n = 0, vol = 0;

			if (!LLVMIsAAllocaInst(a) || !local_accesses(a, acc, CAP, &n, 0))
				continue;
			for (unsigned i = 0; i < n; i++) {
				if (LLVMGetVolatile(acc[i]) && LLVMGetOrdering(acc[i]) == LLVMAtomicOrderingNotAtomic) {
					LLVMSetVolatile(acc[i], 0);
					vol++;
				}
			}
			if (!vol)
				continue;
			nv_remark(NV_REMARK_PASSED, "nv-llc", "VolatileLocal", a,
			          "volatile loads and stores of a local that no other code can see made plain (%u) "
			          "(ld.local, st.local, as cicc's), so ptxas may keep it in registers", vol);
			done++;
		}
	}
	return done;
}

/*
 * printf buffers.  Clang packs each printf's arguments into a local of
 * their own (an alloca in the entry block) and hands vprintf its address,
 * with no lifetime markers: code generation's stack colouring cannot share
 * one slot among them, and a kernel with three printfs has three buffers
 * in its frame where cicc's has one (simpleCooperativeGroups' cgkernel: 32
 * bytes, cicc 16).  A buffer that is only stored to and then read by one
 * vprintf call, all in one block, is live from its first store to that
 * call: it gets lifetime markers there.
 */

/* Collect the stores into p (the local, or a GEP or address-space
 * conversion of it; base: p is the local's start) and its vprintf call;
 * 0 if p is used any other way. */
static int
printf_accesses(LLVMValueRef p, int base, LLVMValueRef *acc, unsigned cap, unsigned *n, LLVMValueRef *call,
                int depth)
{
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef i = LLVMGetUser(u);
		const char *name;

		if ((LLVMIsAGetElementPtrInst(i) || LLVMIsAAddrSpaceCastInst(i)) && LLVMGetOperand(i, 0) == p &&
		    depth < 6) {
			if (!printf_accesses(i, base && LLVMIsAAddrSpaceCastInst(i), acc, cap, n, call, depth + 1))
				return 0;
		} else if (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 1) == p && LLVMGetOperand(i, 0) != p &&
		           !LLVMGetVolatile(i) && *n < cap) {
			acc[(*n)++] = i;
		} else if (base && nv_cfg_lifetime_marker(i) && *n < cap) {
			acc[(*n)++] = i; /* the inliner's, around all of an inlined body */
		} else if (!*call && base && (name = nv_cfg_callee_name(i)) && !strcmp(name, "vprintf") &&
		           LLVMGetOperand(i, 1) == p && LLVMGetOperand(i, 0) != p) {
			*call = i;
		} else {
			return 0;
		}
	}
	return 1;
}

/* Does i come before j in their block? */
static int
before_in_block(LLVMValueRef i, LLVMValueRef j)
{
	for (LLVMValueRef k = LLVMGetNextInstruction(i); k; k = LLVMGetNextInstruction(k))
		if (k == j)
			return 1;
	return 0;
}

static LLVMValueRef
lifetime_fn(LLVMModuleRef m, const char *name, LLVMTypeRef ptr)
{
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));

	return LLVMGetIntrinsicDeclaration(m, id, &ptr, 1);
}

unsigned
nv_memory_printf_lifetimes(LLVMModuleRef m)
{
	enum { CAP = 64 };
	LLVMValueRef acc[CAP];
	LLVMBuilderRef b;
	unsigned done = 0;

	if (!nv_knob_int(NV_KNOB_PRINTF_BUFFER_LIFETIMES) || !LLVMGetNamedFunction(m, "vprintf"))
		return 0;
	b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		for (LLVMValueRef a = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f)); a;
		     a = LLVMGetNextInstruction(a)) {
			LLVMValueRef call = NULL, first;
			LLVMBasicBlockRef bb;
			LLVMTypeRef pt = LLVMTypeOf(a), ft;
			LLVMValueRef fn, args[1];
			unsigned n = 0, ok = 1;

			if (!LLVMIsAAllocaInst(a) || !printf_accesses(a, 1, acc, CAP, &n, &call, 0) || !call)
				continue;
			bb = LLVMGetInstructionParent(call);
			first = call;
			for (unsigned k = 0; k < n && ok; k++) {
				if (LLVMIsACallInst(acc[k]))
					continue;
				if (LLVMGetInstructionParent(acc[k]) != bb || !before_in_block(acc[k], call))
					ok = 0;
				else if (before_in_block(acc[k], first))
					first = acc[k];
			}
			if (!ok || first == call)
				continue;
			/* markers already there (the inliner's) go: ours are tighter */
			for (unsigned k = 0; k < n; k++)
				if (LLVMIsACallInst(acc[k]))
					LLVMInstructionEraseFromParent(acc[k]);
			args[0] = a;
			fn = lifetime_fn(m, "llvm.lifetime.start", pt);
			ft = LLVMGlobalGetValueType(fn);
			LLVMPositionBuilderBefore(b, first);
			LLVMBuildCall2(b, ft, fn, args, 1, "");
			fn = lifetime_fn(m, "llvm.lifetime.end", pt);
			LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
			LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 1, "");
			nv_remark(NV_REMARK_PASSED, "nv-llc", "PrintfBufferLifetime", call,
			          "printf's argument buffer is live from its first store to this call only, "
			          "so the frame may share its slot with other printfs' (as cicc's)");
			done++;
		}
	}
	LLVMDisposeBuilder(b);
	return done;
}

/* Instructions to erase, users before what they use. */
struct erase_list {
	LLVMValueRef *v;
	size_t n, cap;
};

static void
erase_push(struct erase_list *l, LLVMValueRef v)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = v;
}

/* Collect what writes the local p (an alloca, or an address into it
 * through GEPs and casts) and the addresses derived from it, users first;
 * 0 when anything reads it or it escapes: a load, a store of it as a
 * value, a memcpy or memmove from it, a volatile access, any other use. */
static int
local_writes(LLVMValueRef p, struct erase_list *w, int depth)
{
	if (depth > 16)
		return 0;
	for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef in = LLVMGetUser(u);
		const char *name;

		if (LLVMIsAGetElementPtrInst(in) || LLVMIsABitCastInst(in) || LLVMIsAAddrSpaceCastInst(in)) {
			if (!local_writes(in, w, depth + 1))
				return 0;
		} else if (LLVMIsAStoreInst(in)) {
			if (LLVMGetOperand(in, 1) != p || LLVMGetOperand(in, 0) == p || LLVMGetVolatile(in))
				return 0;
		} else if ((name = nv_cfg_callee_name(in))) {
			if (!nv_cfg_lifetime_marker(in) &&
			    !((!strncmp(name, "llvm.memcpy.", 12) || !strncmp(name, "llvm.memmove.", 13) ||
			       !strncmp(name, "llvm.memset.", 12)) &&
			      LLVMGetOperand(in, 0) == p && LLVMGetOperand(in, 1) != p &&
			      LLVMIsAConstantInt(LLVMGetOperand(in, 3)) && !LLVMConstIntGetZExtValue(LLVMGetOperand(in, 3))))
				return 0;
		} else {
			return 0;
		}
		erase_push(w, in);
	}
	return 1;
}

unsigned
nv_memory_drop_write_only_locals(LLVMModuleRef m)
{
	unsigned total = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct erase_list dead = { 0 };

		if (LLVMIsDeclaration(f))
			continue;
		for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f)); i;
		     i = LLVMGetNextInstruction(i)) {
			size_t start = dead.n;

			if (!LLVMIsAAllocaInst(i))
				continue;
			if (!local_writes(i, &dead, 0)) {
				dead.n = start;
				continue;
			}
			erase_push(&dead, i);
			total++;
			nv_remark(NV_REMARK_PASSED, "nv-llc", "WriteOnlyLocalDropped", i,
			          "a local that is written and never read is gone, with its writes "
			          "(the copy of a byval kernel parameter the kernel writes to)");
		}
		for (size_t k = 0; k < dead.n; k++)
			LLVMInstructionEraseFromParent(dead.v[k]);
		free(dead.v);
	}
	return total;
}

/*
 * Skipped stores.  `x = c; for (k...) if (bit k) x ^= v[k];` fully
 * unrolled: SimplifyCFG turns the steps into selects but keeps one
 * conditional store of the result ("if any bit is set"), and InstCombine
 * and MachineSink then move the whole select chain under that branch,
 * away from the loads it consumes.  ptxas schedules within a block, so
 * every loaded value stays live across the branch (curand's Sobol32
 * skipahead: 85 registers; cicc, whose code is straight-line, 32).  Where
 * the block before the branch stored to the same address and nothing in
 * between can write it, the skipped store can write select(taken, new,
 * old) unconditionally: the memory holds the same bytes on both paths,
 * and no other thread may touch the location in between without racing
 * with the earlier store.  The skipped block's instructions, all cheap and
 * unable to trap, move above the branch with it.
 */

/* p as a base pointer plus a constant byte offset, through GEPs with
 * constant indices. */
static LLVMValueRef
base_offset(LLVMTargetDataRef td, LLVMValueRef p, int64_t *off)
{
	*off = 0;
	for (int depth = 0; depth < 16 && LLVMIsAGetElementPtrInst(p); depth++) {
		LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
		unsigned n = (unsigned)LLVMGetNumOperands(p);
		int64_t o = 0;

		for (unsigned i = 1; i < n; i++) {
			LLVMValueRef ix = LLVMGetOperand(p, i);

			if (!LLVMIsAConstantInt(ix))
				return p;
			if (i == 1) {
				o += LLVMConstIntGetSExtValue(ix) * (int64_t)LLVMABISizeOfType(td, ty);
			} else if (LLVMGetTypeKind(ty) == LLVMStructTypeKind) {
				unsigned f = (unsigned)LLVMConstIntGetZExtValue(ix);

				o += (int64_t)LLVMOffsetOfElement(td, ty, f);
				ty = LLVMStructGetTypeAtIndex(ty, f);
			} else if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind || LLVMGetTypeKind(ty) == LLVMVectorTypeKind) {
				ty = LLVMGetElementType(ty);
				o += LLVMConstIntGetSExtValue(ix) * (int64_t)LLVMABISizeOfType(td, ty);
			} else {
				return p;
			}
		}
		*off += o;
		p = LLVMGetOperand(p, 0);
	}
	return p;
}

static uint64_t
store_size(LLVMTargetDataRef td, LLVMValueRef st)
{
	return LLVMStoreSizeOfType(td, LLVMTypeOf(LLVMGetOperand(st, 0)));
}

static int
plain_store(LLVMValueRef st)
{
	return LLVMIsAStoreInst(st) && !LLVMGetVolatile(st) && LLVMGetOrdering(st) == LLVMAtomicOrderingNotAtomic;
}

/* The store in p that the skipped store st may rewrite: the last write
 * before p's terminator to exactly st's bytes, with nothing after it that
 * may write them (a store that is not provably elsewhere, a call other
 * than a special-register read, an atomic, a fence); or NULL. */
static LLVMValueRef
earlier_store(LLVMTargetDataRef td, LLVMBasicBlockRef p, LLVMValueRef st)
{
	int64_t off, o;
	LLVMValueRef base = base_offset(td, LLVMGetOperand(st, 1), &off);
	uint64_t size = store_size(td, st);

	for (LLVMValueRef i = LLVMGetPreviousInstruction(LLVMGetBasicBlockTerminator(p)); i;
	     i = LLVMGetPreviousInstruction(i)) {
		if (LLVMIsAStoreInst(i)) {
			LLVMValueRef b = base_offset(td, LLVMGetOperand(i, 1), &o);
			uint64_t n = store_size(td, i);

			if (b == base && o == off && n == size && plain_store(i) &&
			    LLVMTypeOf(LLVMGetOperand(i, 0)) == LLVMTypeOf(LLVMGetOperand(st, 0)))
				return i;
			if (b != base || LLVMGetVolatile(i) || !(o + (int64_t)n <= off || off + (int64_t)size <= o))
				return NULL;
		} else if (LLVMIsACallInst(i)) {
			if (!nv_cfg_sreg_read(i))
				return NULL;
		} else if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i) || LLVMIsAFenceInst(i) ||
		           LLVMIsAInvokeInst(i) || LLVMIsACallBrInst(i) ||
		           (LLVMIsALoadInst(i) && LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)) {
			return NULL;
		}
	}
	return NULL;
}

/* The conditional branch that is the only way into s, or NULL: the uses
 * of a block are the terminators that branch to it. */
static LLVMValueRef
only_branch_into(LLVMBasicBlockRef s)
{
	LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(s));
	LLVMValueRef t;

	if (!u || LLVMGetNextUse(u))
		return NULL;
	t = LLVMGetUser(u);
	return LLVMIsABranchInst(t) && LLVMIsConditional(t) ? t : NULL;
}

static int
unskip(LLVMTargetDataRef td, LLVMBasicBlockRef s, unsigned limit)
{
	LLVMValueRef br = only_branch_into(s), term = LLVMGetBasicBlockTerminator(s), st, old, sel, ns;
	LLVMBasicBlockRef p, j;
	LLVMBuilderRef b;
	unsigned n = 0;
	int taken;

	if (!br || !term || !LLVMIsABranchInst(term) || LLVMIsConditional(term))
		return 0;
	p = LLVMGetInstructionParent(br);
	j = LLVMGetSuccessor(term, 0);
	taken = LLVMGetSuccessor(br, 0) == s;
	if (p == s || LLVMGetSuccessor(br, taken ? 1 : 0) != j)
		return 0;
	st = LLVMGetPreviousInstruction(term);
	if (!st || !plain_store(st))
		return 0;
	for (LLVMValueRef i = LLVMGetFirstInstruction(s); i != st; i = LLVMGetNextInstruction(i))
		if (LLVMIsAPHINode(i) || !nv_cfg_pure(i) || ++n > limit)
			return 0;
	old = earlier_store(td, p, st);
	if (!old)
		return 0;
	for (LLVMValueRef i = LLVMGetFirstInstruction(s), next; i != st; i = next) {
		next = LLVMGetNextInstruction(i);
		nv_cfg_move_before(i, br);
	}
	b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(st)));
	LLVMPositionBuilderBefore(b, br);
	sel = LLVMBuildSelect(b, LLVMGetCondition(br), taken ? LLVMGetOperand(st, 0) : LLVMGetOperand(old, 0),
	                      taken ? LLVMGetOperand(old, 0) : LLVMGetOperand(st, 0), "unskip");
	ns = LLVMBuildStore(b, sel, LLVMGetOperand(st, 1));
	LLVMSetAlignment(ns, LLVMGetAlignment(st));
	{
		size_t nmd = 0;
		LLVMValueMetadataEntry *md = LLVMInstructionGetAllMetadataOtherThanDebugLoc(st, &nmd);
		LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(st));

		for (unsigned k = 0; k < nmd; k++)
			LLVMSetMetadata(ns, LLVMValueMetadataEntriesGetKind(md, k),
			                LLVMMetadataAsValue(ctx, LLVMValueMetadataEntriesGetMetadata(md, k)));
		if (md)
			LLVMDisposeValueMetadataEntries(md);
		LLVMInstructionSetDebugLoc(ns, LLVMInstructionGetDebugLoc(st));
	}
	LLVMDisposeBuilder(b);
	nv_remark(NV_REMARK_PASSED, "unskip-stores", "SkippedStoreUnconditional", ns,
	          "a store that a branch skipped is made unconditional (the block before stored to the same "
	          "address), with its %u instructions above the branch, so ptxas can schedule them with "
	          "the code before it",
	          n);
	LLVMInstructionEraseFromParent(st);
	/* The branch now chooses between two ways to j: one, where j has no phis. */
	if (!LLVMIsAPHINode(LLVMGetFirstInstruction(j))) {
		b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(br)));
		LLVMPositionBuilderBefore(b, br);
		LLVMBuildBr(b, j);
		LLVMDisposeBuilder(b);
		LLVMInstructionEraseFromParent(br);
		LLVMDeleteBasicBlock(s);
	}
	return 1;
}

unsigned
nv_memory_unskip_stores(LLVMModuleRef m, unsigned limit)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
	unsigned total = 0;

	if (!limit)
		return 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef s = LLVMGetFirstBasicBlock(f), next; s; s = next) {
			next = LLVMGetNextBasicBlock(s);
			total += (unsigned)unskip(td, s, limit);
		}
	return total;
}

/*
 * base-address-strength-reduce (a piece of cicc's pass of that name).  In
 * a loop, an address p[x - k] where the pointer p and the offset k are the
 * same on every trip and p[x] is already computed (a stencil's in[idx - nx]
 * beside its in[idx]) becomes p[x] plus -k: one add on the loop's path,
 * with -k computed once before the loop, where LLVM leaves a subtraction, a
 * shift and an add (it splits p[x + k] so, but not a difference).  The
 * shorter path matters to ptxas beyond the two instructions: it predicates
 * a short conditional block instead of branching around it, and then
 * overlaps the loads of several trips (stencil3d_7pt: 12 loads predicated
 * with it, none without; nvcc predicates 16).  The address is computed the
 * same way modulo 2^n, so the rewrite holds however the index wraps; the
 * new GEPs carry no inbounds.
 */

struct basr {
	struct nv_fn_loops *a;
	LLVMBuilderRef b;
	/* -k already computed for a loop: (loop, k) -> -k */
	struct { unsigned loop; LLVMValueRef k, neg; } *negs;
	unsigned nneg, cap;
};

/* Is v the same on every trip of loop l? */
static int
basr_invariant(const struct basr *s, unsigned l, LLVMValueRef v)
{
	if (!LLVMIsAInstruction(v))
		return 1; /* an argument, a global, a constant */
	return !nv_loop_contains(&s->a->ls, l, nv_cfg_index(&s->a->g, LLVMGetInstructionParent(v)));
}

/* An existing p[x] (same element type) that dominates gep, or NULL. */
static LLVMValueRef
basr_base(const struct basr *s, LLVMValueRef gep, LLVMValueRef p, LLVMValueRef x)
{
	LLVMTypeRef et = LLVMGetGEPSourceElementType(gep);

	for (LLVMUseRef u = LLVMGetFirstUse(x); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef g = LLVMGetUser(u);

		if (g != gep && LLVMIsAGetElementPtrInst(g) && LLVMGetNumOperands(g) == 2 &&
		    LLVMGetOperand(g, 0) == p && LLVMGetOperand(g, 1) == x &&
		    LLVMGetGEPSourceElementType(g) == et && nv_dom_inst_dominates(&s->a->d, g, gep))
			return g;
	}
	return NULL;
}

/* -k for loop l: once, before the loop when it has a preheader. */
static LLVMValueRef
basr_neg(struct basr *s, unsigned l, LLVMValueRef k, LLVMValueRef at)
{
	unsigned ph = s->a->ls.v[l].preheader;

	for (unsigned i = 0; i < s->nneg; i++)
		if (s->negs[i].loop == l && s->negs[i].k == k &&
		    nv_dom_inst_dominates(&s->a->d, s->negs[i].neg, at))
			return s->negs[i].neg;
	if (ph != NV_NONE)
		at = LLVMGetBasicBlockTerminator(s->a->g.bb[ph]);
	LLVMPositionBuilderBefore(s->b, at);
	if (s->nneg == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->negs = xrealloc(s->negs, s->cap * sizeof(*s->negs));
	}
	s->negs[s->nneg].loop = l;
	s->negs[s->nneg].k = k;
	s->negs[s->nneg].neg = LLVMBuildNeg(s->b, k, "basr.neg");
	return s->negs[s->nneg++].neg;
}

static unsigned
basr_function(LLVMValueRef fn, LLVMBuilderRef b)
{
	struct nv_fn_loops a;
	struct basr s = { &a, b, NULL, 0, 0 };
	unsigned n = 0;

	nv_fn_loops_build(&a, fn);
	for (unsigned bi = 0; bi < a.g.n; bi++) {
		unsigned l = a.ls.innermost[bi];
		LLVMValueRef next;

		if (l == NV_NONE)
			continue;
		for (LLVMValueRef gep = LLVMGetFirstInstruction(a.g.bb[bi]); gep; gep = next) {
			LLVMValueRef p, idx, x, k, base, neg, nu;

			next = LLVMGetNextInstruction(gep);
			if (!LLVMIsAGetElementPtrInst(gep) || LLVMGetNumOperands(gep) != 2)
				continue;
			p = LLVMGetOperand(gep, 0);
			idx = LLVMGetOperand(gep, 1);
			if (!LLVMIsAInstruction(idx) || LLVMGetInstructionOpcode(idx) != LLVMSub)
				continue;
			x = LLVMGetOperand(idx, 0);
			k = LLVMGetOperand(idx, 1);
			/* a constant k: LLVM folds it into the address already */
			if (!basr_invariant(&s, l, p) || !basr_invariant(&s, l, k) || LLVMIsAConstant(k) ||
			    basr_invariant(&s, l, x))
				continue;
			base = basr_base(&s, gep, p, x);
			if (!base)
				continue;
			neg = basr_neg(&s, l, k, gep);
			LLVMPositionBuilderBefore(b, gep);
			nu = LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(gep), base, &neg, 1, "");
			LLVMInstructionSetDebugLoc(nu, LLVMInstructionGetDebugLoc(gep));
			nv_remark(NV_REMARK_PASSED, "base-address-strength-reduce", "Rebased", gep,
			          "p[x - k] computed as p[x] + -k, with k the same on every trip");
			LLVMReplaceAllUsesWith(gep, nu);
			LLVMInstructionEraseFromParent(gep);
			if (!LLVMGetFirstUse(idx))
				LLVMInstructionEraseFromParent(idx);
			n++;
		}
	}
	free(s.negs);
	nv_fn_loops_release(&a);
	return n;
}

unsigned
nv_memory_base_address_strength_reduce(LLVMModuleRef m)
{
	return nv_knob_int(NV_KNOB_DO_BASE_ADDRESS_STRENGTH_REDUCE) ? nv_cfg_each_defined(m, basr_function) : 0;
}

/*
 * memory-space-opt (a piece of cicc's pass of that name): the NVVM memory
 * intrinsics overloaded on their pointer's address space, the WMMA fragment
 * loads and stores (wmma::load_matrix_sync, store_matrix_sync), called on a
 * generic pointer that provably points into shared or global memory, call
 * their variant for that space instead: wmma.load.c.shared with a 32-bit
 * address where a generic one takes a 64-bit address and ptxas's test of
 * the window.  LLVM's infer-address-spaces rewrites loads, stores and
 * atomics so, but leaves these intrinsics generic; cicc does not (nvcc's
 * bf16TensorCoreGemm: wmma.load.c.shared.f32, wmma.store.d.shared.f32).
 * Run after infer-address-spaces, the pointer is a chain of GEPs over one
 * conversion from the specific space; the chain is rebuilt there.
 */

struct memspace {
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMValueRef *old; /* the generic pointers calls no longer use */
	unsigned nold, cap;
};

/* v, a generic pointer, as a pointer in a specific space (shared or
 * global): the conversion's source, each GEP on the way rebuilt over it at
 * the builder (right before the call: an address computed where it is used,
 * its constant offsets folded into the access; rebuilt where the generic
 * GEP stands, the addresses of an unrolled GEMM stay live all through it,
 * dmmaTensorCoreGemm's 96 registers become 255); NULL when v is no such
 * chain. */
static LLVMValueRef
specific_ptr(struct memspace *s, LLVMValueRef v, unsigned depth)
{
	LLVMValueRef base;

	if (LLVMIsAAddrSpaceCastInst(v) || (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMAddrSpaceCast)) {
		LLVMValueRef src = LLVMGetOperand(v, 0);

		return is_ptr_in(src, ADDRSPACE_GLOBAL) || is_ptr_in(src, ADDRSPACE_SHARED) ? src : NULL;
	}
	/* a constant GEP too: InferAddressSpaces leaves a fixed offset into a
	 * shared array as `gep (addrspacecast @sh), K` in the operand */
	if ((!LLVMIsAGetElementPtrInst(v) && !is_const_gep(v)) || depth > 16)
		return NULL;
	if (!(base = specific_ptr(s, LLVMGetOperand(v, 0), depth + 1)))
		return NULL;
	return gep_over(s->b, v, base);
}

/* Erase v and the chain under it that nothing else uses. */
static void
erase_dead_chain(LLVMValueRef v)
{
	while (v && LLVMIsAInstruction(v) && !LLVMGetFirstUse(v) &&
	       (LLVMIsAGetElementPtrInst(v) || LLVMIsAAddrSpaceCastInst(v))) {
		LLVMValueRef next = LLVMGetOperand(v, 0);

		LLVMInstructionEraseFromParent(v);
		v = next;
	}
}

/* Is f a WMMA load or store on a generic pointer? */
static int
generic_wmma(LLVMValueRef f)
{
	size_t len;
	const char *name = LLVMGetValueName2(f, &len);

	return len > 19 && !strncmp(name, "llvm.nvvm.wmma.", 15) && !strcmp(name + len - 3, ".p0") &&
	       (strstr(name, ".load.") || strstr(name, ".store."));
}

/* Replace the call old by nu, which takes its uses, its name and its line. */
static void
replace_call(LLVMValueRef old, LLVMValueRef nu)
{
	size_t len;
	char *name = xstrdup(LLVMGetValueName2(old, &len));

	LLVMInstructionSetDebugLoc(nu, LLVMInstructionGetDebugLoc(old));
	if (LLVMGetTypeKind(LLVMTypeOf(old)) != LLVMVoidTypeKind)
		LLVMReplaceAllUsesWith(old, nu);
	LLVMInstructionEraseFromParent(old);
	if (*name)
		LLVMSetValueName2(nu, name, strlen(name));
	free(name);
}

/* The call, on its pointer in a specific space sp, as that space's variant. */
static void
specialize(struct memspace *s, LLVMValueRef call, LLVMValueRef sp, unsigned id)
{
	LLVMTypeRef pty = LLVMTypeOf(sp);
	LLVMValueRef decl = LLVMGetIntrinsicDeclaration(s->m, id, &pty, 1), nu;
	unsigned nargs = (unsigned)LLVMGetNumArgOperands(call);
	LLVMValueRef *args = xmalloc(nargs * sizeof(*args));
	size_t len;

	args[0] = sp;
	for (unsigned i = 1; i < nargs; i++)
		args[i] = LLVMGetOperand(call, i);
	nu = LLVMBuildCall2(s->b, LLVMGlobalGetValueType(decl), decl, args, nargs, "");
	free(args);
	nv_remark(NV_REMARK_PASSED, "memory-space-opt", "Specialized", call, "%s on a %s pointer",
	          LLVMGetValueName2(decl, &len),
	          LLVMGetPointerAddressSpace(pty) == ADDRSPACE_SHARED ? "shared" : "global");
	replace_call(call, nu);
}

static unsigned
memspace_function(struct memspace *s, LLVMValueRef fn)
{
	unsigned n = 0;

	s->nold = 0;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef next;

		for (LLVMValueRef call = LLVMGetFirstInstruction(bb); call; call = next) {
			LLVMValueRef callee, p, sp;
			unsigned id;

			next = LLVMGetNextInstruction(call);
			if (!LLVMIsACallInst(call) || !(callee = LLVMGetCalledValue(call)) ||
			    !LLVMIsAFunction(callee) || !generic_wmma(callee))
				continue;
			id = LLVMGetIntrinsicID(callee);
			p = LLVMGetOperand(call, 0);
			if (!id || !LLVMIntrinsicIsOverloaded(id))
				continue;
			LLVMPositionBuilderBefore(s->b, call);
			if (!(sp = specific_ptr(s, p, 0)))
				continue; /* nothing built: the chain fails before its first GEP */
			specialize(s, call, sp, id);
			if (s->nold == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 16;
				s->old = xrealloc(s->old, s->cap * sizeof(*s->old));
			}
			s->old[s->nold++] = p;
			n++;
		}
	}
	/* the generic chains the calls no longer use, each once */
	for (unsigned i = 0; i < s->nold; i++)
		for (unsigned j = 0; j < i; j++)
			if (s->old[j] == s->old[i])
				s->old[i] = NULL;
	for (unsigned i = 0; i < s->nold; i++)
		erase_dead_chain(s->old[i]);
	return n;
}

unsigned
nv_memory_space_opt(LLVMModuleRef m)
{
	struct memspace s = { .m = m };
	unsigned n = 0;

	if (!nv_knob_int(NV_KNOB_MEMORY_SPACE_OPT))
		return 0;
	s.b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			n += memspace_function(&s, f);
	LLVMDisposeBuilder(s.b);
	free(s.old);
	return n;
}

/*
 * byval-args-by-value (ours).  A call passing a struct byval to a function
 * this module only declares (the device runtime's __cudaCDP2LaunchDevice,
 * which every <<<>>> in device code calls with the grid and block dim3s; a
 * device function another -rdc unit defines) passes the struct's value
 * instead, loaded where the call is.  NVPTX copies a byval argument into
 * the call's .param from memory, so the local the front end built it in
 * stays in the stack frame (24 bytes a device launch, none in nvcc's); a
 * value it stores into the .param directly, and SROA folds the local away.
 * Both spell the parameter .param .align A .b8 p[size], so the declaration
 * changes type only where the byval alignment is the struct's own (what
 * NVPTX declares a struct by value with), and only when every use of it is
 * a direct call: the function itself, defined elsewhere, keeps its ABI.
 */

/* Is every use of f a direct call of it, with its own type? */
static int
only_called(LLVMValueRef f)
{
	for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef c = LLVMGetUser(u);

		if (!LLVMIsACallInst(c) || LLVMGetCalledValue(c) != f ||
		    LLVMGetCalledFunctionType(c) != LLVMGlobalGetValueType(f))
			return 0;
		for (unsigned i = 0; i < (unsigned)LLVMGetNumArgOperands(c); i++)
			if (LLVMGetOperand(c, i) == f)
				return 0;
	}
	return 1;
}

/* The byval struct types of f's parameters into ty (NULL where a parameter
 * is not byval, or would not keep its .param as a value); how many. */
static unsigned
byval_structs(LLVMModuleRef m, LLVMValueRef f, LLVMTypeRef *ty)
{
	unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), n = 0;

	for (unsigned i = 0; i < LLVMCountParams(f); i++) {
		LLVMAttributeRef at = LLVMGetEnumAttributeAtIndex(f, i + 1, byval);
		LLVMTypeRef t = at ? LLVMGetTypeAttributeValue(at) : NULL;

		ty[i] = NULL;
		if (!t || LLVMGetTypeKind(t) != LLVMStructTypeKind || !LLVMCountStructElementTypes(t) ||
		    fn_param_align(f, i, nv_type_align(m, t)) != nv_type_align(m, t))
			continue;
		ty[i] = t;
		n++;
	}
	return n;
}

/* Copy the attributes at index idx of src (a function or a call) to dst. */
static void
copy_attrs(LLVMValueRef src, LLVMValueRef dst, LLVMAttributeIndex idx, int call)
{
	unsigned n = call ? LLVMGetCallSiteAttributeCount(src, idx) : LLVMGetAttributeCountAtIndex(src, idx);
	LLVMAttributeRef *a;

	if (!n)
		return;
	a = xmalloc(n * sizeof(*a));
	if (call)
		LLVMGetCallSiteAttributes(src, idx, a);
	else
		LLVMGetAttributesAtIndex(src, idx, a);
	for (unsigned i = 0; i < n; i++)
		if (call)
			LLVMAddCallSiteAttribute(dst, idx, a[i]);
		else
			LLVMAddAttributeAtIndex(dst, idx, a[i]);
	free(a);
}

/* Copy src's function and return attributes and those of each parameter i
 * with no ty[i] (the byval ones change type, and lose theirs) to dst. */
static void
copy_attrs_but_byval(LLVMValueRef src, LLVMValueRef dst, LLVMTypeRef *ty, unsigned n, int call)
{
	copy_attrs(src, dst, LLVMAttributeFunctionIndex, call);
	copy_attrs(src, dst, LLVMAttributeReturnIndex, call);
	for (unsigned i = 0; i < n; i++)
		if (!ty[i])
			copy_attrs(src, dst, i + 1, call);
}

/* A declaration like f with the struct values of ty for its byval
 * pointers, under f's name (f renamed). */
static LLVMValueRef
by_value_decl(LLVMModuleRef m, LLVMValueRef f, LLVMTypeRef *ty)
{
	LLVMTypeRef fty = LLVMGlobalGetValueType(f), *params;
	unsigned n = LLVMCountParamTypes(fty);
	size_t len;
	char *name = xstrdup(LLVMGetValueName2(f, &len));
	LLVMValueRef nf;

	params = xmalloc((n ? n : 1) * sizeof(*params));
	LLVMGetParamTypes(fty, params);
	for (unsigned i = 0; i < n; i++)
		if (ty[i])
			params[i] = ty[i];
	LLVMSetValueName2(f, "", 0);
	nf = LLVMAddFunction(m, name, LLVMFunctionType(LLVMGetReturnType(fty), params, n, 0));
	free(params);
	free(name);
	LLVMSetLinkage(nf, LLVMGetLinkage(f));
	LLVMSetVisibility(nf, LLVMGetVisibility(f));
	LLVMSetUnnamedAddress(nf, LLVMGetUnnamedAddress(f));
	LLVMSetFunctionCallConv(nf, LLVMGetFunctionCallConv(f));
	copy_attrs_but_byval(f, nf, ty, n, 0);
	return nf;
}

/* The call c of f as a call of nf, each byval argument loaded before it. */
static void
call_by_value(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef c, LLVMValueRef nf, LLVMTypeRef *ty,
              unsigned n)
{
	LLVMValueRef *args = xmalloc((n ? n : 1) * sizeof(*args)), nc;
	size_t len;

	LLVMPositionBuilderBefore(b, c);
	for (unsigned i = 0; i < n; i++) {
		args[i] = LLVMGetOperand(c, i);
		if (ty[i]) {
			args[i] = LLVMBuildLoad2(b, ty[i], args[i], "");
			LLVMSetAlignment(args[i], nv_type_align(m, ty[i]));
		}
	}
	nc = LLVMBuildCall2(b, LLVMGlobalGetValueType(nf), nf, args, n, "");
	free(args);
	LLVMSetInstructionCallConv(nc, LLVMGetInstructionCallConv(c));
	LLVMSetTailCallKind(nc, LLVMGetTailCallKind(c));
	copy_attrs_but_byval(c, nc, ty, n, 1);
	nv_remark(NV_REMARK_PASSED, "byval-args-by-value", "ByValue", c,
	          "struct arguments of %s passed as values: stored into the call's parameters, "
	          "not copied there from a local", LLVMGetValueName2(nf, &len));
	replace_call(c, nc);
}

unsigned
nv_memory_byval_args_by_value(LLVMModuleRef m)
{
	LLVMBuilderRef b;
	unsigned calls = 0;

	/* the equivalence is NVPTX's: on a host target the two differ */
	if (!nv_knob_int(NV_KNOB_BYVAL_ARGS_BY_VALUE) || strncmp(LLVMGetTarget(m), "nvptx", 5))
		return 0;
	b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
	for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
		unsigned n = LLVMCountParams(f);
		LLVMTypeRef *ty;
		LLVMValueRef nf;

		next = LLVMGetNextFunction(f);
		if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f) || LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f)) ||
		    !n || !LLVMGetFirstUse(f) || !only_called(f))
			continue;
		ty = xmalloc(n * sizeof(*ty));
		if (byval_structs(m, f, ty)) {
			nf = by_value_decl(m, f, ty);
			while (LLVMGetFirstUse(f)) {
				call_by_value(m, b, LLVMGetUser(LLVMGetFirstUse(f)), nf, ty, n);
				calls++;
			}
			LLVMDeleteFunction(f);
		}
		free(ty);
	}
	LLVMDisposeBuilder(b);
	return calls;
}

/*
 * Kernel byval parameters.  A kernel's byval parameter is in parameter
 * space, which the kernel may read and never write.  LLVM's NVPTX reads it
 * in place where every use loads from it; where its address goes anywhere
 * else it copies the parameter to a local, a byte at a time, unless the
 * parameter is __grid_constant__ ("nvvm.grid_constant"), whose address is
 * then the generic one cvta.param gives (sm_70, PTX 7.7).  Libraries leave
 * __grid_constant__ out under clang, so a TMA descriptor in a 1 KB Params
 * went to local memory, and prefetch.tensormap and cp.async.bulk.tensor
 * got a local address, which the PTX ISA forbids for a tensor map.  Here a
 * parameter its kernel never writes is marked grid_constant whatever the
 * source says, and one it may write gets the copy LLVM would make, in
 * 16-byte pieces (nvcc's ld.param.v4 and st.local.v4).  Requires nothing;
 * run before code generation.
 */

enum byval_use { BYVAL_LOADED, BYVAL_READ, BYVAL_WRITTEN };

/* PTX instructions that only read through an address operand. */
static int
reads_only(const char *insn, size_t len)
{
	static const char *const ok[] = {
		"prefetch.", "prefetchu.", "ld.", "ldu.", "cp.async.bulk.tensor.", "cp.reduce.async.bulk.tensor.",
		"cp.async.bulk.prefetch.", "fence.proxy.tensormap", "applypriority.",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		if (len >= strlen(ok[i]) && !strncmp(insn, ok[i], strlen(ok[i])))
			return 1;
	return 0;
}

/* The template operand number of call argument arg of an inline asm with
 * constraints c ("=r,l,~{memory}"), and whether the asm may write memory;
 * -1 for an indirect output (it writes there). */
static int
asm_operand(const char *c, size_t len, unsigned arg, int *clobbers_memory)
{
	unsigned k = 0;
	int op = 0, found = -2;

	*clobbers_memory = 0;
	for (size_t i = 0; i < len;) {
		size_t n = strcspn(c + i, ",");

		if (n > len - i)
			n = len - i;
		if (!strncmp(c + i, "~{memory}", n) && n == 9)
			*clobbers_memory = 1;
		else if (c[i] != '~') {
			int out = c[i] == '=', indirect = memchr(c + i, '*', n) != NULL;

			if (!out || indirect) {
				if (k++ == arg && found == -2)
					found = out ? -1 : op;
			}
			op++;
		}
		i += n + 1;
	}
	return found == -2 ? -1 : found;
}

/* Does asm template s use operand op only in instructions that read? */
static int
asm_reads_operand(const char *s, size_t len, int op)
{
	for (size_t i = 0; i < len; i++) {
		size_t start = i, word;
		char *end;
		long n;

		if (s[i] != '$')
			continue;
		if (i + 1 < len && s[i + 1] == '$') {
			i++;
			continue;
		}
		n = strtol(s + i + 1 + (s[i + 1] == '{'), &end, 10);
		if (end == s + i + 1 + (s[i + 1] == '{') || n != op)
			continue;
		/* the statement's first word, after a guard predicate */
		while (start > 0 && !strchr(";\n{}", s[start - 1]))
			start--;
		while (start < i && strchr(" \t", s[start]))
			start++;
		if (s[start] == '@')
			while (start < i && !strchr(" \t", s[start]))
				start++;
		while (start < i && strchr(" \t", s[start]))
			start++;
		word = strcspn(s + start, " \t");
		if (!reads_only(s + start, word))
			return 0;
	}
	return 1;
}

/* What call c does with its argument arg, a pointer into the parameter. */
static enum byval_use
call_use(LLVMValueRef c, unsigned arg)
{
	LLVMValueRef callee = LLVMGetCalledValue(c);
	unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
	const char *name = nv_cfg_callee_name(c);

	/* passed by value: the callee gets a copy */
	if (LLVMGetCallSiteEnumAttribute(c, arg + 1, LLVMGetEnumAttributeKindForName("byval", 5)))
		return BYVAL_READ;
	if (LLVMIsAInlineAsm(callee)) {
		size_t clen, slen;
		const char *cons = LLVMGetInlineAsmConstraintString(callee, &clen);
		const char *str = LLVMGetInlineAsmAsmString(callee, &slen);
		int mem, op = asm_operand(cons, clen, arg, &mem);

		if (op < 0)
			return BYVAL_WRITTEN;
		/* without a memory clobber an asm writes no memory it is not given as an output */
		return !mem || asm_reads_operand(str, slen, op) ? BYVAL_READ : BYVAL_WRITTEN;
	}
	if (name && (!strncmp(name, "llvm.nvvm.prefetch.", 19) || !strncmp(name, "llvm.nvvm.cp.async.bulk.tensor.", 31) ||
	             !strncmp(name, "llvm.nvvm.cp.async.bulk.prefetch.tensor.", 40)))
		return BYVAL_READ;
	if ((name && !strncmp(name, "llvm.memcpy", 11)) || (name && !strncmp(name, "llvm.memmove", 12)))
		return arg == 1 ? BYVAL_LOADED : BYVAL_WRITTEN;
	/* a function that writes no memory at all (memory(read) or none) */
	for (int where = 0; where < 2; where++) {
		LLVMAttributeRef a = where ? (LLVMIsAFunction(callee) ?
		                              LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, memory) : NULL)
		                           : LLVMGetCallSiteEnumAttribute(c, LLVMAttributeFunctionIndex, memory);

		/* two bits a location, ModRef: no location with Mod */
		if (a && !(LLVMGetEnumAttributeValue(a) & 0xAAAAAAAAAAAAAAAAull))
			return BYVAL_READ;
	}
	return BYVAL_WRITTEN;
}

static enum byval_use byval_uses(LLVMValueRef p, int depth);

/* The same for the address as an integer (reinterpret_cast<uint64_t>(&p),
 * as an asm operand): offsets of it, an asm's operand, a pointer again. */
static enum byval_use
int_uses(LLVMValueRef v, int depth)
{
	enum byval_use worst = BYVAL_READ;

	if (depth > 16)
		return BYVAL_WRITTEN;
	for (LLVMUseRef u = LLVMGetFirstUse(v); u && worst != BYVAL_WRITTEN; u = LLVMGetNextUse(u)) {
		LLVMValueRef i = LLVMGetUser(u);
		LLVMOpcode op = LLVMIsAInstruction(i) ? LLVMGetInstructionOpcode(i) : LLVMRet;
		enum byval_use w = BYVAL_WRITTEN;

		if ((op == LLVMAdd || op == LLVMSub || op == LLVMOr) && LLVMIsAConstantInt(LLVMGetOperand(i, 1)))
			w = int_uses(i, depth + 1);
		else if (op == LLVMIntToPtr)
			w = byval_uses(i, depth + 1);
		else if (op == LLVMCall && LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
			for (unsigned a = 0; a < LLVMGetNumArgOperands(i); a++)
				if (LLVMGetOperand(i, a) == v)
					w = call_use(i, a);
		if (w > worst)
			worst = w;
	}
	return worst;
}

/* The most any use of p (the parameter, or an address into it) does. */
static enum byval_use
byval_uses(LLVMValueRef p, int depth)
{
	enum byval_use worst = BYVAL_LOADED;

	if (depth > 16)
		return BYVAL_WRITTEN;
	for (LLVMUseRef u = LLVMGetFirstUse(p); u && worst != BYVAL_WRITTEN; u = LLVMGetNextUse(u)) {
		LLVMValueRef i = LLVMGetUser(u);
		enum byval_use w = BYVAL_WRITTEN;

		if ((LLVMIsAGetElementPtrInst(i) || LLVMIsABitCastInst(i) || LLVMIsAAddrSpaceCastInst(i)) &&
		    LLVMGetOperand(i, 0) == p)
			w = byval_uses(i, depth + 1);
		else if (LLVMIsASelectInst(i) || LLVMIsAPHINode(i))
			/* this address or another one: a generic address (cvta.param) */
			w = byval_uses(i, depth + 1) == BYVAL_WRITTEN ? BYVAL_WRITTEN : BYVAL_READ;
		else if (LLVMIsALoadInst(i))
			w = BYVAL_LOADED;
		else if (LLVMIsAPtrToIntInst(i))
			w = int_uses(i, depth + 1);
		else if (LLVMIsACallInst(i) && !nv_cfg_lifetime_marker(i))
			for (unsigned a = 0; a < LLVMGetNumArgOperands(i); a++)
				if (LLVMGetOperand(i, a) == p) {
					enum byval_use c = call_use(i, a);

					w = w == BYVAL_WRITTEN || c > w ? c : w;
				}
		if (w > worst)
			worst = w;
	}
	return worst;
}

/* Copy parameter arg (of type ty) to a local that its uses take instead,
 * in the widest pieces its alignment allows. */
static LLVMValueRef
copy_byval(LLVMModuleRef m, LLVMValueRef f, LLVMValueRef arg, LLVMTypeRef ty, unsigned align)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
	LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx), i32 = LLVMInt32TypeInContext(ctx);
	LLVMTypeRef piece[] = { LLVMVectorType(i32, 4), LLVMInt64TypeInContext(ctx), i32,
		                LLVMInt16TypeInContext(ctx), i8 };
	uint64_t size = nv_type_alloc_size(m, ty);
	LLVMValueRef copy;

	LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f)));
	copy = LLVMBuildAlloca(b, ty, "");
	LLVMSetAlignment(copy, align);
	LLVMReplaceAllUsesWith(arg, copy);
	for (uint64_t off = 0; off < size;) {
		unsigned w = 16, k = 0;
		LLVMValueRef at, from, to, v;

		while (w > 1 && (w > align || off % w || off + w > size))
			w /= 2, k++;
		at = LLVMConstInt(LLVMInt64TypeInContext(ctx), off, 0);
		from = LLVMBuildInBoundsGEP2(b, i8, arg, &at, 1, "");
		to = LLVMBuildInBoundsGEP2(b, i8, copy, &at, 1, "");
		v = LLVMBuildLoad2(b, piece[k], from, "");
		LLVMSetAlignment(v, w);
		LLVMSetAlignment(LLVMBuildStore(b, v, to), w);
		off += w;
	}
	LLVMDisposeBuilder(b);
	return copy;
}

unsigned
nv_memory_kernel_byval(LLVMModuleRef m, int grid_constant)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), n = 0;
	static const char gc[] = "nvvm.grid_constant";

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f) || !nv_is_kernel(f))
			continue;
		for (unsigned i = 0; i < LLVMCountParams(f); i++) {
			LLVMAttributeRef at = LLVMGetEnumAttributeAtIndex(f, i + 1, byval);
			LLVMValueRef arg = LLVMGetParam(f, i);
			LLVMTypeRef ty;
			enum byval_use use;

			if (!at || LLVMGetStringAttributeAtIndex(f, i + 1, gc, sizeof(gc) - 1))
				continue;
			use = byval_uses(arg, 0);
			ty = LLVMGetTypeAttributeValue(at);
			if (use == BYVAL_READ && grid_constant) {
				LLVMAddAttributeAtIndex(f, i + 1, LLVMCreateStringAttribute(ctx, gc, sizeof(gc) - 1, "", 0));
				nv_remark(NV_REMARK_PASSED, "nv-llc", "ByvalGridConstant", LLVMGetFirstInstruction(
				          LLVMGetEntryBasicBlock(f)), "parameter %u stays in parameter space "
				          "(grid_constant): the kernel only reads it", i);
				n++;
			} else if (use != BYVAL_LOADED) {
				LLVMValueRef c = copy_byval(m, f, arg, ty, fn_param_align(f, i, nv_type_align(m, ty)));

				nv_remark(NV_REMARK_PASSED, "nv-llc", "ByvalCopied", c,
				          "parameter %u of kernel copied to a local in 16-byte pieces: the kernel may "
				          "write it", i);
				n++;
			}
		}
	}
	return n;
}

/*
 * base-address-strength-reduce-chain (cicc's do-base-address-strength-
 * reduce-chain): in a block, an access p[sext(i2)] whose 32-bit index is
 * i1 + c * s or i1 + c for an earlier access p[sext(i1)] of the same array
 * is addressed from i1's pointer: q2 = q1 + c * size * sext(s), one 64-bit
 * add, where we built each index, sign-extended it and multiplied it
 * (mul.wide) per access.  An unrolled `a[(y + j) * w + x]`, j = 0, 8, 16,
 * 24 (a tile transpose) steps one pointer, as cicc does.
 *
 * The indices are read as polynomials over the 32-bit values they are
 * built from through add, sub, mul and shl with nsw (an overflow there is
 * poison), so sext(i2) - sext(i1) is their difference exactly.  The
 * earlier pointer q1 must already have been loaded or stored through in
 * the block: were it poison (an index that overflowed), that access is
 * undefined before q2 is used, so q2 may be computed from it.  Blocks in
 * a loop are left to LSR.
 */

#define CHAIN_TERMS 8 /* terms of an index polynomial */
#define CHAIN_DEGREE 3 /* factors of a term */
#define CHAIN_DEPTH 12 /* operations read into an index */

struct chain_term {
	int64_t c;
	unsigned n; /* factors, sorted by address; 0: the constant */
	LLVMValueRef f[CHAIN_DEGREE];
};

struct chain_poly {
	unsigned n;
	struct chain_term t[CHAIN_TERMS];
};

static int
term_same(const struct chain_term *a, const struct chain_term *b)
{
	if (a->n != b->n)
		return 0;
	for (unsigned i = 0; i < a->n; i++)
		if (a->f[i] != b->f[i])
			return 0;
	return 1;
}

/* p += k * t; 0 when it does not fit. */
static int
poly_add_term(struct chain_poly *p, const struct chain_term *t, int64_t k)
{
	int64_t c;

	if (__builtin_mul_overflow(t->c, k, &c))
		return 0;
	for (unsigned i = 0; i < p->n; i++)
		if (term_same(&p->t[i], t)) {
			if (__builtin_add_overflow(p->t[i].c, c, &p->t[i].c))
				return 0;
			if (!p->t[i].c)
				p->t[i] = p->t[--p->n];
			return 1;
		}
	if (!c)
		return 1;
	if (p->n == CHAIN_TERMS)
		return 0;
	p->t[p->n] = *t;
	p->t[p->n++].c = c;
	return 1;
}

static int
poly_add(struct chain_poly *p, const struct chain_poly *q, int64_t k)
{
	for (unsigned i = 0; i < q->n; i++)
		if (!poly_add_term(p, &q->t[i], k))
			return 0;
	return 1;
}

/* p = a * b; 0 when it does not fit. */
static int
poly_mul(struct chain_poly *p, const struct chain_poly *a, const struct chain_poly *b)
{
	p->n = 0;
	for (unsigned i = 0; i < a->n; i++)
		for (unsigned j = 0; j < b->n; j++) {
			struct chain_term t;

			if (a->t[i].n + b->t[j].n > CHAIN_DEGREE)
				return 0;
			t.n = 0;
			t.c = 1;
			/* merge the two sorted factor lists */
			for (unsigned x = 0, y = 0; x < a->t[i].n || y < b->t[j].n;)
				if (y == b->t[j].n ||
				    (x < a->t[i].n && (uintptr_t)a->t[i].f[x] <= (uintptr_t)b->t[j].f[y]))
					t.f[t.n++] = a->t[i].f[x++];
				else
					t.f[t.n++] = b->t[j].f[y++];
			if (__builtin_mul_overflow(a->t[i].c, b->t[j].c, &t.c) || !poly_add_term(p, &t, 1))
				return 0;
		}
	return 1;
}

static void
poly_leaf(struct chain_poly *p, LLVMValueRef v)
{
	p->n = 1;
	p->t[0].c = 1;
	p->t[0].n = 1;
	p->t[0].f[0] = v;
}

/* The i32 value v as a polynomial whose sign extension is sext(v) (nsw
 * operations only); wide: the i64 value v as a polynomial equal to it
 * modulo 2^64, as addresses are (any add, sub, mul, shl). */
static int
chain_read(struct chain_poly *p, LLVMValueRef v, int wide, unsigned depth)
{
	struct chain_poly a, b;
	LLVMOpcode op;

	p->n = 0;
	if (LLVMIsAConstantInt(v)) {
		struct chain_term t = { LLVMConstIntGetSExtValue(v), 0, { 0 } };

		return poly_add_term(p, &t, 1);
	}
	if (!LLVMIsABinaryOperator(v) || depth >= CHAIN_DEPTH)
		goto leaf;
	op = LLVMGetInstructionOpcode(v);
	if ((op != LLVMAdd && op != LLVMSub && op != LLVMMul && op != LLVMShl) || (!wide && !LLVMGetNSW(v)))
		goto leaf;
	if (!chain_read(&a, LLVMGetOperand(v, 0), wide, depth + 1))
		return 0;
	if (op == LLVMShl) {
		LLVMValueRef k = LLVMGetOperand(v, 1);
		unsigned long long s;

		if (!LLVMIsAConstantInt(k) || (s = LLVMConstIntGetZExtValue(k)) > (wide ? 62u : 30u))
			goto leaf;
		return poly_add(p, &a, (int64_t)1 << s);
	}
	if (!chain_read(&b, LLVMGetOperand(v, 1), wide, depth + 1))
		return 0;
	if (op == LLVMMul)
		return poly_mul(p, &a, &b);
	return poly_add(p, &a, 1) && poly_add(p, &b, op == LLVMAdd ? 1 : -1);
leaf:
	poly_leaf(p, v);
	return 1;
}

/* An access of the block, read. */
struct chain_gep {
	LLVMValueRef gep, p, q; /* the GEP, its base, its pointer now */
	uint64_t size;
	int anchor; /* loaded or stored through */
	int wide; /* the index is i64 itself, not a sign extension */
	struct chain_poly x;
};

struct chain_step {
	LLVMValueRef s, v;
	int64_t bytes;
};

struct chain {
	LLVMModuleRef m;
	LLVMBuilderRef b;
	struct chain_gep *g;
	unsigned ng, capg;
	struct chain_step *st;
	unsigned nst, capst;
};

/* sext(s) * bytes, built once per block before `at` (after s). */
static LLVMValueRef
chain_step(struct chain *c, LLVMValueRef s, int64_t bytes, LLVMValueRef at)
{
	/* s: an i32 (sign-extended here) or an i64 leaf */
	LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetModuleContext(c->m));
	LLVMValueRef v;

	for (unsigned i = 0; i < c->nst; i++)
		if (c->st[i].s == s && c->st[i].bytes == bytes)
			return c->st[i].v;
	LLVMPositionBuilderBefore(c->b, at);
	v = LLVMGetIntTypeWidth(LLVMTypeOf(s)) == 64 ? s : LLVMBuildSExt(c->b, s, i64, "chain.s");
	v = LLVMBuildMul(c->b, v, LLVMConstInt(i64, (unsigned long long)bytes, 1), "chain.step");
	if (c->nst == c->capst) {
		c->capst = c->capst ? 2 * c->capst : 8;
		c->st = xrealloc(c->st, c->capst * sizeof(*c->st));
	}
	c->st[c->nst].s = s;
	c->st[c->nst].bytes = bytes;
	c->st[c->nst++].v = v;
	return v;
}

/* gep, read as p[j...][sext(i32 index)] (the last index a sign
 * extension, the ones before it kept as they are): whether it is one. */
static int
chain_gep_read(struct chain *c, LLVMValueRef gep, struct chain_gep *g)
{
	unsigned n = (unsigned)LLVMGetNumOperands(gep);
	LLVMValueRef idx;
	LLVMTypeRef et;

	if (n < 2 || n > 4 || LLVMGetTypeKind(LLVMTypeOf(gep)) != LLVMPointerTypeKind)
		return 0;
	idx = LLVMGetOperand(gep, n - 1);
	if (LLVMGetTypeKind(LLVMTypeOf(idx)) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(LLVMTypeOf(idx)) != 64)
		return 0;
	g->wide = !LLVMIsASExtInst(idx) || LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(idx, 0))) != 32;
	if (g->wide && LLVMIsAConstantInt(idx))
		return 0; /* LLVM folds constant offsets already */
	/* the type the last index steps over */
	et = LLVMGetGEPSourceElementType(gep);
	for (unsigned k = 2; k < n; k++) {
		LLVMTypeKind tk = LLVMGetTypeKind(et);

		if (tk != LLVMArrayTypeKind)
			return 0;
		et = LLVMGetElementType(et);
	}
	if (!nv_type_sized(et))
		return 0;
	g->gep = g->q = gep;
	g->p = LLVMGetOperand(gep, 0);
	g->size = nv_type_alloc_size(c->m, et);
	g->anchor = 0;
	return g->size && g->size < (1u << 20) &&
	       chain_read(&g->x, g->wide ? idx : LLVMGetOperand(idx, 0), g->wide, 0);
}

/* Do GEPs a and b have the same pointer, source type and indices but the last? */
static int
chain_same_prefix(LLVMValueRef a, LLVMValueRef b)
{
	unsigned n = (unsigned)LLVMGetNumOperands(a);

	if ((unsigned)LLVMGetNumOperands(b) != n || LLVMGetGEPSourceElementType(a) != LLVMGetGEPSourceElementType(b))
		return 0;
	for (unsigned k = 0; k + 1 < n; k++)
		if (LLVMGetOperand(a, k) != LLVMGetOperand(b, k))
			return 0;
	return 1;
}

/* Rewrite g from an earlier anchor of its array; 1 when done. */
static int
chain_rewrite(struct chain *c, struct chain_gep *g)
{
	LLVMTypeRef i8 = LLVMInt8TypeInContext(LLVMGetModuleContext(c->m));
	LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetModuleContext(c->m));

	for (unsigned i = c->ng; i-- > 0;) {
		struct chain_gep *a = &c->g[i];
		struct chain_poly d = g->x;
		LLVMValueRef q, off;
		int64_t k = 0, bytes;
		unsigned var = 0;

		if (!a->anchor || a->wide != g->wide || !chain_same_prefix(a->gep, g->gep) || a->size != g->size ||
		    !poly_add(&d, &a->x, -1))
			continue;
		/* d: a constant and at most one c * s */
		for (unsigned j = 0; j < d.n; j++)
			if (d.t[j].n == 0)
				k = d.t[j].c;
			else if (d.t[j].n == 1 && !var)
				var = j + 1;
			else
				goto next;
		if (!var && !k)
			goto next;
		LLVMPositionBuilderBefore(c->b, g->gep);
		q = a->q;
		if (var) {
			const struct chain_term *t = &d.t[var - 1];

			if (__builtin_mul_overflow(t->c, (int64_t)g->size, &bytes))
				goto next;
			off = chain_step(c, t->f[0], bytes, g->gep);
			LLVMPositionBuilderBefore(c->b, g->gep);
			q = LLVMBuildGEP2(c->b, i8, q, &off, 1, "chain");
			LLVMInstructionSetDebugLoc(q, LLVMInstructionGetDebugLoc(g->gep));
		}
		if (k) {
			if (__builtin_mul_overflow(k, (int64_t)g->size, &bytes))
				goto next;
			off = LLVMConstInt(i64, (unsigned long long)bytes, 1);
			q = LLVMBuildGEP2(c->b, i8, q, &off, 1, var ? "chain.k" : "chain");
			LLVMInstructionSetDebugLoc(q, LLVMInstructionGetDebugLoc(g->gep));
		}
		nv_remark(NV_REMARK_PASSED, "base-address-strength-reduce-chain", "Chained", g->gep,
		          var ? "address computed from an earlier access's address plus a 64-bit step, not from its own index"
		              : "address computed from an earlier access's address plus a constant, not from its own index");
		LLVMReplaceAllUsesWith(g->gep, q);
		g->q = q;
		return 1;
	next:;
	}
	return 0;
}

static unsigned
chain_block(struct chain *c, LLVMBasicBlockRef bb)
{
	unsigned n = 0;

	c->ng = c->nst = 0;
	for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
		LLVMValueRef ptr = NULL;

		if (LLVMIsAGetElementPtrInst(i)) {
			struct chain_gep g;

			if (!chain_gep_read(c, i, &g))
				continue;
			n += chain_rewrite(c, &g);
			if (c->ng == c->capg) {
				c->capg = c->capg ? 2 * c->capg : 16;
				c->g = xrealloc(c->g, c->capg * sizeof(*c->g));
			}
			c->g[c->ng++] = g;
			continue;
		}
		if (LLVMIsALoadInst(i))
			ptr = LLVMGetOperand(i, 0);
		else if (LLVMIsAStoreInst(i))
			ptr = LLVMGetOperand(i, 1);
		if (ptr)
			for (unsigned j = 0; j < c->ng; j++)
				if (c->g[j].q == ptr)
					c->g[j].anchor = 1;
	}
	return n;
}

unsigned
nv_memory_base_address_chain(LLVMModuleRef m)
{
	struct chain c = { m, NULL, NULL, 0, 0, NULL, 0, 0 };
	unsigned n = 0;

	if (!nv_knob_int(NV_KNOB_DO_BASE_ADDRESS_STRENGTH_REDUCE_CHAIN))
		return 0;
	c.b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct nv_fn_loops a;
		unsigned k = 0;

		if (LLVMIsDeclaration(f))
			continue;
		nv_fn_loops_build(&a, f);
		/* Not in a loop: there the addresses are LSR's, which gives each
		 * of a chain its own induction variable (llm.c's
		 * matmul_tri_registers, its 16 loads a trip: 96 registers, 128). */
		for (unsigned bi = 0; bi < a.g.n; bi++)
			if (a.ls.innermost[bi] == NV_NONE || nv_knob_int(NV_KNOB_BASR_CHAIN_IN_LOOPS))
				k += chain_block(&c, a.g.bb[bi]);
		nv_fn_loops_release(&a);
		if (k)
			nv_cfg_erase_dead(f);
		n += k;
	}
	free(c.g);
	free(c.st);
	LLVMDisposeBuilder(c.b);
	return n;
}
