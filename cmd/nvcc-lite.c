/*
 * nvcc-lite: the driver.  Takes nvcc's flags, runs the CUDA front end
 * (clang-22, device only) and the stages of an nvopt<...> pipeline as
 * processes joined by pipes, and writes PTX (or a cubin, or bitcode).
 * The parts are in lib/driver/ (its README.md): here, their order.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "base/diag.h"
#include "base/io.h"
#include "base/jobserver.h"
#include "base/proc.h"
#include "driver/chain.h"
#include "driver/device.h"
#include "driver/flags.h"
#include "driver/job.h"
#include "driver/plan.h"
#include "driver/run.h"

#ifndef NV_VERSION
#define NV_VERSION "0.1"
#endif

int
main(int argc, char **argv)
{
	struct nv_plan plan = { 0 };
	struct timespec t0;
	sigset_t sigs, saved;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	nv_diag_init(argv[0]);
	nv_diag_usage_status(NV_EXIT_ERROR); /* nvcc's status for a bad option */
	nv_drv_parse(argc, argv);
	if (nv_drv.help || nv_drv.version || nv_drv.list_knobs || nv_drv.list_codes) {
		if (nv_drv.help)
			nv_drv_help();
		else if (nv_drv.list_codes)
			nv_drv_list_codes();
		else if (nv_drv.version)
			nv_drv_print_version(NV_VERSION);
		else
			nv_drv_list_knobs();
		return nv_drv_flush_stdout() ? NV_EXIT_ERROR : NV_EXIT_OK;
	}
	nv_drv_finish();
	if (nv_drv.print_pipeline) {
		nv_drv_print_pipeline();
		return nv_drv_flush_stdout() ? NV_EXIT_ERROR : NV_EXIT_OK;
	}
	if (nv_drv_host_query())
		nv_exit(nv_drv_run_host_query());
	if (!nv_drv.inputs.n)
		nv_usage_error("no input file (see 'nvcc-lite --help')");
	nv_drv_read_stdin();
	/* the plan makes the run's directory: a signal waits until the
	 * handler knows it, so that none is left behind */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	sigprocmask(SIG_BLOCK, &sigs, &saved);
	nv_drv_stdin_copy(&plan);
	nv_drv_check_inputs();
	nv_drv_plan(&plan);
	nv_proc_on_signal(nv_drv_on_signal);
	if (plan.made_tmp)
		nv_drv_sig_dir(plan.tmp);
	sigprocmask(SIG_SETMASK, &saved, NULL);
	nv_drv_check_clobber(&plan);
	if (nv_drv.clean)
		nv_exit(nv_drv_clean(&plan) ? NV_EXIT_ERROR : NV_EXIT_OK);
	if (nv_drv.dryrun)
		nv_exit(nv_drv_dryrun(&plan) ? NV_EXIT_ERROR : NV_EXIT_OK);
	nv_drv_check_outputs(&plan);
	/* make's fds are checked before this process opens any file (rule 4) */
	if (nv_js_init(&nv_drv_js, getenv("MAKEFLAGS"), nv_drv.jobserver))
		nv_exit(NV_EXIT_ERROR);
	if (nv_drv.time_file && nv_drv_time_open()) {
		if (plan.made_tmp)
			nv_io_rm_tree(plan.tmp);
		nv_exit(NV_EXIT_ERROR);
	}
	if (nv_drv.save_remarks && mkdir(nv_drv.save_remarks, 0777) && errno != EEXIST)
		nv_fatal("cannot create '%s':", nv_drv.save_remarks);
	if (nv_drv.keep_dir && mkdir(nv_drv.keep_dir, 0777) && errno != EEXIST)
		nv_fatal("cannot create '%s':", nv_drv.keep_dir);
	/* a stage whose pipe brings nothing leaves the error to the one that failed */
	setenv("NVCC_LITE_CHAIN", "1", 1);
	rc = nv_drv_run(&plan);
	nv_js_release_all();
	nv_drv_time_close(&t0, rc);
	nv_exit(rc ? nv_drv_exit_status() : NV_EXIT_OK);
}
