/*
 * link: the jobs after the objects, as nvcc's.  The device link: nvlink
 * on every object for each GPU of the targets (relocatable device code is
 * resolved there, libcudadevrt with it), fatbinary -link, and CUDA's
 * link.stub compiled by the host compiler into one more host object that
 * registers the linked code.  Then the host link: the host compiler as
 * linker, with the CUDA runtime -cudart asks for.  Or a static library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "cuda.h"
#include "flags.h"
#include "frontend.h"
#include "gencode.h"
#include "job.h"
#include "link.h"

#ifndef NV_LLVM_BINDIR
#define NV_LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif

static void
push_all(struct nv_strv *av, const struct nv_strv *from)
{
	for (size_t i = 0; i < from->n; i++)
		nv_strv_push(av, from->v[i]);
}

static void
add_tool(struct nv_plan *p, const char *label, struct nv_strv *av, char *output, int temporary)
{
	struct nv_job j = { .act = NV_ACT_TOOL, .label = label, .argv = av->v, .output = output,
		            .temporary = temporary, .arch = nv_drv.arch, .says_why = 1 };

	nv_plan_add(p, &j);
}

/* The device link of objs into the host object out: what nvcc runs before
 * every link (and for -dlink). */
void
nv_drv_plan_dlink(struct nv_plan *p, const struct nv_strv *objs, char *out, int temporary)
{
	const struct nv_gencodes *t = &nv_drv.targets;
	/* its files are named after out: app_dlink.o gives app_dlink.reg.c, ... */
	char *base = nv_drv_stem(out), *reg, *fatbin_c, *libdir = nv_cuda_lib_dir(&nv_drv_cuda);
	struct nv_strv *fb = xcalloc(1, sizeof(*fb)), *cc = xcalloc(1, sizeof(*cc));
	char *nvlink = nv_cuda_tool(&nv_drv_cuda, "nvlink", "a device link");

	reg = nv_plan_tmp(p, xasprintf("%s.reg.c", base));
	fatbin_c = nv_plan_tmp(p, xasprintf("%s.fatbin.c", base));
	nv_strv_push(fb, nv_cuda_tool(&nv_drv_cuda, "fatbinary", "a device link"));
	nv_strv_push(fb, "-64");
	nv_strv_push(fb, "-link");
	for (size_t i = 0; i < t->n; i++)
		for (size_t r = 0; r < t->v[i].nreal; r++) {
			struct nv_strv *av = xcalloc(1, sizeof(*av));
			char *cubin = nv_plan_tmp(p, xasprintf("%s.%s.cubin", base, t->v[i].real[r]));

			nv_strv_push(av, nvlink);
			nv_strv_push(av, "-m64");
			nv_strv_pushf(av, "--arch=%s", t->v[i].real[r]);
			nv_strv_pushf(av, "--register-link-binaries=%s", reg);
			push_all(av, &nv_drv.libs);
			nv_strv_pushf(av, "-L%s", libdir);
			nv_strv_push(av, "-cpu-arch=X86_64");
			push_all(av, &nv_drv.xnvlink);
			push_all(av, objs);
			if (!nv_drv.no_cudadevrt)
				nv_strv_push(av, "-lcudadevrt");
			nv_strv_push(av, "-o");
			nv_strv_push(av, cubin);
			add_tool(p, "nvlink", av, cubin, 1);
			p->jobs[p->n - 1].check = NV_CHECK_ELF;
			nv_strv_pushf(fb, "--image3=kind=elf,sm=%s,file=%s", strchr(t->v[i].real[r], '_') + 1, cubin);
		}
	nv_strv_pushf(fb, "--embedded-fatbin=%s", fatbin_c);
	add_tool(p, "fatbinary", fb, fatbin_c, 1);
	nv_strv_push(cc, nv_drv_host_cc(0));
	nv_strv_push(cc, "-c");
	nv_strv_push(cc, "-x");
	nv_strv_push(cc, "c++");
	nv_strv_pushf(cc, "-DFATBINFILE=\"%s\"", fatbin_c);
	nv_strv_pushf(cc, "-DREGISTERLINKBINARYFILE=\"%s\"", reg);
	nv_strv_push(cc, "-I."); /* the two files above, when -keep-dir names them relative to here */
	nv_strv_push(cc, "-D__NV_EXTRA_INITIALIZATION=");
	nv_strv_push(cc, "-D__NV_EXTRA_FINALIZATION=");
	nv_strv_push(cc, "-D__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__");
	if (!nv_drv_cuda.incs.n)
		nv_cuda_read_profile(&nv_drv_cuda);
	push_all(cc, &nv_drv_cuda.incs);
	push_all(cc, &nv_drv.host);
	nv_strv_push(cc, "-m64");
	nv_strv_pushf(cc, "%s/bin/crt/link.stub", nv_drv_cuda.root);
	if (!temporary)
		out = nv_plan_out(p, out);
	nv_strv_push(cc, "-o");
	nv_strv_push(cc, out);
	add_tool(p, "link stub", cc, out, temporary);
	nv_plan_temp(p, reg); /* nvlink's second output */
	free(base);
	free(libdir);
}

