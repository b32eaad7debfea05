/*
 * plan: the build as data before anything runs (clang's driver in small).
 * nv_drv_plan turns the command line into jobs, a row of the output table
 * per output kind, through the builders (frontend.c, device.c, host.c,
 * link.c); run.c runs them or prints them as a script, walking the same
 * list.  Every job shares the run's directory for intermediates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/decisions.h"
#include "../base/diag.h"
#include "../base/io.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "cuda.h"
#include "device.h"
#include "flags.h"
#include "frontend.h"
#include "gencode.h"
#include "host.h"
#include "job.h"
#include "link.h"
#include "plan.h"

/* What an input is, by its extension (-x LANG: every source is LANG). */
enum lang { LANG_CU = 1, LANG_MODULE = 2, LANG_CXX = 4, LANG_C = 8, LANG_OBJ = 16 };

static const struct {
	const char *ext;
	enum lang lang;
} langs[] = {
	{ "cu", LANG_CU },   { "bc", LANG_MODULE }, { "ll", LANG_MODULE }, { "cpp", LANG_CXX },
	{ "cc", LANG_CXX },  { "cxx", LANG_CXX },   { "c++", LANG_CXX },   { "C", LANG_CXX },
	{ "c", LANG_C },     { "o", LANG_OBJ },     { "a", LANG_OBJ },     { "so", LANG_OBJ },
};

/* What a command line writes: the output kinds, a row each.  takes: the
 * inputs it reads; ext: each input's output is stem.ext, unless -o; name:
 * the one output of all the inputs (a link), unless -o. */
static const struct out_row {
	enum nv_out kind;
	const char *what;
	unsigned takes;
	const char *ext, *name;
	const char *expected; /* for "don't know what to do with" */
} outs[] = {
	{ NV_OUT_PTX, "-ptx", LANG_CU | LANG_MODULE, "ptx", NULL, "a .cu, .bc or .ll file (or -x cu)" },
	{ NV_OUT_CUBIN, "-cubin", LANG_CU | LANG_MODULE, "cubin", NULL, "a .cu, .bc or .ll file (or -x cu)" },
	{ NV_OUT_LLVM, "-emit-llvm", LANG_CU | LANG_MODULE, "bc", NULL, "a .cu, .bc or .ll file (or -x cu)" },
	{ NV_OUT_FATBIN, "-fatbin", LANG_CU, "fatbin", NULL, "a .cu file (or -x cu)" },
	{ NV_OUT_OBJ, "-c", LANG_CU | LANG_CXX | LANG_C, "o", NULL, "a .cu, .cpp or .c file" },
	{ NV_OUT_DLINK, "-dlink", LANG_CU | LANG_CXX | LANG_C | LANG_OBJ, NULL, "a_dlink.o",
	  "a .cu, .cpp, .c, .o, .a or .so file" },
	{ NV_OUT_LIB, "-lib", LANG_CU | LANG_CXX | LANG_C | LANG_OBJ, NULL, "a.a",
	  "a .cu, .cpp, .c, .o, .a or .so file" },
	{ NV_OUT_EXE, "linking", LANG_CU | LANG_CXX | LANG_C | LANG_OBJ, NULL, "a.out",
	  "a .cu, .cpp, .c, .o, .a or .so file" },
	{ NV_OUT_DEPS, "-M", LANG_CU | LANG_CXX | LANG_C, NULL, NULL, "a .cu, .cpp or .c file" },
	{ NV_OUT_PREPROC, "-E", LANG_CU | LANG_CXX | LANG_C, NULL, NULL, "a .cu, .cpp or .c file" },
};

static const struct out_row *
out_row(void)
{
	for (size_t i = 0; i < sizeof(outs) / sizeof(*outs); i++)
		if (outs[i].kind == nv_drv.out)
			return &outs[i];
	nv_fatal("no row for output kind %d", (int)nv_drv.out);
}

static enum lang
by_ext(const char *ext)
{
	for (size_t i = 0; i < sizeof(langs) / sizeof(*langs); i++)
		if (!strcmp(langs[i].ext, ext))
			return langs[i].lang;
	return 0;
}

