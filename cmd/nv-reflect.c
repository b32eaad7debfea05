/* nv-reflect: fold __nvvm_reflect queries to constants, then the branches they decide. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "base/cli.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "base/util.h"
#include "stages/reflect.h"
#include "stages/target.h"

static const char *arch = NV_DEFAULT_ARCH;
static long long ftz = -1, prec_div = 1, prec_sqrt = 1; /* cicc's defaults, not clang's */
static struct nv_strv defs;

static const struct nv_option opts[] = {
	{ "arch", NV_OPT_STR, &arch, "sm_XX", "__CUDA_ARCH is XX*10 (default " NV_DEFAULT_ARCH ": 750)" },
	{ "ftz", NV_OPT_INT, &ftz, "0|1", "__CUDA_FTZ (default: the module flag nvvm-reflect-ftz, else 0)", 0, 1 },
	{ "prec-div", NV_OPT_INT, &prec_div, "0|1", "__CUDA_PREC_DIV (default 1)", 0, 1 },
	{ "prec-sqrt", NV_OPT_INT, &prec_sqrt, "0|1", "__CUDA_PREC_SQRT (default 1)", 0, 1 },
	{ "R", NV_OPT_LIST, &defs, "NAME=VALUE", "answer the query NAME with VALUE (repeatable; wins over the above)" },
	{ NULL },
};

static struct nv_reflect_def *
parse_defs(size_t *n)
{
	struct nv_reflect_def *d = xcalloc(defs.n, sizeof(*d));

	for (size_t i = 0; i < defs.n; i++) {
		char *eq = strchr(defs.v[i], '=');

		if (!eq || eq == defs.v[i] || nv_parse_int(eq + 1, -(1LL << 31), (1LL << 31) - 1, &d[i].value))
			nv_usage_error("-R '%s': expected NAME=VALUE with an integer VALUE", defs.v[i]);
		*eq = '\0';
		d[i].name = defs.v[i];
	}
	*n = defs.n;
	return d;
}

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Replaces each __nvvm_reflect(\"NAME\") call (and llvm.nvvm.reflect) with\n"
		           "its value, then folds the branches those values decide and deletes the\n"
		           "blocks they cut off (cicc's NVVMReflect and nvvm-reflect-pp).  Unknown\n"
		           "names are 0.",
		.inputs = "[input]",
		.stage = NV_STAGE_REFLECT,
		.writes_bitcode = 1,
		.opts = opts,
	};
	struct nv_reflect r = { 0 };
	const struct nv_arch *a;
	struct nv_reflect_def *d;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	int rc;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	a = nv_target_arch_or_die(arch);
	d = parse_defs(&r.ndefs);
	r.defs = d;
	r.arch = a->sm * 10;
	r.ftz = (int)ftz;
	r.prec_div = (int)prec_div;
	r.prec_sqrt = (int)prec_sqrt;
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	rc = nv_reflect_module(m, &r) || nv_io_verify(m, "module after nv-reflect") ||
	     nv_io_write_module(m, cli.output, cli.text, cli.force) || nv_remarks_finish();
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	free(d);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
