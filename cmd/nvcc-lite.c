/*
 * nvcc-lite: the driver.  Takes nvcc's flags, runs the CUDA front end
 * (clang-22, device only) and the stages of an nvopt<...> pipeline as
 * processes joined by pipes, and writes PTX (or a cubin, or bitcode).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "cuda.h"
#include "diag.h"
#include "driver.h"
#include "io.h"
#include "jobserver.h"
#include "knobs.h"
#include "pch.h"
#include "pipeline.h"
#include "proc.h"
#include "split.h"
#include "target.h"
#include "util.h"

#ifndef NV_LLVM_BINDIR
#define NV_LLVM_BINDIR "/usr/lib/llvm-22/bin"
#endif
#ifndef NV_VERSION
#define NV_VERSION "0.1"
#endif

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
front_end_arch(struct nv_strv *av)
{
	const struct nv_arch *a = nv_target_arch(nv_drv.arch);
	size_t n = strlen(nv_drv.arch);
	char last = n ? nv_drv.arch[n - 1] : 0;
	int isa;

	if (last == 'f')
		nv_strv_pushf(av, "--cuda-gpu-arch=%.*s", (int)(n - 1), nv_drv.arch);
	else
		nv_strv_pushf(av, "--cuda-gpu-arch=%s", nv_drv.arch);
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

/* The front end's command up to its input: everything that decides what
 * the headers mean.  user_includes 0 leaves out -include FILE (the header
 * cache holds what every source includes, not what one build adds). */
static struct nv_strv *
front_end_flags(const char *dir, int user_includes)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	const char *env = getenv("NVCC_LITE_CLANG");
	char *clang = env ? xstrdup(env) : nv_spawn_find("clang-22", NV_LLVM_BINDIR);

	if (!clang)
		clang = nv_spawn_find("clang", NV_LLVM_BINDIR);
	if (!clang)
		nv_fatal("cannot find clang-22 for CUDA sources (install clang-22 or set NVCC_LITE_CLANG)");
	nv_strv_push(av, clang);
	nv_strv_push(av, "-x");
	nv_strv_push(av, "cuda");
	nv_strv_push(av, "--cuda-device-only");
	front_end_arch(av);
	nv_strv_push(av, "-nocudalib");
	nv_strv_push(av, "-Wno-unknown-cuda-version");
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
	nv_strv_push(av, "-O3");
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-disable-llvm-passes");
	if (nv_drv.device_debug) {
		/* without it clang keeps only line directives in device code */
		nv_strv_push(av, "--cuda-noopt-device-debug");
		nv_strv_push(av, "-g");
	} else if (nv_drv.lineinfo) {
		nv_strv_push(av, "-gline-tables-only");
	}
	if (nv_drv.no_warnings)
		nv_strv_push(av, "-w");
	if (nv_drv.ftz == 1)
		nv_strv_push(av, "-fgpu-flush-denormals-to-zero");
	if (nv_drv.fmad == 0)
		nv_strv_push(av, "-ffp-contract=off");
	if (nv_drv.fast_math)
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

/* The front end: the source to a module in out, its dependency file in
 * deps (-MD), through the header cache pch when there is one. */