static enum lang
lang_of(const char *path)
{
	enum lang l = by_ext(nv_drv_ext(path));

	if (!nv_drv.lang || l == LANG_OBJ)
		return l;
	return strcmp(nv_drv.lang, "c++") ? by_ext(nv_drv.lang) : LANG_CXX;
}

/* The inputs read once, before anything runs: their bytes, then their
 * copies in the run's directory. */
static struct once {
	size_t at;      /* which input */
	char *data, *copy;
	size_t len;
} *onces;
static size_t nonces;

static void
drop_copies(void)
{
	for (size_t i = 0; !nv_drv.keep && i < nonces; i++)
		if (onces[i].copy)
			unlink(onces[i].copy);
}

/* Does in name something that gives its bytes once: standard input ("-"),
 * a name for a descriptor (/dev/stdin, /dev/fd/N, /proc/self/fd/N, which in
 * the front end's process is another descriptor), or anything that is not
 * a regular file (a pipe, a FIFO, <(...) in a shell)? */
static int
read_once(const char *in)
{
	struct stat st;

	if (!strcmp(in, "-") || !strncmp(in, "/dev/fd/", 8) || !strncmp(in, "/dev/std", 8) ||
	    (!strncmp(in, "/proc/", 6) && strstr(in, "/fd/")))
		return 1;
	return stat(in, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/*
 * Standard input ("-", as nvcc takes it: -x cu -), a pipe or a FIFO named
 * as an input, read whole here, once, before signals wait on the plan (a
 * Ctrl-C at a terminal still stops it); nv_drv_stdin_copy then puts each
 * in the run's directory.
 */
void
nv_drv_read_stdin(void)
{
	int stdin_seen = 0;

	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		const char *in = nv_drv.inputs.v[i];
		struct once *o;

		if (!read_once(in))
			continue;
		if (!strcmp(in, "-")) {
			if (stdin_seen++)
				nv_usage_error("standard input ('-') can be an input once");
			if (!nv_drv.lang)
				nv_usage_error("a source on standard input ('-') needs -x cu, -x c++ or -x c");
		}
		onces = xrealloc(onces, (nonces + 1) * sizeof(*onces));
		o = &onces[nonces++];
		memset(o, 0, sizeof(*o));
		o->at = i;
		if (nv_io_slurp(in, &o->data, &o->len))
			nv_exit(NV_EXIT_ERROR);
	}
}

/*
 * Each input read once as a file of the run's directory, compiled from
 * there: standard input as stdin.cu (.cpp, .c, as -x says), /dev/fd/63 as
 * 63.cu; its outputs are named for that (stdin.o, stdin.ptx).  The header
 * cache is left out: the copy's path is new on every run.
 */
void
nv_drv_stdin_copy(struct nv_plan *p)
{
	const char *lang = nv_drv.lang;

	if (!nonces)
		return;
	atexit(drop_copies);
	for (size_t i = 0; i < nonces; i++) {
		struct once *o = &onces[i];
		const char *in = nv_drv.inputs.v[o->at], *slash = strrchr(in, '/');
		char *base = !strcmp(in, "-") ? xstrdup("stdin") : xstrdup(slash ? slash + 1 : in), *name;

		if (lang)
			*strchrnul(base, '.') = '\0';
		name = !lang ? xstrdup(base)
		             : xasprintf("%s.%s", base, !strcmp(lang, "cu") ? "cu" : !strcmp(lang, "c") ? "c" : "cpp");
		/* one name each: two inputs that share one get a number */
		for (size_t k = 0; k < i; k++)
			if (!strcmp(strrchr(onces[k].copy, '/') + 1, name)) {
				char *again = xasprintf("%zu-%s", i, name);

				free(name);
				name = again;
				break;
			}
		o->copy = nv_plan_tmp(p, name);
		free(name);
		free(base);
		if (nv_io_write(o->copy, o->data, o->len, 0, 0))
			nv_exit(NV_EXIT_ERROR);
		free(o->data);
		o->data = NULL;
		nv_drv.inputs.v[o->at] = o->copy;
	}
	nv_drv.no_cache = 1;
}

void
nv_drv_check_inputs(void)
{
	const struct out_row *row = out_row();

	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		const char *in = nv_drv.inputs.v[i];

		if (!(lang_of(in) & row->takes))
			nv_usage_error("don't know what to do with '%s'%s%s: expected %s", in,
			               nv_drv.out_given ? " for " : "", nv_drv.out_given ? row->what : "",
			               row->expected);
	}
	if (nv_drv.inputs.n > 1 && nv_drv.output && !row->name)
		nv_usage_error("a single input file is required when an output file is given (-o '%s')",
		               nv_drv.output);
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		struct stat st;

		if (access(nv_drv.inputs.v[i], R_OK) || stat(nv_drv.inputs.v[i], &st))
			nv_fatal("cannot read '%s':", nv_drv.inputs.v[i]);
		if (S_ISDIR(st.st_mode))
			nv_fatal("cannot read '%s': %s", nv_drv.inputs.v[i], strerror(EISDIR));
	}
}

