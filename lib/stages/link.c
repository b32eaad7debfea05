#include "link.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>

#include "../base/diag.h"
#include "../base/io.h"
#include "../base/knobs.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "target.h"

#define PASS "nv-link"

int
nv_link_modules(LLVMModuleRef dst, LLVMModuleRef src, const char *src_name)
{
	const char *t1 = LLVMGetTarget(dst), *t2 = LLVMGetTarget(src);
	const char *d1 = LLVMGetDataLayoutStr(dst), *d2 = LLVMGetDataLayoutStr(src);
	char *err;

	if (*t1 && *t2 && strcmp(t1, t2)) {
		nv_error("cannot link '%s': its target '%s' is not '%s'", src_name, t2, t1);
		LLVMDisposeModule(src);
		return -1;
	}
	if (*d1 && *d2 && strcmp(d1, d2)) {
		nv_error("cannot link '%s': its data layout '%s' is not '%s'", src_name, d2, d1);
		LLVMDisposeModule(src);
		return -1;
	}
	if (!LLVMLinkModules2(dst, src))
		return 0;
	err = nv_llvm_error();
	nv_error("cannot link '%s': %s", src_name, err ? err : "the linker failed");
	free(err);
	return -1;
}

static int
exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

char *
nv_libdevice_path(const char *path)
{
	const char *cuda = getenv("CUDA_PATH");
	char *p;

	if (path)
		return exists(path) ? xstrdup(path) : NULL;
	p = xasprintf("%s/nvvm/libdevice/libdevice.10.bc", cuda ? cuda : "/usr/local/cuda");
	if (exists(p))
		return p;
	free(p);
	return NULL;
}

static int
is_libdevice_name(LLVMValueRef f)
{
	size_t len;
	const char *n = LLVMGetValueName2(f, &len);

	return len > 5 && !strncmp(n, "__nv_", 5);
}

LLVMValueRef
nv_libdevice_first_use(LLVMModuleRef m)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (LLVMIsDeclaration(f) && is_libdevice_name(f) && LLVMGetFirstUse(f))
			return f;
	return NULL;
}

unsigned
nv_drop_unused_internals(LLVMModuleRef m)
{
	unsigned dropped = 0;
	int again = 1;

	while (again) {
		LLVMValueRef next;

		again = 0;
		for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = next) {
			LLVMLinkage l = LLVMGetLinkage(f);

			next = LLVMGetNextFunction(f);
			if ((l == LLVMInternalLinkage || l == LLVMPrivateLinkage ||
			     (LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f))) && !LLVMGetFirstUse(f)) {
				dropped += !LLVMIsDeclaration(f);
				LLVMDeleteFunction(f);
				again = 1;
			}
		}
		for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = next) {
			LLVMLinkage l = LLVMGetLinkage(g);

			next = LLVMGetNextGlobal(g);
			if ((l == LLVMInternalLinkage || l == LLVMPrivateLinkage) && !LLVMGetFirstUse(g)) {
				LLVMDeleteGlobal(g);
				again = 1;
			}
		}
	}
	return dropped;
}

/* ld is lazy: make every definition internal but the functions m calls,
 * so the linker reads (and moves) only those and what they use.  Returns
 * the names kept external (NULL-terminated). */
static char **
prune(LLVMModuleRef ld, LLVMModuleRef m)
{
	struct nv_strv kept = { 0 };
	size_t len;

	for (LLVMValueRef f = LLVMGetFirstFunction(ld); f; f = LLVMGetNextFunction(f)) {
		const char *name = LLVMGetValueName2(f, &len);
		LLVMValueRef want = LLVMGetNamedFunction(m, name);

		if (LLVMIsDeclaration(f))
			continue;
		if (want && LLVMIsDeclaration(want))
			nv_strv_push(&kept, name);
		else
			LLVMSetLinkage(f, LLVMInternalLinkage);
	}
	for (LLVMValueRef g = LLVMGetFirstGlobal(ld); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g))
			LLVMSetLinkage(g, LLVMInternalLinkage);
	return kept.v ? kept.v : xcalloc(1, sizeof(char *));
}

/* The functions of CUDA 13's math_functions.h under __USE_FAST_MATH__ that
 * libdevice has a __nv_fast_ version of. */
static const char *const fast_fns[] = {
	"cosf", "exp10f", "expf", "log10f", "log2f", "logf", "powf", "sincosf", "sinf", "tanf", "tanhf",
};