static char **
front_end(const char *dir, const char *out, const char *deps, const char *pch)
{
	struct nv_strv *av = front_end_flags(dir, 1);

	if (pch) {
		nv_strv_push(av, "-include-pch");
		nv_strv_push(av, pch);
	}
	if (nv_drv.deps) {
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
	nv_strv_push(av, nv_drv.input);
	nv_strv_push(av, "-o");
	nv_strv_push(av, out);
	return av->v;
}

/* The knob named by -Xcicc argument arg, or -1. */
static int
xcicc_knob(const char *arg, const char **value)
{
	const char *eq = strchr(arg, '=');
	char *name;
	int id;

	if (arg[0] != '-')
		return -1;
	name = eq ? xasprintf("%.*s", (int)(eq - arg - 1), arg + 1) : xstrdup(arg + 1);
	id = nv_knob_find(name);
	free(name);
	*value = eq ? eq + 1 : "1";
	return id;
}

static int
knob_for(const char *arg, unsigned stage)
{
	const char *v;
	int id = xcicc_knob(arg, &v);

	return id >= 0 && (nv_knobs[id].stages & stage);
}

/* A step is dropped when -Xcicc sets one of its "knob=value" off switches
 * (the last setting of the knob counts). */
static int
step_off(const struct nv_pipe_step *s)
{
	for (size_t k = 0; k < 2 && s->off[k]; k++) {
		const char *eq = strchr(s->off[k], '=');
		const char *last = NULL;

		for (size_t i = 0; i < nv_drv.xcicc.n; i++) {
			const char *v;
			int id = xcicc_knob(nv_drv.xcicc.v[i], &v);

			if (id >= 0 && strlen(nv_knobs[id].name) == (size_t)(eq - s->off[k]) &&
			    !strncmp(nv_knobs[id].name, s->off[k], (size_t)(eq - s->off[k])))
				last = v;
		}
		if (last && !strcmp(last, eq + 1))
			return 1;
	}
	return 0;
}

static enum nv_pipe_id
the_pipe(void)
{
	return nv_drv.fc >= 0 ? (enum nv_pipe_id)nv_drv.fc : (enum nv_pipe_id)nv_drv.olevel;
}

static int
in_pipe(const struct nv_pipe_step *s, enum nv_pipe_id pipe)
{
	return (s->in & (1u << pipe)) && !step_off(s);
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

		if (nv_drv.rdc && !strcmp(t, "-internalize"))
			continue; /* -rdc=true: other files may call in, so no whole-program mode */

		if (pct)
			nv_strv_pushf(av, "%.*s%d%s", (int)(pct - t), t, nv_pipe_olevel(the_pipe()), pct + 2);
		else
			nv_strv_push(av, t);
	}
	free(args);
	if (s->takes_arch)
		nv_strv_pushf(av, "-arch=%s", nv_drv.arch);
	if (s->stage == NV_STAGE_REFLECT || s->stage == NV_STAGE_LLC) {
		if (nv_drv.ftz >= 0)
			nv_strv_pushf(av, "-ftz=%d", nv_drv.ftz);
		if (nv_drv.prec_div == 0)
			nv_strv_push(av, "-prec-div=0");
		if (nv_drv.prec_sqrt == 0)
			nv_strv_push(av, "-prec-sqrt=0");
	}
	if (s->stage == NV_STAGE_LLC) {
		if (nv_drv.fmad == 0)
			nv_strv_push(av, "-fmad=0");
		if (nv_drv.fast_math)
			nv_strv_push(av, "-fast-math");
		if (nv_drv.maxreg)
			nv_strv_pushf(av, "-maxrregcount=%lld", nv_drv.maxreg);
		if (nv_drv_have_cuda && nv_cuda_ptx_isa(&nv_drv_cuda))
			nv_strv_pushf(av, "-ptx-isa=%d", nv_cuda_ptx_isa(&nv_drv_cuda));
		if (nv_drv.device_debug)
			nv_strv_push(av, "-g");
		else if (nv_drv.lineinfo)
			nv_strv_push(av, "-lineinfo");
		if (nv_drv.out == NV_OUT_CUBIN && !strstr(s->args, "-stop-after"))
			nv_strv_push(av, "-cubin");
		for (size_t i = 0; nv_drv.out == NV_OUT_CUBIN && i < nv_drv.xptxas.n; i++)
			nv_strv_pushf(av, "-Xptxas=%s", nv_drv.xptxas.v[i]);
	}
	for (size_t i = 0; i < nv_drv.xcicc.n; i++)
		if (knob_for(nv_drv.xcicc.v[i], s->stage) || nv_drv_remark_flag(nv_drv.xcicc.v[i]))
			nv_strv_push(av, nv_drv.xcicc.v[i]);
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

	if (strcmp(path, "-") && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

/*
 * -dryrun writes a script in which the temporary directory is "$tmp" and
 * Phase II is a loop over the parts ("$p", number $i).  These markers stand
 * for them in the argument vectors.
 */
#define TMP_MARK "@TMP@"
#define PART_MARK "@PART@"
#define NUM_MARK "@I@"

static void
print_arg(FILE *fp, const char *a)
{
	const char *t = strstr(a, TMP_MARK);

	if (!strcmp(a, PART_MARK)) {
		fputs("\"$p\"", fp);
	} else if (t) {
		const char *rest = t + strlen(TMP_MARK), *num = strstr(rest, NUM_MARK);

		if (t > a)
			fputs(nv_shell_quote(xasprintf("%.*s", (int)(t - a), a)), fp);
		if (strchr(rest, '*'))
			fprintf(fp, "\"$tmp\"%s", rest);
		else if (num)
			fprintf(fp, "\"$tmp%.*s$i%s\"", (int)(num - rest), rest, num + strlen(NUM_MARK));
		else
			fprintf(fp, "\"$tmp%s\"", rest);
	} else if ((t = strstr(a, NUM_MARK))) {
		/* a kept file or a remark file of part $i */
		fputs(nv_shell_quote(xasprintf("%.*s", (int)(t - a), a)), fp);
		fputs("\"$i\"", fp);
		fputs(nv_shell_quote(t + strlen(NUM_MARK)), fp);
	} else {
		fputs(nv_shell_quote(a), fp);
	}
}

static void
print_cmd(FILE *fp, char **av)
{
	for (size_t i = 0; av[i]; i++) {
		if (i)
			fputc(' ', fp);
		print_arg(fp, av[i]);
	}
}

#define MAX_STEPS 24

struct chain {
	char **argv[MAX_STEPS];
	const char *name[MAX_STEPS];
	char *in[MAX_STEPS], *out[MAX_STEPS]; /* files each step reads, writes (NULL: a pipe) */
	size_t n;
	const char *label;      /* "phase I", "phase II part 3", ... for -time */
	int timed;              /* done, its times recorded */
	struct nv_chain run;
};

static void
add_step(struct chain *c, const char *name, char **argv)
{
	if (c->n == MAX_STEPS)
		nv_fatal("more than %d steps in one chain", MAX_STEPS);
	c->name[c->n] = name;
	c->argv[c->n++] = argv;
}

/* The steps of pipe in phase ph, appended to c. */
static void
add_phase(struct chain *c, enum nv_pipe_id pipe, enum nv_phase ph, const char *dir)
{
	for (const struct nv_pipe_step *s = nv_pipe_steps; s->prog; s++)
		if (s->phase == ph && in_pipe(s, pipe) &&
		    (nv_drv.out != NV_OUT_LLVM || (s->stage != NV_STAGE_LLC && s->stage != NV_STAGE_REMAT)))
			add_step(c, s->prog, stage_argv(s, dir));
}

static size_t
count_phase(enum nv_pipe_id pipe, enum nv_phase ph)
{
	size_t n = 0;

	for (const struct nv_pipe_step *s = nv_pipe_steps; s->prog; s++)
		n += s->phase == ph && in_pipe(s, pipe);
	return n;
}

static int
has_phase(enum nv_pipe_id pipe, enum nv_phase ph)
{
	return count_phase(pipe, ph) > 0;
}

/* The input and output of a chain: the first step reads in, the last
 * writes out.  A chain with no step gets nv-opt, which verifies and writes. */
static void
wire(struct chain *c, const char *in, const char *out, const char *dir)
{
	if (c->n == 0) {
		static const struct nv_pipe_step writer = { "nv-opt", NV_STAGE_OPT, NV_PHASE_1, 0, "", 0, { 0 } };

		add_step(c, "nv-opt", stage_argv(&writer, dir));
	}
	if (in)
		c->argv[0] = append(c->argv[0], in, NULL);
	c->argv[c->n - 1] = append(c->argv[c->n - 1], "-o", out);
	c->in[0] = xstrdup(in ? in : "-");
	c->out[c->n - 1] = xstrdup(out);
}

/* -keep: every step writes DIR/BASE.N-STAGE.bc and the next one reads it;
 * N counts on from first, so that the steps of a build number in order
 * across its chains. */
static void
keep_files(struct chain *c, const char *base, size_t first)
{
	const char *kd = nv_drv.keep_dir ? nv_drv.keep_dir : ".";

	for (size_t i = 0; i + 1 < c->n; i++) {
		char *f = xasprintf("%s/%s.%zu-%s.bc", kd, base, first + i, c->name[i]);

		c->argv[i] = append(c->argv[i], "-o", f);
		c->argv[i + 1] = append(c->argv[i + 1], f, NULL);
		c->out[i] = f;
		c->in[i + 1] = xstrdup(f);
	}
}

static void
show_chain(FILE *fp, const struct chain *c, const char *indent)
{
	const char *joint = nv_drv.keep ? "\n" : " |\n";

	for (size_t i = 0; i < c->n; i++) {
		fputs(nv_drv.dryrun ? (i && !nv_drv.keep ? "  " : indent) : "#$ ", fp);
		if (nv_drv.dryrun && i && !nv_drv.keep)
			fputs(indent, fp);
		print_cmd(fp, c->argv[i]);
		fputs(i + 1 == c->n ? "\n" : joint, fp);
	}
}

/* -save-remarks DIR: every stage writes DIR/BASE.N-STAGE.opt.yaml, N and
 * STAGE as -keep names the modules, .opt.yaml as opt-viewer looks for. */
static struct nv_strv remark_paths;

static void
remark_files(struct chain *c, const char *base, size_t first)
{
	for (size_t i = 0; i < c->n; i++) {
		char *f;

		if (!strcmp(c->name[i], "front end"))
			continue;
		f = xasprintf("-pass-remarks-output=%s/%s.%zu-%s.opt.yaml", nv_drv.save_remarks, base,
		              first + i, c->name[i]);
		c->argv[i] = append(c->argv[i], f, NULL);
		nv_strv_push(&remark_paths, f + strlen("-pass-remarks-output="));
		free(f);
	}
}

/* A stage with nothing to say leaves an empty file, which llvm-remarkutil
 * rejects (as it rejects opt's): drop those. */
static void
drop_empty_remarks(void)
{
	for (size_t i = 0; i < remark_paths.n; i++) {
		struct stat st;

		if (stat(remark_paths.v[i], &st) == 0 && st.st_size == 0)
			unlink(remark_paths.v[i]);
	}
}

/* The files a chain's steps write beside the output: -keep's modules and
 * -save-remarks' YAML, both named BASE.N-STAGE. */
static void
name_files(struct chain *c, const char *base, size_t first)
{
	if (nv_drv.keep)
		keep_files(c, base, first);
	if (nv_drv.save_remarks)
		remark_files(c, base, first);
}

/*
 * The dependency file appears with the output or not at all: written, after
 * the output, atomically -- the front end's (in tmp) copied, or for a .bc
 * or .ll input the input as its one dependency.  0, or -1 after an error.
 */
static int
write_deps(const char *fe_deps)
{
	char *text;
	size_t len;
	int rc;

	if (fe_deps && nv_io_slurp(fe_deps, &text, &len))
		return -1;
	if (!fe_deps) {
		text = nv_drv.dep_phony ? xasprintf("%s: %s\n\n%s:\n", nv_drv.dep_target, nv_drv.input, nv_drv.input)
		                   : xasprintf("%s: %s\n", nv_drv.dep_target, nv_drv.input);
		len = strlen(text);
	}
	rc = nv_io_write(nv_drv.dep_file, text, len, 0, 0);
	free(text);
	return rc;
}

/* -MF defaults to the output with .d for its extension, -MT to the output. */
static void
dep_defaults(const char *out)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');

	if (!nv_drv.dep_file)
		nv_drv.dep_file = dot && (!slash || dot > slash) ? xasprintf("%.*s.d", (int)(dot - out), out)
		                                            : xasprintf("%s.d", out);
	nv_drv.dep_quote = !nv_drv.dep_target;
	if (!nv_drv.dep_target)
		nv_drv.dep_target = out;
}

static void
list_knobs(void)
{
	static const char *const types[] = { "bool", "int", "string" };

	for (int k = 0; k < NV_KNOB_COUNT; k++)
		printf("%s\t%s\t%s\t%s\t%s\n", nv_knobs[k].name, nv_stage_name(nv_knobs[k].stages),
		       types[nv_knobs[k].type], nv_knobs[k].def, nv_knobs[k].help);
}

static void
print_pipeline(const char *dir)
{
	static const char *const phase[] = { "", "phase I ", "phase II", "codegen " };
	enum nv_pipe_id pipe = the_pipe();

	printf("%s\n", nv_pipe_name(pipe));
	for (const struct nv_pipe_step *s = nv_pipe_steps; s->prog; s++) {
		char **av;

		if (!in_pipe(s, pipe))
			continue;
		av = stage_argv(s, dir);
		printf("  %s  %s", phase[s->phase], s->prog);
		for (size_t i = 1; av[i]; i++)
			printf(" %s", nv_shell_quote(av[i]));
		printf("\n");
	}
	if (has_phase(pipe, NV_PHASE_2))
		printf("(phase II runs per function: nv-split -n N cuts the module, each part runs the\n"
		       " phase II steps as its own chain, nv-link -split-map joins them before codegen)\n");
}

/* --- progress: a long compile on a terminal says where it is --- */

static struct {
	int on;                 /* stderr is a terminal, and no -v */
	struct timespec t0;     /* the compile's start */
	const char *what;       /* "front end", "phase I", "phase II" ... */
	size_t done, total;     /* chains done of a set run at once */
	int shown;
} prog;

static void
progress_start(void)
{
	const char *term = getenv("TERM");

	prog.on = isatty(2) && !nv_drv.verbose && !nv_drv.dryrun && (!term || strcmp(term, "dumb"));
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
}

/* The line, once the compile has run a second:
 * "nvcc-lite: k.cu: phase II, 3 of 8 parts done (4 s)".
 * It ends in a carriage return, so what a stage prints next starts over it. */
static void
progress_show(void)
{
	static char last[256];
	struct timespec t;
	char line[256];
	long secs;

	if (!prog.on || !prog.what)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	secs = (long)(t.tv_sec - prog.t0.tv_sec) - (t.tv_nsec < prog.t0.tv_nsec);
	if (secs < 1)
		return;
	if (prog.total > 1)
		snprintf(line, sizeof(line), "nvcc-lite: %s: %s, %zu of %zu parts done (%ld s)", nv_drv.input,
		         prog.what, prog.done, prog.total, secs);
	else
		snprintf(line, sizeof(line), "nvcc-lite: %s: %s (%ld s)", nv_drv.input, prog.what, secs);
	if (prog.shown && !strcmp(line, last))
		return;
	memcpy(last, line, sizeof(last));
	fprintf(stderr, "\r\033[K%s\r", line);
	fflush(stderr);
	prog.shown = 1;
}

static void
progress(const char *what, size_t done, size_t total)
{
	prog.what = what;
	prog.done = done;
	prog.total = total;
	progress_show();
}

/* Wipe the line before anything else is said, and when the compile ends. */
static void
progress_clear(void)
{
	if (prog.shown)
		fputs("\r\033[K", stderr);
	prog.shown = 0;
	prog.what = NULL;
}

/* --- running chains: one, or many at once within the jobserver --- */

static struct nv_js js;
static FILE *timing;

/* Paths to remove on a signal: set up before anything runs. */
static char **sig_paths;
static size_t nsig_paths;
static const char *sig_dir;

static void
on_signal(void)
{
	int saved = errno;

	nv_js_release_all();
	/* the stages were sent SIGTERM: let them remove their own temp files */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	errno = saved;
	for (size_t i = 0; i < nsig_paths; i++)
		unlink(sig_paths[i]);
	if (sig_dir)
		rmdir(sig_dir);
}

/*
 * -time, as nvcc writes it: a row per step with its own wall time, and one
 * with its CPU time ("ms (cpu)").  A step's own wall time runs from when
 * its input was all there (the step before it exited) to its own exit, so
 * the rows of a chain add up to the chain's time; a pipe's waits count for
 * the step that was working.
 */
static double
ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static double wall_in_steps; /* the rows' sum: the driver's row is the rest */

static void
record_times(const struct chain *c)
{
	double prev_exit = 0; /* ms after the chain's first spawn */

	if (!timing)
		return;
	for (size_t i = 0; i < c->n; i++) {
		double start = ms_between(&c->run.t0[0], &c->run.t0[i]), exit = start + c->run.ms[i];
		double own = exit - (i && prev_exit > start ? prev_exit : start);

		if (own < 0)
			own = 0;
		prev_exit = exit;
		wall_in_steps += own;
		for (int cpu = 0; cpu < 2; cpu++)
			fprintf(timing, "%s , %s (%s) , %s , %s , %s , nvcc-lite , %.4f , %s\n", nv_drv.input,
			        c->name[i], c->label, c->in[i] ? c->in[i] : "-", c->out[i] ? c->out[i] : "-",
			        nv_drv.arch, cpu ? c->run.cpu_ms[i] : own, cpu ? "ms (cpu)" : "ms");
	}
}

/* The driver's row: its wall time outside the steps, and its own CPU time. */
static void
record_driver(const struct timespec *t0, const char *out)
{
	struct timespec t1;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(timing, " , nvcc-lite (driver) ,  , %s ,  , nvcc-lite , %.4f , ms\n", out,
	        ms_between(t0, &t1) - wall_in_steps);
	fprintf(timing, " , nvcc-lite (driver) ,  , %s ,  , nvcc-lite , %.4f , ms (cpu)\n", out,
	        (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	                (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
}

static int
start(struct chain *c)
{
	int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC), rc;

	if (nv_drv.verbose)
		show_chain(stderr, c, "");
	rc = nv_chain_start(&c->run, c->argv, c->n, in_fd, -1, -1);
	close(in_fd);
	return rc;
}

/*
 * Every program of a chain, clang and the stages alike, prints its reason
 * before it exits 1 (bad input) or 2 (bad usage): the driver's line would
 * add nothing.  A signal or another status is news.
 */
static int
said_why(const struct nv_chain *c)
{
	int st = c->culprit >= 0 ? c->status[c->culprit] : 0;

	return c->culprit < -1 || (c->culprit >= 0 && WIFEXITED(st) &&
	                           (WEXITSTATUS(st) == NV_EXIT_ERROR || WEXITSTATUS(st) == NV_EXIT_USAGE));
}

/* Hold no more tokens than the chains running beyond the first (rule 5). */
static void
trim_tokens(size_t running)
{
	while (nv_js_held() > (running ? running - 1 : 0))
		nv_js_release(&js);
}

/*
 * After reaping: blame and report the first chain that failed (the others
 * failed because they were stopped, or after it), stop the rest, and take
 * the times of the chains now done.  Looked at afresh each time, as the
 * grace period of a blame reaps children of other chains too.  Returns
 * whether some chain has failed.
 */
static int
settle(struct chain *cs, size_t n, int failed)
{
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < n; i++) {
			struct nv_chain *w = &cs[i].run;

			if (!w->failed || w->culprit != -1)
				continue;
			progress_clear();
			nv_chain_blame(w);
			if (!failed && !said_why(w))
				nv_chain_report(w);
			else
				nv_diag_reported_elsewhere();
			for (size_t j = 0; !failed && j < n; j++)
				nv_chain_kill(&cs[j].run);
			failed = again = 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (cs[i].run.alive == 0 && !cs[i].timed) {
			cs[i].timed = 1;
			record_times(&cs[i]);
			if (prog.total > 1)
				progress(prog.what, prog.done + 1, prog.total);
		}
	return failed;
}

/* Run chains[0..n) at most max at once, or as make's tokens allow; -keep
 * runs each step alone.  0, or -1 when some chain failed (reported, the
 * others stopped). */
static int
run_chains(struct chain *cs, size_t n, size_t max)
{
	size_t next = 0, running = 0;
	int failed = 0, sigfd = nv_proc_sigchld_fd();

	progress(n > 1 ? "phase II" : cs[0].label, 0, n);
	while (next < n || running) {
		while (!failed && next < n) {
			if (running && js.active ? nv_js_try_acquire(&js) <= 0 : running >= max)
				break;
			if (start(&cs[next]))
				failed = 1;
			running += cs[next++].run.alive > 0;
			for (size_t i = 0; failed && i < next; i++)
				nv_chain_kill(&cs[i].run); /* reported: the others are stopped */
			if (failed)
				break;
		}
		while (nv_chain_wait(0))
			;
		failed = settle(cs, next, failed);
		running = 0;
		for (size_t i = 0; i < next; i++)
			running += cs[i].run.alive > 0;
		trim_tokens(running);
		if (running == 0) {
			if (failed || next == n)
				break;
			continue; /* the next chain takes our own slot */
		}
		{
			struct pollfd pf[2] = { { sigfd, POLLIN, 0 }, { js.rfd, POLLIN, 0 } };
			int want_token = js.active && !failed && next < n && running;
			char buf[64];

			if (poll(pf, want_token ? 2 : 1, prog.on ? 250 : -1) < 0 && errno != EINTR)
				nv_fatal("poll:");
			progress_show();
			while (read(sigfd, buf, sizeof(buf)) > 0)
				;
		}
	}
	trim_tokens(0);
	return failed ? -1 : 0;
}

static int
run_one(struct chain *c)
{
	if (nv_drv.keep) {
		/* one step at a time: each writes its file before the next reads it */
		for (size_t i = 0; i < c->n; i++) {
			struct chain one = { .n = 1, .label = c->label };

			one.argv[0] = c->argv[i];
			one.name[0] = c->name[i];
			one.in[0] = c->in[i];
			one.out[0] = c->out[i];
			if (run_chains(&one, 1, 1))
				return -1;
		}
		return 0;
	}
	return run_chains(c, 1, 1);
}

/* Functions the module at path defines (-1 if it cannot be read). */
static int
count_defs(const char *path)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef m;
	int n = -1;

	if (!nv_io_read_module(ctx, path, &m)) {
		n = (int)nv_split_count_defs(m);
		LLVMDisposeModule(m);
	}
	LLVMContextDispose(ctx);
	return n;
}

/* How many parts Phase II is cut into: make's -jN, -split-compile, else 1. */
static unsigned
parts_wanted(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (js.active)
		return js.hint > 0 ? (unsigned)js.hint : (unsigned)(cpus > 0 ? cpus : 1);
	if (nv_drv.split_compile == 0)
		return (unsigned)(cpus > 0 ? cpus : 1);
	return nv_drv.split_compile > 0 ? (unsigned)nv_drv.split_compile : 1;
}

/* The whole build.  tmp is the directory for intermediates (TMP_MARK in
 * -dryrun); base the input's stem. */
struct plan {
	const char *dir, *ext, *out, *tmp, *base;
	enum nv_pipe_id pipe;
	int is_cu;            /* the input goes through the front end */
	char *fe_out;         /* the front end's module, for a .cu input */
	struct nv_pch pch;    /* the header cache's entry for this command */
	const char *pch_use;  /* its precompiled header, when the front end uses it */
	char *fe_deps;        /* its dependency file (-MD), until the build succeeds */
	char *p1;             /* Phase I's output, when there is a Phase II */
	size_t n1;            /* steps before Phase II, front end included */
	unsigned nparts;
};

static char *
tmp_path(const struct plan *p, const char *what)
{
	return xasprintf("%s/%s.%s", p->tmp, p->base, what);
}

/* The front end runs alone, into a file: when it fails, its diagnostics
 * are the whole story, with no stage after it complaining of no input. */
static void
fe_chain(struct plan *p, struct chain *c)
{
	memset(c, 0, sizeof(*c));
	c->label = "front end";
	p->fe_out = xasprintf("%s/%s.0-cudafe.bc", p->tmp, p->base);
	if (nv_drv.deps && !p->fe_deps)
		p->fe_deps = nv_drv.dryrun ? xstrdup(nv_drv.dep_file) : xasprintf("%s/%s.0-cudafe.d", p->tmp, p->base);
	add_step(c, "front end", front_end(p->dir, p->fe_out, p->fe_deps, p->pch_use));
	c->in[0] = xstrdup(nv_drv.input);
	c->out[0] = xstrdup(p->fe_out);
}

/* The header cache's entry for this build: used when fresh; else built
 * now, unless another compile is building it (then this one goes without).
 * Nothing here fails the build: without a cache it is only slower.  A
 * build that prints anything (a warning in a header) is not cached, so the
 * warning is not lost on the next compile. */
static void
header_cache(struct plan *p, struct nv_strv *paths)
{
	struct nv_strv *av;
	struct chain c = { .label = "header cache" };
	char *dir, *err;
	int off = 0, rc, fd, nul;
	struct stat st;

	if (nv_drv.no_cache || !(dir = nv_pch_dir()))
		return;
	av = front_end_flags(p->dir, 0);
	nv_pch_init(&p->pch, dir, av->v);
	free(dir);
	if (nv_pch_fresh(&p->pch, &off)) {
		p->pch_use = off ? NULL : p->pch.pch;
		return;
	}
	if (nv_drv.dryrun || nv_pch_lock(&p->pch))
		return;
	nv_strv_push(paths, p->pch.lock);
	nv_strv_push(paths, p->pch.tmp_pch);
	nv_strv_push(paths, p->pch.tmp_deps);
	sig_paths = paths->v;
	nsig_paths = paths->n;
	nv_strv_push(av, "-Xclang");
	nv_strv_push(av, "-emit-pch");
	nv_strv_push(av, "-MD");
	nv_strv_push(av, "-MF");
	nv_strv_push(av, p->pch.tmp_deps);
	nv_strv_push(av, "-emit-llvm");
	nv_strv_push(av, "-c");
	nv_strv_push(av, p->pch.src);
	nv_strv_push(av, "-o");
	nv_strv_push(av, p->pch.tmp_pch);
	add_step(&c, "front end", av->v);
	c.in[0] = p->pch.src;
	c.out[0] = p->pch.pch;
	/* its diagnostics are not the user's business: kept aside, they say
	 * whether the headers can be cached */
	err = tmp_path(p, "pch.err");
	nv_strv_push(paths, err);
	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		nv_pch_abandon(&p->pch);
		free(err);
		return;
	}
	if (nv_drv.verbose)
		show_chain(stderr, &c, "");
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	rc = nv_chain_start(&c.run, c.argv, c.n, nul, -1, fd);
	close(fd);
	close(nul);
	while (!rc && c.run.alive > 0)
		nv_chain_wait(1);
	record_times(&c);
	rc = rc || c.run.failed;
	if (nv_pch_commit(&p->pch, !rc, stat(err, &st) == 0 && st.st_size == 0) == 0) {
		p->pch_use = p->pch.pch;
		nv_pch_trim(p->pch.dir, 32);
	}
	nv_chain_release(&c.run);
	unlink(err);
	free(err);
}

static void
phase1_chain(struct plan *p, struct chain *c)
{
	int split = has_phase(p->pipe, NV_PHASE_2);
	size_t first = p->fe_out ? 1 : 0;

	memset(c, 0, sizeof(*c));
	c->label = "phase I";
	add_phase(c, p->pipe, NV_PHASE_1, p->dir);
	if (!split)
		add_phase(c, p->pipe, NV_PHASE_CODEGEN, p->dir);
	if (split) {
		/* named like a kept file, so -keep keeps it under that name */
		p->p1 = xasprintf("%s/%s.%zu-%s.bc", p->tmp, p->base, first + (c->n ? c->n - 1 : 0),
		                  c->n ? c->name[c->n - 1] : "nv-opt");
	}
	wire(c, p->fe_out ? p->fe_out : nv_drv.input, split ? p->p1 : p->out, p->dir);
	p->n1 = first + c->n;
	name_files(c, p->base, first);
}

/* Phase II (and codegen) on one module: in -> out. */
static void
phase2_chain(struct plan *p, struct chain *c, const char *in, const char *out, int codegen,
             const char *label)
{
	memset(c, 0, sizeof(*c));
	c->label = label;
	add_phase(c, p->pipe, NV_PHASE_2, p->dir);
	if (codegen)
		add_phase(c, p->pipe, NV_PHASE_CODEGEN, p->dir);
	wire(c, in, out, p->dir);
	if (codegen) {
		name_files(c, p->base, p->n1);
	} else {
		char *kb = xasprintf("%s.%s", p->base, strrchr(label, ' ') + 1);

		name_files(c, kb, p->n1); /* BASE.K.N-STAGE for part K */
		free(kb);
	}
}

static void
split_chain(struct plan *p, struct chain *c)
{
	char *prefix = tmp_path(p, "split");
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *prog = nv_spawn_find("nv-split", p->dir);

	if (!prog)
		nv_fatal("cannot find nv-split beside nvcc-lite in %s", p->dir);
	memset(c, 0, sizeof(*c));
	c->label = "split";
	nv_strv_push(av, prog);
	nv_strv_pushf(av, "-n");
	nv_strv_pushf(av, "%u", p->nparts);
	nv_strv_push(av, "-o");
	nv_strv_push(av, prefix);
	nv_strv_push(av, p->p1);
	add_step(c, "nv-split", av->v);
	c->in[0] = xstrdup(p->p1);
	c->out[0] = xasprintf("%s.*.bc", prefix);
	free(prog);
	free(prefix);
}

/* nv-link -split-map joins the parts (a list, or one glob in -dryrun). */
static void
join_chain(struct plan *p, struct chain *c, char **parts, size_t n)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *prog = nv_spawn_find("nv-link", p->dir), *map = tmp_path(p, "split.map");

	if (!prog)
		nv_fatal("cannot find nv-link beside nvcc-lite in %s", p->dir);
	memset(c, 0, sizeof(*c));
	c->label = "join, codegen";
	nv_strv_push(av, prog);
	nv_strv_pushf(av, "-split-map=%s", map);
	for (size_t i = 0; i < n; i++)
		nv_strv_push(av, parts[i]);
	add_step(c, "nv-link", av->v);
	add_phase(c, p->pipe, NV_PHASE_CODEGEN, p->dir);
	c->argv[c->n - 1] = append(c->argv[c->n - 1], "-o", p->out);
	c->in[0] = n == 1 ? xstrdup(parts[0]) : xasprintf("%s ...", parts[0]);
	c->out[c->n - 1] = xstrdup(p->out);
	name_files(c, p->base, p->n1 + count_phase(p->pipe, NV_PHASE_2));
	free(prog);
	free(map);
}

