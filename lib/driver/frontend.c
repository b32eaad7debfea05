/*
 * frontend: the compilers' commands.  The CUDA front end (clang-22, device
 * only, with the CUDA installation's own include setup, or the shim without
 * one), clang-22's host side of a .cu file, the host compiler; and the
 * flags the header cache keys a compile's entries by (hcache.c looks them
 * up and builds them when the plan runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/diag.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "../stages/target.h"
#include "cuda.h"
#include "flags.h"
#include "frontend.h"
#include "job.h"
#include "macros.h"

#ifndef NV_LLVM_BINDIR
#define NV_LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif

/* The host compiler's own include directory (omp.h, quadmath.h): nvcc
 * preprocesses device code with the host compiler, so it sees them. */
static char *
host_include_dir(void)
{
	const char *cc = nv_drv.ccbin ? nv_drv.ccbin : "gcc";
	struct stat st;
	char *cmd, line[4096] = "";
	FILE *p;
	size_t n;

	if (!stat(cc, &st) && S_ISDIR(st.st_mode))
		cmd = xasprintf("%s -print-file-name=include 2>/dev/null", nv_shell_quote(xasprintf("%s/gcc", cc)));
	else
		cmd = xasprintf("%s -print-file-name=include 2>/dev/null", nv_shell_quote(cc));
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	pclose(p);
	n = strcspn(line, "\n");
	line[n] = '\0';
	return line[0] == '/' && !stat(line, &st) && S_ISDIR(st.st_mode) ? xstrdup(line) : NULL;
}

/* The CUDA installation's part of the front end's command: the version
 * clang cannot read from CUDA 13 (without it clang falls back to the launch
 * API CUDA 13 removed), nvcc.profile's include directories, and the
 * compatibility header. */
static void
front_end_cuda(struct nv_strv *av, const char *dir)
{
	char *hinc;

	nv_strv_pushf(av, "--cuda-path=%s", nv_drv_cuda.root);
	if (nv_drv_cuda.major) {
		nv_strv_push(av, "-Xclang");
		nv_strv_pushf(av, "-target-sdk-version=%d.%d", nv_drv_cuda.major, nv_drv_cuda.minor);
	}
	if (!nv_drv_cuda.incs.n)
		nv_cuda_read_profile(&nv_drv_cuda);
	for (size_t i = 0; i < nv_drv_cuda.incs.n; i++)
		nv_strv_push(av, nv_drv_cuda.incs.v[i]);
	/* found as a system header, so -MMD leaves it out as it does CUDA's */
	nv_strv_push(av, "-isystem");
	nv_strv_pushf(av, "%s/../share/nvcc-lite", dir);
	nv_strv_push(av, "-include");
	nv_strv_push(av, "nvcc_compat.h");
	if ((hinc = host_include_dir())) {
		nv_strv_push(av, "-idirafter");
		nv_strv_push(av, hinc);
		free(hinc);
	}
}

/* The GPU, as clang-22 takes it.  It has no sm_XXf: those compile as
 * sm_XX with nvcc's macro for the family; an sm_XXa gets nvcc's macros
 * for the arch and the family besides clang's own. */
static void
front_end_arch(struct nv_strv *av, const char *arch)
{
	const struct nv_arch *a = nv_target_arch(arch);
	size_t n = strlen(arch);
	char last = n ? arch[n - 1] : 0;
	int isa;

	if (last == 'f')
		nv_strv_pushf(av, "--cuda-gpu-arch=%.*s", (int)(n - 1), arch);
	else
		nv_strv_pushf(av, "--cuda-gpu-arch=%s", arch);
	if (last == 'a')
		nv_strv_pushf(av, "-D__CUDA_ARCH_SPECIFIC__=%d", a->sm * 10);
	if (last == 'a' || last == 'f')
		nv_strv_pushf(av, "-D__CUDA_ARCH_FAMILY_SPECIFIC__=%d", a->sm * 10);
	/* clang's PTX ISA is the newest it knows of CUDA (8.8): too old for
	 * sm_110, and not what nv-llc writes */
	isa = nv_drv_have_cuda ? nv_cuda_ptx_isa(&nv_drv_cuda) : 0;
	if (a->ptx > isa)
		isa = a->ptx;
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-target-feature");
	nv_strv_push(av, "-Xclang");
	nv_strv_pushf(av, "+ptx%d", isa);
}

void
nv_drv_host_flags(struct nv_strv *av)
{
	if (nv_drv.host_olevel >= 0)
		nv_strv_pushf(av, "-O%d", nv_drv.host_olevel);
	if (nv_drv.no_warnings)
		nv_strv_push(av, "-w");
	for (size_t i = 0; i < nv_drv.host.n; i++)
		nv_strv_push(av, nv_drv.host.v[i]);
}

