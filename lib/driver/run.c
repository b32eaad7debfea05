/*
 * run: the plan run, or printed as one shell script (-dryrun): two walks
 * over the same jobs, taking each as planned.  A DEVICE job runs its
 * chains: the front end through the header cache as a try, Phase I, then
 * Phase II whole or in as many parts as Phase I's module and the
 * parallelism allow; a HOST job its command through the host side's
 * entry; a TOOL job its command.  A job's output is checked whole and put
 * in place once it has succeeded; the build's own files go at the end.
 * Nothing here builds a command: what a run decides (an entry of the
 * header cache, how many parts) goes into the plan's commands where they
 * leave room for it.
 */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "../base/diag.h"
#include "../base/io.h"
#include "../base/jobserver.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "../stages/split.h"
#include "chain.h"
#include "explain.h"
#include "flags.h"
#include "frontend.h"
#include "hcache.h"
#include "job.h"
#include "pch.h"
#include "usage.h"

/* --- a DEVICE job's chains, as planned but for the run's parts --- */

static char *
tmp_file(const struct nv_device *d, const char *what)
{
	return xasprintf("%s/%s.%s", d->tmp, d->base, what);
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

/* nv-split for n parts. */
static void
split_of(const struct nv_device *d, unsigned n, struct nv_drv_chain *c)
{
	struct nv_strv av = { 0 };

	*c = d->split;
	for (size_t i = 0; d->split.argv[0][i]; i++)
		if (i == NV_DRV_SPLIT_COUNT)
			nv_strv_pushf(&av, "%u", n);
		else
			nv_strv_push(&av, d->split.argv[0][i]);
	c->argv[0] = av.v;
}

/* s for part i, whose module is part (NULL stays NULL). */
static char *
part_str(const char *s, const char *part, unsigned i)
{
	const char *m;
	char *r, *t;

	if (!s)
		return NULL;
	if (!strcmp(s, NV_DRV_PART_MARK))
		return xstrdup(part);
	r = xstrdup("");
	for (; (m = strstr(s, NV_DRV_NUM_MARK)); s = m + strlen(NV_DRV_NUM_MARK)) {
		t = xasprintf("%s%.*s%u", r, (int)(m - s), s, i);
		free(r);
		r = t;
	}
	t = xasprintf("%s%s", r, s);
	free(r);
	return t;
}

/* The chain of part i: the plan's, its markers replaced. */
static void
part_of(const struct nv_device *d, unsigned i, struct nv_drv_chain *c)
{
	char *part = xasprintf("%s/%s.split.%u.bc", d->tmp, d->base, i);

	*c = d->part;
	for (size_t k = 0; k < c->n; k++) {
		struct nv_strv av = { 0 };

		for (char **a = d->part.argv[k]; *a; a++) {
			char *s = part_str(*a, part, i);

			nv_strv_push(&av, s);
			free(s);
		}
		c->argv[k] = av.v;
		c->in[k] = part_str(d->part.in[k], part, i);
		c->out[k] = part_str(d->part.out[k], part, i);
		c->remarks[k] = part_str(d->part.remarks[k], part, i);
		c->decisions[k] = part_str(d->part.decisions[k], part, i);
	}
	c->label = part_str(d->part.label, part, i);
	free(part);
}

/* nv-link's join of the parts parts[0..n), and codegen. */
static void
join_of(const struct nv_device *d, char **parts, size_t n, struct nv_drv_chain *c)
{
	struct nv_strv av = { 0 };

	*c = d->join;
	for (size_t i = 0; d->join.argv[0][i]; i++)
		if (i == NV_DRV_JOIN_PARTS)
			for (size_t k = 0; k < n; k++)
				nv_strv_push(&av, parts[k]);
		else
			nv_strv_push(&av, d->join.argv[0][i]);
	c->argv[0] = av.v;
	c->in[0] = n == 1 ? xstrdup(parts[0]) : xasprintf("%s ...", parts[0]);
}

/* -save-remarks: the files the chains run write.  A stage with nothing to
 * say leaves an empty file, which llvm-remarkutil rejects (as it rejects
 * opt's): those are dropped. */
static struct nv_strv remark_paths;

/* -save-decisions: the steps' files, in the order they ran, and before
 * each target's a line "\ttarget compute_XX" when the build has several */
static struct nv_strv decision_paths;

static void
remember_remarks(const struct nv_drv_chain *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->remarks[i])
			nv_strv_push(&remark_paths, c->remarks[i]);
		if (c->decisions[i])
			nv_strv_push(&decision_paths, c->decisions[i]);
	}
}

