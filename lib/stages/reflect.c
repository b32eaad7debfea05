#include "reflect.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "../base/diag.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "../ir/cfg.h"
#include "../ir/cfgedit.h"

#define PASS "nv-reflect"

/* The module flag nvvm-reflect-ftz (clang's -fgpu-flush-denormals-to-zero), or 0. */
static int
module_ftz(LLVMModuleRef m)
{
	unsigned n = LLVMGetNamedMetadataNumOperands(m, "llvm.module.flags");
	LLVMValueRef *flags = xcalloc(n, sizeof(*flags));
	int ftz = 0;

	LLVMGetNamedMetadataOperands(m, "llvm.module.flags", flags);
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef ops[3];
		const char *key;
		unsigned len;

		if (LLVMGetMDNodeNumOperands(flags[i]) != 3)
			continue;
		LLVMGetMDNodeOperands(flags[i], ops);
		key = ops[1] ? LLVMGetMDString(ops[1], &len) : NULL;
		if (key && len == 16 && !memcmp(key, "nvvm-reflect-ftz", 16) && ops[2] &&
		    LLVMIsAConstantInt(ops[2]))
			ftz = LLVMConstIntGetZExtValue(ops[2]) != 0;
	}
	free(flags);
	return ftz;
}

/* The global a query pointer names: through constant GEPs with zero
 * indices and pointer casts, as constants or instructions. */
static LLVMValueRef
query_global(LLVMValueRef v)
{
	for (;;) {
		LLVMOpcode op;

		if (LLVMIsAGlobalVariable(v))
			return v;
		if (LLVMIsAConstantExpr(v))
			op = LLVMGetConstOpcode(v);
		else if (LLVMIsAInstruction(v))
			op = LLVMGetInstructionOpcode(v);
		else
			return NULL;
		if (op == LLVMGetElementPtr) {
			for (int k = 1; k < LLVMGetNumOperands(v); k++) {
				LLVMValueRef idx = LLVMGetOperand(v, k);

				if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) != 0)
					return NULL;
			}
		} else if (op != LLVMAddrSpaceCast && op != LLVMBitCast) {
			return NULL;
		}
		v = LLVMGetOperand(v, 0);
	}
}

/* The query string of a reflect call, without its NUL; NULL if not constant. */
static char *
query_of(LLVMValueRef call)
{
	LLVMValueRef g = LLVMGetNumArgOperands(call) == 1 ? query_global(LLVMGetOperand(call, 0)) : NULL;
	LLVMValueRef init = g && !LLVMIsDeclaration(g) ? LLVMGetInitializer(g) : NULL;
	const char *s;
	size_t len;

	if (!init || !LLVMIsConstantString(init))
		return NULL;
	s = LLVMGetAsString(init, &len);
	while (len && s[len - 1] == '\0')
		len--;
	return xasprintf("%.*s", (int)len, s);
}

static long long
value_of(const struct nv_reflect *r, const char *q, int *known)
{
	*known = 1;
	for (size_t i = r->ndefs; i-- > 0;)
		if (!strcmp(r->defs[i].name, q))
			return r->defs[i].value;
	if (!strcmp(q, "__CUDA_FTZ"))
		return r->ftz;
	if (!strcmp(q, "__CUDA_ARCH"))
		return r->arch;
	if (!strcmp(q, "__CUDA_PREC_DIV"))
		return r->prec_div;
	if (!strcmp(q, "__CUDA_PREC_SQRT"))
		return r->prec_sqrt;
	*known = 0;
	return 0; /* unknown queries are 0, as in cicc */
}

struct fnset {
	LLVMValueRef *v;
	size_t n;
};

static void
fnset_add(struct fnset *s, LLVMValueRef f)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == f)
			return;
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n++] = f;
}

static int
is_reflect(LLVMValueRef call, LLVMValueRef const fns[2])
{
	LLVMValueRef callee;

	if (!LLVMIsACallInst(call))
		return 0;
	callee = LLVMGetCalledValue(call);
	return callee && (callee == fns[0] || callee == fns[1]);
}

/* Fold one reflect call; note its caller and query global.  -1 if its
 * query is not a constant string. */
