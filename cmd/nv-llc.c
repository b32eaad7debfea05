/* nv-llc: LLVM module to PTX (or, with ptxas, a cubin) for one sm_XX. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Support.h>
#include <llvm-c/TargetMachine.h>

#include "base/cli.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/proc.h"
#include "base/remarks.h"
#include "base/util.h"
#include "ir/cfg.h"
#include "ir/liveness.h"
#include "stages/memory.h"
#include "stages/ptxfix.h"
#include "stages/select.h"
#include "stages/split.h"
#include "stages/target.h"

#define PTX_KERNEL_CC 71 /* LLVM's ptx_kernel calling convention */

static const char *arch = NV_DEFAULT_ARCH;
static int olevel = 3, lineinfo, device_debug, cubin, fast_math;
static long long ptx_isa;
static struct nv_strv xptxas;
static long long maxreg, ftz = -1, prec_div = 1, prec_sqrt = 1, fmad = 1;
static const char *stop_after, *start_after;

/* The one point where code generation may be cut in two: after LLVM's
 * codegen IR passes (address spaces, straight-line strength reduction, GVN,
 * loop strength reduction, CodeGenPrepare), right before instruction
 * selection, where cicc runs its IR rematerialization. */
#define CUT_PASS "codegenprepare"
#define CUT_MARK "nv.pre_isel"

static const struct nv_option opts[] = {
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "GPU to generate code for (default " NV_DEFAULT_ARCH ", as nvcc 13)" },
	{ "O", NV_OPT_OLEVEL, &olevel, NULL, "code generation optimization level (default 3)" },
	{ "maxrregcount", NV_OPT_INT, &maxreg, "N", "at most N registers per thread in kernels (.maxnreg)", 1, 255 },
	{ "lineinfo", NV_OPT_FLAG, &lineinfo, NULL, "keep line tables (.loc) from the module's debug info" },
	{ "ptx-isa", NV_OPT_INT, &ptx_isa, "NN", "PTX ISA version times ten (90: .version 9.0), as the ptxas at hand reads it; default: the lowest the arch needs", 60, 90 },
	{ "g", NV_OPT_FLAG, &device_debug, NULL, "keep all the module's debug information, for device debugging (nvcc -G); ptxas gets -g" },
	{ "cubin", NV_OPT_FLAG, &cubin, NULL, "assemble with ptxas and write a cubin instead of PTX" },
	{ "Xptxas", NV_OPT_LIST, &xptxas, "OPT", "with -cubin, pass OPT to ptxas (repeatable)" },
	{ "ftz", NV_OPT_INT, &ftz, "0|1", "flush f32 denormals to zero (.ftz); default: as the module's functions say", 0, 1 },
	{ "prec-div", NV_OPT_INT, &prec_div, "0|1", "f32 division: 1 IEEE div.rn (default), 0 div.full", 0, 1 },
	{ "prec-sqrt", NV_OPT_INT, &prec_sqrt, "0|1", "f32 square root: 1 sqrt.rn (default), 0 sqrt.approx", 0, 1 },
	{ "fmad", NV_OPT_INT, &fmad, "0|1", "contract multiply-add into fma (default 1)", 0, 1 },
	{ "fast-math", NV_OPT_FLAG, &fast_math, NULL, "f32 division as div.approx (nvcc --use_fast_math)" },
	{ "stop-after", NV_OPT_STR, &stop_after, CUT_PASS, "run the codegen IR passes only and write the module as it enters instruction selection (bitcode)" },
	{ "start-after", NV_OPT_STR, &start_after, CUT_PASS, "generate PTX from a module written by -stop-after=" CUT_PASS " (instruction selection on)" },
	{ NULL },
};

/* The precision options are LLVM's NVPTX knobs underneath; a knob given
 * explicitly wins. */
