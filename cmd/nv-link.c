/* nv-link: link modules into one; optionally bring in what they need of libdevice. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "base/cli.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "base/util.h"
#include "stages/link.h"
#include "stages/split.h"
#include "stages/target.h"

static const char *libdevice; /* "" = search for it */
static int internalize, fast_math, static_stubs;
static const char *cudafe, *split_map; /* cudafe: "" or "nvcc" (names as nvcc's), "clang" */

static const struct nv_option opts[] = {
	{ "libdevice", NV_OPT_OPTSTR, &libdevice, "PATH", "link the libdevice functions the module calls, from PATH or $CUDA_PATH/nvvm/libdevice (default CUDA_PATH /usr/local/cuda)" },
	{ "fast-math", NV_OPT_FLAG, &fast_math, NULL, "nvcc's -use_fast_math: call libdevice's fast approximations (__nv_fast_expf...) of the single-precision functions CUDA's math headers make fast (expf, exp10f, logf, log2f, log10f, sinf, cosf, sincosf, tanf, tanhf, powf)" },
	{ "internalize", NV_OPT_FLAG, &internalize, NULL, "whole-program mode, as nvcc without -rdc: every function but the kernels becomes internal (variables stay visible to the host)" },
	{ "cudafe", NV_OPT_OPTSTR, &cudafe, "nvcc|clang|host", "the module is clang's CUDA front end output: give it nvcc's device ABI (__managed__ variables marked managed; static kernels named as nvcc names them, or as clang does with =clang); =host: the module is the host side, whose kernels get nvcc's names too (registered, and each launch stub under the kernel's own name)" },
	{ "static-template-stubs", NV_OPT_FLAG, &static_stubs, NULL, "with -cudafe=host: a template kernel's launch stub is internal, as nvcc's -static-global-template-stub=true (its default without -rdc): each unit launches its own device code's instantiation" },
	{ "split-map", NV_OPT_STR, &split_map, "FILE", "the inputs are nv-split's parts, in any order: join them function by function and restore the linkage FILE records" },
	{ NULL },
};

/* -split-map: every part read, then joined in the split's own order. */
static int
join_parts(LLVMContextRef ctx, const struct nv_cli *cli, LLVMModuleRef *out)
{
	struct nv_split_map map;
	LLVMModuleRef *parts = xcalloc(cli->ninput, sizeof(*parts));
	int rc = nv_split_map_read(split_map, &map);

	for (size_t i = 0; i < cli->ninput && !rc; i++)
		rc = nv_io_read_module(ctx, cli->input[i], &parts[i]);
	if (!rc && cli->ninput != map.nparts) {
		nv_error("the split map '%s' records %u parts, not %zu", split_map, map.nparts, cli->ninput);
		rc = -1;
	}
	if (!rc)
		rc = nv_split_join(parts, (unsigned)cli->ninput, &map, out);
	else
		for (size_t i = 0; i < cli->ninput; i++)
			if (parts[i])
				LLVMDisposeModule(parts[i]);
	nv_split_map_release(&map);
	free(parts);
	return rc;
}

static int
link_libdevice(LLVMModuleRef m)
{
	LLVMValueRef use = nv_libdevice_first_use(m);
	char *path;
	unsigned n;
	size_t len;
	int rc;

	if (!use)
		return 0; /* nothing to bring in: do not even read it */
	path = nv_libdevice_path(*libdevice ? libdevice : NULL);
	if (!path) {
		if (*libdevice)
			nv_error("cannot find libdevice at '%s'", libdevice);
		else
			nv_error("the module calls '%s' but libdevice was not found: give --libdevice=PATH "
			         "or set CUDA_PATH", LLVMGetValueName2(use, &len));
		return -1;
	}
	/* The one in the CUDA installation is trusted; a file named by the user is not. */
	rc = nv_link_libdevice(m, path, !*libdevice, &n);
	if (!rc)
		nv_remark(NV_REMARK_ANALYSIS, "nv-link", "LibdeviceSummary", NULL,
		          "%u functions linked from '%s'", n, path);
	free(path);
	return rc;
}

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Links LLVM modules (bitcode or text IR; '-' is stdin) into one.  With\n"
		           "--libdevice, the libdevice functions they call are linked in, made\n"
		           "internal, and everything else of libdevice is left out.",
		.inputs = "[input...]",
		.stage = NV_STAGE_LINK,
		.writes_bitcode = 1,
		.many_inputs = 1,
		.opts = opts,
	};
	LLVMContextRef ctx;
	LLVMModuleRef m;
	int rc = 0, stdin_seen = 0, host;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	if (static_stubs && (!cudafe || strcmp(cudafe, "host")))
		nv_usage_error("-static-template-stubs is for the host side: it needs -cudafe=host");
	for (size_t i = 0; i < cli.ninput; i++)
		if (!strcmp(cli.input[i], "-") && stdin_seen++)
			nv_usage_error("standard input ('-') can be read only once");
	ctx = LLVMContextCreate();
	if (split_map ? join_parts(ctx, &cli, &m) : nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	/* device code: another target is refused before any work, not by nv-llc at the end */
	if (cudafe && *cudafe && strcmp(cudafe, "nvcc") && strcmp(cudafe, "clang") && strcmp(cudafe, "host"))
		nv_usage_error("invalid value '%s' for -cudafe: expected nvcc, clang or host", cudafe);
	host = cudafe && !strcmp(cudafe, "host");
	rc = cudafe && !host && nv_target_check(m);
	for (size_t i = 1; i < cli.ninput && !rc && !split_map; i++) {
		LLVMModuleRef src;

		rc = nv_io_read_module(ctx, cli.input[i], &src) ||
		     nv_link_modules(m, src, strcmp(cli.input[i], "-") ? cli.input[i] : "<stdin>");
	}
	if (!rc && host) {
		unsigned n = nv_link_cudafe_host(m, static_stubs);

		nv_remark(NV_REMARK_ANALYSIS, "nv-link", "Cudafe", NULL,
		          "%u kernel names or stubs of the host side given nvcc's", n);
	} else if (!rc && cudafe) {
		unsigned n = nv_link_cudafe(m, !strcmp(cudafe, "clang"));

		nv_remark(NV_REMARK_ANALYSIS, "nv-link", "Cudafe", NULL,
		          "%u managed variables or static kernels given nvcc's ABI", n);
	}
	if (!rc && fast_math)
		nv_libdevice_fast_math(m);
	if (!rc && libdevice)
		rc = link_libdevice(m);
	if (!rc && internalize) {
		unsigned n = nv_link_internalize(m);

		nv_remark(NV_REMARK_ANALYSIS, "nv-link", "Internalized", NULL,
		          "%u functions made internal (whole-program mode)", n);
	}
	rc = rc || nv_io_verify(m, "linked module") ||
	     nv_io_write_module(m, cli.output, cli.text, cli.force) || nv_remarks_finish();
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
