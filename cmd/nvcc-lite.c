/*
 * nvcc-lite: the driver.  Takes nvcc's flags, runs the CUDA front end
 * (clang-22, device only) and the stages of an nvopt<...> pipeline as
 * processes joined by pipes, and writes PTX (or a cubin, or bitcode).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "knobs.h"
#include "pipeline.h"
#include "proc.h"
#include "target.h"
#include "util.h"

#ifndef NV_LLVM_BINDIR
#define NV_LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif
#ifndef NV_VERSION
#define NV_VERSION "0.1"
#endif

enum out_kind { OUT_PTX, OUT_CUBIN, OUT_LLVM };

static struct {
	const char *input, *output, *arch, *keep_dir, *save_remarks;
	const char *dep_file, *dep_target; /* -MF, -MT */
	enum out_kind out;
	int olevel, verbose, dryrun, keep, lineinfo, help, version, list_knobs;
	int deps, dep_phony, dep_quote; /* -MD (1) or -MMD (2); -MP; no -MT */
	int ftz, prec_div, prec_sqrt, fmad, fast_math; /* -1: not given */
	long long maxreg;
	struct nv_strv cpp;     /* -I -D -U for the front end */
	struct nv_strv xcicc;   /* -Xcicc arguments */
} o = { .arch = NV_DEFAULT_ARCH, .olevel = 3, .ftz = -1, .prec_div = -1, .prec_sqrt = -1, .fmad = -1 };

enum kind { FLAG, VALUE, JOINED_OR_VALUE };

struct flag {
	const char *name, *alias; /* "-arch", "--gpu-architecture" */
	enum kind kind;
	const char *meta, *help;
	void (*set)(const char *v);
};

static void set_output(const char *v) { o.output = v; }
static void set_arch(const char *v) { o.arch = v; }
static void set_ptx(const char *v) { (void)v; o.out = OUT_PTX; }
static void set_cubin(const char *v) { (void)v; o.out = OUT_CUBIN; }
static void set_llvm(const char *v) { (void)v; o.out = OUT_LLVM; }
static void set_verbose(const char *v) { (void)v; o.verbose = 1; }
static void set_dryrun(const char *v) { (void)v; o.dryrun = 1; }
static void set_keep(const char *v) { (void)v; o.keep = 1; }
static void set_keep_dir(const char *v) { o.keep_dir = v; o.keep = 1; }
static void set_lineinfo(const char *v) { (void)v; o.lineinfo = 1; }
static void set_help(const char *v) { (void)v; o.help = 1; }
static void set_version(const char *v) { (void)v; o.version = 1; }
static void set_list_knobs(const char *v) { (void)v; o.list_knobs = 1; }
static void set_save_remarks(const char *v) { o.save_remarks = v; }
static void set_md(const char *v) { (void)v; o.deps = 1; }
static void set_mmd(const char *v) { (void)v; o.deps = 2; }
static void set_mf(const char *v) { o.dep_file = v; }
static void set_mt(const char *v) { o.dep_target = v; }
static void set_mp(const char *v) { (void)v; o.dep_phony = 1; }
static void add_I(const char *v) { nv_strv_pushf(&o.cpp, "-I%s", v); }
static void add_D(const char *v) { nv_strv_pushf(&o.cpp, "-D%s", v); }
static void add_U(const char *v) { nv_strv_pushf(&o.cpp, "-U%s", v); }
static void add_xcicc(const char *v) { nv_strv_push(&o.xcicc, v); }

/* nvcc's booleans: true/false (and 1/0). */
static int
boolean(const char *flag, const char *v)
{
	if (!strcmp(v, "true") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "false") || !strcmp(v, "0"))
		return 0;
	nv_usage_error("invalid value '%s' for %s: expected true or false", v, flag);
}

static void set_ftz(const char *v) { o.ftz = boolean("-ftz", v); }
static void set_prec_div(const char *v) { o.prec_div = boolean("-prec-div", v); }
static void set_prec_sqrt(const char *v) { o.prec_sqrt = boolean("-prec-sqrt", v); }
static void set_fmad(const char *v) { o.fmad = boolean("-fmad", v); }
static void set_fast_math(const char *v) { (void)v; o.fast_math = 1; }

