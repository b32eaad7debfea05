/*
 * host: the jobs that make a source into a host object, as nvcc's do.
 * A .cu file: our device pipeline once per virtual architecture (PTX),
 * ptxas once per GPU (a cubin), CUDA's fatbinary to bundle them, and
 * clang-22 in CUDA host mode to compile the host side with the fatbin
 * embedded and its kernels registered.  A host-only source (.cpp, .c): the
 * host compiler, given what nvcc gives it.  CUDA's tools are found when the
 * plan is made: a build that needs a missing one fails before anything
 * runs, in one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "cuda.h"
#include "flags.h"
#include "frontend.h"
#include "gencode.h"
#include "host.h"
#include "job.h"
#include "macros.h"

/* A temporary file of the build: NAME in the run's directory for them. */
static char *
tmp_file(struct nv_plan *p, const char *stem, const char *what)
{
	char *name = xasprintf("%s.%s", stem, what), *path;

	path = nv_plan_tmp(p, name);
	free(name);
	return path;
}

static void
add_tool(struct nv_plan *p, const char *label, struct nv_strv *av, const char *src, const char *arch,
         char *output, int temporary)
{
	struct nv_job j = { .act = NV_ACT_TOOL, .label = label, .argv = av->v, .input = src,
		            .arch = arch, .output = output, .temporary = temporary, .says_why = 1 };

	nv_plan_add(p, &j);
}

/* ptxas: PTX to a cubin for one GPU, with nvcc's options for it. */
static void
plan_ptxas(struct nv_plan *p, const char *src, const char *ptx, const char *gpu, char *cubin, int temporary)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));

	nv_strv_push(av, nv_cuda_tool(&nv_drv_cuda, "ptxas", "a cubin"));
	nv_strv_pushf(av, "-arch=%s", gpu);
	nv_strv_push(av, "-m64");
	if (nv_drv.device_debug)
		nv_strv_push(av, "-g");
	else if (nv_drv.lineinfo)
		nv_strv_push(av, "-lineinfo");
	nv_strv_pushf(av, "-O%d", nv_drv.device_debug ? 0 : nv_drv.olevel);
	if (nv_drv.rdc)
		nv_strv_push(av, "--compile-only");
	for (size_t i = 0; i < nv_drv.xptxas.n; i++)
		nv_strv_push(av, nv_drv.xptxas.v[i]);
	nv_strv_push(av, ptx);
	nv_strv_push(av, "-o");
	nv_strv_push(av, cubin);
	add_tool(p, "ptxas", av, src, gpu, cubin, temporary);
	p->jobs[p->n - 1].check = NV_CHECK_ELF;
	p->jobs[p->n - 1].usage = nv_drv.res_usage;
}

/* -cubin: the device pipeline's PTX, then ptxas, as nvcc runs cicc and
 * then ptxas: ptxas's options and exit status, --compile-only under -rdc,
 * the cubin checked whole. */
void
nv_drv_plan_cubin(struct nv_plan *p, const char *src, char *out)
{
	char *stem = nv_drv_stem(src);
	struct nv_job j = { .act = NV_ACT_DEVICE, .label = nv_pipe_name(nv_drv_pipe()), .input = src,
		            .arch = nv_drv.arch, .kind = NV_OUT_PTX, .temporary = 1, .deps_for = out };

	j.output = tmp_file(p, stem, "ptx");
	nv_plan_add(p, &j);
	plan_ptxas(p, src, j.output, nv_drv.arch, nv_plan_out(p, out), 0);
	free(stem);
}

/* -ptx with -Xptxas options: nvcc then runs ptxas for the virtual
 * architecture on the PTX, which checks it and the options (and writes
 * nothing); a bad option fails the build with ptxas's status. */
void
nv_drv_plan_ptx_check(struct nv_plan *p, const char *src, const char *ptx)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));

	if (!nv_drv.xptxas.n || !strcmp(ptx, "-"))
		return;
	nv_strv_push(av, nv_cuda_tool(&nv_drv_cuda, "ptxas", "a check of the PTX (-Xptxas)"));
	nv_strv_pushf(av, "-arch=%s", nv_drv.targets.v[0].virt);
	nv_strv_push(av, "-m64");
	for (size_t i = 0; i < nv_drv.xptxas.n; i++)
		nv_strv_push(av, nv_drv.xptxas.v[i]);
	nv_strv_push(av, ptx);
	add_tool(p, "ptxas", av, src, nv_drv.targets.v[0].virt, NULL, 0);
}

