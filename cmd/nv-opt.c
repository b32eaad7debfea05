/* nv-opt: run an LLVM new-PM pipeline (or a named sub-pipeline) on a module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Support.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "base/cli.h"
#include "base/decisions.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "base/util.h"
#include "ir/analyze.h"
#include "ir/indvars.h"
#include "stages/stdpipe.h"
#include "stages/target.h"
#include "stages/unroll.h"

static const char *passes, *named, *arch;
static int olevel = -1, disable_output, no_unroll, no_vectorize;
static struct nv_strv prints;

static const struct nv_option opts[] = {
	{ "passes", NV_OPT_STR, &passes, "TEXT", "run the LLVM new-PM pipeline TEXT" },
	{ "O", NV_OPT_OLEVEL, &olevel, NULL, "run LLVM's default<On> pipeline" },
	{ "pipeline", NV_OPT_STR, &named, "NAME", "run a named sub-pipeline (std1, std5, std8, mid-unroll, post-unroll, post-unroll-t1, post-unroll-t3, late-memory, unswitch, loop-canon)" },
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "target for cost models of an NVPTX module (default: the module's target-cpu, else sm_75)" },
	{ "print", NV_OPT_LIST, &prints, "NAME", "after the pipeline, print an analysis to stderr: cfg, dom, postdom, loops, tripcount, liveness, peak, cost, occupancy, uniform, summary (repeatable)" },
	{ "no-unroll", NV_OPT_FLAG, &no_unroll, NULL, "leave unrolling to nv-unroll: LLVM's unrollers are off, #pragma unroll included" },
	{ "no-vectorize", NV_OPT_FLAG, &no_vectorize, NULL, "leave loop vectorization to nv-vectorize: LLVM's loop vectorizer runs only on loops that #pragma forces" },
	{ "disable-output", NV_OPT_FLAG, &disable_output, NULL, "write no module (with -print)" },
	{ NULL },
};

/* The pipeline text from -passes, -O or -pipeline; NULL means none. */
static char *
pipeline_text(void)
{
	const struct nv_stdpipe *p;

	if (!!passes + (olevel >= 0) + !!named > 1)
		nv_usage_error("give one of -passes=, -O0..3 and -pipeline=, not several");
	if (passes)
		return xstrdup(passes);
	if (olevel >= 0)
		return xasprintf("default<O%d>", olevel);
	if (!named)
		return NULL;
	p = nv_stdpipe_find(named);
	if (!p)
		nv_usage_error("unknown sub-pipeline '%s' (known: std1, std5, std8, mid-unroll, post-unroll, post-unroll-t1, post-unroll-t3, late-memory, unswitch, loop-canon)", named);
	return xstrdup(p->passes);
}

static int
run(LLVMModuleRef m, const char *text, LLVMTargetMachineRef tm)
{
	LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
	char *err;

	LLVMPassBuilderOptionsSetVerifyEach(po, (int)nv_knob_int(NV_KNOB_VERIFY_EACH));
	LLVMPassBuilderOptionsSetDebugLogging(po, (int)nv_knob_int(NV_KNOB_DEBUG_PASS_MANAGER));
	LLVMPassBuilderOptionsSetLoopUnrolling(po, !no_unroll);
	if (no_vectorize) {
		/* The builder options' LoopVectorization does not reach the
		 * vectorizer of default<On> in LLVM 22; its own option does. */
		const char *args[] = { "nv-opt", "-vectorize-loops=false", "-interleave-loops=false" };

		LLVMParseCommandLineOptions(3, args, NULL);
	}
	if (no_unroll) {
		nv_unroll_hide(m);
		nv_trip_mark_source_wrap(m);
	}
	err = nv_stdpipe_run(m, text, tm, po);
	if (no_unroll)
		nv_unroll_unhide(m);
	LLVMDisposePassBuilderOptions(po);
	if (err) {
		nv_error("pipeline '%s': %s", text, err);
		free(err);
		return -1;
	}
	return 0;
}

static unsigned
count_insts(LLVMValueRef f)
{
	unsigned n = 0;

	for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
		for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
			n++;
	return n;
}

struct fsize {
	char *name;
	unsigned insts;
};

/* Instruction counts of the defined functions, for the size remark. */
static struct fsize *
measure(LLVMModuleRef m, size_t *n)
{
	struct fsize *v = NULL;
	size_t len;

	*n = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[*n].name = xstrdup(LLVMGetValueName2(f, &len));
		v[(*n)++].insts = count_insts(f);
	}
	return v;
}

/* One analysis remark per function: its size before and after the pipeline. */
static void
report_sizes(LLVMModuleRef m, struct fsize *before, size_t n, const char *text)
{
	size_t len;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		const char *name = LLVMGetValueName2(f, &len);
		size_t i;

		if (LLVMIsDeclaration(f))
			continue;
		for (i = 0; i < n && strcmp(before[i].name, name); i++)
			;
		if (i < n)
			nv_remark(NV_REMARK_ANALYSIS, "nv-opt", "InstructionCount", f,
			          "%u -> %u instructions with '%s'", before[i].insts, count_insts(f), text);
	}
	for (size_t i = 0; i < n; i++)
		free(before[i].name);
	free(before);
}

/* A bad pipeline is a usage error: find it before reading any input. */
static void
check_pipeline(const char *text)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef m = LLVMModuleCreateWithNameInContext("check", ctx);

	if (run(m, text, NULL))
		nv_exit(NV_EXIT_USAGE);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
}

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Runs an LLVM pass pipeline on an LLVM module: -passes='TEXT', -O0..3\n"
		           "(default<On>) or a named sub-pipeline.  With none, the module is\n"
		           "read, verified and written back unchanged.",
		.inputs = "[input]",
		.stage = NV_STAGE_OPT,
		.writes_bitcode = 1,
		.decides = 1,
		.opts = opts,
	};
	LLVMContextRef ctx;
	LLVMModuleRef m;
	LLVMTargetMachineRef tm = NULL;
	char *text;
	int rc = 0;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	if (arch)
		nv_target_arch_or_die(arch);
	for (size_t i = 0; i < prints.n; i++)
		if (!nv_analyze_known(prints.v[i]))
			nv_usage_error("unknown analysis '%s' for -print (known: %s)", prints.v[i], nv_analyze_names);
	text = pipeline_text();
	if (text)
		check_pipeline(text);
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	if (text) {
		size_t n = 0;
		int want = nv_remark_enabled(NV_REMARK_ANALYSIS, "nv-opt");
		struct fsize *before = want ? measure(m, &n) : NULL;

		tm = nv_target_for_module(m, arch, olevel > 0 ? olevel : 2);
		rc = run(m, text, tm) || nv_io_verify(m, "module after the pipeline");
		if (want)
			report_sizes(m, before, n, text);
	}
	for (size_t i = 0; !rc && i < prints.n; i++) {
		const struct nv_arch *a = nv_target_arch(arch ? arch : NV_DEFAULT_ARCH);

		nv_analyze_print(stderr, m, prints.v[i], a ? a->sm : 75);
	}
	if (!rc && !disable_output)
		rc = nv_io_write_module(m, cli.output, cli.text, cli.force);
	/* the unswitch engine's places are checked where it ran */
	rc = rc || nv_decisions_finish(m, text && strstr(text, "loop-unswitch") ? "unswitch" : "") ||
	     nv_remarks_finish();
	if (tm)
		LLVMDisposeTargetMachine(tm);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	free(text);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