static void
set_maxreg(const char *v)
{
	if (nv_parse_int(v, 1, 255, &o.maxreg))
		nv_usage_error("invalid value '%s' for -maxrregcount: expected 1 to 255", v);
}

static void
set_olevel(const char *v)
{
	if (strlen(v) != 1 || v[0] < '0' || v[0] > '3')
		nv_usage_error("invalid optimization level '-O%s': expected -O0 to -O3", v);
	o.olevel = v[0] - '0';
}

static const struct flag flags[] = {
	{ "-o", "--output-file", VALUE, "FILE", "write the output to FILE (default: input name with .ptx, .cubin or .bc)", set_output },
	{ "-arch", "--gpu-architecture", VALUE, "sm_XX", "GPU to compile for (default " NV_DEFAULT_ARCH ")", set_arch },
	{ "-O", NULL, JOINED_OR_VALUE, "N", "optimization level 0-3: runs nvopt<ON> (default 3)", set_olevel },
	{ "-ptx", "--ptx", FLAG, NULL, "write PTX (the default)", set_ptx },
	{ "-cubin", "--cubin", FLAG, NULL, "write a cubin (needs ptxas)", set_cubin },
	{ "-emit-llvm", NULL, FLAG, NULL, "write the optimized LLVM bitcode instead of PTX", set_llvm },
	{ "-I", "--include-path", JOINED_OR_VALUE, "DIR", "add DIR to the include search path", add_I },
	{ "-D", "--define-macro", JOINED_OR_VALUE, "NAME[=V]", "define a preprocessor macro", add_D },
	{ "-U", "--undefine-macro", JOINED_OR_VALUE, "NAME", "undefine a preprocessor macro", add_U },
	{ "-maxrregcount", "--maxrregcount", VALUE, "N", "at most N registers per thread in kernels", set_maxreg },
	{ "-lineinfo", "--generate-line-info", FLAG, NULL, "keep source line information in the PTX", set_lineinfo },
	{ "-ftz", "--ftz", VALUE, "true|false", "flush f32 denormals to zero (default false)", set_ftz },
	{ "-prec-div", "--prec-div", VALUE, "true|false", "IEEE-rounded f32 division (default true)", set_prec_div },
	{ "-prec-sqrt", "--prec-sqrt", VALUE, "true|false", "IEEE-rounded f32 square root (default true)", set_prec_sqrt },
	{ "-fmad", "--fmad", VALUE, "true|false", "contract multiply-add into fma (default true)", set_fmad },
	{ "-use_fast_math", "--use_fast_math", FLAG, NULL, "-ftz=true -prec-div=false -prec-sqrt=false -fmad=true, fast transcendentals", set_fast_math },
	{ "-Xcicc", "--Xcicc", VALUE, "KNOB", "pass a knob (-name=value) to the stage that owns it", add_xcicc },
	{ "-v", "--verbose", FLAG, NULL, "print each command before running it", set_verbose },
	{ "-dryrun", "--dryrun", FLAG, NULL, "print the commands as a shell script and run nothing", set_dryrun },
	{ "-keep", "--keep", FLAG, NULL, "keep every intermediate file (in the current directory)", set_keep },
	{ "-keep-dir", "--keep-dir", VALUE, "DIR", "keep intermediate files in DIR", set_keep_dir },
	{ "-save-remarks", "--save-remarks", VALUE, "DIR", "write each stage's remarks as LLVM remark YAML into DIR (for llvm-remarkutil, opt-viewer)", set_save_remarks },
	{ "-MD", "--generate-dependencies-with-compile", FLAG, NULL, "also write a make dependency file (default: the output's name with .d)", set_md },
	{ "-MMD", "--generate-nonsystem-dependencies-with-compile", FLAG, NULL, "the same without system headers", set_mmd },
	{ "-MF", "--dependency-output", VALUE, "FILE", "the dependency file of -MD/-MMD", set_mf },
	{ "-MT", "--dependency-target-name", VALUE, "TARGET", "the target in the dependency file (default: the output)", set_mt },
	{ "-MP", "--generate-dependency-targets", FLAG, NULL, "add a phony target for each header", set_mp },
	{ "-list-knobs", "--list-knobs", FLAG, NULL, "list every -Xcicc knob: name, stage, type, default, help", set_list_knobs },
	{ "-h", "--help", FLAG, NULL, "print this help and exit", set_help },
	{ "-V", "--version", FLAG, NULL, "print the version and exit", set_version },
	{ NULL, NULL, FLAG, NULL, NULL, NULL },
};