/* The lines of the steps' files [from, to) of decision_paths, in the order
 * the steps ran, written as path. */
static int
join_decisions(size_t from, size_t to, const char *path)
{
	char *all = NULL;
	size_t len = 0;
	int rc;

	for (size_t i = from; i < to; i++) {
		char *data;
		size_t n;

		if (decision_paths.v[i][0] == '\t') {
			data = xasprintf("%s\n", decision_paths.v[i] + 1);
			n = strlen(data);
		} else if (nv_io_slurp(decision_paths.v[i], &data, &n)) {
			free(all);
			return -1;
		}
		all = xrealloc(all, len + n + 1);
		memcpy(all + len, data, n);
		len += n;
		free(data);
	}
	rc = nv_io_write(path, all ? all : "", len, 0, 1);
	free(all);
	return rc;
}

static void
drop_empty_remarks(void)
{
	for (size_t i = 0; i < remark_paths.n; i++) {
		struct stat st;

		if (stat(remark_paths.v[i], &st) == 0 && st.st_size == 0)
			unlink(remark_paths.v[i]);
	}
}

/* Run a chain of the job (a copy: the plan's stays as planned). */
static int
run_chain(struct nv_drv_chain *c)
{
	remember_remarks(c);
	return nv_drv_run_one(c);
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

/* The parts nv-split wrote, from its map: fewer than asked when it would
 * not cut (a module with aliases is one part). */
static int
split_parts(const struct nv_device *d, unsigned *nparts)
{
	char *path = tmp_file(d, "split.map");
	struct nv_split_map map;
	int rc = nv_split_map_read(path, &map);

	if (!rc && map.nparts < *nparts)
		*nparts = map.nparts;
	nv_split_map_release(&map);
	free(path);
	return rc;
}

/* Every file the job may write in tmp, for cleanup (and the signal hook). */
static void
job_paths(const struct nv_job *j, const struct nv_device *d, unsigned nparts, struct nv_strv *paths)
{
	/* --explain's compile leaves its front end's and Phase I's modules
	 * to the what-ifs (the run's directory goes whole at the end) */
	if (d->fe_out && !j->explain_ir)
		nv_strv_push(paths, d->fe_out);
	if (d->fe_deps)
		nv_strv_push(paths, d->fe_deps);
	if (d->p1_out && !j->explain_ir)
		nv_strv_push(paths, d->p1_out);
	for (unsigned i = 0; i < nparts; i++) {
		nv_strv_pushf(paths, "%s/%s.split.%u.bc", d->tmp, d->base, i);
		nv_strv_pushf(paths, "%s/%s.p2.%u.bc", d->tmp, d->base, i);
	}
	nv_strv_pushf(paths, "%s/%s.split.map", d->tmp, d->base);
}

/*
 * The dependency file appears with the output or not at all: written, after
 * the output, atomically -- the front end's (in tmp) copied, or for a .bc
 * or .ll input the input as its one dependency.  0, or -1 after an error.
 */
static int
write_deps(const char *input, const struct nv_device *d)
{
	char *text;
	size_t len;
	int rc;

	if (d->fe_deps && nv_io_slurp(d->fe_deps, &text, &len))
		return -1;
	if (!d->fe_deps) {
		text = nv_drv.dep_phony ? xasprintf("%s: %s\n\n%s:\n", d->dep.target, input, input)
		                        : xasprintf("%s: %s\n", d->dep.target, input);
		len = strlen(text);
	}
	rc = nv_io_write(d->dep.file, text, len, 0, 0);
	free(text);
	return rc;
}

/* The front end's chain, through the header cache's entry pch when not NULL. */
static void
fe_chain(const struct nv_device *d, const struct nv_pch *pch, struct nv_drv_chain *c)
{
	*c = d->fe;
	if (pch)
		c->argv[0] = nv_drv_with_pch(d->fe.argv[0], d->fe_at, pch);
}

/*
 * The front end, through the header cache's entry when there is one: as a
 * try, its diagnostics kept aside.  A try that fails, or that printed what
 * a compile without the entry would print otherwise (a header named by its
 * full path), is done again without the entry, and that compile is the one
 * the user sees; an entry that failed where the compile without it did not
 * is dropped.  0 or -1.
 */
/* The try's diagnostics in err as the compile without the entry prints
 * them (nv_pch_fix_diags): 0, or -1 when they cannot be. */
static int
fix_diags(const struct nv_pch *pch, int err, const char *input)
{
	size_t len;
	char *text = nv_drv_diags_text(err, &len);
	int rc = nv_pch_fix_diags(pch, text, &len, input);

	if (!rc)
		nv_drv_diags_set(err, text, len);
	free(text);
	return rc;
}

/*
 * Without an entry, the front end goes first without clang's texture and
 * surface intrinsics (__clang_cuda_texture_intrinsics.h, its guard
 * defined: a quarter of what parsing the implicit headers costs), which
 * only a texture or surface fetch that is compiled needs.  Such a compile
 * fails (the handler undeclared), and so is done again whole, as is any
 * try that fails: the user sees the whole compile's diagnostics.  One that
 * succeeds is the same compile, the header's templates never instantiated.
 * Not when the source names a fetch (nv_drv_fetches_textures), nor when
 * the dependencies are written (the header is one of them).
 */
static int
lean_wanted(const struct nv_job *j, int deps)
{
	return !deps && !nv_drv_fetches_textures(j->input);
}

/* The front end's command argv, the texture intrinsics left out, in av. */
static void
lean_argv(char **argv, struct nv_strv *av)
{
	for (size_t i = 0; argv[i]; i++) {
		nv_strv_push(av, argv[i]);
		if (i == 0)
			nv_strv_push(av, "-D__CLANG_CUDA_TEXTURE_INTRINSICS_H__");
	}
}

/* The device side's lean try of chain c: 1 when it stands (*rc its
 * result, its diagnostics said), 0 when the whole compile is to run. */
static int
front_end_lean(const struct nv_job *j, const struct nv_drv_chain *c, int err, int *rc)
{
	struct nv_drv_chain t = *c;
	struct nv_strv av = { 0 };
	int failed;

	if (!lean_wanted(j, j->dev->deps))
		return 0;
	lean_argv(c->argv[0], &av);
	t.argv[0] = av.v;
	t.err_fd = err;
	t.quiet = 1;
	failed = nv_drv_run_one(&t);
	nv_strv_free(&av);
	if (failed) {
		nv_drv_diags_set(err, "", 0);
		return 0;
	}
	*rc = nv_drv_say_once(err, j->input) ? -1 : 0;
	return 1;
}

static int
front_end(const struct nv_job *j, struct nv_strv *paths)
{
	const struct nv_device *d = j->dev;
	struct nv_drv_chain c;
	struct nv_pch pch = { 0 };
	int err = nv_drv_diags_new();
	const char *use = nv_drv_header_cache(d->cache, j->input, j->arch, &pch, err, paths);
	size_t len;
	int rc, said, ok;

	fe_chain(d, use ? &pch : NULL, &c);
	nv_drv_sig_paths(paths);
	if (!use) {
		if (!front_end_lean(j, &c, err, &rc))
			rc = nv_drv_run_saying(&c, err, j->input);
		close(err);
		nv_pch_release(&pch);
		return rc;
	}
	c.err_fd = err;
	c.quiet = 1;
	rc = nv_drv_run_one(&c);
	free(nv_drv_diags_text(err, &len));
	said = len > 0;
	/* a source saved while it compiled, or a diagnostic that names the
	 * entry's files: the try's bytes are not the compile's */
	ok = !rc && nv_pch_same_source(&pch, j->input) &&
	     (!said || (!nv_pch_renames(&pch) && !fix_diags(&pch, err, j->input)));
	if (ok) {
		if (said && nv_drv_say_once(err, j->input))
			rc = -1;
		if (!rc && d->deps &&
		    nv_pch_fix_deps(&pch, d->fe_deps, j->input, nv_drv.deps == 1, nv_drv.dep_phony)) {
			nv_error("cannot rewrite the dependency file '%s'", d->dep.file);
			rc = -1;
		}
	} else {
		fe_chain(d, NULL, &c);
		c.quiet = 0;
		if (!nv_drv_run_saying(&c, err, j->input)) {
			if (rc)
				nv_pch_drop(&pch);
			rc = 0;
		} else {
			rc = -1;
		}
	}
	close(err);
	nv_pch_release(&pch);
	return rc;
}

/* Phase II in n parts, n > 1: nv-split, the parts at once, the join. */
static int
run_parts(const struct nv_device *d, unsigned n)
{
	struct nv_drv_chain c, *cs;
	struct nv_strv outs = { 0 };
	int rc;

	split_of(d, n, &c);
	rc = run_chain(&c) || split_parts(d, &n);
	cs = xcalloc(n, sizeof(*cs));
	for (unsigned i = 0; !rc && i < n; i++) {
		nv_strv_pushf(&outs, "%s/%s.p2.%u.bc", d->tmp, d->base, i);
		part_of(d, i, &cs[i]);
	}
	for (unsigned i = 0; !rc && nv_drv.keep && i < n; i++)
		rc = run_chain(&cs[i]); /* -keep: each step through its file, in turn */
	if (!rc && !nv_drv.keep) {
		for (unsigned i = 0; i < n; i++)
			remember_remarks(&cs[i]);
		rc = nv_drv_run_chains(cs, n, n);
	}
	if (!rc) {
		join_of(d, outs.v, outs.n, &c);
		rc = run_chain(&c);
	}
	free(cs);
	nv_strv_free(&outs);
	return rc;
}

/* The job's chains; phase1: Phase I's module, made by another compile
 * (NULL: the job's own front end and Phase I make it). */
static int
device_chains(const struct nv_job *j, const char *phase1)
{
	const struct nv_device *d = j->dev;
	struct nv_drv_chain c;
	struct nv_strv paths = { 0 };
	unsigned nparts = parts_wanted();
	int rc = 0, ndefs;

	job_paths(j, d, nparts, &paths);
	nv_drv_sig_paths(&paths);
	if (phase1) {
		rc = nv_io_copy(phase1, d->p1_out);
		goto phase2;
	}
	if (d->fe_trace)
		nv_strv_push(&paths, d->fe_trace);
	if (d->fe.n)
		rc = front_end(j, &paths);
	if (!rc && d->fe_trace && nv_io_install(d->fe_trace, nv_drv.time_trace))
		rc = -1;
	if (!rc) {
		c = d->p1;
		rc = run_chain(&c);
	}
phase2:
	if (rc || !d->p1_out)
		goto out;
	ndefs = count_defs(d->p1_out);
	if (ndefs < 0) {
		rc = -1;
		goto out;
	}
	if (nparts > (unsigned)ndefs)
		nparts = ndefs > 0 ? (unsigned)ndefs : 1;
	if (nparts <= 1) {
		/* one function (or one part): no split, no join */
		c = d->p2;
		rc = run_chain(&c);
	} else {
		rc = run_parts(d, nparts);
	}
out:
	if (!rc && d->deps)
		rc = write_deps(j->input, d);
	for (size_t i = 0; !nv_drv.keep && i < paths.n; i++)
		unlink(paths.v[i]);
	nv_drv_sig_paths(NULL);
	nv_strv_free(&paths);
	return rc;
}

/* One input to one output, as nvcc does it for each input it is given;
 * phase1: Phase I's module, made by another compile (NULL: none). */
static int
compile_device(const struct nv_job *j, const char *phase1)
{
	size_t first = decision_paths.n;
	int rc;

	if (nv_drv.save_decisions && nv_drv.targets.n > 1 && !j->decisions_out && !j->whatif)
		nv_strv_pushf(&decision_paths, "\ttarget compute_%s", j->arch + 3);
	/* the pipeline and the virtual architecture, as nvcc -v shows cicc's */
	if (nv_drv.verbose)
		fprintf(stderr, "#$ %s -arch compute_%s\n", nv_pipe_name(nv_drv_pipe()), j->arch + 3);
	nv_drv_progress_start(j->input);
	rc = device_chains(j, phase1);
	nv_drv_progress_clear();
	drop_empty_remarks();
	if (!rc && j->decisions_out) {
		rc = join_decisions(first, decision_paths.n, j->decisions_out);
		for (size_t i = first; i < decision_paths.n; i++) /* not the build's */
			free(decision_paths.v[i]);
		decision_paths.n = first;
		if (decision_paths.v)
			decision_paths.v[first] = NULL;
	}
	return rc;
}

/* Is every line where file b differs from file a a Phase II stage's
 * (unroll, unroll-D, vectorize, remat)?  Then a compile replaying b has
 * the Phase I module of the compile that saved a. */
static int
phase2_only(const char *a, const char *b)
{
	static const char *const late[] = { "unroll ", "unroll-D ", "vectorize ", "remat ", NULL };
	char *ta, *tb, *pa, *pb;
	size_t na, nb;
	int ok = 1, any = 0;

	if (nv_io_slurp(a, &ta, &na))
		return 0;
	if (nv_io_slurp(b, &tb, &nb)) {
		free(ta);
		return 0;
	}
	ta = xrealloc(ta, na + 1);
	tb = xrealloc(tb, nb + 1);
	ta[na] = tb[nb] = '\0';
	/* the what-if's file is the saved one with lines changed in place */
	for (pa = ta, pb = tb; ok && (*pa || *pb);) {
		size_t la = strcspn(pa, "\n"), lb = strcspn(pb, "\n"), k = 0;

		if (la != lb || memcmp(pa, pb, la)) {
			while (late[k] && strncmp(pb, late[k], strlen(late[k])))
				k++;
			ok = late[k] != NULL && !strncmp(pa, pb, strcspn(pb, " ") + 1);
			any = 1;
		}
		pa += la + (pa[la] == '\n');
		pb += lb + (pb[lb] == '\n');
	}
	free(ta);
	free(tb);
	return ok && any;
}

/* A what-if: the build's compile with one decision changed, from the
 * explain compile's Phase I module when what changed is Phase II's.  What
 * its stages say is about the copy, not the user's build (a loop left
 * rolled takes its remainder's decision lines with it: "matched nothing"),
 * so it goes to a file beside the what-if's output; one that does not
 * compile is a what-if without figures, not a failed build, and its first
 * line says why. */
static int
run_whatif(const struct nv_plan *p, const struct nv_job *j)
{
	const struct nv_job *ex = &p->jobs[j->explain_job];
	char *log = xasprintf("%s.err", j->output);
	const char *phase1 = NULL;
	int saved, fd, rc;

	if (ex->explain_ir && ex->dev && ex->dev->p1_out && j->dev->p1_out && !access(ex->dev->p1_out, R_OK) &&
	    phase2_only(ex->decisions_out, j->decisions))
		phase1 = ex->dev->p1_out;
	fflush(stderr);
	saved = dup(2);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (saved >= 0 && fd >= 0)
		dup2(fd, 2);
	if (fd >= 0)
		close(fd);
	rc = compile_device(j, phase1);
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	if (rc) {
		char line[512] = "";
		FILE *f = fopen(log, "r");

		if (f && fgets(line, sizeof(line), f))
			line[strcspn(line, "\n")] = 0;
		if (f)
			fclose(f);
		nv_warn("--explain: a what-if of '%s' did not compile%s%s", j->input, *line ? ": " : "", line);
		unlink(j->output);
	}
	unlink(log);
	free(log);
	return 0;
}

static int
run_device(const struct nv_plan *p, const struct nv_job *j)
{
	if (!j->whatif)
		return compile_device(j, NULL);
	/* one for which --explain's preparation found nothing to change */
	return access(j->decisions, F_OK) ? 0 : run_whatif(p, j);
}

/* --explain's what-ifs, jobs [from, to): at once, each beyond the first in
 * a child process, as many as make's jobserver gives tokens for (without
 * one, up to the CPUs), the rest in turn.  A what-if never fails the build. */
static void
run_whatifs(const struct nv_plan *p, size_t from, size_t to)
{
	pid_t pid[NV_EXPLAIN_WHATIFS] = { 0 };
	int token[NV_EXPLAIN_WHATIFS] = { 0 };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = to - from;

	fflush(NULL);
	for (size_t k = 1; k < n && k < NV_EXPLAIN_WHATIFS; k++) {
		if (access(p->jobs[from + k].decisions, F_OK))
			continue; /* nothing to change: no compile */
		if (nv_drv_js.active ? nv_js_try_acquire(&nv_drv_js) != 1 : (long)k >= cpus)
			continue;
		token[k] = nv_drv_js.active;
		pid[k] = fork();
		if (pid[k] == 0)
			_exit(run_device(p, &p->jobs[from + k]) ? 1 : 0);
		if (pid[k] < 0) {
			pid[k] = 0;
			if (token[k])
				nv_js_release(&nv_drv_js);
			token[k] = 0;
		}
	}
	run_device(p, &p->jobs[from]);
	for (size_t k = 1; k < n; k++) {
		int status;

		if (k < NV_EXPLAIN_WHATIFS && pid[k] > 0)
			while (waitpid(pid[k], &status, 0) < 0 && errno == EINTR)
				;
		else
			run_device(p, &p->jobs[from + k]);
		if (k < NV_EXPLAIN_WHATIFS && token[k])
			nv_js_release(&nv_drv_js);
	}
}

/* -save-decisions in a -dryrun script: the lines of a chain's steps that
 * decide, appended to the run's file that the script moves to the user's
 * at the end (run_plan joins them so). */
#define DRYRUN_DECISIONS NV_DRV_TMP_MARK "/decisions"

static void
print_decisions(const struct nv_drv_chain *c, const char *indent)
{
	struct nv_strv av = { 0 };
	char *out[] = { DRYRUN_DECISIONS, NULL };

	nv_strv_push(&av, "cat");
	for (size_t i = 0; i < c->n; i++)
		if (c->decisions[i])
			nv_strv_push(&av, c->decisions[i]);
	if (av.n > 1) {
		fputs(indent, stdout);
		nv_drv_print_cmd(stdout, av.v);
		fputs(" >> ", stdout);
		nv_drv_print_cmd(stdout, out);
		putchar('\n');
	}
	nv_strv_free(&av);
}

/* A DEVICE job as -dryrun prints it, after the script's preamble: its
 * front end through the header cache's entry when one is fresh, Phase II
 * in parts as a loop over what nv-split writes. */
static void
print_device(const struct nv_job *j)
{
	const struct nv_device *d = j->dev;
	struct nv_drv_chain c;
	unsigned nparts = parts_wanted();

	if (d->fe.n) {
		struct nv_pch pch = { 0 };
		const char *use = nv_drv_header_cache(d->cache, j->input, j->arch, &pch, 0, NULL);

		fe_chain(d, use ? &pch : NULL, &c);
		nv_drv_show_chain(stdout, &c, "");
		nv_pch_release(&pch);
		if (d->fe_trace) {
			char *av[] = { "mv", "-f", d->fe_trace, (char *)nv_drv.time_trace, NULL };

			nv_drv_print_cmd(stdout, av);
			putchar('\n');
		}
	}
	if (nv_drv.save_decisions && nv_drv.targets.n > 1 && !j->decisions_out && !j->whatif)
		printf("echo 'target compute_%s' >> \"$tmp\"/decisions\n", j->arch + 3);
	nv_drv_show_chain(stdout, &d->p1, "");
	print_decisions(&d->p1, "");
	if (!d->p1_out)
		return;
	if (nparts <= 1) {
		nv_drv_show_chain(stdout, &d->p2, "");
		print_decisions(&d->p2, "");
		return;
	}
	split_of(d, nparts, &c);
	nv_drv_show_chain(stdout, &c, "");
	printf("for p in \"$tmp\"/%s.split.*.bc; do\n  i=${p%%.bc}; i=${i##*.}\n", d->base);
	nv_drv_show_chain(stdout, &d->part, "  ");
	print_decisions(&d->part, "  ");
	printf("done\n");
	nv_drv_show_chain(stdout, &d->join, "");
	print_decisions(&d->join, "");
}

/* --- a HOST job --- */

/*
 * As the device side's front end: through the header cache's host entry
 * as a try, again without it when the try failed or printed what a
 * compile without it would print otherwise.
 */
static int
run_host(const struct nv_job *j)
{
	struct nv_pch pch = { 0 };
	struct nv_strv paths = { 0 };
	struct nv_job t = *j;
	int err = nv_drv_diags_new();
	const char *use = nv_drv_header_cache(j->cache, j->input, j->arch, &pch, err, &paths);
	size_t len;
	int rc = -1, printed;

	if (use) {
		int tried;

		nv_drv_sig_paths(&paths);
		t.argv = nv_drv_with_pch(j->argv, j->cache_at, &pch);
		tried = nv_drv_try_tool(&t, err);
		free(nv_drv_diags_text(err, &len));
		printed = len > 0;
		if (!tried && !nv_pch_same_source(&pch, j->input))
			rc = -1; /* saved while it compiled: again */
		else if (!tried && !printed)
			rc = 0;
		else if (!tried && !nv_pch_renames(&pch) && !fix_diags(&pch, err, j->input))
			rc = nv_drv_say_once(err, j->input);
		if (rc) {
			/* again without the entry, the compile the user sees */
			rc = nv_drv_run_tool_saying(j, err);
			if (tried && !rc)
				nv_pch_drop(&pch);
		}
		for (char **a = t.argv; *a; a++)
			free(*a);
		free(t.argv);
	} else {
		struct nv_strv av = { 0 };

		/* first without clang's texture intrinsics, as the device side
		 * (front_end_lean) */
		nv_drv_sig_paths(&paths);
		lean_argv(j->argv, &av);
		t.argv = av.v;
		if (lean_wanted(j, 0) && !nv_drv_try_tool(&t, err)) {
			rc = nv_drv_say_once(err, j->input);
		} else {
			nv_drv_diags_set(err, "", 0);
			rc = nv_drv_run_tool_saying(j, err);
		}
		nv_strv_free(&av);
	}
	for (size_t i = 0; i < paths.n; i++)
		unlink(paths.v[i]);
	nv_drv_sig_paths(NULL);
	nv_pch_release(&pch);
	nv_strv_free(&paths);
	close(err);
	return rc;
}

int
nv_drv_run_host_query(void)
{
	struct nv_strv av = { 0 };
	struct nv_job j = { .act = NV_ACT_TOOL, .label = "host compiler", .says_why = 1 };
	int rc;

	/* gcc, as nvcc runs it on a .cu (its preprocessor) and on a .c */
	nv_strv_push(&av, nv_drv_host_cc(1));
	for (size_t i = 0; i < nv_drv.host.n; i++)
		nv_strv_push(&av, nv_drv.host.v[i]);
	j.argv = av.v;
	if (nv_drv.dryrun) {
		nv_drv_print_cmd(stdout, av.v);
		putchar('\n');
	}
	rc = nv_drv.dryrun ? 0 : nv_drv_run_tool(&j);
	nv_strv_free(&av);
	if (fflush(stdout) && !rc)
		rc = -1;
	return rc ? nv_drv_exit_status() : NV_EXIT_OK;
}

/* --- the plan --- */

/* Put a job's files in place, once it has succeeded: 0, or -1 after an error. */
static int
install(const struct nv_plan *p, const struct nv_job *j)
{
	for (size_t k = j->inst_lo; k < j->inst_hi; k++)
		if (nv_io_install(p->installs.v[2 * k], p->installs.v[2 * k + 1]))
			return -1;
	return 0;
}

/* A job that adds to its output starts from the user's file (ar r). */
static int
seed(const struct nv_plan *p, const struct nv_job *j)
{
	const char *final = nv_job_final(p, j);
	struct stat st;

	if (!j->seed || final == j->output || stat(final, &st) || !S_ISREG(st.st_mode))
		return 0;
	return nv_io_copy(final, j->output);
}

/* The output of job j is whole, as its kind says; else an error. */
static int
check_output(const struct nv_plan *p, const struct nv_job *j)
{
	const char *what = j->check == NV_CHECK_ELF ? "an ELF file" : "a fatbin";

	/* a job with nothing to check may have no output (-run's program) */
	if (j->check == NV_CHECK_NONE ||
	    !(j->check == NV_CHECK_ELF ? nv_io_check_elf(j->output) : nv_io_check_fatbin(j->output)))
		return 0;
	nv_error("%s wrote '%s', which is not %s whole (truncated: is the disk full?)", j->label,
	         nv_job_final(p, j), what);
	return -1;
}

/* -keep: every file of the run's directory put in the keep directory, as
 * each output is put in place (renamed over what is there: a link planted
 * there is replaced, not followed).  0, or -1 after an error. */
static int
keep_all(const char *tmp)
{
	const char *to = nv_drv.keep_dir ? nv_drv.keep_dir : ".";
	DIR *d = opendir(tmp);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *from = xasprintf("%s/%s", tmp, de->d_name), *dest;
		struct stat st;

		if (lstat(from, &st) || !S_ISREG(st.st_mode)) {
			free(from);
			continue;
		}
		dest = xasprintf("%s/%s", to, de->d_name);
		if (nv_io_install(from, dest))
			rc = -1;
		free(dest);
		free(from);
	}
	closedir(d);
	return rc;
}