static char *
clang_path(void)
{
	const char *env = getenv("NVCC_LITE_CLANG");
	char *clang = env ? xstrdup(env) : nv_spawn_find("clang-22", NV_LLVM_BINDIR);

	if (!clang)
		clang = nv_spawn_find("clang", NV_LLVM_BINDIR);
	if (!clang)
		nv_fatal("cannot find clang-22 for CUDA sources (install clang-22 or set NVCC_LITE_CLANG)");
	return clang;
}

/* The front end's command up to its input: everything that decides what
 * the headers mean.  user_includes 0 leaves out -include FILE (the header
 * cache holds what every source includes, not what one build adds).  host:
 * the same source's host side instead (CUDA host mode, the host's -O and
 * -Xcompiler flags, no device code generation flags).  names: clang keeps
 * the values' names (--explain's compile). */
/* Warning groups clang enables by default where nvcc (cudafe, and gcc
 * without -Wall) says nothing: an enum value a switch does not handle. */
static const char *const not_nvccs[] = { "switch" };

static struct nv_strv *
front_end_flags(const char *dir, const char *arch, int user_includes, int host, int names)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *clang = clang_path();

	nv_strv_push(av, clang);
	nv_strv_push(av, "-x");
	nv_strv_push(av, "cuda");
	if (host) {
		size_t n = strlen(arch);

		nv_strv_push(av, "--cuda-host-only");
		nv_strv_pushf(av, "--cuda-gpu-arch=%.*s", (int)(n - (arch[n - 1] == 'f')), arch);
	} else {
		nv_strv_push(av, "--cuda-device-only");
		front_end_arch(av, arch);
		/* cicc's 32-bit pointers into shared memory (LLVM's make constant
		 * and local ones 32-bit too): a 64-bit one takes two registers
		 * (lib/stages/target.h).  Not for -O0 code, which LLVM 22 cannot make of
		 * a device function's byval parameter with them. */
		if (nv_pipe_olevel(nv_drv_pipe()) > 0)
			nv_strv_push(av, "-fcuda-short-ptr");
	}
	nv_strv_push(av, "-nocudalib");
	nv_strv_push(av, "-Wno-unknown-cuda-version");
	/* names as nvcc (and the host's g++ 12) mangle them: clang 18 began to
	 * mangle a non-type template parameter's deduced or dependent type
	 * (Tn), a constrained parameter's concept (Tk), a requires-clause (Q)
	 * and a template template parameter's parameter list (Tt) */
	nv_strv_push(av, "-fclang-abi-compat=17");
	/* clang's nvcc-compatibility warnings: on code nvcc compiles, only
	 * "#pragma unroll(4)", which nvcc takes without a word */
	nv_strv_push(av, "-Wno-cuda-compat");
	/* clang's warnings that nvcc never gives on the same code */
	for (size_t i = 0; i < sizeof(not_nvccs) / sizeof(*not_nvccs); i++)
		nv_strv_pushf(av, "-Wno-%s", not_nvccs[i]);
	if (nv_drv_have_cuda) {
		front_end_cuda(av, dir);
	} else {
		nv_strv_push(av, "-nocudainc");
		nv_strv_push(av, "-include");
		nv_strv_pushf(av, "%s/../share/nvcc-lite/cuda_shim.h", dir);
	}
	if (nv_drv.std)
		nv_strv_pushf(av, "-std=%s", nv_drv.std); /* else clang's gnu++17, as nvcc's gcc */
	if (nv_drv.rdc)
		nv_strv_push(av, "-fgpu-rdc");
	nv_drv_macros(av, host ? NV_PASS_HOST : NV_PASS_DEVICE);
	if (host) {
		/* nvcc's relocatable host objects: __nv_relfatbin and
		 * __cudaRegisterLinkedBinary, for nvlink, not clang's new driver */
		if (nv_drv.rdc)
			nv_strv_push(av, "--no-offload-new-driver");
		nv_drv_host_flags(av);
	} else {
		nv_strv_push(av, "-O3");
		nv_strv_push(av, "-Xclang");
		nv_strv_push(av, "-disable-llvm-passes");
	}
	if (host) {
		/* nothing below is the host's */
	} else if (nv_drv.device_debug) {
		/* without it clang keeps only line directives in device code */
		nv_strv_push(av, "--cuda-noopt-device-debug");
		nv_strv_push(av, "-g");
	} else if (nv_drv.lineinfo || nv_drv.save_decisions || nv_drv.decisions || names) {
		/* decisions are keyed by source lines: nv-llc drops the tables
		 * again before code generation unless -lineinfo keeps them.
		 * Under --explain alone, only its own compiles (names) need
		 * them: the build's is a plain compile, the header cache's
		 * entries a plain build's */
		nv_strv_push(av, "-gline-tables-only");
	}
	if (!host && nv_drv.no_warnings)
		nv_strv_push(av, "-w");
	if (!host && nv_drv.ftz == 1)
		nv_strv_push(av, "-fgpu-flush-denormals-to-zero");
	if (!host && nv_drv.fmad == 0)
		nv_strv_push(av, "-ffp-contract=off");
	if (!host && nv_drv.fast_math)
		nv_strv_push(av, "-fgpu-approx-transcendentals");
	for (size_t i = 0; i < nv_drv.cpp.n; i++) {
		if (!user_includes && !strcmp(nv_drv.cpp.v[i], "-include")) {
			i++;
			continue;
		}
		nv_strv_push(av, nv_drv.cpp.v[i]);
	}
	for (size_t i = 0; i < nv_drv.fe.n; i++)
		nv_strv_push(av, nv_drv.fe.v[i]);
	/* --explain's compile: the values named after what they compute */
	if (names)
		nv_strv_push(av, "-fno-discard-value-names");
	free(clang);
	return av;
}