static void
help(void)
{
	printf("usage: nvcc-lite [options] file.cu|file.bc|file.ll\n\n"
	       "Compiles CUDA device code to PTX through the nv-* stages, like nvcc -ptx.\n\n"
	       "Options:\n");
	for (const struct flag *f = flags; f->name; f++) {
		char lhs[80];
		const char *m = f->kind == FLAG ? "" : f->meta;

		snprintf(lhs, sizeof(lhs), "%s%s%s%s%s", f->name, *m ? " " : "", m,
		         f->alias ? ", " : "", f->alias ? f->alias : "");
		printf("  %-36s %s\n", lhs, f->help);
	}
	printf("\nGPU architectures: %s\n", nv_target_arch_list());
}

/* Match argv[*i] against f: "-x", "-x=V", "-x V", and "-xV" for joined. */
static int
take(const struct flag *f, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	for (int alias = 0; alias < 2; alias++) {
		const char *n = alias ? f->alias : f->name;
		size_t len = n ? strlen(n) : 0;

		if (!n || strncmp(a, n, len))
			continue;
		if (f->kind == FLAG) {
			if (a[len])
				continue;
			f->set(NULL);
			return 1;
		}
		if (a[len] == '=' || (a[len] && f->kind == JOINED_OR_VALUE)) {
			f->set(a + len + (a[len] == '='));
			return 1;
		}
		if (a[len])
			continue;
		if (*i + 1 >= argc)
			nv_usage_error("option '%s' needs a value", a);
		f->set(argv[++*i]);
		return 1;
	}
	return 0;
}

_Noreturn static void
unknown_flag(const char *a)
{
	const char *eq = strchr(a, '=');
	char *name = eq ? xasprintf("%.*s", (int)(eq - a), a) : xstrdup(a);
	const struct flag *best = NULL;
	size_t bestd = 3;

	for (const struct flag *f = flags; f->name; f++) {
		size_t d = nv_edit_distance(name, f->name, 2);

		if (d < bestd) {
			bestd = d;
			best = f;
		}
	}
	free(name);
	if (best)
		nv_usage_error("unknown option '%s'; did you mean '%s%s'?", a, best->name,
		               eq && best->kind != FLAG ? eq : "");
	nv_usage_error("unknown option '%s' (see 'nvcc-lite --help')", a);
}

static void
parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const struct flag *f;

		if (argv[i][0] != '-' || !argv[i][1]) {
			if (o.input)
				nv_usage_error("more than one input file: '%s' and '%s'", o.input, argv[i]);
			o.input = argv[i];
			continue;
		}
		for (f = flags; f->name && !take(f, argc, argv, &i); f++)
			;
		if (!f->name)
			unknown_flag(argv[i]);
	}
}

/* Where the programs live: beside this executable. */
static char *
self_dir(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	*slash = '\0';
	return xstrdup(buf);
}