/* The output of input for the kind's row: -o, else its stem with the
 * row's extension (in the current directory, as nvcc's). */
static char *
out_path(const struct out_row *row, const char *input)
{
	if (nv_drv.output)
		return xstrdup(nv_drv.output);
	if (nv_drv.odir)
		return xasprintf("%s/%s.%s", nv_drv.odir, nv_drv_stem(input), row->ext);
	return xasprintf("%s.%s", nv_drv_stem(input), row->ext);
}

/* CUDA's tools and the host compiler the plan will name, found before any
 * file is made: a missing one is one line and nothing done. */
static void
check_tools(const struct out_row *row, unsigned langs_in)
{
	int fatbin = row->kind >= NV_OUT_FATBIN && row->kind < NV_OUT_DEPS && (langs_in & LANG_CU);
	int dlink = row->kind == NV_OUT_DLINK ||
	            (row->kind == NV_OUT_EXE && nv_drv.cudart != NV_CUDART_NONE &&
	             nv_gencode_nreal(&nv_drv.targets) > 0);
	int hostcc = (langs_in & (LANG_CXX | LANG_C)) || dlink || row->kind == NV_OUT_EXE;

	if (fatbin && nv_gencode_nreal(&nv_drv.targets))
		free(nv_cuda_tool(&nv_drv_cuda, "ptxas", row->what));
	if (fatbin || dlink)
		free(nv_cuda_tool(&nv_drv_cuda, "fatbinary", row->what));
	if (dlink)
		free(nv_cuda_tool(&nv_drv_cuda, "nvlink", row->what));
	if (row->kind == NV_OUT_EXE && nv_drv.cudart != NV_CUDART_NONE && !nv_drv_have_cuda)
		nv_fatal("linking needs CUDA's runtime library: no CUDA installation found (set CUDA_PATH)");
	if (hostcc)
		free(nv_drv_host_cc((langs_in & LANG_C) && !(langs_in & ~LANG_C)));
}

/* -run: the program just linked, run with -run-args; when it fails, the
 * driver names it and its status, and exits 1. */
static void
plan_run(struct nv_plan *p, const char *prog)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));
	struct nv_job j = { .act = NV_ACT_TOOL, .label = "run", .says_why = 1 }; /* its status is ours, unsaid as nvcc's */

	nv_strv_push(av, strchr(prog, '/') ? prog : xasprintf("./%s", prog));
	for (size_t i = 0; i < nv_drv.run_args.n; i++)
		nv_strv_push(av, nv_drv.run_args.v[i]);
	j.argv = av->v;
	nv_plan_add(p, &j);
}

/* -E and -M, as nvcc's: a CUDA source's device side for the first GPU
 * (what ccache hashes for nvcc), a host source by the host compiler with
 * nvcc's macros (how sccache tells nvcc from the host compiler); to -MF's
 * file (-M), -o's, else standard output. */
