/*
 * device: the device pipeline of one input, as chains of processes.
 * The -Xcicc knobs routed to the stages that own them, each stage's
 * command, and the chains: the front end alone, Phase I, and Phase II
 * either with codegen or per part (nv-split, the parts, nv-link
 * -split-map and codegen).  -keep and -save-remarks name the files between
 * steps; -dryrun prints the chains as a script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "../base/diag.h"
#include "../base/io.h"
#include "../base/knobs.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "../stages/split.h"
#include "driver.h"
#include "pch.h"

/* Where the programs live: beside this executable. */
char *
nv_drv_self_dir(void)
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

const char *
nv_drv_ext(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	return dot && (!slash || dot > slash) ? dot + 1 : "";
}

/* "dir/k.cu" -> "k" */
char *
nv_drv_stem(const char *path)
{
	const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
	const char *dot = strrchr(b, '.');

	return dot ? xasprintf("%.*s", (int)(dot - b), b) : xstrdup(b);
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

enum nv_pipe_id
nv_drv_pipe(void)
{
	return nv_drv.fc >= 0 ? (enum nv_pipe_id)nv_drv.fc : (enum nv_pipe_id)nv_drv.olevel;
}

static int
in_pipe(const struct nv_pipe_step *s, enum nv_pipe_id pipe)
{
	return (s->in & (1u << pipe)) && !step_off(s);
}

/* The whole build of a DEVICE job (its input, arch, kind and output).  tmp
 * is the directory for intermediates (NV_DRV_TMP_MARK in -dryrun); base the
 * input's stem. */
struct build {
	const struct nv_job *job;
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
	int deps;             /* this build writes the -MD/-MMD file (of job->deps_for) */
};

static char **
stage_argv(const struct build *b, const struct nv_pipe_step *s)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *prog = nv_spawn_find(s->prog, b->dir);
	char *args = xstrdup(s->args), *save = NULL;

	if (!prog)
		nv_fatal("cannot find %s beside nvcc-lite in %s", s->prog, b->dir);
	nv_strv_push(av, prog);
	free(prog);
	for (char *t = strtok_r(args, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *pct = strstr(t, "%O");

		if (nv_drv.rdc && !strcmp(t, "-internalize"))
			continue; /* -rdc=true: other files may call in, so no whole-program mode */

		if (pct)
			nv_strv_pushf(av, "%.*s%d%s", (int)(pct - t), t, nv_pipe_olevel(b->pipe), pct + 2);
		else
			nv_strv_push(av, t);
	}
	free(args);
	if (s->takes_arch)
		nv_strv_pushf(av, "-arch=%s", b->job->arch);
	if (s->stage == NV_STAGE_REFLECT || s->stage == NV_STAGE_LLC) {
		if (nv_drv.ftz >= 0)
			nv_strv_pushf(av, "-ftz=%d", nv_drv.ftz);
		if (nv_drv.prec_div == 0)
			nv_strv_push(av, "-prec-div=0");
		if (nv_drv.prec_sqrt == 0)
			nv_strv_push(av, "-prec-sqrt=0");
	}
	if (s->stage == NV_STAGE_LINK && nv_drv.fast_math)
		nv_strv_push(av, "-fast-math");
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
		if (b->job->kind == NV_OUT_CUBIN && !strstr(s->args, "-stop-after"))
			nv_strv_push(av, "-cubin");
		for (size_t i = 0; b->job->kind == NV_OUT_CUBIN && i < nv_drv.xptxas.n; i++)
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

static void
add_step(struct nv_drv_chain *c, const char *name, char **argv)
{
	if (c->n == NV_DRV_MAX_STEPS)
		nv_fatal("more than %d steps in one chain", NV_DRV_MAX_STEPS);
	c->name[c->n] = name;
	c->argv[c->n++] = argv;
}

/* The steps of b's pipe in phase ph, appended to c. */
static void
add_phase(const struct build *b, struct nv_drv_chain *c, enum nv_phase ph)
{
	for (const struct nv_pipe_step *s = nv_pipe_steps; s->prog; s++)
		if (s->phase == ph && in_pipe(s, b->pipe) &&
		    (b->job->kind != NV_OUT_LLVM || (s->stage != NV_STAGE_LLC && s->stage != NV_STAGE_REMAT)))
			add_step(c, s->prog, stage_argv(b, s));
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
wire(const struct build *b, struct nv_drv_chain *c, const char *in, const char *out)
{
	if (c->n == 0) {
		static const struct nv_pipe_step writer = { "nv-opt", NV_STAGE_OPT, NV_PHASE_1, 0, "", 0, { 0 } };

		add_step(c, "nv-opt", stage_argv(b, &writer));
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
keep_files(struct nv_drv_chain *c, const char *base, size_t first)
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

/* -save-remarks DIR: every stage writes DIR/BASE.N-STAGE.opt.yaml, N and
 * STAGE as -keep names the modules, .opt.yaml as opt-viewer looks for. */
static struct nv_strv remark_paths;

static void
remark_files(struct nv_drv_chain *c, const char *base, size_t first)
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
name_files(struct nv_drv_chain *c, const char *base, size_t first)
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
write_deps(const char *input, const char *fe_deps)
{
	char *text;
	size_t len;
	int rc;

	if (fe_deps && nv_io_slurp(fe_deps, &text, &len))
		return -1;
	if (!fe_deps) {
		text = nv_drv.dep_phony ? xasprintf("%s: %s\n\n%s:\n", nv_drv.dep_target, input, input)
		                   : xasprintf("%s: %s\n", nv_drv.dep_target, input);
		len = strlen(text);
	}
	rc = nv_io_write(nv_drv.dep_file, text, len, 0, 0);
	free(text);
	return rc;
}

/* -MF defaults to the output with .d for its extension, -MT to the output. */
void
nv_drv_dep_defaults(const char *out)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');

	if (!nv_drv.dep_file)
		nv_drv.dep_file = dot && (!slash || dot > slash) ? xasprintf("%.*s.d", (int)(dot - out), out)
		                                            : xasprintf("%s.d", out);
	nv_drv.dep_quote = !nv_drv.dep_target;
	if (!nv_drv.dep_target)
		nv_drv.dep_target = out;
}

void
nv_drv_list_knobs(void)
{
	static const char *const types[] = { "bool", "int", "string" };

	for (int k = 0; k < NV_KNOB_COUNT; k++)
		printf("%s\t%s\t%s\t%s\t%s\n", nv_knobs[k].name, nv_stage_name(nv_knobs[k].stages),
		       types[nv_knobs[k].type], nv_knobs[k].def, nv_knobs[k].help);
}

void
nv_drv_print_pipeline(void)
{
	static const char *const phase[] = { "", "phase I ", "phase II", "codegen " };
	enum nv_pipe_id pipe = nv_drv_pipe();
	struct nv_job job = { .act = NV_ACT_DEVICE, .arch = nv_drv.arch, .kind = nv_drv.out };
	struct build b = { .job = &job, .dir = nv_drv_self_dir(), .pipe = pipe };

	printf("%s\n", nv_pipe_name(pipe));
	for (const struct nv_pipe_step *s = nv_pipe_steps; s->prog; s++) {
		char **av;

		if (!in_pipe(s, pipe))
			continue;
		av = stage_argv(&b, s);
		printf("  %s  %s", phase[s->phase], s->prog);
		for (size_t i = 1; av[i]; i++)
			printf(" %s", nv_shell_quote(av[i]));
		printf("\n");
	}
	if (has_phase(pipe, NV_PHASE_2))
		printf("(phase II runs per function: nv-split -n N cuts the module, each part runs the\n"
		       " phase II steps as its own chain, nv-link -split-map joins them before codegen)\n");
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

	if (nv_drv_js.active)
		return nv_drv_js.hint > 0 ? (unsigned)nv_drv_js.hint : (unsigned)(cpus > 0 ? cpus : 1);
	if (nv_drv.split_compile == 0)
		return (unsigned)(cpus > 0 ? cpus : 1);
	return nv_drv.split_compile > 0 ? (unsigned)nv_drv.split_compile : 1;
}

/* An empty chain of b's: its label, and the source and arch of its -time rows. */
static void
chain_init(const struct build *b, struct nv_drv_chain *c, const char *label)
{
	memset(c, 0, sizeof(*c));
	c->label = label;
	c->src = b->job->input;
	c->arch = b->job->arch;
}

static char *
tmp_path(const struct build *p, const char *what)
{
	return xasprintf("%s/%s.%s", p->tmp, p->base, what);
}

/* The front end runs alone, into a file: when it fails, its diagnostics
 * are the whole story, with no stage after it complaining of no input. */
static void
fe_chain(struct build *p, struct nv_drv_chain *c)
{
	chain_init(p, c, "front end");
	p->fe_out = xasprintf("%s/%s.0-cudafe.bc", p->tmp, p->base);
	if (p->deps && !p->fe_deps)
		p->fe_deps = nv_drv.dryrun ? xstrdup(nv_drv.dep_file) : xasprintf("%s/%s.0-cudafe.d", p->tmp, p->base);
	add_step(c, "front end", nv_drv_front_end(p->job, p->dir, p->fe_out, p->fe_deps, p->pch_use ? &p->pch : NULL));
	c->in[0] = xstrdup(p->job->input);
	c->out[0] = xstrdup(p->fe_out);
}

/* The header cache's entry for this build (nv_drv_header_cache). */
static void
header_cache(struct build *p, struct nv_strv *paths)
{
	char *err = tmp_path(p, "pch.err");

	p->pch_use = nv_drv_header_cache(p->job, p->dir, &p->pch, err, paths, 0);
	free(err);
}

static void
phase1_chain(struct build *p, struct nv_drv_chain *c)
{
	int split = has_phase(p->pipe, NV_PHASE_2);
	size_t first = p->fe_out ? 1 : 0;

	chain_init(p, c, "phase I");
	add_phase(p, c, NV_PHASE_1);
	if (!split)
		add_phase(p, c, NV_PHASE_CODEGEN);
	if (split) {
		/* named like a kept file, so -keep keeps it under that name */
		p->p1 = xasprintf("%s/%s.%zu-%s.bc", p->tmp, p->base, first + (c->n ? c->n - 1 : 0),
		                  c->n ? c->name[c->n - 1] : "nv-opt");
	}
	wire(p, c, p->fe_out ? p->fe_out : p->job->input, split ? p->p1 : p->out);
	p->n1 = first + c->n;
	name_files(c, p->base, first);
}

/* Phase II (and codegen) on one module: in -> out. */
static void
phase2_chain(struct build *p, struct nv_drv_chain *c, const char *in, const char *out, int codegen,
             const char *label)
{
	chain_init(p, c, label);
	add_phase(p, c, NV_PHASE_2);
	if (codegen)
		add_phase(p, c, NV_PHASE_CODEGEN);
	wire(p, c, in, out);
	if (codegen) {
		name_files(c, p->base, p->n1);
	} else {
		char *kb = xasprintf("%s.%s", p->base, strrchr(label, ' ') + 1);

		name_files(c, kb, p->n1); /* BASE.K.N-STAGE for part K */
		free(kb);
	}
}

static void
split_chain(struct build *p, struct nv_drv_chain *c)
{
	char *prefix = tmp_path(p, "split");
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *prog = nv_spawn_find("nv-split", p->dir);

	if (!prog)
		nv_fatal("cannot find nv-split beside nvcc-lite in %s", p->dir);
	chain_init(p, c, "split");
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
join_chain(struct build *p, struct nv_drv_chain *c, char **parts, size_t n)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *prog = nv_spawn_find("nv-link", p->dir), *map = tmp_path(p, "split.map");

	if (!prog)
		nv_fatal("cannot find nv-link beside nvcc-lite in %s", p->dir);
	chain_init(p, c, "join and codegen");
	nv_strv_push(av, prog);
	nv_strv_pushf(av, "-split-map=%s", map);
	for (size_t i = 0; i < n; i++)
		nv_strv_push(av, parts[i]);
	add_step(c, "nv-link", av->v);
	add_phase(p, c, NV_PHASE_CODEGEN);
	c->argv[c->n - 1] = append(c->argv[c->n - 1], "-o", p->out);
	c->in[0] = n == 1 ? xstrdup(parts[0]) : xasprintf("%s ...", parts[0]);
	c->out[c->n - 1] = xstrdup(p->out);
	name_files(c, p->base, p->n1 + count_phase(p->pipe, NV_PHASE_2));
	free(prog);
	free(map);
}

static void
dryrun(struct build *p)
{
	struct nv_drv_chain c;

	if (p->is_cu) {
		header_cache(p, NULL);
		fe_chain(p, &c);
		nv_drv_show_chain(stdout, &c, "");
	}
	phase1_chain(p, &c);
	nv_drv_show_chain(stdout, &c, "");
	if (!p->p1)
		return;
	if (p->nparts <= 1) {
		phase2_chain(p, &c, p->p1, p->out, 1, "phase II");
		nv_drv_show_chain(stdout, &c, "");
		return;
	}
	split_chain(p, &c);
	nv_drv_show_chain(stdout, &c, "");
	printf("for p in \"$tmp\"/%s.split.*.bc; do\n  i=${p%%.bc}; i=${i##*.}\n", p->base);
	{
		char *out = tmp_path(p, "p2." NV_DRV_NUM_MARK ".bc");

		phase2_chain(p, &c, NV_DRV_PART_MARK, out, 0, "phase II part " NV_DRV_NUM_MARK);
		nv_drv_show_chain(stdout, &c, "  ");
		free(out);
	}
	printf("done\n");
	{
		char *glob = tmp_path(p, "p2.*.bc");

		join_chain(p, &c, &glob, 1);
		nv_drv_show_chain(stdout, &c, "");
		free(glob);
	}
}

/* The parts nv-split wrote, from its map: fewer than asked when it would
 * not cut (a module with aliases is one part). */
static int
split_parts(struct build *p)
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
plan_paths(struct build *p, struct nv_strv *paths)
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

/*
 * The front end, through the header cache's entry when there is one: as a
 * try, its diagnostics kept aside.  A try that fails, or that printed what
 * a compile without the entry would print otherwise (a header named by its
 * full path), is done again without the entry, and that compile is the one
 * the user sees; an entry that failed where the compile without it did not
 * is dropped.  0 or -1.
 */
static int
front_end(struct build *p, struct nv_strv *paths)
{
	struct nv_drv_chain c;
	char *err;
	struct stat st;
	int rc, said;

	header_cache(p, paths);
	err = tmp_path(p, "fe.err");
	fe_chain(p, &c);
	plan_paths(p, paths); /* now with the front end's files */
	nv_strv_push(paths, err);
	nv_drv_sig_paths(paths);
	if (!p->pch_use) {
		free(err);
		return nv_drv_run_one(&c);
	}
	c.err_file = err;
	c.quiet = 1;
	rc = nv_drv_run_one(&c);
	said = stat(err, &st) == 0 && st.st_size > 0;
	if (!rc && (!said || !nv_pch_renames(&p->pch))) {
		if (said && nv_drv_copy_to_stderr(err))
			rc = -1;
		unlink(err);
		if (!rc && p->deps &&
		    nv_pch_fix_deps(&p->pch, p->fe_deps, p->job->input, nv_drv.deps == 1, nv_drv.dep_phony)) {
			nv_error("cannot rewrite the dependency file '%s'", nv_drv.dep_file);
			rc = -1;
		}
		free(err);
		return rc;
	}
	unlink(err);
	free(err);
	p->pch_use = NULL;
	fe_chain(p, &c);
	if (!nv_drv_run_one(&c)) {
		if (rc)
			nv_pch_drop(&p->pch);
		return 0;
	}
	return -1;
}

static int
build(struct build *p)
{
	struct nv_drv_chain c, *cs;
	struct nv_strv paths = { 0 }, outs = { 0 };
	int rc = 0, ndefs;

	plan_paths(p, &paths);
	nv_drv_sig_paths(&paths);
	if (p->is_cu)
		rc = front_end(p, &paths);
	if (!rc) {
		phase1_chain(p, &c);
		plan_paths(p, &paths); /* now with Phase I's output */
		nv_drv_sig_paths(&paths);
		rc = nv_drv_run_one(&c);
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
		rc = nv_drv_run_one(&c);
		goto out;
	}
	split_chain(p, &c);
	rc = nv_drv_run_one(&c) || split_parts(p);
	cs = xcalloc(p->nparts, sizeof(*cs));
	for (unsigned i = 0; !rc && i < p->nparts; i++) {
		char *in = xasprintf("%s/%s.split.%u.bc", p->tmp, p->base, i);
		char *label = xasprintf("phase II part %u", i);

		nv_strv_pushf(&outs, "%s/%s.p2.%u.bc", p->tmp, p->base, i);
		phase2_chain(p, &cs[i], in, outs.v[i], 0, label);
		free(in);
	}
	for (unsigned i = 0; !rc && nv_drv.keep && i < p->nparts; i++)
		rc = nv_drv_run_one(&cs[i]); /* -keep: each step through its file, in turn */
	if (!rc && !nv_drv.keep)
		rc = nv_drv_run_chains(cs, p->nparts, p->nparts);
	if (!rc) {
		join_chain(p, &c, outs.v, outs.n);
		rc = nv_drv_run_one(&c);
	}
	free(cs);
out:
	if (!rc && p->deps)
		rc = write_deps(p->job->input, p->fe_deps);
	for (size_t i = 0; !nv_drv.keep && i < paths.n; i++)
		unlink(paths.v[i]);
	nv_drv_sig_paths(NULL);
	nv_strv_free(&outs);
	return rc;
}

/* The build of DEVICE job j of plan pl, its tmp not yet known. */
static void
build_init(struct build *p, const struct nv_plan *pl, const struct nv_job *j)
{
	memset(p, 0, sizeof(*p));
	p->job = j;
	p->dir = pl->dir;
	p->pipe = nv_drv_pipe();
	p->ext = nv_drv.lang_cu ? "cu" : nv_drv_ext(j->input);
	p->is_cu = !strcmp(p->ext, "cu");
	p->out = j->output;
	p->base = j->base ? xstrdup(j->base) : nv_drv_stem(j->input);
	p->deps = nv_drv.deps && j->deps_for;
	if (p->deps)
		nv_drv_dep_defaults(j->deps_for);
	p->nparts = parts_wanted();
}

int
nv_drv_device_uses_tmp(const struct nv_job *j)
{
	const char *ext = nv_drv.lang_cu ? "cu" : nv_drv_ext(j->input);

	return !strcmp(ext, "cu") || has_phase(nv_drv_pipe(), NV_PHASE_2);
}

void
nv_drv_device_dryrun(const struct nv_plan *pl, const struct nv_job *j)
{
	struct build p;
	const char *dep_file = nv_drv.dep_file, *dep_target = nv_drv.dep_target;

	build_init(&p, pl, j);
	p.tmp = pl->tmp;
	dryrun(&p);
	nv_drv.dep_file = dep_file;
	nv_drv.dep_target = dep_target;
}

/* One input to one output, as nvcc does it for each input it is given. */
int
nv_drv_device_run(struct nv_plan *pl, const struct nv_job *j)
{
	struct build p;
	const char *dep_file = nv_drv.dep_file, *dep_target = nv_drv.dep_target;
	int rc;

	build_init(&p, pl, j);
	p.tmp = nv_plan_tmp_dir(pl);
	/* the pipeline and the virtual architecture, as nvcc -v shows cicc's */
	if (nv_drv.verbose)
		fprintf(stderr, "#$ %s -arch compute_%s\n", nv_pipe_name(p.pipe), j->arch + 3);
	nv_drv_progress_start(j->input);
	rc = build(&p);
	nv_drv_progress_clear();
	drop_empty_remarks();
	nv_drv.dep_file = dep_file;
	nv_drv.dep_target = dep_target;
	return rc;
}