/* -rdc=true: clang names a static __device__ variable or kernel after the
 * compilation unit's id, which the host and device compiles of a source
 * must share: its path's hash. */
static void
cuid(struct nv_strv *av, const char *src)
{
	unsigned long long h = 14695981039346656037ull; /* FNV-1a */

	if (!nv_drv.rdc)
		return;
	for (const char *c = src; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	nv_strv_pushf(av, "-cuid=%016llx", h);
}

/* The end of a compile's command: src to the module out. */
static char **
to_module(struct nv_strv *av, const char *src, const char *out)
{
	nv_strv_push(av, "-emit-llvm");
	nv_strv_push(av, "-c");
	nv_strv_push(av, src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
}

/* clang-22 in CUDA host mode: src's host side to the module out (optimized
 * at the host's -O), the fatbin embedded (its kernels registered with the
 * CUDA runtime). */
char **
nv_drv_host_compile(const char *dir, const char *arch, const char *src, const char *fatbin,
                    const char *out)
{
	struct nv_strv *av = front_end_flags(dir, arch, 1, 1, 0);

	cuid(av, src);
	/* its warnings said once with the device pass's (nv_drv_say_once) */
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-fcuda-include-gpubinary");
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, fatbin);
	return to_module(av, src, out);
}

/* The host module bc, optimized already, to the object out: clang's code
 * generation alone, with the host's flags (the object is the one clang makes
 * from the source in one step). */
char **
nv_drv_host_codegen(const char *bc, const char *out)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));

	nv_strv_push(av, clang_path());
	nv_strv_push(av, "-c");
	nv_strv_push(av, "-x");
	nv_strv_push(av, "ir");
	nv_strv_push(av, bc);
	nv_drv_host_flags(av);
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-disable-llvm-passes");
	/* -Xcompiler's -D, -I and the like are the first step's */
	nv_strv_push(av, "-Wno-unused-command-line-argument");
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
}

/* -Xcompiler's flags that shape a preprocessor's output: nvcc's -E passes
 * them to the preprocessor of the device side (sccache's -Xcompiler=-P). */
static const char *const cpp_output_flags[] = { "-P", "-C", "-CC", "-dD" };

