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
#include "driver.h"
#include "gencode.h"
#include "pch.h"

char *
nv_drv_cuda_tool(const char *name, const char *why)
{
	char *path;

	if (!nv_drv_have_cuda)
		nv_fatal("%s needs CUDA's %s: no CUDA installation found (set CUDA_PATH)", why, name);
	path = xasprintf("%s/bin/%s", nv_drv_cuda.root, name);
	if (access(path, X_OK))
		nv_fatal("%s needs CUDA's %s, which is not in %s/bin", why, name, nv_drv_cuda.root);
	return path;
}

/* The host compiler for C++ (c 0) or C (c 1): -ccbin's (a directory: its
 * g++ or gcc; gcc or clang named: their C++ twin), else g++ or gcc. */
char *
nv_drv_host_cc(int c)
{
	static const char *const twins[][2] = { { "gcc", "g++" }, { "clang", "clang++" }, { "cc", "c++" } };
	const char *cc = nv_drv.ccbin, *base;
	struct stat st;
	char *path, *prog = NULL;

	if (cc && !stat(cc, &st) && S_ISDIR(st.st_mode)) {
		prog = xasprintf("%s/%s", cc, c ? "gcc" : "g++");
	} else if (cc) {
		base = strrchr(cc, '/') ? strrchr(cc, '/') + 1 : cc;
		for (size_t i = 0; !c && !prog && i < sizeof(twins) / sizeof(*twins); i++)
			if (!strncmp(base, twins[i][0], strlen(twins[i][0])) &&
			    (!base[strlen(twins[i][0])] || base[strlen(twins[i][0])] == '-'))
				prog = xasprintf("%.*s%s%s", (int)(base - cc), cc, twins[i][1],
				                 base + strlen(twins[i][0]));
		if (!prog)
			prog = xstrdup(cc);
	} else {
		prog = xstrdup(c ? "gcc" : "g++");
	}
	path = nv_spawn_find(prog, NULL);
	if (!path)
		nv_fatal("cannot find the host compiler '%s' (set -ccbin)", prog);
	free(prog);
	return path;
}

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

	nv_strv_push(av, nv_drv_cuda_tool("ptxas", "a cubin"));
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
			            .temporary = 1 };
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
	nv_strv_push(av, nv_drv_cuda_tool("fatbinary", "a fatbin"));
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
	nv_strv_push(link, nv_link);
	nv_strv_push(link, "-cudafe=host");
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

/* The host compile with the entry pch's flags before its input, as the
 * device side has them. */
static char **
with_pch(char **argv, const struct nv_pch *pch, struct nv_strv *av)
{
	for (char **a = argv; *a; a++) {
		if (!strcmp(*a, "-c"))
			nv_drv_use_pch(av, pch);
		nv_strv_push(av, *a);
	}
	return av->v;
}

/* As the device side's front end (device.c): through the header
 * cache's host entry as a try, again without it when the try failed or
 * printed what a compile without it would print otherwise. */
int
nv_drv_host_run(struct nv_plan *p, const struct nv_job *j)
{
	struct nv_pch pch = { 0 };
	struct nv_strv paths = { 0 }, av = { 0 };
	struct nv_job t = *j;
	char *stem = nv_drv_stem(j->input), *name = xasprintf("%s.host-pch.err", stem);
	char *err = nv_plan_tmp(p, name), *said = xasprintf("%s.said", err);
	const char *use = nv_drv_header_cache(j, p->dir, &pch, err, &paths, 1);
	struct stat st;
	int rc = -1, printed;

	if (use) {
		int tried;

		nv_strv_push(&paths, said);
		nv_drv_sig_paths(&paths);
		t.argv = with_pch(j->argv, &pch, &av);
		tried = nv_drv_try_tool(&t, said);
		printed = stat(said, &st) == 0 && st.st_size > 0;
		if (!tried && !printed)
			rc = 0;
		else if (!tried && !nv_pch_renames(&pch))
			rc = nv_drv_copy_to_stderr(said);
		unlink(said);
		if (rc) {
			/* again without the entry, the compile the user sees */
			rc = nv_drv_run_tool(j);
			if (tried && !rc)
				nv_pch_drop(&pch);
		}
	} else {
		rc = nv_drv_run_tool(j);
	}
	for (size_t i = 0; i < paths.n; i++)
		unlink(paths.v[i]);
	nv_drv_sig_paths(NULL);
	nv_pch_release(&pch);
	nv_strv_free(&av);
	nv_strv_free(&paths);
	free(said);
	free(err);
	free(name);
	free(stem);
	return rc;
}

void
nv_drv_plan_host_only(struct nv_plan *p, const char *src, char *obj, int temporary)
{
	const char *ext = nv_drv_ext(src);
	int c = !strcmp(ext, "c");
	struct nv_strv *av = xcalloc(1, sizeof(*av));

	nv_strv_push(av, nv_drv_host_cc(c));
	nv_strv_push(av, "-c");
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
	if (nv_drv.deps && !temporary) {
		/* the compiler's defaults name the file and target after -o: the
		 * user's object, not the file written for it */
		const char *dep_file = nv_drv.dep_file, *dep_target = nv_drv.dep_target;

		nv_drv_dep_defaults(obj);
		nv_strv_push(av, nv_drv.deps == 1 ? "-MD" : "-MMD");
		nv_strv_push(av, "-MF");
		nv_strv_push(av, nv_plan_out(p, (char *)nv_drv.dep_file));
		nv_strv_push(av, nv_drv.dep_quote ? "-MQ" : "-MT");
		nv_strv_push(av, nv_drv.dep_target);
		if (nv_drv.dep_phony)
			nv_strv_push(av, "-MP");
		nv_drv.dep_file = dep_file;
		nv_drv.dep_target = dep_target;
	}
	if (!temporary)
		obj = nv_plan_out(p, obj);
	nv_strv_push(av, src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, obj);
	add_tool(p, "host", av, src, NULL, obj, temporary);
}