int
nv_drv_run(struct nv_plan *p)
{
	struct nv_strv temps = { 0 };
	int rc = 0;

	/* the tools' own temporaries (g++'s ccXXXX.s) in the run's directory
	 * too, which goes whole at the end, or when a signal stops the run */
	nv_plan_tmp_dir(p);
	nv_drv_sig_dir(p->tmp);
	if (setenv("TMPDIR", p->tmp, 1))
		nv_fatal("cannot set TMPDIR:");

	for (size_t i = 0; i < p->n && !rc; i++) {
		const struct nv_job *j = &p->jobs[i];

		if (p->made_tmp)
			nv_drv_sig_dir(p->tmp);
		if (j->temporary) {
			nv_strv_push(&temps, j->output);
			nv_drv_sig_temps(&temps);
		}
		rc = seed(p, j);
		if (!rc && j->whatif) {
			size_t e = i;

			while (e < p->n && p->jobs[e].whatif)
				e++;
			run_whatifs(p, i, e);
			i = e - 1;
			continue;
		}
		if (!rc)
			rc = j->act == NV_ACT_DEVICE ? run_device(p, j)
			     : j->act == NV_ACT_HOST ? run_host(j)
			     : j->usage              ? nv_drv_run_usage(j)
			     : j->explain            ? nv_drv_run_explain(j)
			                             : nv_drv_run_tool(j);
		if (!rc)
			rc = check_output(p, j);
		if (!rc)
			rc = install(p, j);
		if (rc && j->output) {
			nv_drv_remove_output(j->output);
			nv_drv_remove_output(nv_job_final(p, j));
		}
	}
	if (!rc && nv_drv.save_decisions)
		rc = join_decisions(0, decision_paths.n, nv_drv.save_decisions);
	for (size_t i = 0; !nv_drv.keep && i < temps.n; i++)
		unlink(temps.v[i]);
	for (size_t i = 0; !nv_drv.keep && i < p->temps.n; i++)
		unlink(p->temps.v[i]);
	nv_drv_sig_temps(NULL);
	nv_strv_free(&temps);
	if (nv_drv.keep && p->made_tmp && keep_all(p->tmp))
		rc = -1;
	/* the run's directory goes whole, whatever a tool left in it */
	if (p->made_tmp)
		nv_io_rm_tree(p->tmp);
	nv_drv_sig_dir(NULL);
	return rc;
}