static int
fold_call(LLVMValueRef call, struct nv_reflect *r, struct fnset *touched, struct fnset *strs)
{
	LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
	char *q = query_of(call);
	size_t len;
	long long v;
	int known;

	if (!q) {
		nv_error("in function '%s': the argument of '%s' is not a constant string",
		         LLVMGetValueName2(caller, &len), LLVMGetValueName2(LLVMGetCalledValue(call), &len));
		return -1;
	}
	v = value_of(r, q, &known);
	if (known)
		nv_remark(NV_REMARK_PASSED, PASS, "ReflectFolded", call,
		          "__nvvm_reflect(\"%s\") folded to %lld", q, v);
	else
		nv_remark(NV_REMARK_ANALYSIS, PASS, "ReflectUnknown", call,
		          "__nvvm_reflect(\"%s\") is not a known query: folded to 0", q);
	fnset_add(strs, query_global(LLVMGetOperand(call, 0)));
	fnset_add(touched, caller);
	LLVMReplaceAllUsesWith(call, LLVMConstInt(LLVMTypeOf(call), (unsigned long long)v, 1));
	LLVMInstructionEraseFromParent(call);
	free(q);
	r->calls++;
	return 0;
}

/* Fold the reflect calls in program order (remarks read top to bottom). */
static int
fold_calls(LLVMModuleRef m, LLVMValueRef const fns[2], struct nv_reflect *r, struct fnset *touched,
           struct fnset *strs)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
			LLVMValueRef i = LLVMGetFirstInstruction(b);

			while (i) {
				LLVMValueRef next = LLVMGetNextInstruction(i);

				if (is_reflect(i, fns) && fold_call(i, r, touched, strs))
					return -1;
				i = next;
			}
		}
	for (int k = 0; k < 2; k++) {
		size_t len;

		if (fns[k] && LLVMGetFirstUse(fns[k])) {
			nv_error("'%s' is used other than by a call", LLVMGetValueName2(fns[k], &len));
			return -1;
		}
	}
	return 0;
}

static void
remark_block(LLVMBasicBlockRef bb, unsigned index, void *arg)
{
	char *label;

	(void)index;
	if (!nv_remark_enabled(NV_REMARK_PASSED, PASS))
		return;
	label = nv_block_label(bb);
	nv_remark(NV_REMARK_PASSED, PASS, "BlockRemoved", arg, "removed block %s", label);
	free(label);
}

unsigned
nv_simplify_constant_conditionals(LLVMValueRef fn)
{
	unsigned deleted = 0, changed = 1;

	while (changed) {
		unsigned d;

		changed = nv_cfg_fold_all(fn);
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
			changed += (unsigned)nv_cfg_fold_terminator(b);
		d = nv_cfg_delete_unreachable(fn, remark_block, fn);
		deleted += d;
		changed += d;
	}
	return deleted;
}

/* Delete g when nothing uses it and nothing outside can see it. */
static void
drop_if_unused(LLVMValueRef g)
{
	LLVMLinkage l = LLVMGetLinkage(g);

	if (LLVMGetFirstUse(g) || (l != LLVMPrivateLinkage && l != LLVMInternalLinkage))
		return;
	if (LLVMIsAFunction(g))
		LLVMDeleteFunction(g);
	else
		LLVMDeleteGlobal(g);
}

int
nv_reflect_module(LLVMModuleRef m, struct nv_reflect *r)
{
	LLVMValueRef fns[2] = { LLVMGetNamedFunction(m, "__nvvm_reflect"),
		                LLVMGetNamedFunction(m, "llvm.nvvm.reflect") };
	struct fnset touched = { 0 }, strs = { 0 };
	int rc;

	if (r->ftz < 0)
		r->ftz = module_ftz(m);
	rc = fold_calls(m, fns, r, &touched, &strs);
	for (int k = 0; k < 2 && !rc; k++)
		if (fns[k])
			LLVMDeleteFunction(fns[k]);
	for (size_t i = 0; !rc && i < touched.n; i++) {
		r->blocks += nv_simplify_constant_conditionals(touched.v[i]);
		nv_cfg_erase_dead(touched.v[i]);
	}
	for (size_t i = 0; !rc && i < strs.n; i++)
		drop_if_unused(strs.v[i]);
	free(touched.v);
	free(strs.v);
	return rc;
}