unsigned
nv_libdevice_fast_math(LLVMModuleRef m)
{
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(fast_fns) / sizeof(*fast_fns); i++) {
		char slow[32], fast[40];
		LLVMValueRef s, f;

		snprintf(slow, sizeof(slow), "__nv_%s", fast_fns[i]);
		snprintf(fast, sizeof(fast), "__nv_fast_%s", fast_fns[i]);
		s = LLVMGetNamedFunction(m, slow);
		if (!s || !LLVMIsDeclaration(s) || !LLVMGetFirstUse(s))
			continue;
		f = LLVMGetNamedFunction(m, fast);
		if (!f)
			f = LLVMAddFunction(m, fast, LLVMGlobalGetValueType(s));
		else if (LLVMGlobalGetValueType(f) != LLVMGlobalGetValueType(s))
			continue;
		LLVMReplaceAllUsesWith(s, f);
		LLVMDeleteFunction(s);
		nv_remark(NV_REMARK_PASSED, PASS, "FastMath", NULL, "calls of '%s' call '%s' (-fast-math)", slow, fast);
		n++;
	}
	return n;
}

int
nv_link_libdevice(LLVMModuleRef m, const char *path, int trusted, unsigned *nfuncs)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	LLVMModuleRef ld;
	char **kept;
	int rc;

	*nfuncs = 0;
	if (nv_io_read_lazy(ctx, path, !trusted, &ld))
		return -1;
	LLVMSetTarget(ld, LLVMGetTarget(m));
	LLVMSetDataLayout(ld, LLVMGetDataLayoutStr(m));
	kept = prune(ld, m);
	rc = nv_link_modules(m, ld, path);
	for (char **k = kept; !rc && *k; k++) {
		LLVMValueRef f = LLVMGetNamedFunction(m, *k);

		if (f && !LLVMIsDeclaration(f)) {
			LLVMSetLinkage(f, LLVMInternalLinkage);
			++*nfuncs;
			nv_remark(NV_REMARK_PASSED, PASS, "LibdeviceLinked", f, "linked '%s' from libdevice",
			          *k);
		}
	}
	for (char **k = kept; *k; k++)
		free(*k);
	free(kept);
	if (rc)
		return -1;
	nv_drop_unused_internals(m);
	return 0;
}

unsigned
nv_link_internalize(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		LLVMLinkage l = LLVMGetLinkage(f);

		if (LLVMIsDeclaration(f) || nv_is_kernel(f) || l == LLVMInternalLinkage ||
		    l == LLVMPrivateLinkage)
			continue;
		LLVMSetLinkage(f, LLVMInternalLinkage);
		LLVMSetVisibility(f, LLVMDefaultVisibility);
		LLVMSetComdat(f, NULL);
		n++;
	}
	return n;
}

/* The global an annotation entry names, through the casts clang puts on it. */
static LLVMValueRef
strip_casts(LLVMValueRef v)
{
	while (v && LLVMIsAConstantExpr(v) && LLVMGetNumOperands(v) == 1)
		v = LLVMGetOperand(v, 0);
	return v;
}

/* Is entry e of llvm.global.annotations an "nvvm.managed" annotation? */
static LLVMValueRef
managed_var(LLVMValueRef e)
{
	LLVMValueRef gv, str, init;
	const char *s;
	size_t len;

	if (!LLVMIsAConstantStruct(e) || LLVMGetNumOperands(e) < 2)
		return NULL;
	gv = strip_casts(LLVMGetOperand(e, 0));
	str = strip_casts(LLVMGetOperand(e, 1));
	if (!gv || !LLVMIsAGlobalVariable(gv) || !str || !LLVMIsAGlobalVariable(str))
		return NULL;
	init = LLVMGetInitializer(str);
	if (!init || !LLVMIsConstantString(init))
		return NULL;
	s = LLVMGetAsString(init, &len);
	return len >= 12 && !strncmp(s, "nvvm.managed", 12) && (len == 12 || !s[12]) ? gv : NULL;
}

/* __managed__ arrives from the front end as annotate("nvvm.managed"): give
 * the variable the nvvm.annotations "managed" entry NVPTX prints as
 * .attribute(.managed), and drop the annotation. */