static void
precision_knobs(void)
{
	const char *why;

	if (!nv_knob_is_set(NV_KNOB_NVPTX_PREC_DIVF32) && (fast_math || !prec_div))
		nv_knob_set(NV_KNOB_NVPTX_PREC_DIVF32, fast_math ? "0" : "1", &why);
	if (!nv_knob_is_set(NV_KNOB_NVPTX_PREC_SQRTF32) && !prec_sqrt)
		nv_knob_set(NV_KNOB_NVPTX_PREC_SQRTF32, "0", &why);
	if (!nv_knob_is_set(NV_KNOB_NVPTX_FMA_LEVEL) && !fmad)
		nv_knob_set(NV_KNOB_NVPTX_FMA_LEVEL, "0", &why);
	if (stop_after && start_after)
		nv_usage_error("-stop-after and -start-after cut the same place: give one");
	if ((stop_after && strcmp(stop_after, CUT_PASS)) || (start_after && strcmp(start_after, CUT_PASS)))
		nv_usage_error("code generation can be cut only after '" CUT_PASS "', not '%s'",
		               stop_after ? stop_after : start_after);
	if (stop_after || start_after) {
		const char *av[] = { "nv-llc", stop_after ? "-stop-after=" CUT_PASS : "-start-after=" CUT_PASS };

		LLVMParseCommandLineOptions(2, av, NULL);
	}
}

/* LLVM 22's straight-line strength reduction compares candidates pairwise
 * through ScalarEvolution, in time that grows faster than the square of a
 * function's size: 22 s at 40,000 instructions (97% of the codegen IR
 * passes), more than 5 minutes and 6 GB at 96,000, where the rest takes
 * seconds (csmith programs inlined into one kernel).  The corpus's largest
 * kernel has 14,400.  LLVM can turn a codegen pass off only for the
 * whole module, so a module holding a function above the knob's size gets
 * none; a missed remark names the function. */
static void
limit_slsr(LLVMModuleRef m)
{
	const char *av[] = { "nv-llc", "-opt-disable=slsr" };
	long long limit = nv_knob_int(NV_KNOB_SLSR_MAX_FUNCTION_SIZE), most = 0;
	LLVMValueRef big = NULL;

	if (!limit || !olevel)
		return;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		long long n = 0;

		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
				n++;
		if (n > most)
			most = n, big = f;
	}
	if (most <= limit)
		return;
	LLVMParseCommandLineOptions(2, av, NULL);
	nv_remark(NV_REMARK_MISSED, "nv-llc", "SLSROff", big,
	          "no straight-line strength reduction in this module: a function of %lld instructions "
	          "is over -slsr-max-function-size=%lld",
	          most, limit);
}

/* -stop-after makes LLVM print MIR: a YAML document holding the module as
 * "--- |" followed by its IR indented by two spaces, up to "...".  Take the
 * module back out of it. */
static int
mir_module(LLVMContextRef ctx, LLVMMemoryBufferRef mir, LLVMModuleRef *out)
{
	const char *p = LLVMGetBufferStart(mir), *end = p + LLVMGetBufferSize(mir);
	LLVMMemoryBufferRef ir;
	char *text, *q, *err = NULL;

	if ((size_t)(end - p) < 6 || strncmp(p, "--- |\n", 6)) {
		nv_error("cannot cut code generation: LLVM wrote no module");
		return -1;
	}
	q = text = xmalloc((size_t)(end - p) + 1);
	for (p += 6; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		if (len >= 3 && !strncmp(p, "...", 3) && (len == 3 || p[3] == '\n'))
			break;
		if (len >= 2 && p[0] == ' ' && p[1] == ' ')
			p += 2, len -= 2;
		memcpy(q, p, len);
		q += len;
		p += len;
	}
	*q = 0;
	ir = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, (size_t)(q - text), "pre-isel");
	free(text);
	if (LLVMParseIRInContext(ctx, ir, out, &err)) {
		nv_error("cannot cut code generation: %s", err ? err : "unreadable module");
		LLVMDisposeMessage(err);
		return -1;
	}
	return nv_io_verify(*out, "module before instruction selection");
}

/* The mark -stop-after leaves, and -start-after wants. */
static int
has_cut_mark(LLVMModuleRef m)
{
	return LLVMGetNamedMetadataNumOperands(m, CUT_MARK) > 0;
}