/* -Xcompiler -fopenmp: clang compiles the host side of .cu files with it,
 * and clang's OpenMP calls LLVM's runtime, libomp (which also serves code
 * gcc compiled, through its GOMP_ entry points): the link names it. */
static void
push_openmp(struct nv_strv *av)
{
	char *dir = NULL, *so;
	int want = 0;

	for (size_t i = 0; i < nv_drv.host.n; i++)
		if (!strcmp(nv_drv.host.v[i], "-fopenmp") || !strcmp(nv_drv.host.v[i], "-fopenmp=libomp"))
			want = 1;
	if (!want)
		return;
	dir = xasprintf("%s/../lib", NV_LLVM_BINDIR);
	so = xasprintf("%s/libomp.so", dir);
	if (access(so, F_OK))
		nv_fatal("-fopenmp in host code clang compiles needs LLVM's OpenMP runtime, %s (install libomp-22-dev)", so);
	nv_strv_pushf(av, "-L%s", dir);
	nv_strv_pushf(av, "-Wl,-rpath,%s", dir);
	nv_strv_push(av, "-lomp");
	free(so);
	free(dir);
}

/* The host link of objs (and the device link's object) into out. */
void
nv_drv_plan_link(struct nv_plan *p, const struct nv_strv *objs, char *out)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *dlink = NULL, *libdir = NULL;
	int devlink = nv_drv.cudart != NV_CUDART_NONE && nv_gencode_nreal(&nv_drv.targets) > 0 && !nv_drv.no_dlink;

	if (devlink) {
		char *base = nv_drv_stem(out);

		dlink = nv_plan_tmp(p, xasprintf("%s_dlink.o", base));
		nv_drv_plan_dlink(p, objs, dlink, 1);
		free(base);
	}
	nv_strv_push(av, nv_drv_host_cc(0));
	if (nv_drv.shared)
		nv_strv_push(av, "-shared");
	if (nv_drv.profile)
		nv_strv_push(av, "-pg");
	nv_strv_push(av, "-m64");
	nv_strv_push(av, "-Wl,--start-group");
	if (dlink)
		nv_strv_push(av, dlink);
	push_all(av, objs);
	for (size_t i = 0; i < nv_drv.linker.n; i++) {
		nv_strv_push(av, "-Xlinker");
		nv_strv_push(av, nv_drv.linker.v[i]);
	}
	push_all(av, &nv_drv.libs);
	push_all(av, &nv_drv.link_extra);
	push_openmp(av);
	if (nv_drv.cudart != NV_CUDART_NONE) {
		libdir = nv_cuda_lib_dir(&nv_drv_cuda);
		nv_strv_pushf(av, "-L%s/stubs", libdir);
		nv_strv_pushf(av, "-L%s", libdir);
		if (devlink && !nv_drv.no_cudadevrt)
			nv_strv_push(av, "-lcudadevrt");
		if (nv_drv.cudart == NV_CUDART_STATIC) {
			nv_strv_push(av, "-lcudart_static");
			nv_strv_push(av, "-lrt");
			nv_strv_push(av, "-lpthread");
			nv_strv_push(av, "-ldl");
		} else {
			nv_strv_push(av, "-lcudart");
		}
	}
	nv_strv_push(av, "-Wl,--end-group");
	out = nv_plan_out(p, out);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	add_tool(p, "link", av, out, 0);
	free(libdir);
}

/* -lib: the objects into a static library, as nvcc's (ar). */
void
nv_drv_plan_lib(struct nv_plan *p, const struct nv_strv *objs, char *out)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *ar = nv_spawn_find(nv_drv.arbin ? nv_drv.arbin : "ar", NULL);

	if (!ar)
		nv_fatal("-lib needs %s, which is not on PATH", nv_drv.arbin ? nv_drv.arbin : "ar");
	nv_strv_push(av, ar);
	nv_strv_push(av, "-rcs");
	push_all(av, &nv_drv.xarchive);
	out = nv_plan_out(p, out);
	nv_strv_push(av, out);
	push_all(av, objs);
	add_tool(p, "ar", av, out, 0);
	p->jobs[p->n - 1].seed = 1; /* ar adds to a library that is there, as nvcc's does */
}
