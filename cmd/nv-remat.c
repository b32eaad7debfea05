/* nv-remat: cicc's IR rematerialization, IV demotion and live-out simplification. */
#include <stdlib.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "base/cli.h"
#include "base/decisions.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "stages/remat.h"
#include "stages/target.h"

static const char *arch;
static int olevel = 3;

static const struct nv_option opts[] = {
	{ "O", NV_OPT_OLEVEL, &olevel, NULL, "optimization level (default 3); -O0 changes nothing" },
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "target for the occupancy model (default: the module's target-cpu, else " NV_DEFAULT_ARCH ")" },
	{ NULL },
};

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Lowers register pressure where it is highest, as cicc's nvvmrematerialize does\n"
		           "right before instruction selection: values live into every block above a\n"
		           "register target are recomputed where they are used (remat_ chains, uclone_\n"
		           "copies), cheapest first, in up to five rounds; 64-bit loop IVs that fit 32\n"
		           "bits are demoted; live-outs are narrowed or recomputed (NLO).  Run it between\n"
		           "nv-llc -stop-after=codegenprepare and nv-llc -start-after=codegenprepare.\n"
		           "Every decision is a remark: -pass-remarks=nv-remat.",
		.inputs = "[input]",
		.stage = NV_STAGE_REMAT,
		.writes_bitcode = 1,
		.decides = 1,
		.opts = opts,
	};
	struct nv_remat_opts o;
	LLVMTargetMachineRef tm;
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
	if (olevel == 0) {
		nv_remark(NV_REMARK_ANALYSIS, "nv-remat", "Skipped", NULL, "no rematerialization: -O0");
	} else {
		tm = nv_target_for_module(m, arch, olevel);
		nv_remat_opts_from_knobs(&o, nv_target_sm(tm));
		if (tm)
			LLVMDisposeTargetMachine(tm);
		nv_remat_module(m, &o);
		rc = nv_io_verify(m, "module after nv-remat");
	}
	rc = rc || nv_decisions_finish(m, "remat") ||
	     nv_io_write_module(m, cli.output, cli.text, cli.force) || nv_remarks_finish();
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