char **
nv_drv_preprocess(const char *dir, const char *arch, const char *src, const char *out)
{
	struct nv_strv *av = front_end_flags(dir, arch, 1, 0, 0);

	for (size_t i = 0; i < nv_drv.host.n; i++)
		for (size_t k = 0; k < sizeof(cpp_output_flags) / sizeof(*cpp_output_flags); k++)
			if (!strcmp(nv_drv.host.v[i], cpp_output_flags[k]))
				nv_strv_push(av, cpp_output_flags[k]);
	nv_strv_push(av, "-E");
	nv_strv_push(av, src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
}

/* -M: make's dependencies of src (the device side's headers, nvcc's
 * too), its target target, to out ("-": standard output). */
char **
nv_drv_deps_only(const char *dir, const char *arch, const char *src, const char *target, const char *out)
{
	struct nv_strv *av = front_end_flags(dir, arch, 1, 0, 0);

	nv_strv_push(av, nv_drv.deps_nonsys ? "-MM" : "-M");
	nv_strv_push(av, "-MT");
	nv_strv_push(av, target);
	nv_strv_push(av, src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
}

char **
nv_drv_front_end(const char *dir, const char *arch, const char *src, const char *out, const char *deps,
                 const struct nv_deps *dep, const char *trace, int quiet, int names)
{
	struct nv_strv *av = front_end_flags(dir, arch, 1, 0, names);

	cuid(av, src);
	if (quiet)
		nv_strv_push(av, "-w");
	if (trace) {
		/* the driver's -ftime-trace= reaches no device-only compile: cc1's does */
		nv_strv_push(av, "-Xclang");
		nv_strv_pushf(av, "-ftime-trace=%s", trace);
	}
	if (deps) {
		nv_strv_push(av, nv_drv.deps == 1 ? "-MD" : "-MMD");
		nv_strv_push(av, "-MF");
		nv_strv_push(av, deps);
		nv_strv_push(av, dep->quote ? "-MQ" : "-MT");
		nv_strv_push(av, dep->target);
		if (nv_drv.dep_phony)
			nv_strv_push(av, "-MP");
	}
	return to_module(av, src, out);
}

/* Does the command include a file of its own before the source (-include)?
 * Then no preamble is cached: those files would come between the
 * command's headers and the preamble's, and are not in the entry. */
static int
user_include(void)
{
	for (size_t i = 0; i < nv_drv.cpp.n; i++)
		if (!strcmp(nv_drv.cpp.v[i], "-include"))
			return 1;
	return 0;
}

/* Whether the command asks for debug information beyond line tables:
 * clang describes what a precompiled header declares otherwise than what
 * it parses (a -G compile through the cache loses most of its DWARF), so
 * those compiles go without the cache. */
static int
debug_info(char *const *av)
{
	static const char *const not_debug[] = { "-gline-tables-only", "-gcc-", "-gpu-", "-gno-", NULL };

	for (; *av; av++) {
		int debug = !strncmp(*av, "-g", 2) || !strcmp(*av, "--cuda-noopt-device-debug");

		for (size_t i = 0; debug && not_debug[i]; i++)
			debug = strncmp(*av, not_debug[i], strlen(not_debug[i])) != 0;
		if (debug)
			return 1;
	}
	return 0;
}

struct nv_fe_cache *
nv_drv_fe_cache(const char *dir, const char *arch, int host, int names)
{
	struct nv_fe_cache *c;
	struct nv_strv *key;

	if (nv_drv.no_cache)
		return NULL;
	key = front_end_flags(dir, arch, 0, host, names);
	if (debug_info(key->v))
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->key = key->v;
	c->flags = front_end_flags(dir, arch, 1, host, names)->v;
	c->host = host;
	c->preamble = !user_include();
	return c;
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

/* ---- texture fetches: which compiles need clang's texture intrinsics ---- */

/* The text of the regular file path, quietly (NULL: none, or over 4 MiB). */
static char *
read_quiet(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *text = NULL;
	size_t n;

	if (!f)
		return NULL;
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size <= (4 << 20)) {
		text = xmalloc((size_t)st.st_size + 1);
		n = fread(text, 1, (size_t)st.st_size, f);
		text[n] = '\0';
	}
	fclose(f);
	return text;
}

static int
ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does text name a texture or surface function or type (tex2D, tex1Dfetch,
 * surf2Dwrite, texCubemap, cudaTextureObject_t, texture<...>)? */
static int
names_textures(const char *text)
{
	static const char *const words[] = { "tex", "surf", "cudaTextureObject_t", "cudaSurfaceObject_t", NULL };

	for (const char *p = text; *p; p++) {
		if (p > text && ident_char(p[-1]))
			continue;
		for (size_t w = 0; words[w]; w++) {
			size_t n = strlen(words[w]);
			char c;

			if (strncmp(p, words[w], n))
				continue;
			c = p[n];
			if (w >= 2 ? !ident_char(c)
			           : (c == '1' || c == '2' || c == '3' || c == 'C' || c == '<' ||
			              !strncmp(p + n, "ture<", 5) || !strncmp(p + n, "ace<", 4)))
				return 1;
		}
	}
	return 0;
}

/* src, or a file it includes by a quoted name found beside the file that
 * names it (depth at most 4, 64 files), names a texture or surface fetch. */
static int
scan_textures(const char *path, int depth, int *budget)
{
	char *text, *dir;
	const char *slash;
	int found;

	if (--*budget < 0 || !(text = read_quiet(path)))
		return 0;
	found = names_textures(text);
	slash = strrchr(path, '/');
	dir = slash ? xasprintf("%.*s", (int)(slash - path + 1), path) : xstrdup("");
	for (char *l = text; !found && depth < 4 && l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *p = l + strspn(l, " \t"), *q, *nl;
		char *name;

		if (*p != '#')
			continue;
		p += 1 + strspn(p + 1, " \t");
		if (strncmp(p, "include", 7))
			continue;
		p += 7 + strspn(p + 7, " \t");
		q = *p == '"' ? strchr(p + 1, '"') : NULL;
		nl = strchr(p, '\n');
		if (!q || (nl && q > nl))
			continue;
		name = xasprintf("%s%.*s", p[1] == '/' ? "" : dir, (int)(q - p - 1), p + 1);
		found = scan_textures(name, depth + 1, budget);
		free(name);
	}
	free(dir);
	free(text);
	return found;
}

int
nv_drv_fetches_textures(const char *src)
{
	int budget = 64;

	return scan_textures(src, 0, &budget);
}