static void
add_cut_mark(LLVMModuleRef m)
{
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	LLVMValueRef s = LLVMMDStringInContext(ctx, CUT_PASS, (unsigned)strlen(CUT_PASS));

	LLVMAddNamedMetadataOperand(m, CUT_MARK, LLVMMDNodeInContext(ctx, &s, 1));
}

/* -ftz decides the f32 denormal mode of every function, as clang's
 * -fgpu-flush-denormals-to-zero would have. */
static void
set_ftz(LLVMModuleRef m)
{
	const char *mode = ftz ? "preserve-sign,preserve-sign" : "ieee,ieee";
	LLVMContextRef ctx = LLVMGetModuleContext(m);

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
			                        LLVMCreateStringAttribute(ctx, "denormal-fp-math-f32", 20,
			                                                  mode, (unsigned)strlen(mode)));
}

/* -maxrregcount becomes .maxnreg on every kernel that asks for no fewer. */
static void
limit_registers(LLVMModuleRef m)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%lld", maxreg);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		LLVMAttributeRef at;
		unsigned len;

		if (LLVMIsDeclaration(f) || LLVMGetFunctionCallConv(f) != PTX_KERNEL_CC)
			continue;
		at = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "nvvm.maxnreg", 12);
		if (at && atoll(LLVMGetStringAttributeValue(at, &len)) <= maxreg)
			continue;
		LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
		                        LLVMCreateStringAttribute(LLVMGetModuleContext(m), "nvvm.maxnreg",
		                                                  12, buf, (unsigned)strlen(buf)));
	}
}

/* llvm.used and llvm.compiler.used emit nothing, but the NVPTX printer
 * visits what their initializers name through a pointer-keyed set, so the
 * order of those globals in the PTX changed from run to run (ASLR).  The
 * backend is the last user of the module: they can go. */
static void
drop_used_lists(LLVMModuleRef m)
{
	static const char *const names[] = { "llvm.used", "llvm.compiler.used" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		LLVMValueRef g = LLVMGetNamedGlobal(m, names[i]);

		if (g)
			LLVMDeleteGlobal(g);
	}
}

/* PTX names: what NVPTXAssignValidGlobalNames does to a local name, every
 * character but [A-Za-z0-9_$] spelled "_$_". */
static void
valid_name(LLVMValueRef g)
{
	size_t len, n = 0;
	const char *name = LLVMGetValueName2(g, &len);
	char *v;

	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '$')
			n++;
	if (!n)
		return;
	v = xmalloc(len + 2 * n + 1);
	n = 0;
	for (size_t i = 0; i < len; i++)
		if (isalnum((unsigned char)name[i]) || name[i] == '_' || name[i] == '$') {
			v[n++] = name[i];
		} else {
			memcpy(v + n, "_$_", 3);
			n += 3;
		}
	LLVMSetValueName2(g, v, n);
	free(v);
}

/*
 * -start-after: the IR passes named the module's local symbols for PTX
 * before the cut, but a module cut by nv-split went through them with its
 * local symbols made external, and nv-link -split-map made them local
 * again after: name those as the pass would have.  A no-op on a module
 * that was not split.
 */
/*
 * NVPTX prints a function's .extern line where the declaration stands in
 * the module.  Where that is depends on the parts nv-split made and the
 * order the join met them in, so the declarations go last, sorted by name:
 * the same PTX for every -split-compile.
 */
static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
declarations_last(LLVMModuleRef m)
{
	struct nv_strv names = { 0 };

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		size_t len;

		if (LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f))
			nv_strv_push(&names, LLVMGetValueName2(f, &len));
	}
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), by_name);
	for (size_t i = 0; i < names.n; i++)
		nv_split_decl_to_end(m, LLVMGetNamedFunction(m, names.v[i]));
	nv_strv_free(&names);
}

static void
valid_local_names(LLVMModuleRef m)
{
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (LLVMGetLinkage(g) == LLVMInternalLinkage || LLVMGetLinkage(g) == LLVMPrivateLinkage)
			valid_name(g);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (LLVMGetLinkage(f) == LLVMInternalLinkage || LLVMGetLinkage(f) == LLVMPrivateLinkage)
			valid_name(f);
}

