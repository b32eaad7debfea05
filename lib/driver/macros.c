/*
 * macros: nvcc's predefined macros.  nvcc's driver defines them with
 * -D on its preprocessors' command lines (nvcc -dryrun shows them): the
 * device pass, the host pass of a .cu file, and a host-only source the host
 * compiler compiles.  One row a macro: the passes nvcc-lite defines it in,
 * its value, and the flag it follows.  A macro clang keeps as its own is
 * left out of clang's passes, and the man page (nvcc-lite(1), PREDEFINED
 * MACROS) says why; t/9008-identity.bats holds both to nvcc's -dryrun.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../stages/target.h"
#include "cuda.h"
#include "flags.h"
#include "gencode.h"
#include "macros.h"

enum val {
	V_ONE,        /* -DNAME: 1 */
	V_NVCC_MAJOR, /* nvcc's release: 13 */
	V_NVCC_MINOR, /* 0 */
	V_NVCC_BUILD, /* 88 */
	V_API_MAJOR,  /* the runtime API's, cuda.h's CUDA_VERSION: 13 */
	V_API_MINOR,  /* 0 */
	V_ARCH_LIST,  /* every target's virtual architecture: 800,900 */
};

static int yes(void) { return 1; }
static int rdc(void) { return nv_drv.rdc; }
static int debug(void) { return nv_drv.device_debug; }
static int ext_lambda(void) { return nv_drv.extended_lambda; }
static int relaxed(void) { return nv_drv.relaxed_constexpr; }
static int per_thread(void) { return nv_drv.per_thread_stream; }
static int no_check(void) { return nv_drv.no_host_check; }

/* the __nv_atomic_* builtins came with nvcc 12.8 (share/nvcc-lite/nvcc_compat.h has them) */
static int
atomic_builtins(void)
{
	const int *v = nv_drv_cuda.nvcc;

	return nv_drv_have_cuda && (v[0] > 12 || (v[0] == 12 && v[1] >= 8));
}

/* Many GPUs: clang's own __CUDA_ARCH_LIST__ names only the one it compiles for. */
static int
several(void)
{
	return nv_drv.targets.n > 1;
}

/*
 * CMake names a CUDA compiler from its identification source's host pass:
 * __NVCC__ there means nvcc, and then CMake gives it nvcc's command lines,
 * which nvcc-lite takes.  That one source, and no other, sees it.
 */
static int
cmake_probe(void)
{
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		const char *slash = strrchr(nv_drv.inputs.v[i], '/');

		if (!strcmp(slash ? slash + 1 : nv_drv.inputs.v[i], "CMakeCUDACompilerId.cu"))
			return 1;
	}
	return 0;
}

#define DEV NV_PASS_DEVICE
#define HOST NV_PASS_HOST
#define CXX NV_PASS_HOST_ONLY
#define ALL (DEV | HOST | CXX)

static const struct {
	const char *name;
	enum val val;
	unsigned passes; /* where nvcc-lite defines it */
	int (*when)(void);
	int clang;       /* clang defines it itself: -U before the -D */
} macros[] = {
	{ "__CUDA_ARCH_LIST__", V_ARCH_LIST, CXX, yes, 0 },
	{ "__CUDA_ARCH_LIST__", V_ARCH_LIST, DEV | HOST, several, 1 },
	{ "CUDA_DOUBLE_MATH_FUNCTIONS", V_ONE, DEV, yes, 0 },
	/* clang's passes: never (CCCL and <nv/target> would take clang for
	 * nvcc), but for CMake's compiler identification */
	{ "__NVCC__", V_ONE, CXX, yes, 0 },
	{ "__NVCC__", V_ONE, HOST, cmake_probe, 0 },
	{ "__CUDACC_VER_MAJOR__", V_NVCC_MAJOR, ALL, yes, 0 },
	{ "__CUDACC_VER_MINOR__", V_NVCC_MINOR, ALL, yes, 0 },
	{ "__CUDACC_VER_BUILD__", V_NVCC_BUILD, ALL, yes, 0 },
	{ "__CUDA_API_VER_MAJOR__", V_API_MAJOR, ALL, yes, 0 },
	{ "__CUDA_API_VER_MINOR__", V_API_MINOR, ALL, yes, 0 },
	{ "__NVCC_DIAG_PRAGMA_SUPPORT__", V_ONE, ALL, yes, 0 },
	{ "__CUDACC_DEVICE_ATOMIC_BUILTINS__", V_ONE, ALL, atomic_builtins, 0 },
	{ "__CUDACC_RDC__", V_ONE, DEV | HOST, rdc, 0 },
	{ "__CUDACC_DEBUG__", V_ONE, DEV | HOST, debug, 0 },
	{ "__CUDACC_EXTENDED_LAMBDA__", V_ONE, DEV | HOST, ext_lambda, 0 },
	{ "__CUDACC_RELAXED_CONSTEXPR__", V_ONE, DEV | HOST, relaxed, 0 },
	{ "CUDA_API_PER_THREAD_DEFAULT_STREAM", V_ONE, ALL, per_thread, 0 },
	{ "__NV_NO_HOST_COMPILER_CHECK", V_ONE, DEV | HOST, no_check, 0 },
};

static int
by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* "800,900": the targets' virtual architectures, sorted, each once. */
static char *
arch_list(void)
{
	const struct nv_gencodes *t = &nv_drv.targets;
	int *sm = xcalloc(t->n ? t->n : 1, sizeof(*sm));
	size_t n = 0, len = 0;
	char *s = xcalloc(1, t->n * 8 + 1);

	for (size_t i = 0; i < t->n; i++) {
		const struct nv_arch *a = nv_target_arch(t->v[i].virt);

		if (a)
			sm[n++] = a->sm * 10;
	}
	qsort(sm, n, sizeof(*sm), by_number);
	for (size_t i = 0; i < n; i++)
		if (!i || sm[i] != sm[i - 1])
			len += (size_t)sprintf(s + len, "%s%d", len ? "," : "", sm[i]);
	free(sm);
	return s;
}

static char *
value(enum val v)
{
	switch (v) {
	case V_NVCC_MAJOR: return xasprintf("%d", nv_drv_cuda.nvcc[0]);
	case V_NVCC_MINOR: return xasprintf("%d", nv_drv_cuda.nvcc[1]);
	case V_NVCC_BUILD: return xasprintf("%d", nv_drv_cuda.nvcc[2]);
	case V_API_MAJOR: return xasprintf("%d", nv_drv_cuda.major);
	case V_API_MINOR: return xasprintf("%d", nv_drv_cuda.minor);
	case V_ARCH_LIST: return arch_list();
	case V_ONE: break;
	}
	return xstrdup("1");
}

void
nv_drv_macros(struct nv_strv *av, enum nv_drv_pass pass)
{
	if (nv_drv_have_cuda)
		nv_cuda_nvcc_version(&nv_drv_cuda);
	for (size_t i = 0; i < sizeof(macros) / sizeof(*macros); i++) {
		enum val k = macros[i].val;
		char *v;

		if (!(macros[i].passes & pass) || !macros[i].when())
			continue;
		/* without CUDA there is no release to give (the shim stands in) */
		if (!nv_drv_have_cuda && k >= V_NVCC_MAJOR && k <= V_API_MINOR)
			continue;
		if (macros[i].clang)
			nv_strv_pushf(av, "-U%s", macros[i].name);
		v = value(k);
		nv_strv_pushf(av, "-D%s=%s", macros[i].name, v);
		free(v);
	}
}