static void
dryrun(struct plan *p)
{
	struct chain c;

	printf("#!/bin/sh\n# nvcc-lite %s: %s\nset -e\nexport NVCC_LITE_CHAIN=1\n", nv_pipe_name(p->pipe),
	       nv_drv.input);
	if (nv_drv.save_remarks)
		printf("mkdir -p %s\n", nv_shell_quote(nv_drv.save_remarks));
	if (p->is_cu) {
		header_cache(p, NULL);
		fe_chain(p, &c);
	}
	if (p->is_cu || has_phase(p->pipe, NV_PHASE_2)) {
		if (nv_drv.keep)
			printf("tmp=%s\n", nv_shell_quote(nv_drv.keep_dir ? nv_drv.keep_dir : "."));
		else
			printf("tmp=$(mktemp -d)\ntrap 'rm -rf \"$tmp\"' EXIT\n");
	}
	if (p->is_cu)
		show_chain(stdout, &c, "");
	phase1_chain(p, &c);
	show_chain(stdout, &c, "");
	if (!p->p1)
		return;
	if (p->nparts <= 1) {
		phase2_chain(p, &c, p->p1, p->out, 1, "phase II");
		show_chain(stdout, &c, "");
		return;
	}
	split_chain(p, &c);
	show_chain(stdout, &c, "");
	printf("for p in \"$tmp\"/%s.split.*.bc; do\n  i=${p%%.bc}; i=${i##*.}\n", p->base);
	{
		char *out = tmp_path(p, "p2." NUM_MARK ".bc");

		phase2_chain(p, &c, PART_MARK, out, 0, "phase II part " NUM_MARK);
		show_chain(stdout, &c, "  ");
		free(out);
	}
	printf("done\n");
	{
		char *glob = tmp_path(p, "p2.*.bc");

		join_chain(p, &c, &glob, 1);
		show_chain(stdout, &c, "");
		free(glob);
	}
}