static int
emit_ptx(LLVMModuleRef m, LLVMTargetMachineRef tm, LLVMMemoryBufferRef *ptx)
{
	char *err = NULL;

	char *diag;

	if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &err, ptx)) {
		nv_error("cannot generate PTX: %s", err ? err : "unknown error");
		LLVMDisposeMessage(err);
		return -1;
	}
	/* The backend reports some errors as diagnostics and carries on. */
	diag = nv_llvm_error();
	if (diag) {
		nv_error("cannot generate PTX: %s", diag);
		free(diag);
		LLVMDisposeMemoryBuffer(*ptx);
		*ptx = NULL;
		return -1;
	}
	return 0;
}

/* The instructions of function `name` in the PTX text: the lines of its
 * body ({ ... } after a .func or .entry header naming it) that end in ';'
 * and declare nothing.  -1 when the PTX has no body for it. */
static long
ptx_body_size(const char *ptx, const char *name)
{
	size_t n = strlen(name);
	const char *p = ptx;

	for (; (p = strstr(p, name)); p += n) {
		const char *bol = p, *q;
		long insts = 0;

		while (bol > ptx && bol[-1] != '\n')
			bol--;
		if (bol[0] != '.' || (p[n] != '(' && p[n] != '\n') || (p > bol && p[-1] != ' ') ||
		    (!strstr(bol, ".func") && !strstr(bol, ".entry")) || strchr(bol, '\n') < p)
			continue;
		for (q = p; *q && !(q[0] == '\n' && (q[1] == '{' || q[1] == ';')); q++)
			;
		if (q[0] != '\n' || q[1] != '{')
			continue;
		for (q = strchr(q + 1, '\n'); q && q[1] != '}'; q = strchr(q + 1, '\n')) {
			const char *t = q + 1, *e = strchr(t, '\n');

			while (*t == ' ' || *t == '\t')
				t++;
			if (e && e > t && e[-1] == ';' && *t != '.' && *t != '/')
				insts++;
		}
		return insts;
	}
	return -1;
}

/* One analysis remark per defined function: its size in PTX. */
static void
report_ptx(LLVMModuleRef m, LLVMMemoryBufferRef ptx)
{
	char *text;
	size_t len;

	if (!nv_remark_enabled(NV_REMARK_ANALYSIS, "nv-llc"))
		return;
	text = xasprintf("%.*s", (int)LLVMGetBufferSize(ptx), LLVMGetBufferStart(ptx));
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		const char *name = LLVMGetValueName2(f, &len);
		long insts = LLVMIsDeclaration(f) ? -1 : ptx_body_size(text, name);

		if (insts >= 0)
			nv_remark(NV_REMARK_ANALYSIS, "nv-llc", "PTXInstructions", f,
			          "%ld PTX instructions in %s '%s'", insts,
			          nv_is_kernel(f) ? "kernel" : "function", name);
	}
	free(text);
}

/* With -stop-after: one analysis remark per defined function, its size as
 * it enters instruction selection. */
static void
report_cut(LLVMModuleRef m)
{
	size_t len;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		unsigned n = 0;

		if (LLVMIsDeclaration(f))
			continue;
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				n++;
		nv_remark(NV_REMARK_ANALYSIS, "nv-llc", "ISelInput", f,
		          "%u IR instructions in '%s' enter instruction selection", n, LLVMGetValueName2(f, &len));
	}
}

/* The PTX with each local array's 32-bit address taken from its depot
 * (lib/stages/ptxfix.h); ptx is disposed of. */
static LLVMMemoryBufferRef
local_addresses(LLVMMemoryBufferRef ptx)
{
	size_t len;
	char *text = nv_ptx_local_addresses(LLVMGetBufferStart(ptx), LLVMGetBufferSize(ptx), &len, NULL);
	LLVMMemoryBufferRef out = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, len, "ptx");

	free(text);
	LLVMDisposeMemoryBuffer(ptx);
	return out;
}