static unsigned
lower_managed(LLVMModuleRef m)
{
	LLVMValueRef ann = LLVMGetNamedGlobal(m, "llvm.global.annotations"), init;
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	LLVMValueRef *keep;
	unsigned n, nkeep = 0, nmanaged = 0;

	if (!ann || !(init = LLVMGetInitializer(ann)) || !LLVMIsAConstantArray(init))
		return 0;
	n = (unsigned)LLVMGetNumOperands(init);
	keep = xcalloc(n ? n : 1, sizeof(*keep));
	for (unsigned i = 0; i < n; i++) {
		LLVMValueRef e = LLVMGetOperand(init, i), gv = managed_var(e);

		if (!gv) {
			keep[nkeep++] = e;
			continue;
		}
		LLVMMetadataRef md[3] = {
			LLVMValueAsMetadata(gv),
			LLVMMDStringInContext2(ctx, "managed", 7),
			LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 1, 0)),
		};
		LLVMAddNamedMetadataOperand(m, "nvvm.annotations",
		                            LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, md, 3)));
		nmanaged++;
	}
	if (nmanaged) {
		LLVMTypeRef et = LLVMTypeOf(LLVMGetOperand(init, 0));

		LLVMDeleteGlobal(ann);
		if (nkeep) {
			LLVMValueRef arr = LLVMConstArray2(et, keep, nkeep);
			LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(arr), "llvm.global.annotations");

			LLVMSetInitializer(g, arr);
			LLVMSetLinkage(g, LLVMAppendingLinkage);
			LLVMSetSection(g, "llvm.metadata");
		}
	}
	free(keep);
	return nmanaged;
}

/* nvcc names a static __global__ function as if it were not static: the
 * name a driver-API program passes to cuModuleGetFunction.  Where clang
 * marks the internal linkage, before the function's own name (_ZL6kernelPf,
 * _ZN2nsL6kernelEPf in a namespace), nvcc's name has nothing
 * (_Z6kernelPf, _ZN2ns6kernelEPf).  NULL when name is not such a name. */
char *
nv_link_nvcc_kernel_name(const char *name)
{
	size_t i = 3;

	if (!strncmp(name, "_ZL", 3) && name[3] >= '0' && name[3] <= '9')
		return xasprintf("_Z%s", name + 3);
	if (strncmp(name, "_ZN", 3))
		return NULL;
	if (!strncmp(name + i, "St", 2))
		i += 2;
	/* the namespaces' <length><identifier>s, up to the L */
	while (name[i] >= '0' && name[i] <= '9') {
		char *end;
		unsigned long len = strtoul(name + i, &end, 10);

		if (len > strlen(end))
			return NULL;
		i = (size_t)(end - name) + len;
	}
	if (name[i] != 'L' || name[i + 1] < '0' || name[i + 1] > '9')
		return NULL;
	return xasprintf("%.*s%s", (int)i, name, name + i + 1);
}

/* clang leaves a static kernel external, for the host to launch; so does
 * this, under nvcc's name. */
static unsigned
rename_static_kernels(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		size_t len;
		char *nv;

		if (LLVMIsDeclaration(f) || !nv_is_kernel(f) || !(nv = nv_link_nvcc_kernel_name(LLVMGetValueName2(f, &len))))
			continue;
		if (!LLVMGetNamedFunction(m, nv) && !LLVMGetNamedGlobal(m, nv)) {
			LLVMComdatRef c = LLVMGetComdat(f);

			LLVMSetValueName2(f, nv, strlen(nv));
			if (c) {
				/* its comdat was named after it: so is the new one */
				LLVMComdatRef nc = LLVMGetOrInsertComdat(m, nv);

				LLVMSetComdatSelectionKind(nc, LLVMGetComdatSelectionKind(c));
				LLVMSetComdat(f, nc);
			}
			n++;
		}
		free(nv);
	}
	return n;
}

/* The declaration f given a body that ends the program (trap), internal
 * to the module. */
static void
define_trap(LLVMModuleRef m, LLVMValueRef f)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	LLVMTypeRef vt = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
	LLVMValueRef trap = LLVMGetNamedFunction(m, "llvm.trap");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);

	if (!trap)
		trap = LLVMAddFunction(m, "llvm.trap", vt);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
	LLVMBuildCall2(b, vt, trap, NULL, 0, "");
	LLVMBuildUnreachable(b);
	LLVMDisposeBuilder(b);
	LLVMSetLinkage(f, LLVMInternalLinkage);
}