/* "sm_90a" -> "90a", fatbinary's spelling of a GPU or virtual arch. */
static const char *
sm_of(const char *name)
{
	return strchr(name, '_') + 1;
}

/* The device side of src: PTX for each target, a cubin for each GPU, the
 * fatbin of them in out.  deps_for: the output whose -MD file the first
 * device compile writes. */
static void
plan_fatbin(struct nv_plan *p, const char *src, char *out, int temporary, const char *deps_for)
{
	const struct nv_gencodes *t = &nv_drv.targets;
	char *stem = nv_drv_stem(src), **ptx = xcalloc(t->n, sizeof(*ptx));
	struct nv_strv *av = xcalloc(1, sizeof(*av)), cubins = { 0 };

	for (size_t i = 0; i < t->n; i++) {
		struct nv_job j = { .act = NV_ACT_DEVICE, .label = nv_pipe_name(nv_drv_pipe()),
			            .input = src, .arch = t->v[i].gpu, .kind = NV_OUT_PTX,
			            .temporary = 1, .quiet = i > 0 };
		char *name = xasprintf("%s.ptx", t->v[i].virt);

		ptx[i] = tmp_file(p, stem, name);
		free(name);
		j.output = ptx[i];
		if (t->n > 1)
			j.base = xasprintf("%s.%s", stem, t->v[i].virt);
		if (i == 0)
			j.deps_for = deps_for;
		nv_plan_add(p, &j);
		for (size_t r = 0; r < t->v[i].nreal; r++) {
			char *cname = xasprintf("%s.cubin", t->v[i].real[r]), *cubin = tmp_file(p, stem, cname);

			free(cname);
			nv_strv_push(&cubins, cubin);
			plan_ptxas(p, src, ptx[i], t->v[i].real[r], cubin, 1);
		}
	}
	nv_strv_push(av, nv_cuda_tool(&nv_drv_cuda, "fatbinary", "a fatbin"));
	nv_strv_push(av, "-64");
	nv_strv_push(av, "--create");
	if (!temporary)
		out = nv_plan_out(p, out);
	nv_strv_push(av, out);
	for (size_t i = 0, k = 0; i < t->n; i++) {
		for (size_t r = 0; r < t->v[i].nreal; r++)
			nv_strv_pushf(av, "--image3=kind=elf,sm=%s,file=%s", sm_of(t->v[i].real[r]), cubins.v[k++]);
		if (t->v[i].ptx)
			nv_strv_pushf(av, "--image3=kind=ptx,sm=%s,file=%s", sm_of(t->v[i].virt), ptx[i]);
	}
	if (nv_drv.rdc)
		nv_strv_push(av, "--device-c");
	if (nv_drv.compress)
		nv_strv_push(av, nv_drv.compress);
	for (size_t i = 0; i < nv_drv.xfatbin.n; i++)
		nv_strv_push(av, nv_drv.xfatbin.v[i]);
	add_tool(p, "fatbinary", av, src, nv_drv.arch, out, temporary);
	p->jobs[p->n - 1].check = NV_CHECK_FATBIN;
	free(cubins.v); /* the paths are the ptxas jobs' outputs */
	free(stem);
	free(ptx);
}

void
nv_drv_plan_fatbin(struct nv_plan *p, const char *src, char *out)
{
	plan_fatbin(p, src, out, 0, out);
}

/* The host side: clang's CUDA host mode to a module, nv-link -cudafe=host
 * for nvcc's kernel names (the device side's, and the stubs' host names),
 * then clang's code generation. */