static void
plan_preprocess(struct nv_plan *p, const struct out_row *row, const char *in, enum lang l)
{
	int deps = row->kind == NV_OUT_DEPS;
	const char *to = deps && nv_drv.dep_file ? nv_drv.dep_file : nv_drv.output;
	char *out = nv_plan_out(p, xstrdup(to ? to : "-"));
	char *target = deps && nv_drv.dep_target ? xstrdup(nv_drv.dep_target)
	                                         : deps ? xasprintf("%s.o", nv_drv_stem(in)) : NULL;
	struct nv_job j = { .act = NV_ACT_TOOL, .label = deps ? "dependencies" : "preprocess", .input = in,
		            .says_why = 1, .arch = nv_drv.arch, .output = out };

	if (l != LANG_CU) {
		nv_drv_plan_host_only(p, in, out, deps ? NV_HOST_DEPS : NV_HOST_PREPROC, target);
		return;
	}
	j.argv = deps ? nv_drv_deps_only(p->dir, nv_drv.arch, in, target, out)
	              : nv_drv_preprocess(p->dir, nv_drv.arch, in, out);
	nv_plan_add(p, &j);
}

/* A file of the run named after stem: stem.what. */
static char *
run_file(struct nv_plan *p, const char *stem, const char *what)
{
	char *name = xasprintf("%s.%s", stem, what), *path = nv_plan_tmp(p, name);

	free(name);
	return path;
}

/* --explain: for each PTX the device pipeline writes, the same compile
 * again, with line tables and clang's value names, to the IR that goes to
 * instruction selection, its decisions saved; the preparation (nv-opt
 * -print=peak on that IR, ptxas on the PTX, the ladder, the what-ifs'
 * decisions files); the what-ifs, each the build's compile with one
 * decision a kernel changed; the report.  The build's own compile is not
 * touched. */
static void
plan_explain(struct nv_plan *p)
{
	size_t n = p->n;

	for (size_t i = 0; i < n; i++) {
		struct nv_job d = p->jobs[i], e = { .act = NV_ACT_TOOL, .label = "explain" };
		struct nv_explain *x;
		struct nv_strv *av;
		char *stem, *prog;

		if (d.act != NV_ACT_DEVICE || d.kind != NV_OUT_PTX || d.whatif)
			continue;
		if (!strcmp(nv_job_final(p, &p->jobs[i]), "-")) {
			nv_warn("--explain: the PTX of '%s' goes to standard output, so it is not explained "
			        "(give -o FILE)", d.input);
			continue;
		}
		x = xcalloc(1, sizeof(*x));
		x->ptx = xstrdup(nv_job_final(p, &p->jobs[i]));
		stem = d.base ? xstrdup(d.base) : nv_drv_stem(d.input);
		d.base = xasprintf("%s.explain", stem);
		x->cubin = run_file(p, d.base, "cubin");
		x->decisions = run_file(p, d.base, "dec");
		d.output = run_file(p, d.base, "bc");
		d.kind = NV_OUT_LLVM;
		d.explain_ir = d.temporary = d.quiet = 1;
		d.decisions_out = x->decisions;
		d.deps_for = NULL;
		d.inst_lo = d.inst_hi = 0;
		d.seed = 0;
		nv_plan_add(p, &d);
		/* the preparation */
		av = xcalloc(1, sizeof(*av));
		prog = nv_spawn_find("nv-opt", p->dir);
		if (!prog)
			nv_fatal("cannot find nv-opt beside nvcc-lite in %s", p->dir);
		nv_strv_push(av, prog);
		nv_strv_push(av, "-print=peak");
		nv_strv_push(av, "-disable-output");
		nv_strv_push(av, d.output);
		e.argv = av->v;
		e.input = d.input;
		e.arch = d.arch;
		e.explain = x;
		nv_plan_add(p, &e);
		/* the what-ifs: the build's compile, replaying a changed file,
		 * from the explain compile's front end (a .cu source's: value
		 * names and line tables change no code), or from its Phase I
		 * when what changed is Phase II's (run.c) */
		for (unsigned k = 0; k < NV_EXPLAIN_WHATIFS; k++) {
			struct nv_job w = p->jobs[i];
			char *what = xasprintf("whatif%u", k + 1);

			if (!nv_drv.lang && !strcmp(nv_drv_ext(d.input), "cu"))
				w.input = xasprintf("%s/%s.0-cudafe.bc", nv_plan_tmp_dir(p), d.base);
			w.base = xasprintf("%s.%s", stem, what);
			x->variant[k] = run_file(p, w.base, "dec");
			x->whatif_ptx[k] = run_file(p, w.base, "ptx");
			w.output = x->whatif_ptx[k];
			w.decisions = x->variant[k];
			w.whatif = w.temporary = w.quiet = 1;
			w.explain_job = p->n - 2 - k; /* before the preparation and the what-ifs so far */
			w.deps_for = NULL;
			w.inst_lo = w.inst_hi = 0;
			w.seed = 0;
			nv_plan_add(p, &w);
			free(what);
		}
		/* the report: ptxas on each what-if's PTX */
		av = xcalloc(1, sizeof(*av));
		nv_strv_push(av, nv_cuda_tool(&nv_drv_cuda, "ptxas", "--explain"));
		nv_strv_pushf(av, "-arch=sm_%s", strchr(d.arch, '_') ? strchr(d.arch, '_') + 1 : d.arch);
		nv_strv_push(av, "-v");
		nv_strv_push(av, x->ptx);
		nv_strv_push(av, "-o");
		nv_strv_push(av, x->cubin);
		e.argv = av->v;
		e.explain_report = 1;
		nv_plan_add(p, &e);
		free(prog);
		free(stem);
	}
}