/* A vtable's pure or deleted virtual slot names __cxa_pure_virtual (or
 * __cxa_deleted_virtual), which no GPU library defines: ptxas refuses the
 * address of an undefined function.  Define it as the C++ runtime does,
 * ending the program (trap), internal to the module. */
static unsigned
define_cxa_virtual(LLVMModuleRef m)
{
	static const char *const names[] = { "__cxa_pure_virtual", "__cxa_deleted_virtual" };
	unsigned n = 0;

	for (size_t i = 0; i < 2; i++) {
		LLVMValueRef f = LLVMGetNamedFunction(m, names[i]);

		if (!f || !LLVMIsDeclaration(f) || !LLVMGetFirstUse(f))
			continue;
		define_trap(m, f);
		n++;
	}
	return n;
}

/* A host function that device code calls: clang lets host-device and
 * template code call CUDA's static inline host templates (cudaMalloc<T>,
 * whose device-side overload takes void **) and leaves a declaration that
 * nothing defines: ptxas or nvlink then fails on the whole build, though
 * the call is never reached.  nvcc's front end compiles such a call as
 * unreachable.  A declaration with internal linkage (_ZL..., _ZN...L...)
 * can never be defined by another file, so it gets a body that traps: dead,
 * it goes with its caller's dead code; reached, the kernel stops. */
static unsigned
trap_host_calls(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		size_t len;
		char *nv;

		if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f) || !LLVMGetFirstUse(f))
			continue;
		nv = nv_link_nvcc_kernel_name(LLVMGetValueName2(f, &len));
		if (nv) {
			define_trap(m, f);
			n++;
		}
		free(nv);
	}
	return n;
}

/* Is call c a device-side launch (cudaLaunchDevice, as CUDA's headers
 * spell it, or cudaLaunchDeviceV2 under it)? */
static int
is_device_launch(LLVMValueRef c)
{
	LLVMValueRef callee = LLVMIsACallInst(c) ? LLVMGetCalledValue(c) : NULL;
	size_t len;
	const char *name = callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : "";

	return strstr(name, "cudaLaunchDevice") != NULL;
}

/* -rdc=true: a kernel of another file that this one launches from device
 * code arrives as a plain declaration; nvcc declares it .extern .entry, so
 * nvlink finds the kernel it names. */
static unsigned
mark_extern_kernels(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f) || nv_is_kernel(f))
			continue;
		for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
			LLVMValueRef c = LLVMGetUser(u);

			if (is_device_launch(c) && LLVMGetNumArgOperands(c) > 0 && LLVMGetOperand(c, 0) == f) {
				LLVMSetFunctionCallConv(f, LLVMPTXKernelCallConv);
				n++;
				break;
			}
		}
	}
	return n;
}

/* -rdc=true: clang gives a static variable the host names (by
 * cudaMemcpyToSymbol, say) an external definition named NAME__static__CUID,
 * but leaves the device code's uses on an external declaration of NAME,
 * which nothing defines: nvlink finds it undefined.  The uses go to the
 * definition. */
static unsigned
resolve_static_vars(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef g = LLVMGetFirstGlobal(m), next; g; g = next) {
		size_t len;
		const char *name = LLVMGetValueName2(g, &len), *post = strstr(name, "__static__");
		char *plain;
		LLVMValueRef decl;

		next = LLVMGetNextGlobal(g);
		if (!post || LLVMIsDeclaration(g))
			continue;
		plain = xasprintf("%.*s", (int)(post - name), name);
		decl = LLVMGetNamedGlobal(m, plain);
		if (decl && decl != g && LLVMIsDeclaration(decl) && LLVMGlobalGetValueType(decl) == LLVMGlobalGetValueType(g) &&
		    LLVMGetPointerAddressSpace(LLVMTypeOf(decl)) == LLVMGetPointerAddressSpace(LLVMTypeOf(g))) {
			if (next == decl)
				next = LLVMGetNextGlobal(decl);
			LLVMReplaceAllUsesWith(decl, g);
			LLVMDeleteGlobal(decl);
			n++;
		}
		free(plain);
	}
	return n;
}

/* -rdc=true: clang lists the kernels host code launches in
 * __clang_gpu_used_external (kept by llvm.compiler.used), and a kernel of
 * another file is there as a plain declaration: PTX would declare it an
 * .extern .func, which nvlink refuses against the other file's .entry.
 * nvcc keeps no such list; neither does this. */