void
nv_drv_plan_object(struct nv_plan *p, const char *src, char *obj, int temporary)
{
	char *stem = nv_drv_stem(src), *fatbin = tmp_file(p, stem, "fatbin");
	char *bc = tmp_file(p, stem, "host.bc"), *named = tmp_file(p, stem, "host-nvcc.bc");
	struct nv_strv *av = xcalloc(1, sizeof(*av)), *link = xcalloc(1, sizeof(*link)), code = { 0 };
	char *nv_link = nv_spawn_find("nv-link", p->dir);

	if (!nv_link)
		nv_fatal("cannot find nv-link beside nvcc-lite in %s", p->dir);
	plan_fatbin(p, src, fatbin, 1, temporary ? NULL : obj);
	for (char **a = nv_drv_host_compile(p->dir, nv_drv.arch, src, fatbin, bc); *a; a++)
		nv_strv_push(av, *a);
	add_tool(p, "host", av, src, nv_drv.arch, bc, 1);
	p->jobs[p->n - 1].act = NV_ACT_HOST;
	/* the header cache's host entry: its flags go before -c, as the device side has them */
	p->jobs[p->n - 1].cache = nv_drv_fe_cache(p->dir, nv_drv.arch, 1, 0);
	while (av->v[p->jobs[p->n - 1].cache_at] && strcmp(av->v[p->jobs[p->n - 1].cache_at], "-c"))
		p->jobs[p->n - 1].cache_at++;
	nv_strv_push(link, nv_link);
	nv_strv_push(link, "-cudafe=host");
	if (!nv_drv.rdc && !nv_drv.template_stub_weak)
		nv_strv_push(link, "-static-template-stubs");
	nv_strv_push(link, bc);
	nv_strv_push(link, "-o");
	nv_strv_push(link, named);
	add_tool(p, "nv-link", link, src, NULL, named, 1);
	if (!temporary)
		obj = nv_plan_out(p, obj);
	code.v = nv_drv_host_codegen(named, obj);
	add_tool(p, "host", &code, src, NULL, obj, temporary);
	free(nv_link);
	free(stem);
}

/* What a host-only job writes: its step's flag, and whether its output is
 * a file of the build. */
static const struct {
	const char *flag, *label;
	int temporary;
} host_whats[] = {
	[NV_HOST_OBJ] = { "-c", "host", 0 },
	[NV_HOST_TMP_OBJ] = { "-c", "host", 1 },
	[NV_HOST_PREPROC] = { "-E", "preprocess", 0 },
	[NV_HOST_DEPS] = { "-M", "dependencies", 0 },
};

void
nv_drv_plan_host_only(struct nv_plan *p, const char *src, char *obj, enum nv_host_what what,
                      const char *target)
{
	int c = nv_drv.lang ? !strcmp(nv_drv.lang, "c") : !strcmp(nv_drv_ext(src), "c");
	int temporary = host_whats[what].temporary;
	struct nv_strv *av = xcalloc(1, sizeof(*av));

	nv_strv_push(av, nv_drv_host_cc(c));
	nv_strv_push(av, what == NV_HOST_DEPS && nv_drv.deps_nonsys ? "-MM" : host_whats[what].flag);
	if (nv_drv.lang) {
		/* -x c++ test.cu: the host compiler is told too */
		nv_strv_push(av, "-x");
		nv_strv_push(av, nv_drv.lang);
	}
	if (!c && nv_drv.std)
		nv_strv_pushf(av, "-std=%s", nv_drv.std);
	/* what nvcc gives a host source: its macros, CUDA's headers */
	nv_drv_macros(av, NV_PASS_HOST_ONLY);
	if (nv_drv_have_cuda) {
		if (!nv_drv_cuda.incs.n)
			nv_cuda_read_profile(&nv_drv_cuda);
		for (size_t i = 0; i < nv_drv_cuda.incs.n; i++)
			nv_strv_push(av, nv_drv_cuda.incs.v[i]);
	}
	for (size_t i = 0; i < nv_drv.cpp.n; i++)
		nv_strv_push(av, nv_drv.cpp.v[i]);
	nv_drv_host_flags(av);
	if (target) {
		nv_strv_push(av, "-MT");
		nv_strv_push(av, target);
	}
	if (nv_drv.deps && what == NV_HOST_OBJ) {
		/* the compiler's defaults name the file and target after -o: the
		 * user's object, not the file written for it */
		struct nv_deps d;

		nv_drv_deps(obj, &d);
		nv_strv_push(av, nv_drv.deps == 1 ? "-MD" : "-MMD");
		nv_strv_push(av, "-MF");
		nv_strv_push(av, nv_plan_out(p, (char *)d.file));
		nv_strv_push(av, d.quote ? "-MQ" : "-MT");
		nv_strv_push(av, d.target);
		if (nv_drv.dep_phony)
			nv_strv_push(av, "-MP");
	}
	if (what == NV_HOST_OBJ)
		obj = nv_plan_out(p, obj);
	nv_strv_push(av, src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, obj);
	add_tool(p, host_whats[what].label, av, src, NULL, obj, temporary);
}