void
nv_drv_plan(struct nv_plan *p)
{
	const struct out_row *row = out_row();
	struct nv_strv objs = { 0 };
	unsigned langs_in = 0;

	for (size_t i = 0; i < nv_drv.inputs.n; i++)
		langs_in |= lang_of(nv_drv.inputs.v[i]);
	check_tools(row, langs_in);
	/* a replayed file's target sections, each for a target built */
	if (nv_drv.decisions) {
		const char **names = xcalloc(nv_drv.targets.n + 1, sizeof(*names));

		for (size_t i = 0; i < nv_drv.targets.n; i++)
			names[i] = nv_drv.targets.v[i].virt;
		nv_decisions_targets(names, nv_drv.targets.n);
		free(names);
	}
	p->dir = nv_drv_self_dir();
	/* -keep's files are made in the run's directory too, where no one
	 * else can have put a link, and put in the keep directory at the end
	 * (nv_drv_run); a -dryrun script writes there itself */
	if (nv_drv.keep && nv_drv.dryrun)
		p->tmp = xstrdup(nv_drv.keep_dir ? nv_drv.keep_dir : ".");
	else if (nv_drv.dryrun)
		p->tmp = xstrdup(NV_DRV_TMP_MARK);
	for (size_t i = 0; i < nv_drv.inputs.n; i++) {
		const char *in = nv_drv.inputs.v[i];
		enum lang l = lang_of(in);

		if (row->kind == NV_OUT_CUBIN && (!nv_drv.output || strcmp(nv_drv.output, "-"))) {
			nv_drv_plan_cubin(p, in, out_path(row, in));
		} else if (row->kind <= NV_OUT_LLVM) {
			/* -cubin -o -: nv-llc runs ptxas, the cubin on standard output */
			struct nv_job j = { .act = NV_ACT_DEVICE, .label = nv_pipe_name(nv_drv_pipe()),
				            .input = in, .arch = nv_drv.arch, .kind = row->kind };

			j.output = out_path(row, in);
			/* -o -: the dependency file is named for what -o would default to */
			j.deps_for = strcmp(j.output, "-") ? j.output : xasprintf("%s.%s", nv_drv_stem(in), row->ext);
			nv_plan_add(p, &j);
			if (row->kind == NV_OUT_PTX && nv_drv_have_cuda)
				nv_drv_plan_ptx_check(p, in, j.output);
		} else if (row->kind == NV_OUT_FATBIN) {
			nv_drv_plan_fatbin(p, in, out_path(row, in));
		} else if (row->kind == NV_OUT_DEPS || row->kind == NV_OUT_PREPROC) {
			plan_preprocess(p, row, in, l);
		} else if (row->kind == NV_OUT_OBJ) {
			if (l == LANG_CU)
				nv_drv_plan_object(p, in, out_path(row, in), 0);
			else
				nv_drv_plan_host_only(p, in, out_path(row, in), NV_HOST_OBJ, NULL);
		} else if (l == LANG_OBJ) {
			nv_strv_push(&objs, in);
		} else {
			/* a source of a link: its object is a file of the build */
			char *stem = nv_drv_stem(in), *name = xasprintf("%s.o", stem);
			char *obj = nv_plan_tmp(p, name);

			if (l == LANG_CU)
				nv_drv_plan_object(p, in, obj, 1);
			else
				nv_drv_plan_host_only(p, in, obj, NV_HOST_TMP_OBJ, NULL);
			nv_strv_push(&objs, obj);
			free(stem);
			free(name);
		}
	}
	if (row->kind == NV_OUT_EXE)
		nv_drv_plan_link(p, &objs, xstrdup(nv_drv.output ? nv_drv.output : row->name));
	if (row->kind == NV_OUT_EXE && nv_drv.run)
		plan_run(p, nv_job_final(p, &p->jobs[p->n - 1]));
	else if (row->kind == NV_OUT_DLINK)
		nv_drv_plan_dlink(p, &objs, xstrdup(nv_drv.output ? nv_drv.output : row->name), 0);
	else if (row->kind == NV_OUT_LIB)
		nv_drv_plan_lib(p, &objs, xstrdup(nv_drv.output ? nv_drv.output : row->name));
	free(objs.v);
	if (nv_drv.explain)
		plan_explain(p);
	/* the device compiles, each to its chains of stages */
	for (size_t i = 0; i < p->n; i++)
		if (p->jobs[i].act == NV_ACT_DEVICE)
			nv_drv_plan_device(p, &p->jobs[i]);
}