static const char *
ext_of(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* "dir/k.cu" -> "k" */
static char *
stem(const char *path)
{
	const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
	const char *dot = strrchr(b, '.');

	return dot ? xasprintf("%.*s", (int)(dot - b), b) : xstrdup(b);
}

static char *
find_cuda(void)
{
	const char *env = getenv("CUDA_PATH");
	const char *cands[] = { env, env ? NULL : "/usr/local/cuda" };

	/* A CUDA_PATH that is set wins, even when it holds no CUDA: then the
	 * shim is used, which is how a machine without CUDA is tested. */
	for (size_t i = 0; i < 2; i++) {
		char *h;
		struct stat st;

		if (!cands[i] || !*cands[i])
			continue;
		h = xasprintf("%s/include/cuda_runtime.h", cands[i]);
		if (stat(h, &st) == 0) {
			free(h);
			return xstrdup(cands[i]);
		}
		free(h);
	}
	return NULL;
}

static char **
front_end(const char *dir)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	const char *env = getenv("NVCC_LITE_CLANG");
	char *clang = env ? xstrdup(env) : nv_spawn_find("clang-22", NV_LLVM_BINDIR);
	char *cuda = find_cuda();

	if (!clang)
		clang = nv_spawn_find("clang", NV_LLVM_BINDIR);
	if (!clang)
		nv_fatal("cannot find clang-22 for CUDA sources (install clang-22 or set NVCC_LITE_CLANG)");
	nv_strv_push(av, clang);
	nv_strv_push(av, "-x");
	nv_strv_push(av, "cuda");
	nv_strv_push(av, "--cuda-device-only");
	nv_strv_pushf(av, "--cuda-gpu-arch=%s", o.arch);
	nv_strv_push(av, "-nocudalib");
	nv_strv_push(av, "-Wno-unknown-cuda-version");
	if (cuda) {
		nv_strv_pushf(av, "--cuda-path=%s", cuda);
	} else {
		nv_strv_push(av, "-nocudainc");
		nv_strv_push(av, "-include");
		nv_strv_pushf(av, "%s/../share/nvcc-lite/cuda_shim.h", dir);
	}
	nv_strv_push(av, "-O3");
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-disable-llvm-passes");
	if (o.lineinfo)
		nv_strv_push(av, "-gline-tables-only");
	if (o.ftz == 1)
		nv_strv_push(av, "-fgpu-flush-denormals-to-zero");
	if (o.fmad == 0)
		nv_strv_push(av, "-ffp-contract=off");
	if (o.fast_math)
		nv_strv_push(av, "-fgpu-approx-transcendentals");
	for (size_t i = 0; i < o.cpp.n; i++)
		nv_strv_push(av, o.cpp.v[i]);
	if (o.deps) {
		nv_strv_push(av, o.deps == 1 ? "-MD" : "-MMD");
		nv_strv_push(av, "-MF");
		nv_strv_push(av, o.dep_file);
		nv_strv_push(av, o.dep_quote ? "-MQ" : "-MT");
		nv_strv_push(av, o.dep_target);
		if (o.dep_phony)
			nv_strv_push(av, "-MP");
	}
	nv_strv_push(av, "-emit-llvm");
	nv_strv_push(av, "-c");
	nv_strv_push(av, o.input);
	nv_strv_push(av, "-o");
	nv_strv_push(av, "-");
	free(clang);
	free(cuda);
	return av->v;
}

/* -pass-remarks=, -pass-remarks-missed= and -pass-remarks-analysis= in
 * -Xcicc go to every stage: each prints its own remarks. */
static int
is_remark_flag(const char *a)
{
	return !strncmp(a, "-pass-remarks=", 14) || !strncmp(a, "-pass-remarks-missed=", 21) ||
	       !strncmp(a, "-pass-remarks-analysis=", 23);
}

/* The knobs given with -Xcicc, checked and routed to their stages.  cicc's
 * --Xopt / --Xllc markers are accepted and ignored: the table knows. */
static void
check_knobs(void)
{
	for (size_t i = 0; i < o.xcicc.n; i++) {
		const char *a = o.xcicc.v[i], *eq;
		char *name;
		int id;

		if (!strcmp(a, "--Xopt") || !strcmp(a, "--Xllc") || is_remark_flag(a))
			continue;
		if (a[0] != '-')
			nv_usage_error("-Xcicc '%s': expected a knob, -name=value", a);
		eq = strchr(a, '=');
		name = eq ? xasprintf("%.*s", (int)(eq - a - 1), a + 1) : xstrdup(a + 1);
		id = nv_knob_find(name);
		if (id < 0) {
			const char *best = NULL;
			size_t bestd = 4;

			for (int k = 0; k < NV_KNOB_COUNT; k++) {
				size_t d = nv_edit_distance(name, nv_knobs[k].name, 3);

				if (d < bestd)
					bestd = d, best = nv_knobs[k].name;
			}
			if (best)
				nv_usage_error("unknown knob '%s' in -Xcicc; did you mean '-%s%s'?", a, best,
				               eq ? eq : "");
			nv_usage_error("unknown knob '%s' in -Xcicc", a);
		}
		free(name);
	}
}