static unsigned
drop_used_external(LLVMModuleRef m)
{
	LLVMValueRef g = LLVMGetNamedGlobal(m, "__clang_gpu_used_external");
	LLVMValueRef used = LLVMGetNamedGlobal(m, "llvm.compiler.used"), init;
	unsigned n, k = 0;
	LLVMValueRef *keep;

	if (!g)
		return 0;
	init = used ? LLVMGetInitializer(used) : NULL;
	if (init) {
		n = (unsigned)LLVMGetNumOperands(init);
		keep = xcalloc(n ? n : 1, sizeof(*keep));
		for (unsigned i = 0; i < n; i++) {
			LLVMValueRef e = LLVMGetOperand(init, i), base = e;

			while (LLVMIsAConstantExpr(base))
				base = LLVMGetOperand(base, 0);
			if (base != g)
				keep[k++] = e;
		}
		if (k < n) {
			LLVMTypeRef et = LLVMTypeOf(LLVMGetOperand(init, 0));
			LLVMValueRef nu = NULL;

			LLVMSetValueName2(used, "llvm.compiler.used.old", 22);
			if (k) {
				nu = LLVMAddGlobal(m, LLVMArrayType2(et, k), "llvm.compiler.used");
				LLVMSetLinkage(nu, LLVMAppendingLinkage);
				LLVMSetSection(nu, "llvm.metadata");
				LLVMSetInitializer(nu, LLVMConstArray2(et, keep, k));
			}
			LLVMDeleteGlobal(used);
		}
		free(keep);
	}
	for (LLVMUseRef u = LLVMGetFirstUse(g); u; u = LLVMGetNextUse(u)) {
		LLVMValueRef user = LLVMGetUser(u);

		if (!LLVMIsAConstant(user) || LLVMGetFirstUse(user))
			return 0; /* something else names it: leave it be */
	}
	/* only dead constants (the old list) name it still */
	LLVMReplaceAllUsesWith(g, LLVMGetPoison(LLVMTypeOf(g)));
	LLVMDeleteGlobal(g);
	return 1;
}

/* The C string a registration call's argument points to (a private
 * constant array of chars), else NULL. */
static const char *
const_cstring(LLVMValueRef v)
{
	LLVMValueRef init = LLVMIsAGlobalVariable(v) ? LLVMGetInitializer(v) : NULL;
	size_t len;
	const char *s;

	if (!init || !LLVMIsConstantString(init))
		return NULL;
	s = LLVMGetAsString(init, &len);
	return len && !s[len - 1] ? s : NULL;
}

static LLVMValueRef
private_cstring(LLVMModuleRef m, const char *s)
{
	LLVMValueRef init = LLVMConstStringInContext2(LLVMGetModuleContext(m), s, strlen(s), 0);
	LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), "");

	LLVMSetInitializer(g, init);
	LLVMSetLinkage(g, LLVMPrivateLinkage);
	LLVMSetGlobalConstant(g, 1);
	LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	LLVMSetAlignment(g, 1);
	return g;
}

/* The stub's other name, nvcc's: an alias with the stub's linkage (weak
 * for an instantiation's, which may be discarded with its comdat). */
static int
name_stub(LLVMModuleRef m, LLVMValueRef stub, const char *name)
{
	LLVMLinkage l = LLVMGetLinkage(stub);
	LLVMValueRef a;

	if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage || LLVMGetNamedFunction(m, name) ||
	    LLVMGetNamedGlobal(m, name) || LLVMGetNamedGlobalAlias(m, name, strlen(name)))
		return 0;
	a = LLVMAddAlias2(m, LLVMGlobalGetValueType(stub), 0, stub, name);
	if (l == LLVMLinkOnceODRLinkage || l == LLVMWeakODRLinkage)
		LLVMSetLinkage(a, LLVMWeakODRLinkage);
	else if (l == LLVMLinkOnceAnyLinkage || l == LLVMWeakAnyLinkage)
		LLVMSetLinkage(a, LLVMWeakAnyLinkage);
	LLVMSetVisibility(a, LLVMGetVisibility(stub));
	return 1;
}

/* The mangled name is a template's specialization: its (last) name is
 * followed by template arguments, "I...E" (_Z2tkIfEvPT_, _ZN2ns1kIiEEvv). */