/* The user's files the plan writes, each once: the jobs' outputs, the
 * dependency files, the -time file. */
static void
user_outputs(const struct nv_plan *p, struct nv_strv *outs)
{
	for (size_t k = 1; k < p->installs.n; k += 2)
		if (!nv_strv_has(outs, p->installs.v[k]))
			nv_strv_push(outs, p->installs.v[k]);
	for (size_t i = 0; i < p->n; i++) {
		const struct nv_job *j = &p->jobs[i];

		if (!j->temporary && j->output && !nv_strv_has(outs, nv_job_final(p, j)))
			nv_strv_push(outs, nv_job_final(p, j));
		/* the dependency file of an object comes from its first device compile */
		if (j->dev && j->dev->deps && !nv_strv_has(outs, j->dev->dep.file))
			nv_strv_push(outs, j->dev->dep.file);
	}
	if (nv_drv.deps && nv_drv.dep_file && !nv_strv_has(outs, nv_drv.dep_file))
		nv_strv_push(outs, nv_drv.dep_file);
	if (nv_drv.time_file)
		nv_strv_push(outs, nv_drv.time_file);
}

int
nv_drv_clean(const struct nv_plan *p)
{
	struct nv_strv outs = { 0 };
	int rc = 0;

	user_outputs(p, &outs);
	for (size_t o = 0; o < outs.n; o++) {
		if (!strcmp(outs.v[o], "-") || outs.v[o] == nv_drv.time_file)
			continue;
		if (nv_drv.dryrun || nv_drv.verbose)
			printf("rm -f %s\n", nv_shell_quote(outs.v[o]));
		if (!nv_drv.dryrun && unlink(outs.v[o]) && errno != ENOENT) {
			nv_error("cannot remove '%s':", outs.v[o]);
			rc = -1;
		}
	}
	nv_strv_free(&outs);
	if (p->made_tmp)
		nv_io_rm_tree(p->tmp);
	return rc;
}

/* A file named on the command line and what it is to the build. */
struct named {
	const char *path, *role;
};

static void
add_named(struct named **v, size_t *n, const char *path, const char *role)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = (struct named){ path, role };
}

/* path as the file system names it: its directory's real path and its
 * own name (the file need not exist), or path itself. */