static int
knob_for(const char *arg, unsigned stage)
{
	const char *eq = strchr(arg, '=');
	char *name;
	int id;

	if (arg[0] != '-')
		return 0;
	name = eq ? xasprintf("%.*s", (int)(eq - arg - 1), arg + 1) : xstrdup(arg + 1);
	id = nv_knob_find(name);
	free(name);
	return id >= 0 && (nv_knobs[id].stages & stage);
}

static char **
stage_argv(const struct nv_pipe_step *s, const char *dir)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *prog = nv_spawn_find(s->prog, dir);
	char *args = xstrdup(s->args), *save = NULL;

	if (!prog)
		nv_fatal("cannot find %s beside nvcc-lite in %s", s->prog, dir);
	nv_strv_push(av, prog);
	free(prog);
	for (char *t = strtok_r(args, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *pct = strstr(t, "%O");

		if (pct)
			nv_strv_pushf(av, "%.*s%d%s", (int)(pct - t), t, o.olevel, pct + 2);
		else
			nv_strv_push(av, t);
	}
	free(args);
	if (s->takes_arch)
		nv_strv_pushf(av, "-arch=%s", o.arch);
	if (s->stage == NV_STAGE_REFLECT || s->stage == NV_STAGE_LLC) {
		if (o.ftz >= 0)
			nv_strv_pushf(av, "-ftz=%d", o.ftz);
		if (o.prec_div == 0)
			nv_strv_push(av, "-prec-div=0");
		if (o.prec_sqrt == 0)
			nv_strv_push(av, "-prec-sqrt=0");
	}
	if (s->stage == NV_STAGE_LLC) {
		if (o.fmad == 0)
			nv_strv_push(av, "-fmad=0");
		if (o.fast_math)
			nv_strv_push(av, "-fast-math");
		if (o.maxreg)
			nv_strv_pushf(av, "-maxrregcount=%lld", o.maxreg);
		if (o.lineinfo)
			nv_strv_push(av, "-lineinfo");
		if (o.out == OUT_CUBIN && !strstr(s->args, "-stop-after"))
			nv_strv_push(av, "-cubin");
	}
	for (size_t i = 0; i < o.xcicc.n; i++)
		if (knob_for(o.xcicc.v[i], s->stage) || is_remark_flag(o.xcicc.v[i]))
			nv_strv_push(av, o.xcicc.v[i]);
	return av->v;
}

static size_t
argv_len(char **av)
{
	size_t n = 0;

	while (av[n])
		n++;
	return n;
}

static char **
append(char **av, const char *a, const char *b)
{
	size_t n = argv_len(av);

	av = xrealloc(av, (n + 3) * sizeof(*av));
	av[n++] = xstrdup(a);
	if (b)
		av[n++] = xstrdup(b);
	av[n] = NULL;
	return av;
}