/* The parts nv-split wrote, from its map: fewer than asked when it would
 * not cut (a module with aliases is one part). */
static int
split_parts(struct plan *p)
{
	char *path = xasprintf("%s/%s.split.map", p->tmp, p->base);
	struct nv_split_map map;
	int rc = nv_split_map_read(path, &map);

	if (!rc && map.nparts < p->nparts)
		p->nparts = map.nparts;
	nv_split_map_release(&map);
	free(path);
	return rc;
}

/* Every file the build may write in tmp, for cleanup (and the signal hook). */
static void
plan_paths(struct plan *p, struct nv_strv *paths)
{
	if (p->fe_out)
		nv_strv_push(paths, p->fe_out);
	if (p->fe_deps)
		nv_strv_push(paths, p->fe_deps);
	if (p->p1)
		nv_strv_push(paths, p->p1);
	for (unsigned i = 0; i < p->nparts; i++) {
		nv_strv_pushf(paths, "%s/%s.split.%u.bc", p->tmp, p->base, i);
		nv_strv_pushf(paths, "%s/%s.p2.%u.bc", p->tmp, p->base, i);
	}
	nv_strv_pushf(paths, "%s/%s.split.map", p->tmp, p->base);
}

static int
build(struct plan *p)
{
	struct chain c, *cs;
	struct nv_strv paths = { 0 }, outs = { 0 };
	int rc = 0, ndefs;

	plan_paths(p, &paths);
	sig_paths = paths.v;
	nsig_paths = paths.n;
	if (p->is_cu) {
		header_cache(p, &paths);
		fe_chain(p, &c);
		plan_paths(p, &paths); /* now with the front end's files */
		sig_paths = paths.v;
		nsig_paths = paths.n;
		rc = run_one(&c);
		if (!rc && p->pch_use && nv_drv.deps &&
		    nv_pch_fix_deps(&p->pch, p->fe_deps, nv_drv.input, nv_drv.deps == 1, nv_drv.dep_phony)) {
			nv_error("cannot rewrite the dependency file '%s'", nv_drv.dep_file);
			rc = -1;
		}
	}
	if (!rc) {
		phase1_chain(p, &c);
		plan_paths(p, &paths); /* now with Phase I's output */
		sig_paths = paths.v;
		nsig_paths = paths.n;
		rc = run_one(&c);
	}
	if (rc || !p->p1)
		goto out;
	ndefs = count_defs(p->p1);
	if (ndefs < 0) {
		rc = -1;
		goto out;
	}
	if (p->nparts > (unsigned)ndefs)
		p->nparts = ndefs > 0 ? (unsigned)ndefs : 1;
	if (p->nparts <= 1) {
		/* one function (or one part): no split, no join */
		phase2_chain(p, &c, p->p1, p->out, 1, "phase II");
		rc = run_one(&c);
		goto out;
	}
	split_chain(p, &c);
	rc = run_one(&c) || split_parts(p);
	cs = xcalloc(p->nparts, sizeof(*cs));
	for (unsigned i = 0; !rc && i < p->nparts; i++) {
		char *in = xasprintf("%s/%s.split.%u.bc", p->tmp, p->base, i);
		char *label = xasprintf("phase II part %u", i);

		nv_strv_pushf(&outs, "%s/%s.p2.%u.bc", p->tmp, p->base, i);
		phase2_chain(p, &cs[i], in, outs.v[i], 0, label);
		free(in);
	}
	for (unsigned i = 0; !rc && nv_drv.keep && i < p->nparts; i++)
		rc = run_one(&cs[i]); /* -keep: each step through its file, in turn */
	if (!rc && !nv_drv.keep)
		rc = run_chains(cs, p->nparts, p->nparts);
	if (!rc) {
		join_chain(p, &c, outs.v, outs.n);
		rc = run_one(&c);
	}
	free(cs);
out:
	if (!rc && nv_drv.deps)
		rc = write_deps(p->fe_deps);
	for (size_t i = 0; !nv_drv.keep && i < paths.n; i++)
		unlink(paths.v[i]);
	nsig_paths = 0;
	nv_strv_free(&outs);
	return rc;
}

