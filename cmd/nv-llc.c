/* nv-llc: LLVM module to PTX (or, with ptxas, a cubin) for one sm_XX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

#include "cli.h"
#include "diag.h"
#include "io.h"
#include "knobs.h"
#include "proc.h"
#include "target.h"
#include "util.h"

#define PTX_KERNEL_CC 71 /* LLVM's ptx_kernel calling convention */

static const char *arch = NV_DEFAULT_ARCH;
static int olevel = 3, lineinfo, cubin, fast_math;
static struct nv_strv xptxas;
static long long maxreg, ftz = -1, prec_div = 1, prec_sqrt = 1, fmad = 1;

static const struct nv_option opts[] = {
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "GPU to generate code for (default " NV_DEFAULT_ARCH ", as nvcc 13)" },
	{ "O", NV_OPT_OLEVEL, &olevel, NULL, "code generation optimization level (default 3)" },
	{ "maxrregcount", NV_OPT_INT, &maxreg, "N", "at most N registers per thread in kernels (.maxnreg)", 1, 255 },
	{ "lineinfo", NV_OPT_FLAG, &lineinfo, NULL, "keep line tables (.loc) from the module's debug info" },
	{ "cubin", NV_OPT_FLAG, &cubin, NULL, "assemble with ptxas and write a cubin instead of PTX" },
	{ "Xptxas", NV_OPT_LIST, &xptxas, "OPT", "with -cubin, pass OPT to ptxas (repeatable)" },
	{ "ftz", NV_OPT_INT, &ftz, "0|1", "flush f32 denormals to zero (.ftz); default: as the module's functions say", 0, 1 },
	{ "prec-div", NV_OPT_INT, &prec_div, "0|1", "f32 division: 1 IEEE div.rn (default), 0 div.full", 0, 1 },
	{ "prec-sqrt", NV_OPT_INT, &prec_sqrt, "0|1", "f32 square root: 1 sqrt.rn (default), 0 sqrt.approx", 0, 1 },
	{ "fmad", NV_OPT_INT, &fmad, "0|1", "contract multiply-add into fma (default 1)", 0, 1 },
	{ "fast-math", NV_OPT_FLAG, &fast_math, NULL, "f32 division as div.approx (nvcc --use_fast_math)" },
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
	if (lineinfo)
		nv_strv_push(&av, "-lineinfo");
	nv_strv_pushf(&av, "-O%d", olevel);
	for (size_t i = 0; i < xptxas.n; i++)
		nv_strv_push(&av, xptxas.v[i]);
	nv_strv_push(&av, pfile);
	nv_strv_push(&av, "-o");
	nv_strv_push(&av, cfile);
	if (nv_spawn_chain(&av.v, 1, -1, 2) == 0 && nv_io_slurp(cfile, &data, &len) == 0)
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
	const struct nv_arch *a;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	LLVMTargetMachineRef tm;
	LLVMMemoryBufferRef ptx = NULL;
	int rc;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	a = nv_target_arch_or_die(arch);
	tm = nv_target_machine(a, olevel);
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	rc = nv_target_adopt(m, tm);
	if (!rc && maxreg)
		limit_registers(m);
	if (!rc && ftz >= 0)
		set_ftz(m);
	if (!rc && !lineinfo)
		LLVMStripModuleDebugInfo(m);
	if (!rc)
		drop_used_lists(m);
	rc = rc || emit_ptx(m, tm, &ptx);
	if (!rc && cubin)
		rc = assemble(ptx, cli.output, 0);
	else if (!rc)
		rc = nv_io_write(cli.output, LLVMGetBufferStart(ptx), LLVMGetBufferSize(ptx), 0, 0);
	rc = rc || nv_remarks_finish();
	if (ptx)
		LLVMDisposeMemoryBuffer(ptx);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	LLVMDisposeTargetMachine(tm);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