/* A failed build leaves no output file; devices and fifos stay. */
static void
remove_output(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

static void
print_cmd(FILE *fp, char **av)
{
	for (size_t i = 0; av[i]; i++)
		fprintf(fp, "%s%s", i ? " " : "", nv_shell_quote(av[i]));
}

struct chain {
	char **argv[16];
	const char *name[16];
	size_t n;
};

/* Front end (for .cu) and the steps of the pipeline, the last writing out. */
static void
build_chain(struct chain *c, const char *ext, const char *dir, const char *out, enum nv_pipe_id pipe)
{
	if (!strcmp(ext, "cu")) {
		c->name[c->n] = "front end";
		c->argv[c->n++] = front_end(dir);
	}
	for (const struct nv_pipe_step *s = nv_pipe_steps; s->prog; s++) {
		if (!(s->in & (1u << pipe)) ||
		    (o.out == OUT_LLVM && (s->stage == NV_STAGE_LLC || s->stage == NV_STAGE_REMAT)))
			continue;
		c->name[c->n] = s->prog;
		c->argv[c->n++] = stage_argv(s, dir);
	}
	if (c->n == 0 || (o.out == OUT_LLVM && !strcmp(c->name[c->n - 1], "front end"))) {
		/* Something must verify the module and write it atomically. */
		static const struct nv_pipe_step writer = { "nv-opt", NV_STAGE_OPT, 0, "", 0 };

		c->name[c->n] = "nv-opt";
		c->argv[c->n++] = stage_argv(&writer, dir);
	}
	if (strcmp(ext, "cu"))
		c->argv[0] = append(c->argv[0], o.input, NULL);
	c->argv[c->n - 1] = append(c->argv[c->n - 1], "-o", out);
}

/* -keep: every step writes BASE.N-STAGE.bc and the next one reads it. */
static void
keep_files(struct chain *c, const char *base)
{
	const char *kd = o.keep_dir ? o.keep_dir : ".";

	for (size_t i = 0; i + 1 < c->n; i++) {
		int fe = !strcmp(c->name[i], "front end");
		char *f = xasprintf("%s/%s.%zu-%s.bc", kd, base, i, fe ? "cudafe" : c->name[i]);
		size_t last = argv_len(c->argv[i]);

		if (fe) {
			free(c->argv[i][last - 1]); /* the front end's "-o -" */
			c->argv[i][last - 1] = xstrdup(f);
		} else {
			c->argv[i] = append(c->argv[i], "-o", f);
		}
		c->argv[i + 1] = append(c->argv[i + 1], f, NULL);
		free(f);
	}
}

/* -v echoes the commands to stderr; -dryrun prints them as a script. */
static void
show(const struct chain *c, enum nv_pipe_id pipe)
{
	FILE *fp = o.dryrun ? stdout : stderr;
	const char *joint = o.keep ? "\n" : " |\n";

	if (o.dryrun)
		fprintf(fp, "#!/bin/sh\n# nvcc-lite %s: %s\nset -e\n", nv_pipe_name(pipe), o.input);
	if (o.dryrun && o.save_remarks)
		fprintf(fp, "mkdir -p %s\n", nv_shell_quote(o.save_remarks));
	for (size_t i = 0; i < c->n; i++) {
		fputs(o.dryrun ? (i && !o.keep ? "  " : "") : "#$ ", fp);
		print_cmd(fp, c->argv[i]);
		fputs(i + 1 == c->n ? "\n" : joint, fp);
	}
}

/* -save-remarks DIR: every stage writes DIR/BASE.N-STAGE.opt.yaml, N and
 * STAGE as -keep names the modules, .opt.yaml as opt-viewer looks for. */
static void
remark_files(struct chain *c, const char *base)
{
	for (size_t i = 0; i < c->n; i++) {
		char *f;

		if (!strcmp(c->name[i], "front end"))
			continue;
		f = xasprintf("-pass-remarks-output=%s/%s.%zu-%s.opt.yaml", o.save_remarks, base, i,
		              c->name[i]);
		c->argv[i] = append(c->argv[i], f, NULL);
		free(f);
	}
	if (!o.dryrun && mkdir(o.save_remarks, 0777) && errno != EEXIST)
		nv_fatal("cannot create '%s':", o.save_remarks);
}

/* A stage with nothing to say leaves an empty file, which llvm-remarkutil
 * rejects (as it rejects opt's): drop those. */
static void
drop_empty_remarks(struct chain *c)
{
	for (size_t i = 0; i < c->n; i++)
		for (char **a = c->argv[i]; *a; a++) {
			struct stat st;

			if (!strncmp(*a, "-pass-remarks-output=", 21) && stat(*a + 21, &st) == 0 &&
			    st.st_size == 0)
				unlink(*a + 21);
		}
}

/* -MD for a .bc or .ll input: the input is the one dependency. */
static void
write_deps(void)
{
	FILE *fp = fopen(o.dep_file, "w");

	if (!fp)
		nv_fatal("cannot write '%s':", o.dep_file);
	fprintf(fp, "%s: %s\n", o.dep_target, o.input);
	if (o.dep_phony)
		fprintf(fp, "\n%s:\n", o.input);
	if (fclose(fp))
		nv_fatal("cannot write '%s':", o.dep_file);
}

/* -MF defaults to the output with .d for its extension, -MT to the output. */
static void
dep_defaults(const char *out)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');

	if (!o.dep_file)
		o.dep_file = dot && (!slash || dot > slash) ? xasprintf("%.*s.d", (int)(dot - out), out)
		                                            : xasprintf("%s.d", out);
	o.dep_quote = !o.dep_target;
	if (!o.dep_target)
		o.dep_target = out;
}

