/* nv-unroll: cicc's loop unroll decisions, carried out by LLVM's loop-unroll. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "base/cli.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "base/util.h"
#include "stages/target.h"
#include "stages/unroll.h"

static const char *arch, *config = "C";
static int olevel = 3;

static const struct nv_option opts[] = {
	{ "O", NV_OPT_OLEVEL, &olevel, NULL, "optimization level: budgets of -O1 or -O2/-O3 (default 3); -O0 unrolls nothing" },
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "target for LLVM's cost model (default: the module's target-cpu, else " NV_DEFAULT_ARCH ")" },
	{ "config", NV_OPT_STR, &config, "A-F|P", "pass configuration: A standard O1/O2, B code size, C normal (default), D late, E O3 slot, F from the knobs, P early (where a #pragma unroll loop sits in a loop that stays: loops rotated, small #pragma unroll nests unrolled)" },
	{ NULL },
};

/* Why the stage passes the module through untouched, or NULL. */
static const char *
skipped(const struct nv_unroll_config *cfg)
{
	if (nv_knob_int(NV_KNOB_DISABLE_LOOPUNROLLPASS))
		return "-disable-LoopUnrollPass";
	if (cfg->name == 'D' && nv_knob_int(NV_KNOB_NV_DISABLE_LOOP_UNROLLING))
		return "-nv-disable-loop-unrolling (the late unroll)";
	if (cfg->name == 'P' && !nv_knob_int(NV_KNOB_UNROLL_EARLY_PRAGMA))
		return "-unroll-early-pragma=0 (the early unroll)";
	if (olevel == 0 && cfg->olevel < 0)
		return "-O0";
	return NULL;
}

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Decides how to unroll each loop with cicc's priority cascade (local-array\n"
		           "multiplier, #pragma unroll N, full unrolling, peeling, power-of-two partial\n"
		           "factors, runtime unrolling) and has LLVM's loop-unroll carry it out.\n"
		           "Every decision is a remark: -pass-remarks=nv-unroll, and\n"
		           "-pass-remarks-analysis=nv-unroll for each level of the cascade.",
		.inputs = "[input]",
		.stage = NV_STAGE_UNROLL,
		.writes_bitcode = 1,
		.decides = 1,
		.opts = opts,
	};
	const struct nv_unroll_config *cfg;
	LLVMTargetMachineRef tm = NULL;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	const char *skip;
	int rc = 0;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	if (arch)
		nv_target_arch_or_die(arch);
	cfg = strlen(config) == 1 ? nv_unroll_config(config[0]) : NULL;
	if (!cfg)
		nv_usage_error("unknown configuration '%s' for -config (known: A B C D E F P)", config);
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	skip = skipped(cfg);
	if (skip) {
		nv_remark(NV_REMARK_ANALYSIS, "nv-unroll", "Skipped", NULL, "no unrolling: %s", skip);
	} else {
		tm = nv_target_for_module(m, arch, olevel > 0 ? olevel : 2);
		rc = nv_unroll_module(m, tm, cfg, olevel) || nv_io_verify(m, "module after nv-unroll");
	}
	rc = rc || nv_unroll_decisions_finish(m, cfg) ||
	     nv_io_write_module(m, cli.output, cli.text, cli.force) || nv_remarks_finish();
	if (tm)
		LLVMDisposeTargetMachine(tm);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