static int
is_template_name(const char *s)
{
	if (strncmp(s, "_Z", 2))
		return 0;
	s += 2;
	if (*s == 'N')
		for (s++; *s == 'r' || *s == 'V' || *s == 'K'; s++)
			;
	if (!strncmp(s, "St", 2))
		s += 2;
	while (*s >= '1' && *s <= '9') {
		char *end;
		unsigned long n = strtoul(s, &end, 10);

		if (strlen(end) < n)
			return 0;
		s = end + n;
		if (*s == 'I')
			return 1;
	}
	return 0;
}

/* nvcc's static stub of a template kernel: the stub and the aliases to it
 * internal, out of their comdat. */
static void
make_stub_static(LLVMModuleRef m, LLVMValueRef stub)
{
	LLVMSetLinkage(stub, LLVMInternalLinkage);
	LLVMSetVisibility(stub, LLVMDefaultVisibility);
	LLVMSetComdat(stub, NULL);
	for (LLVMValueRef a = LLVMGetFirstGlobalAlias(m); a; a = LLVMGetNextGlobalAlias(a))
		if (LLVMAliasGetAliasee(a) == stub) {
			LLVMSetLinkage(a, LLVMInternalLinkage);
			LLVMSetVisibility(a, LLVMDefaultVisibility);
		}
}

unsigned
nv_link_cudafe_host(LLVMModuleRef m, int static_templates)
{
	LLVMValueRef reg = LLVMGetNamedFunction(m, "__cudaRegisterFunction");
	unsigned n = 0;

	for (LLVMUseRef u = reg ? LLVMGetFirstUse(reg) : NULL; u; u = LLVMGetNextUse(u)) {
		LLVMValueRef c = LLVMGetUser(u), stub;
		const char *name;
		char *nv;

		/* __cudaRegisterFunction(handle, stub, device function, its name, ...) */
		if (!LLVMIsACallInst(c) || LLVMGetCalledValue(c) != reg || LLVMGetNumArgOperands(c) < 4)
			continue;
		stub = LLVMGetOperand(c, 1);
		if (!(name = const_cstring(LLVMGetOperand(c, 2))))
			continue;
		if ((nv = nv_link_nvcc_kernel_name(name))) {
			LLVMValueRef g = private_cstring(m, nv);

			for (unsigned k = 2; k < 4; k++) {
				LLVMValueRef old = LLVMGetOperand(c, k);

				if (!const_cstring(old))
					continue;
				LLVMSetOperand(c, k, g);
				/* clang's name is nowhere in the object */
				if (!LLVMGetFirstUse(old))
					LLVMDeleteGlobal(old);
			}
			name = nv;
			n++;
		}
		if (LLVMIsAFunction(stub))
			n += (unsigned)name_stub(m, stub, name);
		if (static_templates && LLVMIsAFunction(stub) && is_template_name(name) &&
		    (LLVMGetLinkage(stub) == LLVMLinkOnceODRLinkage || LLVMGetLinkage(stub) == LLVMWeakODRLinkage)) {
			make_stub_static(m, stub);
			n++;
		}
		free(nv);
	}
	return n;
}

/* The PTX instructions (the name before the first '.') through which no
 * thread sees another: memory, conversions, moves, arithmetic.  Not here:
 * a mov from a special register, bar, shfl, vote, match, redux, activemask,
 * elect, mma, wmma, wgmma, ldmatrix, stmatrix, cp, mbarrier, fence, membar,
 * atom, red, setmaxnreg, griddepcontrol, and whatever else. */
static const char *const lone_ops[] = {
	"ld", "ldu", "st", "prefetch", "prefetchu", "mov", "cvt", "cvta", "isspacep",
	"add", "addc", "sub", "subc", "mul", "mul24", "mad", "madc", "mad24", "fma", "div", "rem",
	"abs", "neg", "min", "max", "sad", "dp4a", "dp2a", "and", "or", "xor", "not", "cnot",
	"shl", "shr", "shf", "lop3", "prmt", "bfe", "bfi", "bfind", "brev", "clz", "popc", "fns",
	"selp", "set", "setp", "slct", "testp", "copysign", "sqrt", "rsqrt", "rcp", "ex2", "lg2",
	"sin", "cos", "tanh",
};