static void
list_knobs(void)
{
	static const char *const types[] = { "bool", "int", "string" };

	for (int k = 0; k < NV_KNOB_COUNT; k++)
		printf("%s\t%s\t%s\t%s\t%s\n", nv_knobs[k].name, nv_stage_name(nv_knobs[k].stages),
		       types[nv_knobs[k].type], nv_knobs[k].def, nv_knobs[k].help);
}

static int
run(struct chain *c)
{
	int rc = 0, in_fd;

	if (o.keep) {
		for (size_t i = 0; i < c->n && !rc; i++)
			rc = nv_spawn_chain(&c->argv[i], 1, -1, -1);
		return rc;
	}
	in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	rc = nv_spawn_chain(c->argv, c->n, in_fd, -1);
	close(in_fd);
	return rc;
}

int
main(int argc, char **argv)
{
	struct chain c = { 0 };
	const char *ext;
	char *out;
	enum nv_pipe_id pipe;
	int rc;

	nv_diag_init(argv[0]);
	parse(argc, argv);
	if (o.help || o.version || o.list_knobs) {
		if (o.help)
			help();
		else if (o.version)
			printf("nvcc-lite %s (LLVM 22 NVPTX)\n", NV_VERSION);
		else
			list_knobs();
		return fflush(stdout) ? NV_EXIT_ERROR : NV_EXIT_OK;
	}
	if (!o.input)
		nv_usage_error("no input file (see 'nvcc-lite --help')");
	o.arch = nv_target_arch_or_die(o.arch)->name;
	if (o.fast_math) {
		/* nvcc: --use_fast_math -> -ftz=1 -prec_div=0 -prec_sqrt=0 -fmad=1 -fast-math */
		o.ftz = o.ftz < 0 ? 1 : o.ftz;
		o.prec_div = o.prec_div < 0 ? 0 : o.prec_div;
		o.prec_sqrt = o.prec_sqrt < 0 ? 0 : o.prec_sqrt;
	}
	check_knobs();
	ext = ext_of(o.input);
	if (strcmp(ext, "cu") && strcmp(ext, "bc") && strcmp(ext, "ll"))
		nv_usage_error("don't know what to do with '%s': expected a .cu, .bc or .ll file", o.input);
	if (access(o.input, R_OK))
		nv_fatal("cannot read '%s':", o.input);
	out = o.output ? xstrdup(o.output)
	               : xasprintf("%s.%s", stem(o.input),
	                           o.out == OUT_PTX ? "ptx" : o.out == OUT_CUBIN ? "cubin" : "bc");
	pipe = (enum nv_pipe_id)o.olevel;
	if (o.deps)
		dep_defaults(out);
	build_chain(&c, ext, self_dir(), out, pipe);
	if (o.keep)
		keep_files(&c, stem(o.input));
	if (o.save_remarks)
		remark_files(&c, stem(o.input));
	if (o.dryrun || o.verbose)
		show(&c, pipe);
	if (o.dryrun)
		return fflush(stdout) ? NV_EXIT_ERROR : NV_EXIT_OK;
	rc = run(&c);
	if (o.save_remarks)
		drop_empty_remarks(&c);
	if (!rc && o.deps && strcmp(ext, "cu"))
		write_deps();
	if (rc)
		remove_output(out);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
