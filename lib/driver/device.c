/*
 * device: the device pipeline of one input, planned as chains of
 * processes (job.h's nv_device).  The -Xcicc knobs routed to the stages
 * that own them, each stage's command, and the chains: the front end
 * alone, Phase I, and Phase II either whole with codegen or in parts
 * (nv-split, a part's chain, nv-link -split-map and codegen).  -keep and
 * -save-remarks name the files between steps.  run.c runs the chains, or
 * prints them under -dryrun.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "device.h"
#include "flags.h"
#include "frontend.h"
#include "job.h"

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

static int
in_pipe(const struct nv_pipe_step *s, enum nv_pipe_id pipe)
{
	return (s->in & (1u << pipe)) && !step_off(s);
}

/* The planning of a DEVICE job's chains into dev.  tmp is the directory
 * for intermediates (NV_DRV_TMP_MARK in -dryrun); base their stem. */
struct build {
	const struct nv_job *job;
	struct nv_device *dev;
	const char *dir, *out, *tmp, *base;
	enum nv_pipe_id pipe;
	char *fe_out;         /* the front end's module, for a .cu input */
	char *fe_deps;        /* its dependency file (-MD), until the build succeeds */
	char *p1;             /* Phase I's output, when there is a Phase II */
	size_t n1;            /* steps before Phase II, front end included */
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

		if ((nv_drv.rdc || nv_drv.keep_device_functions) && !strcmp(t, "-internalize"))
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
	if (s->stage == NV_STAGE_LINK && nv_drv.ldir && strstr(s->args, "--libdevice"))
		nv_strv_pushf(av, "--libdevice=%s/libdevice.10.bc", nv_drv.ldir);
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
		else if (nv_drv.lineinfo || b->job->explain_ir)
			nv_strv_push(av, "-lineinfo");
		/* nv-remat's decisions are keyed by lines: the tables go
		 * through the cut, and the codegen half drops them */
		else if (strstr(s->args, "-stop-after") &&
		         (nv_drv.save_decisions || nv_drv.decisions || b->job->decisions))
			nv_strv_push(av, "-lineinfo");
		if (b->job->kind == NV_OUT_CUBIN && !strstr(s->args, "-stop-after"))
			nv_strv_push(av, "-cubin");
		if (b->job->kind == NV_OUT_CUBIN && nv_drv.rdc)
			nv_strv_push(av, "-Xptxas=--compile-only");
		for (size_t i = 0; b->job->kind == NV_OUT_CUBIN && i < nv_drv.xptxas.n; i++)
			nv_strv_pushf(av, "-Xptxas=%s", nv_drv.xptxas.v[i]);
	}
	if ((b->job->decisions || nv_drv.decisions) &&
	    (s->stage == NV_STAGE_UNROLL || s->stage == NV_STAGE_INLINE || s->stage == NV_STAGE_VECTORIZE ||
	     s->stage == NV_STAGE_REMAT || strstr(s->args, "-pipeline=unswitch")))
		nv_strv_pushf(av, "-decisions=%s", b->job->decisions ? b->job->decisions : nv_drv.decisions);
	for (size_t i = 0; i < nv_drv.xcicc.n; i++)
		if (knob_for(nv_drv.xcicc.v[i], s->stage) ||
		    (nv_drv_remark_flag(nv_drv.xcicc.v[i]) && !b->job->explain_ir))
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

/* Whether step s writes what b's job writes: bitcode stops before
 * codegen, and --explain's IR at instruction selection before the codegen
 * that follows it. */
static int
in_output(const struct build *b, const struct nv_pipe_step *s)
{
	if (b->job->kind != NV_OUT_LLVM)
		return 1;
	if (b->job->explain_ir)
		return s->phase != NV_PHASE_CODEGEN;
	return s->stage != NV_STAGE_LLC && s->stage != NV_STAGE_REMAT;
}