/* Whether every statement of asm text s (length n) is a directive .reg or
 * an instruction of lone_ops, after labels, predicates and braces: an
 * asm whose threads do not communicate, which convergence does not
 * concern.  Empty text ("" ::: "memory") is one too.  What is not read
 * keeps the mark: a block comment, a vector operand before the last one
 * (mov.b32 {lo, hi}, x: the statement is taken to end at its brace). */
static int
asm_is_lone(const char *s, size_t n)
{
	const char *e = s + n;

	while (s < e) {
		const char *t;
		size_t k;
		int ok = 0;

		while (s < e && strchr(" \t\r\n{};", *s))
			s++;
		if (s >= e)
			break;
		if (s + 1 < e && s[0] == '/' && s[1] == '/') { /* a comment to the end of the line */
			while (s < e && *s != '\n')
				s++;
			continue;
		}
		if (*s == '@') /* a guard predicate */
			while (s < e && !strchr(" \t", *s))
				s++;
		while (s < e && strchr(" \t", *s))
			s++;
		for (t = s; t < e && (isalnum((unsigned char)*t) || *t == '_' || *t == '$'); t++)
			;
		if (t < e && *t == ':' && t > s) { /* a label */
			s = t + 1;
			continue;
		}
		if (s < e && *s == '.') {
			ok = e - s >= 5 && !strncmp(s, ".reg", 4) && strchr(" \t", s[4]);
		} else {
			for (t = s; t < e && isalnum((unsigned char)*t); t++)
				;
			k = (size_t)(t - s);
			for (size_t i = 0; !ok && i < sizeof(lone_ops) / sizeof(lone_ops[0]); i++)
				ok = strlen(lone_ops[i]) == k && !strncmp(s, lone_ops[i], k) &&
				     (t == e || strchr(". \t;", *t));
		}
		if (!ok)
			return 0;
		for (t = s; s < e && *s != ';' && *s != '}'; s++)
			/* a mov from a special register (%laneid, %clock): kept
			 * (CUB's merge sort: 32 registers, 48 without the mark) */
			if (*s == '%' && !strncmp(t, "mov", 3))
				return 0;
	}
	return 1;
}

/* clang marks every asm statement of device code convergent, so no pass
 * may add a condition around one: a loop converting bf16 through asm (as
 * cuda_bf16.hpp does) or loading with __ldcs gets no remainder loop, and
 * is not unswitched.  nvcc's front end marks none.  Drop the mark where
 * the asm is lone (asm_is_lone); knob nv-link-asm-convergent=1 keeps it.
 * (nv-unroll says such asm returns while it unrolls: asm_willreturn.) */
static unsigned
unmark_lone_asm(LLVMModuleRef m)
{
	unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10), n = 0;

	if (nv_knob_int(NV_KNOB_LINK_ASM_CONVERGENT))
		return 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
				LLVMValueRef callee;
				const char *text;
				size_t len;

				if (!LLVMIsACallInst(i) || !(callee = LLVMGetCalledValue(i)) ||
				    !LLVMIsAInlineAsm(callee) ||
				    !LLVMGetCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, kind))
					continue;
				text = LLVMGetInlineAsmAsmString(callee, &len);
				if (!asm_is_lone(text, len))
					continue;
				LLVMRemoveCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, kind);
				if (nv_remark_enabled(NV_REMARK_PASSED, "nv-link")) {
					char shown[48];
					size_t k = 0;

					for (size_t j = 0; j < len && k + 1 < sizeof(shown); j++)
						if (!isspace((unsigned char)text[j]) ||
						    (k && shown[k - 1] != ' '))
							shown[k++] = isspace((unsigned char)text[j]) ? ' ' : text[j];
					shown[k] = 0;
					nv_remark(NV_REMARK_PASSED, "nv-link", "AsmNotConvergent", i,
					          "asm \"%s%s\" is not convergent: no thread sees another through it",
					          shown, k + 1 >= sizeof(shown) ? "..." : "");
				}
				n++;
			}
	return n;
}

unsigned
nv_link_cudafe(LLVMModuleRef m, int clang_names)
{
	return lower_managed(m) + resolve_static_vars(m) + drop_used_external(m) +
	       (clang_names ? 0 : rename_static_kernels(m)) + define_cxa_virtual(m) + trap_host_calls(m) +
	       mark_extern_kernels(m) + unmark_lone_asm(m);
}