/* Run ptxas on the PTX and write the cubin where the PTX would have gone. */
static int
assemble(LLVMMemoryBufferRef ptx, const char *out, int force)
{
	const char *cuda = getenv("CUDA_PATH");
	char *dir = xasprintf("%s/bin", cuda ? cuda : "/usr/local/cuda");
	char *ptxas = nv_spawn_find("ptxas", dir);
	char tmpl[] = "/tmp/nv-llc.XXXXXX", *pfile, *cfile, *data = NULL;
	struct nv_strv av = { 0 };
	size_t len;
	int rc = -1;

	free(dir);
	if (!ptxas) {
		nv_error("-cubin needs ptxas, which was not found (set CUDA_PATH or PATH)");
		return -1;
	}
	if (!mkdtemp(tmpl))
		nv_fatal("cannot create a temporary directory:");
	pfile = xasprintf("%s/in.ptx", tmpl);
	cfile = xasprintf("%s/out.cubin", tmpl);
	nv_register_output(pfile);
	nv_register_output(cfile);
	if (nv_io_write(pfile, LLVMGetBufferStart(ptx), LLVMGetBufferSize(ptx), 0, 0))
		goto out;
	nv_strv_push(&av, ptxas);
	nv_strv_pushf(&av, "-arch=%s", arch);
	if (device_debug)
		nv_strv_push(&av, "-g");
	else if (lineinfo)
		nv_strv_push(&av, "-lineinfo");
	nv_strv_pushf(&av, "-O%d", device_debug ? 0 : olevel);
	for (size_t i = 0; i < xptxas.n; i++)
		nv_strv_push(&av, xptxas.v[i]);
	nv_strv_push(&av, pfile);
	nv_strv_push(&av, "-o");
	nv_strv_push(&av, cfile);
	if (nv_spawn_tool(av.v) == 0 && nv_io_slurp(cfile, &data, &len) == 0)
		rc = nv_io_write(out, data, len, 1, force);
out:
	unlink(pfile);
	unlink(cfile);
	rmdir(tmpl);
	nv_forget_output(pfile);
	nv_forget_output(cfile);
	free(pfile);
	free(cfile);
	free(data);
	free(ptxas);
	nv_strv_free(&av);
	return rc;
}

/*
 * Loop strength reduction, per function (knob lsr-by-pressure).  LLVM's
 * LSR can give each strided access of an unrolled loop its own 64-bit
 * pointer induction variable: p2pBandwidthLatencyTest's copyp2p (#pragma
 * unroll 5, a grid-stride loop) keeps eleven, 40 registers, where cicc,
 * whose LSR weighs occupancy, keeps one index and chains the addresses
 * (20); without LSR, 18.  Elsewhere LSR saves registers: on the corpus,
 * without it 81 kernels take fewer, 87 more.  So where LSR changed a
 * function that now carries 16 or more register units of phis, the
 * codegen IR passes run again without it, and the function keeps that
 * version when LSR added 16 units or more of phis (eight 64-bit induction
 * variables) and raised the most live into a block, or doubled that most
 * (bench's stencil3d_7pt, unrolled by 4: 63 units live in, 28 without; 56
 * registers, 27 without, cicc 32).  The peak pressure alone picks badly
 * (as many kernels worse as better on the corpus).
 */
#define LSR_PHI_UNITS 16

/* Did LSR touch f: a value it named? */
static int
lsr_touched(LLVMValueRef f)
{
	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
			size_t len;
			const char *n = LLVMGetValueName2(i, &len);

			if (len >= 6 && !strncmp(n, "lsr.iv", 6))
				return 1;
		}
	return 0;
}

/* The most register units live into a block of f; 0 if too large to tell. */
static unsigned
most_live_in(LLVMValueRef f, LLVMTargetDataRef td)
{
	struct nv_cfg g;
	struct nv_liveness lv;
	size_t need;
	unsigned most = 0;

	nv_cfg_build(&g, f);
	if (!nv_liveness_build(&lv, &g, td, &need)) {
		most = nv_live_max_in(&lv, NULL);
		nv_liveness_release(&lv);
	}
	nv_cfg_release(&g);
	return most;
}

