/*
 * nvcc-lite: the driver.  Takes nvcc's flags, runs the CUDA front end
 * (clang-22, device only) and the stages of an nvopt<...> pipeline as
 * processes joined by pipes, and writes PTX (or a cubin, or bitcode).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "driver.h"
#include "io.h"
#include "jobserver.h"
#include "proc.h"
#include "util.h"

#ifndef NV_VERSION
#define NV_VERSION "0.1"
#endif

/* Every input is one nvcc-lite can compile and can read, before any is. */
static void
check_inputs(void)
{
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		const char *in = nv_drv.inputs.v[i], *ext = nv_drv.lang_cu ? "cu" : nv_drv_ext(in);

		if (strcmp(ext, "cu") && strcmp(ext, "bc") && strcmp(ext, "ll"))
			nv_usage_error("don't know what to do with '%s': expected a .cu, .bc or .ll file (or -x cu)",
			               in);
	}
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		struct stat st;

		if (access(nv_drv.inputs.v[i], R_OK) || stat(nv_drv.inputs.v[i], &st))
			nv_fatal("cannot read '%s':", nv_drv.inputs.v[i]);
		if (S_ISDIR(st.st_mode))
			nv_fatal("cannot read '%s': %s", nv_drv.inputs.v[i], strerror(EISDIR));
	}
}

/* The output of input: -o, else its stem with the kind's extension. */
static char *
out_path(const char *input)
{
	static const char *const ext[] = { [NV_OUT_PTX] = "ptx", [NV_OUT_CUBIN] = "cubin", [NV_OUT_LLVM] = "bc" };

	return nv_drv.output ? xstrdup(nv_drv.output) : xasprintf("%s.%s", nv_drv_stem(input), ext[nv_drv.out]);
}

/* Every output can be written (its directory exists, it is not read-only),
 * the dependency file's too, before anything is compiled. */
static void
check_outputs(void)
{
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		char *out = out_path(nv_drv.inputs.v[i]);
		const char *dep_file = nv_drv.dep_file, *dep_target = nv_drv.dep_target;
		int bad = nv_io_check_output(out);

		if (!bad && nv_drv.deps) {
			nv_drv_dep_defaults(out);
			bad = nv_io_check_output(nv_drv.dep_file);
		}
		nv_drv.dep_file = dep_file;
		nv_drv.dep_target = dep_target;
		if (bad)
			nv_exit(NV_EXIT_ERROR);
	}
}

int
main(int argc, char **argv)
{
	const char *dir;
	int rc = 0;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	nv_diag_init(argv[0]);
	nv_drv_parse(argc, argv);
	if (nv_drv.help || nv_drv.version || nv_drv.list_knobs) {
		if (nv_drv.help)
			nv_drv_help();
		else if (nv_drv.version)
			printf("nvcc-lite %s (LLVM 22 NVPTX)\n", NV_VERSION);
		else
			nv_drv_list_knobs();
		return nv_drv_flush_stdout() ? NV_EXIT_ERROR : NV_EXIT_OK;
	}
	nv_drv_finish();
	dir = nv_drv_self_dir();
	if (nv_drv.print_pipeline) {
		nv_drv_print_pipeline(dir);
		return nv_drv_flush_stdout() ? NV_EXIT_ERROR : NV_EXIT_OK;
	}
	if (!nv_drv.inputs.n)
		nv_usage_error("no input file (see 'nvcc-lite --help')");
	if (nv_drv.inputs.n > 1 && nv_drv.output)
		nv_usage_error("a single input file is required when an output file is given (-o '%s')",
		               nv_drv.output);
	check_inputs();
	if (!nv_drv.dryrun)
		check_outputs();
	/* make's fds are checked before this process opens any file (rule 4) */
	if (!nv_drv.dryrun && nv_js_init(&nv_drv_js, getenv("MAKEFLAGS"), nv_drv.jobserver))
		nv_exit(NV_EXIT_ERROR);
	if (!nv_drv.dryrun && nv_drv.time_file)
		nv_drv_time_open();
	if (!nv_drv.dryrun && nv_drv.save_remarks && mkdir(nv_drv.save_remarks, 0777) && errno != EEXIST)
		nv_fatal("cannot create '%s':", nv_drv.save_remarks);
	if (!nv_drv.dryrun && nv_drv.keep_dir && mkdir(nv_drv.keep_dir, 0777) && errno != EEXIST)
		nv_fatal("cannot create '%s':", nv_drv.keep_dir);
	nv_proc_on_signal(nv_drv_on_signal);
	/* a stage whose pipe brings nothing leaves the error to the one that failed */
	setenv("NVCC_LITE_CHAIN", "1", 1);
	for (size_t i = 0; i < nv_drv.inputs.n && !rc; i++)
		rc = nv_drv_compile(nv_drv.inputs.v[i], out_path(nv_drv.inputs.v[i]), dir);
	nv_js_release_all();
	nv_drv_time_close(&t0, rc);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