/* The script's preamble once, then each job: a DEVICE job's chains, another
 * job's command. */
int
nv_drv_dryrun(struct nv_plan *p)
{
	int tmp = 0;

	printf("#!/bin/sh\n# nvcc-lite %s:", nv_pipe_name(nv_drv_pipe()));
	for (size_t i = 0; i < nv_drv.inputs.n; i++)
		printf(" %s", nv_drv.inputs.v[i]);
	printf("\nset -e\nexport NVCC_LITE_CHAIN=1\n");
	if (nv_drv.save_remarks)
		printf("mkdir -p %s\n", nv_shell_quote(nv_drv.save_remarks));
	for (size_t i = 0; i < p->n; i++) {
		const struct nv_job *j = &p->jobs[i];

		tmp |= j->temporary || j->inst_hi > j->inst_lo || (j->act == NV_ACT_DEVICE && j->dev->uses_tmp);
	}
	tmp |= nv_drv.save_decisions != NULL;
	if (tmp && nv_drv.keep)
		printf("tmp=%s\n", nv_shell_quote(p->tmp));
	else if (tmp)
		printf("tmp=$(mktemp -d)\ntrap 'rm -rf \"$tmp\"' EXIT\n");
	if (nv_drv.save_decisions)
		printf(": > \"$tmp\"/decisions\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct nv_job *j = &p->jobs[i];
		struct stat st;

		if (j->seed && nv_job_final(p, j) != j->output && !stat(nv_job_final(p, j), &st)) {
			char *av[] = { "cp", (char *)nv_job_final(p, j), j->output, NULL };

			nv_drv_print_cmd(stdout, av);
			putchar('\n');
		}
		if (j->act == NV_ACT_DEVICE) {
			print_device(j);
		} else {
			nv_drv_print_cmd(stdout, j->argv);
			putchar('\n');
		}
		for (size_t k = j->inst_lo; k < j->inst_hi; k++) {
			char *av[] = { "mv", "-f", p->installs.v[2 * k], p->installs.v[2 * k + 1], NULL };

			nv_drv_print_cmd(stdout, av);
			putchar('\n');
		}
	}
	if (nv_drv.save_decisions) {
		char *av[] = { "mv", "-f", DRYRUN_DECISIONS, (char *)nv_drv.save_decisions, NULL };

		nv_drv_print_cmd(stdout, av);
		putchar('\n');
	}
	return nv_drv_flush_stdout();
}