/* The steps of b's pipe in phase ph, appended to c. */
static void
add_phase(const struct build *b, struct nv_drv_chain *c, enum nv_phase ph)
{
	for (const struct nv_pipe_step *s = nv_pipe_steps; s->prog; s++)
		if (s->phase == ph && in_pipe(s, b->pipe) && in_output(b, s))
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

/* -keep: every step writes TMP/BASE.N-STAGE.bc and the next one reads it
 * (the run's directory, whose files -keep puts in the keep directory at
 * the end); N counts on from first, so that the steps of a build number in
 * order across its chains. */
static void
keep_files(struct nv_drv_chain *c, const char *tmp, const char *base, size_t first)
{
	for (size_t i = 0; i + 1 < c->n; i++) {
		char *f = xasprintf("%s/%s.%zu-%s.bc", tmp, base, first + i, c->name[i]);

		c->argv[i] = append(c->argv[i], "-o", f);
		c->argv[i + 1] = append(c->argv[i + 1], f, NULL);
		c->out[i] = f;
		c->in[i + 1] = xstrdup(f);
	}
}

/* -save-remarks DIR: every stage writes DIR/BASE.N-STAGE.opt.yaml, N and
 * STAGE as -keep names the modules, .opt.yaml as opt-viewer looks for. */
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
		c->remarks[i] = xstrdup(f + strlen("-pass-remarks-output="));
		free(f);
	}
}

/* -save-decisions: every step that decides (nv-inline, nv-opt's unswitch, nv-unroll, nv-vectorize, nv-remat) writes
 * its lines to BASE.N-STAGE.dec in the run's directory; the run joins them
 * into the user's file. */
static void
decision_files(struct nv_drv_chain *c, const char *tmp, const char *base, size_t first)
{
	for (size_t i = 0; i < c->n; i++) {
		char *f;
		int unswitch = 0;

		for (char **a = c->argv[i]; *a && !unswitch; a++)
			unswitch = !strcmp(*a, "-pipeline=unswitch");
		if (strcmp(c->name[i], "nv-unroll") && strcmp(c->name[i], "nv-inline") &&
		    strcmp(c->name[i], "nv-vectorize") && strcmp(c->name[i], "nv-remat") && !unswitch)
			continue;
		f = xasprintf("-save-decisions=%s/%s.%zu-%s.dec", tmp, base, first + i, c->name[i]);
		c->argv[i] = append(c->argv[i], f, NULL);
		c->decisions[i] = xstrdup(f + strlen("-save-decisions="));
		free(f);
	}
}

/* The files a chain's steps write beside the output: -keep's modules and
 * -save-remarks' YAML (not --explain's compile's), both named BASE.N-STAGE. */
static void
name_files(const struct build *b, struct nv_drv_chain *c, const char *tmp, const char *base, size_t first)
{
	if (nv_drv.keep)
		keep_files(c, tmp, base, first);
	if (nv_drv.save_remarks && !b->job->explain_ir)
		remark_files(c, base, first);
	if ((nv_drv.save_decisions && !b->job->explain_ir && !b->job->whatif) || b->job->decisions_out)
		decision_files(c, tmp, base, first);
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
	if (p->dev->deps)
		p->fe_deps = nv_drv.dryrun ? xstrdup(p->dev->dep.file) : xasprintf("%s/%s.0-cudafe.d", p->tmp, p->base);
	/* clang writes its time trace where no one else can, and it is put in
	 * place, as every output is (no write through a link planted there) */
	if (nv_drv.time_trace)
		p->dev->fe_trace = tmp_path(p, "time-trace.json");
	add_step(c, "front end", nv_drv_front_end(p->dir, p->job->arch, p->job->input, p->fe_out, p->fe_deps,
	                                          &p->dev->dep, p->dev->fe_trace, p->job->quiet,
	                                          p->job->explain_ir || p->job->whatif));
	c->in[0] = xstrdup(p->job->input);
	c->out[0] = xstrdup(p->fe_out);
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
	name_files(p, c, p->tmp, p->base, first);
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
		name_files(p, c, p->tmp, p->base, p->n1);
	} else {
		char *kb = xasprintf("%s.%s", p->base, strrchr(label, ' ') + 1);

		name_files(p, c, p->tmp, kb, p->n1); /* BASE.K.N-STAGE for part K */
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
	nv_strv_push(av, "-n");
	nv_strv_push(av, NV_DRV_COUNT_MARK); /* the run's (NV_DRV_SPLIT_COUNT) */
	nv_strv_push(av, "-o");
	nv_strv_push(av, prefix);
	nv_strv_push(av, p->p1);
	add_step(c, "nv-split", av->v);
	c->in[0] = xstrdup(p->p1);
	c->out[0] = xasprintf("%s.*.bc", prefix);
	free(prog);
	free(prefix);
}