static char *
canonical(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - path + (slash == path)), path) : xstrdup(".");
	char *real = realpath(dir, NULL), *out;

	out = real ? xasprintf("%s/%s", strcmp(real, "/") ? real : "", slash ? slash + 1 : path) : xstrdup(path);
	free(real);
	free(dir);
	return out;
}

/* Are a and b one file: the same one, or the same name for one to be?
 * follow: through symbolic links (what is read), or not (what is written,
 * replacing the name). */
static int
same_file(const char *a, const char *b, int follow)
{
	struct stat sa, sb;
	char *ca, *cb;
	int same;

	if (follow ? !stat(a, &sa) && !stat(b, &sb) : !lstat(a, &sa) && !lstat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ca = canonical(a);
	cb = canonical(b);
	same = !strcmp(ca, cb);
	free(ca);
	free(cb);
	return same;
}

/*
 * Every file named on the command line is an input or an output, and no
 * output is an input or another output: -o k.cu, -fdevice-time-trace k.cu,
 * -include inc.h -o inc.h, -optf opts -o opts, -MD -o k.d (the output and
 * its dependency file) are refused before anything runs.
 */
void
nv_drv_check_clobber(const struct nv_plan *p)
{
	struct named *in = NULL, *out = NULL;
	size_t nin = 0, nout = 0;

	for (size_t i = 0; i < nv_drv.inputs.n; i++)
		add_named(&in, &nin, nv_drv.inputs.v[i], "input file");
	for (size_t i = 0; i + 1 < nv_drv.cpp.n; i++)
		if (!strcmp(nv_drv.cpp.v[i], "-include"))
			add_named(&in, &nin, nv_drv.cpp.v[++i], "-include file");
	for (size_t i = 0; i < nv_drv.optf.n; i++)
		add_named(&in, &nin, nv_drv.optf.v[i], "options file");
	for (size_t k = 1; k < p->installs.n; k += 2)
		add_named(&out, &nout, p->installs.v[k], "output file");
	for (size_t i = 0; i < p->n; i++) {
		const struct nv_job *j = &p->jobs[i];

		if (!j->temporary && j->output)
			add_named(&out, &nout, nv_job_final(p, j), "output file");
		if (j->dev && j->dev->deps)
			add_named(&out, &nout, j->dev->dep.file, "dependency file");
	}
	if (nv_drv.deps && nv_drv.dep_file)
		add_named(&out, &nout, nv_drv.dep_file, "dependency file");
	if (nv_drv.time_file)
		add_named(&out, &nout, nv_drv.time_file, "-time file");
	if (nv_drv.time_trace)
		add_named(&out, &nout, nv_drv.time_trace, "-fdevice-time-trace file");
	for (size_t o = 0; o < nout; o++) {
		const struct named *clash = NULL;

		if (!strcmp(out[o].path, "-"))
			continue;
		for (size_t i = 0; !clash && i < nin; i++)
			if (same_file(in[i].path, out[o].path, 1))
				clash = &in[i];
		for (size_t k = 0; !clash && k < o; k++)
			if (strcmp(out[k].role, out[o].role) && same_file(out[k].path, out[o].path, 0))
				clash = &out[k];
		if (clash) {
			nv_error("%s '%s' is the same as %s '%s'", clash->role, clash->path,
			         out[o].role == clash->role ? "output file" : out[o].role, out[o].path);
			if (p->made_tmp)
				nv_io_rm_tree(p->tmp);
			nv_exit(NV_EXIT_ERROR);
		}
	}
	free(in);
	free(out);
}

/* Every output can be written (its directory exists, it is not read-only),
 * the dependency file's too, before anything is compiled. */
void
nv_drv_check_outputs(const struct nv_plan *p)
{
	struct nv_strv outs = { 0 };
	int bad = 0;

	user_outputs(p, &outs);
	for (size_t o = 0; !bad && o < outs.n; o++)
		bad = outs.v[o] != nv_drv.time_file && nv_io_check_output(outs.v[o]);
	nv_strv_free(&outs);
	if (bad) {
		if (p->made_tmp)
			nv_io_rm_tree(p->tmp);
		nv_exit(NV_EXIT_ERROR);
	}
}
