/* nv-vectorize: GPU loop vectorization decisions, carried out by LLVM's loop-vectorize. */
#include <stdlib.h>

#include <llvm-c/Core.h>

#include "base/cli.h"
#include "base/decisions.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "stages/target.h"
#include "stages/vectorize.h"

static const char *arch;
static int olevel = 3;

static const struct nv_option opts[] = {
	{ "O", NV_OPT_OLEVEL, &olevel, NULL, "optimization level (default 3); -O0 vectorizes nothing" },
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "target for the occupancy model and LLVM's cost model (default: the module's target-cpu, else " NV_DEFAULT_ARCH ")" },
	{ NULL },
};

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Vectorizes innermost loops where their loads and stores become ld/st.v2/.v4:\n"
		           "legality and the factor are decided here (one exit, a computable trip count,\n"
		           "no convergent calls, reorderable FP reductions, accesses of at most 16 bytes,\n"
		           "an occupancy-bounded register estimate), LLVM's loop-vectorize carries it out,\n"
		           "and a loop whose wide accesses are not provably aligned is versioned on a\n"
		           "run-time alignment test or left scalar.  Every decision is a remark:\n"
		           "-pass-remarks=nv-vectorize, -pass-remarks-missed=nv-vectorize.",
		.inputs = "[input]",
		.stage = NV_STAGE_VECTORIZE,
		.writes_bitcode = 1,
		.decides = 1,
		.opts = opts,
	};
	LLVMTargetMachineRef tm = NULL;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	int rc = 0;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	if (arch)
		nv_target_arch_or_die(arch);
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	if (!nv_knob_int(NV_KNOB_VECTORIZE_LOOPS)) {
		nv_remark(NV_REMARK_ANALYSIS, "nv-vectorize", "Skipped", NULL, "no vectorization: -vectorize-loops=0");
	} else if (olevel == 0) {
		nv_remark(NV_REMARK_ANALYSIS, "nv-vectorize", "Skipped", NULL, "no vectorization: -O0");
	} else {
		tm = nv_target_for_module(m, arch, olevel);
		rc = nv_vectorize_module(&m, tm, nv_target_sm(tm)) || nv_io_verify(m, "module after nv-vectorize");
	}
	rc = rc || nv_decisions_finish(m, "vectorize") ||
	     nv_io_write_module(m, cli.output, cli.text, cli.force) || nv_remarks_finish();
	if (tm)
		LLVMDisposeTargetMachine(tm);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