/* nv-link -split-map joins the parts, named by their glob (the run puts
 * their list in its place, NV_DRV_JOIN_PARTS), and codegen. */
static void
join_chain(struct build *p, struct nv_drv_chain *c)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	char *prog = nv_spawn_find("nv-link", p->dir), *map = tmp_path(p, "split.map");
	char *parts = tmp_path(p, "p2.*.bc");

	if (!prog)
		nv_fatal("cannot find nv-link beside nvcc-lite in %s", p->dir);
	chain_init(p, c, "join and codegen");
	nv_strv_push(av, prog);
	nv_strv_pushf(av, "-split-map=%s", map);
	nv_strv_push(av, parts); /* NV_DRV_JOIN_PARTS */
	add_step(c, "nv-link", av->v);
	add_phase(p, c, NV_PHASE_CODEGEN);
	c->argv[c->n - 1] = append(c->argv[c->n - 1], "-o", p->out);
	c->in[0] = parts;
	c->out[c->n - 1] = xstrdup(p->out);
	name_files(p, c, p->tmp, p->base, p->n1 + count_phase(p->pipe, NV_PHASE_2));
	free(prog);
	free(map);
}

void
nv_drv_plan_device(struct nv_plan *pl, struct nv_job *j)
{
	struct nv_device *d = xcalloc(1, sizeof(*d));
	const char *ext = nv_drv.lang ? nv_drv.lang : nv_drv_ext(j->input);
	struct build b = { .job = j, .dev = d, .dir = pl->dir, .out = j->output, .pipe = nv_drv_pipe() };

	b.base = d->base = j->base ? xstrdup(j->base) : nv_drv_stem(j->input);
	b.tmp = d->tmp = nv_plan_tmp_dir(pl);
	d->deps = nv_drv.deps && j->deps_for;
	if (d->deps)
		nv_drv_deps(j->deps_for, &d->dep);
	d->uses_tmp = !strcmp(ext, "cu") || has_phase(b.pipe, NV_PHASE_2);
	if (!strcmp(ext, "cu")) {
		fe_chain(&b, &d->fe);
		d->fe_out = b.fe_out;
		d->fe_deps = b.fe_deps;
		d->cache = nv_drv_fe_cache(b.dir, j->arch, 0, j->explain_ir || j->whatif);
		d->fe_at = d->cache ? argv_len(d->cache->flags) : 0;
	}
	phase1_chain(&b, &d->p1);
	d->p1_out = b.p1;
	if (b.p1) {
		char *out = tmp_path(&b, "p2." NV_DRV_NUM_MARK ".bc");

		phase2_chain(&b, &d->p2, b.p1, b.out, 1, "phase II");
		split_chain(&b, &d->split);
		phase2_chain(&b, &d->part, NV_DRV_PART_MARK, out, 0, "phase II part " NV_DRV_NUM_MARK);
		join_chain(&b, &d->join);
		free(out);
	}
	j->dev = d;
}
