/* nv-inline: cicc's inliner cost model and budgets; LLVM clones the bodies. */
#include <llvm-c/Core.h>

#include "base/cli.h"
#include "base/decisions.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "stages/inline.h"
#include "stages/target.h"

static const char *arch;
static int olevel = 3;

static const struct nv_option opts[] = {
	{ "O", NV_OPT_OLEVEL, &olevel, NULL, "optimization level (default 3); -O0 inlines only always_inline functions" },
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "target for LLVM's passes (default: the module's target-cpu, else " NV_DEFAULT_ARCH ")" },
	{ NULL },
};

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Decides every call site bottom-up over the call graph with cicc's inliner\n"
		           "cost model: .param marshalling saved against the callee's size, per-caller,\n"
		           "kernel and module budgets; LLVM's always-inliner clones what it picks.\n"
		           "Then merges the allocas of inlined callees whose lifetimes do not overlap\n"
		           "and deletes the internal functions left without callers.  Every decision\n"
		           "is a remark: -pass-remarks=nv-inline, -pass-remarks-missed=nv-inline.",
		.inputs = "[input]",
		.stage = NV_STAGE_INLINE,
		.writes_bitcode = 1,
		.decides = 1,
		.opts = opts,
	};
	LLVMTargetMachineRef tm;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	int rc;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	if (arch)
		nv_target_arch_or_die(arch);
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	tm = nv_target_for_module(m, arch, olevel > 0 ? olevel : 2);
	rc = nv_inline_module(m, tm, olevel) || nv_io_verify(m, "module after nv-inline");
	rc = rc || nv_decisions_finish(m, "inline") ||
	     nv_io_write_module(m, cli.output, cli.text, cli.force) || nv_remarks_finish();
	if (tm)
		LLVMDisposeTargetMachine(tm);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