/* The register units of f's phis. */
static unsigned
phi_units(LLVMValueRef f, LLVMTargetDataRef td)
{
	unsigned n = 0;

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
			n += nv_type_units(td, LLVMTypeOf(i));
	return n;
}

/* *pre came from the codegen IR passes with LSR; twin (consumed) is the
 * module before them.  Where LSR may have cost registers, run them on twin
 * without LSR and keep, per function, the version the rule above picks. */
static int
lsr_by_pressure(LLVMContextRef ctx, LLVMTargetMachineRef tm, LLVMModuleRef twin, LLVMModuleRef *pre)
{
	static const char *const av[] = { "nv-llc", "-disable-lsr" };
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(*pre);
	LLVMMemoryBufferRef mir = NULL;
	LLVMModuleRef alt = NULL;
	struct nv_strv pick = { 0 }, suspects = { 0 };
	unsigned defs = 0;
	int rc;

	for (LLVMValueRef f = LLVMGetFirstFunction(*pre); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			size_t len;

			defs++;
			if (lsr_touched(f) && phi_units(f, td) >= LSR_PHI_UNITS)
				nv_strv_push(&suspects, LLVMGetValueName2(f, &len));
		}
	/* A module with aliases is not cut by function (lib/stages/split): LSR stays. */
	if (!suspects.n || LLVMGetFirstGlobalAlias(*pre) || LLVMGetFirstGlobalIFunc(*pre)) {
		nv_strv_free(&suspects);
		LLVMDisposeModule(twin);
		return 0;
	}
	/* The second run needs only the suspects' bodies; the others become
	 * declarations, under the names the first run gave local symbols. */
	valid_local_names(twin);
	for (LLVMValueRef f = LLVMGetFirstFunction(twin); f; f = LLVMGetNextFunction(f)) {
		size_t len;

		if (!LLVMIsDeclaration(f) && !nv_strv_has(&suspects, LLVMGetValueName2(f, &len)))
			nv_split_strip_body(f);
	}
	LLVMParseCommandLineOptions(2, av, NULL); /* process-wide: this is the last run */
	rc = emit_ptx(twin, tm, &mir) || mir_module(ctx, mir, &alt);
	if (mir)
		LLVMDisposeMemoryBuffer(mir);
	LLVMDisposeModule(twin);
	if (rc) {
		nv_strv_free(&suspects);
		return -1;
	}
	for (size_t k = 0; k < suspects.n; k++) {
		const char *name = suspects.v[k];
		LLVMValueRef f = LLVMGetNamedFunction(*pre, name), g = LLVMGetNamedFunction(alt, name);
		unsigned phis, phis0, in, in0;

		if (!g || LLVMIsDeclaration(g))
			continue;
		phis = phi_units(f, td), phis0 = phi_units(g, td);
		in = most_live_in(f, td), in0 = most_live_in(g, td);
		if (in0 && ((phis >= phis0 + LSR_PHI_UNITS && in0 < in) || in >= 2 * in0)) {
			nv_strv_push(&pick, name);
			nv_remark(NV_REMARK_PASSED, "nv-llc", "LSRDropped", f,
			          "loop strength reduction left out of '%s': it makes %u register units of phis "
			          "(%u without) and raises the most live into a block to %u (%u without)",
			          name, phis, phis0, in, in0);
		} else {
			nv_remark(NV_REMARK_ANALYSIS, "nv-llc", "LSRKept", f,
			          "loop strength reduction kept in '%s': %u register units of phis (%u without), "
			          "at most %u live into a block (%u without)",
			          name, phis, phis0, in, in0);
		}
	}
	if (!pick.n) {
		LLVMDisposeModule(alt);
	} else if (pick.n == defs) { /* all suspects, all picked: alt is whole */
		LLVMDisposeModule(*pre);
		*pre = alt;
	} else {
		LLVMModuleRef merged;

		rc = nv_split_merge_by_names(*pre, alt, pick.v, pick.n, &merged);
		*pre = merged;
	}
	nv_strv_free(&pick);
	nv_strv_free(&suspects);
	return rc;
}

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Generates PTX for one GPU from an LLVM module (bitcode or text IR) with\n"
		           "LLVM's NVPTX backend; -cubin assembles it with ptxas.",
		.inputs = "[input]",
		.stage = NV_STAGE_LLC,
		.opts = opts,
		.before_llvm = precision_knobs,
	};
	struct nv_arch a;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	LLVMTargetMachineRef tm;
	LLVMMemoryBufferRef ptx = NULL;
	LLVMModuleRef twin = NULL;
	int rc;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	a = *nv_target_arch_or_die(arch);
	if (ptx_isa > a.ptx)
		a.ptx = (int)ptx_isa;
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	tm = nv_target_machine(&a, olevel, m);
	rc = nv_target_adopt(m, tm);
	if (!rc && maxreg)
		limit_registers(m);
	if (!rc && ftz >= 0)
		set_ftz(m);
	if (!rc && !lineinfo && !device_debug)
		LLVMStripModuleDebugInfo(m);
	if (!rc && start_after && !has_cut_mark(m)) {
		nv_error("%s: not a module written by nv-llc -stop-after=" CUT_PASS
		         " (the codegen IR passes have not run on it)", cli.input[0]);
		rc = -1;
	}
	if (!rc)
		drop_used_lists(m);
	if (!rc && !start_after && nv_target_short_ptr(m)) {
		LLVMValueRef f = olevel ? NULL : nv_memory_byval_device_fn(m);
		size_t len;

		if (f) {
			nv_error("%s: -O0 code for '%s', a device function with a byval parameter, needs 64-bit "
			         "local pointers (LLVM 22's NVPTX), and this module's are 32-bit; use -O1 or more",
			         cli.input[0], LLVMGetValueName2(f, &len));
			rc = -1;
		} else {
			nv_memory_copy_escaping_byval(m);
		}
	}
	if (!rc && !start_after) {
		nv_memory_kernel_byval(m, a.sm >= 70 && a.ptx >= 77);
		limit_slsr(m);
		nv_memory_unvolatile_locals(m);
		if (olevel > 0) {
			nv_memory_unskip_stores(m, (unsigned)nv_knob_int(NV_KNOB_SKIPPED_STORE_LIMIT));
			nv_memory_printf_lifetimes(m);
		}
	}
	if (!rc && start_after) {
		valid_local_names(m);
		declarations_last(m);
	}
	if (!rc && !stop_after && olevel > 0)
		nv_select_bit_tests(m);
	if (!rc && stop_after && olevel > 0 && nv_knob_int(NV_KNOB_LSR_BY_PRESSURE))
		twin = LLVMCloneModule(m);
	rc = rc || emit_ptx(m, tm, &ptx);
	if (!rc && stop_after) {
		LLVMModuleRef pre;

		rc = mir_module(ctx, ptx, &pre);
		if (!rc && twin) {
			rc = lsr_by_pressure(ctx, tm, twin, &pre);
			twin = NULL;
		}
		if (!rc) {
			if (olevel > 0) {
				nv_memory_convert_shared_once(pre);
				nv_memory_drop_write_only_locals(pre);
			}
			add_cut_mark(pre);
			report_cut(pre);
			rc = nv_io_write_module(pre, cli.output, 0, 0);
			LLVMDisposeModule(pre);
		}
	} else if (!rc) {
		if (nv_target_short_ptr(m))
			ptx = local_addresses(ptx);
		report_ptx(m, ptx);
		if (cubin)
			rc = assemble(ptx, cli.output, 0);
		else
			rc = nv_io_write(cli.output, LLVMGetBufferStart(ptx), LLVMGetBufferSize(ptx), 0, 0);
	}
	rc = rc || nv_remarks_finish();
	if (twin)
		LLVMDisposeModule(twin);
	if (ptx)
		LLVMDisposeMemoryBuffer(ptx);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	LLVMDisposeTargetMachine(tm);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
