/*
 * frontend: the CUDA front end's command (clang-22, device only, with
 * the CUDA installation's own include setup, or the shim without one), and
 * the header cache: the headers every source of a command line includes,
 * precompiled once.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/proc.h"
#include "../base/trace.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "../stages/target.h"
#include "cuda.h"
#include "driver.h"
#include "pch.h"

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

/* The front end's command up to its input: everything that decides what
 * the headers mean.  user_includes 0 leaves out -include FILE (the header
 * cache holds what every source includes, not what one build adds).  host:
 * the same source's host side instead (CUDA host mode, the host's -O and
 * -Xcompiler flags, no device code generation flags). */
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

static struct nv_strv *
front_end_flags(const char *dir, const char *arch, int user_includes, int host)
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
	} else if (nv_drv.lineinfo) {
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

/* clang-22 in CUDA host mode: src's host side to the module out (optimized
 * at the host's -O), the fatbin embedded (its kernels registered with the
 * CUDA runtime). */
char **
nv_drv_host_compile(const char *dir, const char *arch, const char *src, const char *fatbin,
                    const char *out)
{
	struct nv_strv *av = front_end_flags(dir, arch, 1, 1);

	cuid(av, src);
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-fcuda-include-gpubinary");
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, fatbin);
	nv_strv_push(av, "-emit-llvm");
	nv_strv_push(av, "-c");
	nv_strv_push(av, src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
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

char **
nv_drv_preprocess(const char *dir, const char *arch, const char *src, const char *out)
{
	struct nv_strv *av = front_end_flags(dir, arch, 1, 1);

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
	struct nv_strv *av = front_end_flags(dir, arch, 1, 0);

	nv_strv_push(av, "-M");
	nv_strv_push(av, "-MT");
	nv_strv_push(av, target);
	nv_strv_push(av, src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
}

/* The front end: the source to a module in out, its dependency file in
 * deps (-MD), through the header cache pch when there is one. */
void
nv_drv_use_pch(struct nv_strv *av, const struct nv_pch *pch)
{
	/* a try: when it fails, the compile without the entry says why (and
	 * leaves the crash report, if it crashes too) */
	nv_strv_push(av, "-fno-crash-diagnostics");
	nv_strv_push(av, "-include-pch");
	nv_strv_push(av, pch->pch);
	if (pch->skip) {
		nv_strv_push(av, "-Xclang");
		nv_strv_pushf(av, "-preamble-bytes=%zu,1", pch->skip);
	}
}

char **
nv_drv_front_end(const struct nv_job *j, const char *dir, const char *out, const char *deps,
                 const struct nv_pch *pch)
{
	struct nv_strv *av = front_end_flags(dir, j->arch, 1, 0);

	if (pch)
		nv_drv_use_pch(av, pch);
	cuid(av, j->input);
	if (deps) {
		nv_strv_push(av, nv_drv.deps == 1 ? "-MD" : "-MMD");
		nv_strv_push(av, "-MF");
		nv_strv_push(av, deps);
		nv_strv_push(av, nv_drv.dep_quote ? "-MQ" : "-MT");
		nv_strv_push(av, nv_drv.dep_target);
		if (nv_drv.dep_phony)
			nv_strv_push(av, "-MP");
	}
	nv_strv_push(av, "-emit-llvm");
	nv_strv_push(av, "-c");
	nv_strv_push(av, j->input);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
}

/* The build of an entry as a -time row: c's one step, from t0 to now, with
 * the CPU time its children took since before. */
static void
time_entry(struct nv_drv_chain *c, const struct timespec *t0, const struct rusage *before)
{
	struct timespec t1;
	struct rusage after;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_CHILDREN, &after);
	c->run.n = 1;
	c->run.t0 = xcalloc(1, sizeof(*c->run.t0));
	c->run.ms = xcalloc(1, sizeof(*c->run.ms));
	c->run.cpu_ms = xcalloc(1, sizeof(*c->run.cpu_ms));
	c->run.t0[0] = *t0;
	c->run.ms[0] = (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
	c->run.cpu_ms[0] = (double)(after.ru_utime.tv_sec - before->ru_utime.tv_sec +
	                            after.ru_stime.tv_sec - before->ru_stime.tv_sec) * 1e3 +
	                   (double)(after.ru_utime.tv_usec - before->ru_utime.tv_usec +
	                            after.ru_stime.tv_usec - before->ru_stime.tv_usec) / 1e3;
	nv_drv_record_times(c);
	free(c->run.t0);
	free(c->run.ms);
	free(c->run.cpu_ms);
}

/* Build the entry pch of the front-end command av (consumed), traced, with
 * its diagnostics in err: 0 when it is there to use. */
static int
build_entry(const struct nv_job *j, struct nv_pch *pch, struct nv_strv *av, const char *err,
            struct nv_strv *paths, int host)
{
	struct nv_drv_chain c = { .label = "header cache", .n = 1, .name = { host ? "host" : "front end" },
	                          .src = j->input, .arch = j->arch };
	struct nv_trace t;
	struct timespec t0;
	struct rusage before;
	const char *why = NULL;
	int rc, st = 0, fd, nul, used = 0;
	struct stat est;

	nv_strv_push(paths, pch->lock);
	nv_strv_push(paths, pch->tmp_pch);
	nv_strv_push(paths, pch->tmp_deps);
	nv_drv_sig_paths(paths);
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-emit-pch");
	/* the headers' pending template instantiations done once, here,
	 * not again at the end of every compile that uses the entry; not on
	 * the host side, where it changes the order of the object's contents */
	if (!host)
		nv_strv_push(av, "-fpch-instantiate-templates");
	/* a header with a new time and the same bytes still matches */
	nv_strv_push(av, "-fpch-validate-input-files-content");
	/* straight into the name reserved for it: no file of clang's own for
	 * an interrupted build to leave in the cache */
	nv_strv_push(av, "-fno-temp-file");
	nv_strv_push(av, "-MD");
	nv_strv_push(av, "-MF");
	nv_strv_push(av, pch->tmp_deps);
	nv_strv_push(av, "-emit-llvm");
	nv_strv_push(av, "-c");
	nv_strv_push(av, pch->src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, pch->tmp_pch);
	c.argv[0] = av->v;
	c.in[0] = pch->src;
	c.out[0] = pch->pch;
	/* its diagnostics are not the user's business: kept aside, they say
	 * whether the headers can be cached */
	nv_strv_push(paths, err);
	unlink(err);
	fd = open(err, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		nv_pch_abandon(pch);
		return -1;
	}
	if (nv_drv.verbose)
		nv_drv_show_chain(stderr, &c, "");
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	getrusage(RUSAGE_CHILDREN, &before);
	rc = nv_trace_run(c.argv[0], nul, -1, fd, &t, &st, &why);
	close(fd);
	close(nul);
	if (rc) {
		nv_pch_abandon(pch);
	} else {
		time_entry(&c, &t0, &before);
		/* put in place, then read back as any compile reads it */
		if (nv_pch_commit(pch, &t, WIFEXITED(st) && WEXITSTATUS(st) == 0,
		                  stat(err, &est) == 0 && est.st_size == 0, &why) == 0 &&
		    nv_pch_fresh(pch, NULL)) {
			used = 1;
			nv_pch_trim(pch->dir, nv_pch_budget());
		}
		nv_trace_release(&t);
	}
	if (why && nv_drv.verbose)
		fprintf(stderr, "#$ # header cache %s: %s\n", pch->key, why);
	unlink(err);
	return used ? 0 : -1;
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

/* Build the prefix entry e, chained on base (the command's entry, or a
 * shorter prefix's; e locked): 0 when it is there to use. */
static int
build_prefix(const struct nv_job *j, const char *dir, struct nv_pch *e, const struct nv_pch *base,
             const char *err, struct nv_strv *paths, int host)
{
	struct nv_strv *av = front_end_flags(dir, j->arch, 1, host);

	nv_strv_push(av, "-include-pch");
	nv_strv_push(av, base->pch);
	return build_entry(j, e, av, err, paths, host);
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

/* The header cache's entry for this build: the longest prefix of the
 * source's preamble whose entry is fresh, or the longest one beyond it that
 * an earlier compile began with (built now, chained on it); else the command's,
 * used when fresh, else built now unless another compile is building it
 * (then this one goes without).  Nothing here fails the build: without a
 * cache it is only slower.  A build that prints anything (a warning in a
 * header) is not cached, so the warning is not lost on the next compile;
 * nor is any longer prefix, which would print it too. */
const char *
nv_drv_header_cache(const struct nv_job *j, const char *dir, struct nv_pch *pch, const char *err,
                    struct nv_strv *paths, int host)
{
	struct nv_preamble pre = { 0 };
	struct nv_pch *e = NULL;
	struct nv_strv *cmd = front_end_flags(dir, j->arch, 0, host);
	char *cache;
	size_t n = 0, last = 0;
	long best = -1, build = -1;
	int off = 0, ok;

	if (nv_drv.no_cache || debug_info(cmd->v) || !(cache = nv_pch_dir()))
		return NULL;
	nv_pch_init(pch, cache, cmd->v, NULL, 0);
	if (!user_include() && strcmp(j->input, "-") && (n = nv_pch_preamble(j->input, &pre))) {
		struct nv_strv *av = front_end_flags(dir, j->arch, 1, host);

		/* keyed by the command as it uses the command's entry */
		nv_strv_push(av, "-include-pch");
		nv_strv_push(av, pch->pch);
		e = xcalloc(n, sizeof(*e));
		for (size_t i = 0; i < n; i++)
			nv_pch_init(&e[i], cache, av->v, &pre, i);
		nv_preamble_free(&pre);
	}
	free(cache);
	if (nv_pch_fresh(pch, &off))
		ok = !off;
	/* the host side's entry is built on its flag set's second compile */
	else if (nv_drv.dryrun || (host && !nv_pch_seen(pch)) || nv_pch_lock(pch))
		ok = 0;
	else
		ok = !build_entry(j, pch, front_end_flags(dir, j->arch, 0, host), err, paths, host);
	/* the longest fresh prefix; the longer ones up to the first whose
	 * headers are not cached (nor any longer) */
	for (size_t i = n; ok && i-- > 0 && best < 0;) {
		int o = 0;

		if (nv_pch_fresh(&e[i], &o) && !o)
			best = (long)i;
	}
	for (last = (size_t)(best + 1); last < n; last++) {
		int o = 0;

		if (nv_pch_fresh(&e[last], &o) && o)
			break;
	}
	/* marked even without the command's entry (the host side's first
	 * compile): the next compile builds both */
	for (size_t i = (size_t)(best + 1); !nv_drv.dryrun && i < last; i++)
		if (nv_pch_seen(&e[i]))
			build = (long)i;
	if (ok && build >= 0) {
		const struct nv_pch *base = best >= 0 ? &e[best] : pch;

		nv_pch_chain(&e[build], base);
		if (!nv_pch_lock(&e[build]) && !build_prefix(j, dir, &e[build], base, err, paths, host))
			best = build;
	}
	if (best >= 0) {
		nv_pch_release(pch);
		*pch = e[best];
		memset(&e[best], 0, sizeof(e[best]));
	}
	for (size_t i = 0; i < n; i++)
		nv_pch_release(&e[i]);
	free(e);
	return ok ? pch->pch : NULL;
}