static void
open_timing(void)
{
	struct stat st;
	int fresh = stat(nv_drv.time_file, &st) || st.st_size == 0;

	timing = fopen(nv_drv.time_file, "a");
	if (!timing)
		nv_fatal("cannot open -time file '%s':", nv_drv.time_file);
	if (fresh)
		fprintf(timing, "source file name , phase name , phase input files , phase output file , "
		                "arch , tool, metric , unit\n");
}

/* Every input is one nvcc-lite can compile and can read, before any is. */
static void
check_inputs(void)
{
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		const char *in = nv_drv.inputs.v[i], *ext = nv_drv.lang_cu ? "cu" : ext_of(in);

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

	return nv_drv.output ? xstrdup(nv_drv.output) : xasprintf("%s.%s", stem(input), ext[nv_drv.out]);
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
			dep_defaults(out);
			bad = nv_io_check_output(nv_drv.dep_file);
		}
		nv_drv.dep_file = dep_file;
		nv_drv.dep_target = dep_target;
		if (bad)
			nv_exit(NV_EXIT_ERROR);
	}
}

/* One input to one output, as nvcc does it for each input it is given. */
static int
compile(const char *input, const char *dir)
{
	struct plan p = { .dir = dir, .pipe = the_pipe() };
	const char *dep_file = nv_drv.dep_file, *dep_target = nv_drv.dep_target;
	char tmpl[4096];
	int rc;

	nv_drv.input = input;
	p.ext = nv_drv.lang_cu ? "cu" : ext_of(input);
	p.is_cu = !strcmp(p.ext, "cu");
	p.out = out_path(input);
	p.base = stem(input);
	if (nv_drv.deps)
		dep_defaults(p.out);
	p.nparts = parts_wanted();
	if (nv_drv.keep)
		p.tmp = nv_drv.keep_dir ? nv_drv.keep_dir : ".";
	else if (nv_drv.dryrun)
		p.tmp = TMP_MARK;
	if (nv_drv.dryrun) {
		dryrun(&p);
		rc = nv_drv_flush_stdout();
		goto out;
	}
	if (!p.tmp) {
		const char *t = getenv("TMPDIR");

		snprintf(tmpl, sizeof(tmpl), "%s/nvcc-lite.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmpl))
			nv_fatal("cannot create a temporary directory in %s:", t && *t ? t : "/tmp");
		p.tmp = tmpl;
		sig_dir = tmpl;
	}
	if (nv_drv.verbose && p.pipe != NV_PIPE_O0)
		fprintf(stderr, "#$ %s\n", nv_pipe_name(p.pipe));
	progress_start();
	rc = build(&p);
	progress_clear();
	drop_empty_remarks();
	if (sig_dir)
		rmdir(sig_dir);
	sig_dir = NULL;
	if (rc)
		remove_output(p.out);
out:
	nv_drv.dep_file = dep_file;
	nv_drv.dep_target = dep_target;
	return rc;
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
			list_knobs();
		return nv_drv_flush_stdout() ? NV_EXIT_ERROR : NV_EXIT_OK;
	}
	nv_drv_finish();
	dir = self_dir();
	if (nv_drv.print_pipeline) {
		print_pipeline(dir);
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
	if (!nv_drv.dryrun && nv_js_init(&js, getenv("MAKEFLAGS"), nv_drv.jobserver))
		nv_exit(NV_EXIT_ERROR);
	if (!nv_drv.dryrun && nv_drv.time_file)
		open_timing();
	if (!nv_drv.dryrun && nv_drv.save_remarks && mkdir(nv_drv.save_remarks, 0777) && errno != EEXIST)
		nv_fatal("cannot create '%s':", nv_drv.save_remarks);
	if (!nv_drv.dryrun && nv_drv.keep_dir && mkdir(nv_drv.keep_dir, 0777) && errno != EEXIST)
		nv_fatal("cannot create '%s':", nv_drv.keep_dir);
	nv_proc_on_signal(on_signal);
	/* a stage whose pipe brings nothing leaves the error to the one that failed */
	setenv("NVCC_LITE_CHAIN", "1", 1);
	for (size_t i = 0; i < nv_drv.inputs.n && !rc; i++)
		rc = compile(nv_drv.inputs.v[i], dir);
	nv_js_release_all();
	if (timing)
		record_driver(&t0, nv_drv.output ? nv_drv.output : "");
	if (timing && fclose(timing) && !rc)
		nv_fatal("cannot write -time file '%s':", nv_drv.time_file);
	nv_exit(rc ? NV_EXIT_ERROR : NV_EXIT_OK);
}
