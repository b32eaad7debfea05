/*
 * drv-plan: the plan, the build as data before anything runs (clang's
 * driver in small).  nv_drv_plan turns the command line into jobs; running
 * them and printing them as a script walk the same list.  Every job shares
 * the run's directory for intermediates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "driver.h"
#include "io.h"
#include "pipeline.h"
#include "proc.h"
#include "util.h"

void
nv_plan_add(struct nv_plan *p, const struct nv_job *j)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->jobs = xrealloc(p->jobs, p->cap * sizeof(*p->jobs));
	}
	p->jobs[p->n++] = *j;
}

const char *
nv_plan_tmp_dir(struct nv_plan *p)
{
	const char *t = getenv("TMPDIR");

	if (p->tmp)
		return p->tmp;
	p->tmp = xasprintf("%s/nvcc-lite.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(p->tmp))
		nv_fatal("cannot create a temporary directory in %s:", t && *t ? t : "/tmp");
	p->made_tmp = 1;
	nv_drv_sig_dir(p->tmp);
	return p->tmp;
}

char *
nv_plan_tmp(struct nv_plan *p, const char *name)
{
	return xasprintf("%s/%s", nv_plan_tmp_dir(p), name);
}

void
nv_drv_check_inputs(void)
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
out_path(const char *input, enum nv_out kind)
{
	static const char *const ext[] = { [NV_OUT_PTX] = "ptx", [NV_OUT_CUBIN] = "cubin", [NV_OUT_LLVM] = "bc" };

	return nv_drv.output ? xstrdup(nv_drv.output) : xasprintf("%s.%s", nv_drv_stem(input), ext[kind]);
}

void
nv_drv_plan(struct nv_plan *p)
{
	p->dir = nv_drv_self_dir();
	if (nv_drv.keep)
		p->tmp = xstrdup(nv_drv.keep_dir ? nv_drv.keep_dir : ".");
	else if (nv_drv.dryrun)
		p->tmp = xstrdup(NV_DRV_TMP_MARK);
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		struct nv_job j = { .act = NV_ACT_DEVICE, .label = nv_pipe_name(nv_drv_pipe()),
		                    .input = nv_drv.inputs.v[i], .arch = nv_drv.arch, .kind = nv_drv.out };

		j.output = out_path(j.input, j.kind);
		nv_plan_add(p, &j);
	}
}

/* Every output can be written (its directory exists, it is not read-only),
 * the dependency file's too, before anything is compiled. */
void
nv_drv_check_outputs(const struct nv_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *out = p->jobs[i].output;
		const char *dep_file = nv_drv.dep_file, *dep_target = nv_drv.dep_target;
		int bad;

		if (p->jobs[i].temporary)
			continue;
		bad = nv_io_check_output(out);
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
nv_drv_run(struct nv_plan *p)
{
	struct nv_strv temps = { 0 };
	int rc = 0;

	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct nv_job *j = &p->jobs[i];

		if (j->temporary) {
			nv_strv_push(&temps, j->output);
			nv_drv_sig_temps(&temps);
		}
		rc = j->act == NV_ACT_DEVICE ? nv_drv_device_run(p, j) : nv_drv_run_tool(j);
		if (rc)
			nv_drv_remove_output(j->output);
	}
	for (size_t i = 0; !nv_drv.keep && i < temps.n; i++)
		unlink(temps.v[i]);
	nv_drv_sig_temps(NULL);
	nv_strv_free(&temps);
	if (p->made_tmp)
		rmdir(p->tmp);
	nv_drv_sig_dir(NULL);
	return rc;
}

/* The script's preamble once, then each job: a DEVICE job's chains, a TOOL
 * job's command. */
int
nv_drv_dryrun(struct nv_plan *p)
{
	int tmp = 0;

	printf("#!/bin/sh\n# nvcc-lite %s:", nv_pipe_name(nv_drv_pipe()));
	for (size_t i = 0; i < nv_drv.inputs.n; i++)
		printf(" %s", nv_drv.inputs.v[i]);
	printf("\nset -e\nexport NVCC_LITE_CHAIN=1\n");
	if (nv_drv.save_remarks)
		printf("mkdir -p %s\n", nv_shell_quote(nv_drv.save_remarks));
	for (size_t i = 0; i < p->n; i++) {
		const struct nv_job *j = &p->jobs[i];

		tmp |= j->temporary || (j->act == NV_ACT_DEVICE && nv_drv_device_uses_tmp(j));
	}
	if (tmp && nv_drv.keep)
		printf("tmp=%s\n", nv_shell_quote(p->tmp));
	else if (tmp)
		printf("tmp=$(mktemp -d)\ntrap 'rm -rf \"$tmp\"' EXIT\n");
	for (size_t i = 0; i < p->n; i++) {
		if (p->jobs[i].act == NV_ACT_DEVICE) {
			nv_drv_device_dryrun(p, &p->jobs[i]);
		} else {
			nv_drv_print_cmd(stdout, p->jobs[i].argv);
			putchar('\n');
		}
	}
	return nv_drv_flush_stdout();
}
