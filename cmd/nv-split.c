/* nv-split: cut a module into per-function parts for parallel Phase II. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "base/cli.h"
#include "base/diag.h"
#include "base/io.h"
#include "base/knobs.h"
#include "base/remarks.h"
#include "base/util.h"
#include "stages/split.h"

static long long nparts_opt; /* 0: not given, one module out */
static const char *function, *map_path;

static const struct nv_option opts[] = {
	{ "n", NV_OPT_INT, &nparts_opt, "N", "cut into at most N parts, -o PREFIX: PREFIX.0.bc ... and PREFIX.map", 1, 4096 },
	{ "function", NV_OPT_STR, &function, "NAME", "write the part that defines only function NAME" },
	{ "map", NV_OPT_STR, &map_path, "FILE", "without -n: write the linkage map to FILE" },
	{ NULL },
};

static int
write_map(const struct nv_split_map *map, const char *path)
{
	char *data = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&data, &len);
	int rc = nv_split_map_write(map, fp);

	rc = fclose(fp) || rc;
	rc = rc || nv_io_write(path, data, len, 0, 1);
	free(data);
	return rc ? -1 : 0;
}

/* -n N -o PREFIX: every part, then the map; all or nothing. */
static int
write_parts(LLVMModuleRef *parts, unsigned n, const struct nv_split_map *map, const char *prefix,
            int text)
{
	struct nv_strv done = { 0 };
	int rc = 0;

	for (unsigned p = 0; p < n && !rc; p++) {
		char *path = xasprintf("%s.%u.%s", prefix, p, text ? "ll" : "bc");

		rc = nv_io_write_module(parts[p], path, text, 1);
		if (!rc)
			nv_strv_push(&done, path);
		free(path);
	}
	if (!rc) {
		char *path = xasprintf("%s.map", prefix);

		rc = write_map(map, path);
		free(path);
	}
	for (size_t i = 0; rc && i < done.n; i++)
		unlink(done.v[i]);
	nv_strv_free(&done);
	return rc;
}

int
main(int argc, char **argv)
{
	struct nv_cli cli = {
		.summary = "Cuts a module into parts that each define some of its functions (largest\n"
		           "first, for balance), for Phase II to run on in parallel.  Internal and\n"
		           "private symbols become external in every part; the map records them so\n"
		           "nv-link -split-map restores them when it joins the parts.  Without -n\n"
		           "or --function the module is one part, written like any stage's output.",
		.inputs = "[input]",
		.stage = NV_STAGE_SPLIT,
		.writes_bitcode = 1,
		.opts = opts,
	};
	struct nv_split_map map = { 0 };
	LLVMModuleRef m, *parts = NULL;
	LLVMContextRef ctx;
	unsigned n = 1;
	int rc;

	nv_diag_init(argv[0]);
	nv_cli_parse(&cli, argc, argv);
	if (nparts_opt && function)
		nv_usage_error("-n and --function do not go together");
	if (nparts_opt && !cli.output)
		nv_usage_error("-n needs -o PREFIX: the parts are files");
	if (nparts_opt && map_path)
		nv_usage_error("-n writes the map to PREFIX.map: -map is for one part");
	ctx = LLVMContextCreate();
	if (nv_io_read_module(ctx, cli.input[0], &m))
		nv_exit(NV_EXIT_ERROR);
	if (function) {
		rc = nv_split_function(m, function, &m, &map);
		parts = xcalloc(1, sizeof(*parts));
		parts[0] = m;
	} else {
		rc = nv_split_module(m, nparts_opt ? (unsigned)nparts_opt : 1, &parts, &n, &map);
	}
	for (unsigned p = 0; p < n && !rc; p++)
		rc = nv_io_verify(parts[p], "split part");
	if (!rc && nparts_opt)
		rc = write_parts(parts, n, &map, cli.output, cli.text);
	else if (!rc)
		rc = nv_io_write_module(parts[0], cli.output, cli.text, cli.force) ||
		     (map_path && write_map(&map, map_path));
	if (!rc)
		nv_remark(NV_REMARK_ANALYSIS, "nv-split", "Split", NULL,
		          "%u parts, %zu symbols made external", n, map.nrec);
	rc = rc || nv_remarks_finish();
	for (unsigned p = 0; p < n; p++)
		if (parts && parts[p])
			LLVMDisposeModule(parts[p]);
	free(parts);
	nv_split_map_release(&map);
	LLVMContextDispose(ctx);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
