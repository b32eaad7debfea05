/*
 * hcache: the header cache when the plan runs.  A compile's entry is found
 * from the flags the plan keyed it by (frontend.c's nv_drv_fe_cache), or
 * built now, traced, from those flags alone; then the compile's own
 * command, as planned, gets the entry's flags.  Nothing here plans: the
 * commands it runs are the plan's, with an entry's name and flags added.
 */
#include "hcache.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>

#include "../base/proc.h"
#include "../base/trace.h"
#include "../base/util.h"
#include "chain.h"
#include "flags.h"
#include "job.h"
#include "pch.h"

static struct nv_strv *
copy_argv(char **v)
{
	struct nv_strv *av = xcalloc(1, sizeof(*av));

	for (; *v; v++)
		nv_strv_push(av, *v);
	return av;
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

/*
 * The probe of the tokens a precompiled header freezes (pch.h): included
 * first, it marks them deprecated, and the build's warning where a header
 * expands one keeps the headers out of the cache.  Under -w no warning is
 * printed: the build has every warning off but that one instead.
 */
static char *
probe_path(void)
{
	char *dir = nv_drv_self_dir(), *path = xasprintf("%s/../share/nvcc-lite/pch-probe.h", dir);

	free(dir);
	return path;
}

static void
probe(struct nv_pch *pch, struct nv_strv *av)
{
	struct nv_strv was = *av;

	free(pch->probe);
	pch->probe = probe_path();
	memset(av, 0, sizeof(*av));
	for (size_t i = 0; i < was.n; i++) {
		if (!strcmp(was.v[i], "-w")) {
			nv_strv_push(av, "-Wno-everything");
			free(was.v[i]);
		} else {
			nv_strv_push(av, was.v[i]);
			free(was.v[i]);
		}
		if (i == 0) {
			nv_strv_push(av, "-include");
			nv_strv_push(av, pch->probe);
		}
	}
	free(was.v);
	nv_strv_push(av, "-Wdeprecated-pragma");
	nv_strv_push(av, "-Wpch-date-time");
}

/* Run argv to its end, its standard error on err: 0 when it exited 0. */
static int
run_quiet(char **argv, int err)
{
	struct nv_chain c;
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC), rc;

	rc = nv_chain_start(&c, &argv, 1, nul, nul, err);
	while (!rc && c.alive)
		nv_chain_wait(1);
	rc = rc || c.failed ? -1 : 0;
	nv_chain_release(&c);
	close(nul);
	return rc;
}

static int
by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The definitions of the module at path, a line each ("LINKAGE NAME"),
 * sorted; -1 when it cannot be read. */
static int
module_defs(const char *path, struct nv_strv *defs)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef buf;
	LLVMModuleRef m;
	char *msg = NULL;

	int bad;

	if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
		LLVMDisposeMessage(msg);
		LLVMContextDispose(ctx);
		return -1;
	}
	bad = LLVMParseBitcodeInContext2(ctx, buf, &m);
	LLVMDisposeMemoryBuffer(buf);
	if (bad) {
		LLVMContextDispose(ctx);
		return -1;
	}
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g))
			nv_strv_pushf(defs, "%d %s", (int)LLVMGetLinkage(g), LLVMGetValueName(g));
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			nv_strv_pushf(defs, "%d %s", (int)LLVMGetLinkage(f), LLVMGetValueName(f));
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	if (defs->n) /* an empty list's vector is NULL */
		qsort(defs->v, defs->n, sizeof(*defs->v), by_text);
	return 0;
}

/*
 * A prefix's entry, just built, is checked once against the compile it
 * stands for: its headers compiled alone without it, and nothing compiled
 * through it, must define the same things.  Clang keeps in a precompiled
 * header what its parse found, not all that its parse decided: a static
 * __constant__ table that a host function uses (curand's
 * __cr_lgamma_table) is defined by a compile of the headers, and by none
 * through the entry.  Such an entry is turned off.  0 when it stands.
 */
static int
canary(struct nv_pch *pch, char *const *flags, int err)
{
	const char *tmp = getenv("TMPDIR");
	char *a = xasprintf("%s/nvcc-lite-canary-XXXXXX", tmp && *tmp ? tmp : "/tmp"), *b = xasprintf("%s", a);
	struct nv_strv av = { 0 }, bv = { 0 }, adefs = { 0 }, bdefs = { 0 };
	int fa = mkstemp(a), fb = mkstemp(b), ok = 0;

	if (fa < 0 || fb < 0)
		goto out;
	for (size_t i = 0; flags[i]; i++) {
		nv_strv_push(&av, flags[i]);
		nv_strv_push(&bv, flags[i]);
	}
	nv_strv_push(&bv, "-include-pch");
	nv_strv_push(&bv, pch->pch);
	nv_strv_push(&bv, "-Xclang");
	nv_strv_pushf(&bv, "-preamble-bytes=%zu,1", pch->bytes);
	nv_strv_push(&av, "-emit-llvm");
	nv_strv_push(&av, "-c");
	nv_strv_push(&av, pch->src);
	nv_strv_push(&av, "-o");
	nv_strv_push(&av, a);
	nv_strv_push(&bv, "-emit-llvm");
	nv_strv_push(&bv, "-c");
	nv_strv_push(&bv, pch->src);
	nv_strv_push(&bv, "-o");
	nv_strv_push(&bv, b);
	ok = !run_quiet(av.v, err) && !run_quiet(bv.v, err) && !module_defs(a, &adefs) && !module_defs(b, &bdefs);
	for (size_t i = 0; ok && i < adefs.n; i++)
		ok = i < bdefs.n && !strcmp(adefs.v[i], bdefs.v[i]);
	ok = ok && adefs.n == bdefs.n;
out:
	if (fa >= 0)
		close(fa), unlink(a);
	if (fb >= 0)
		close(fb), unlink(b);
	free(a);
	free(b);
	nv_strv_free(&av);
	nv_strv_free(&bv);
	nv_strv_free(&adefs);
	nv_strv_free(&bdefs);
	return ok ? 0 : -1;
}

/* Build the entry pch of the front-end command av (consumed), traced, with
 * its diagnostics in err (nv_drv_diags_new): 0 when it is there to use. */
static int
build_entry(const char *src, const char *arch, struct nv_pch *pch, struct nv_strv *av, int err,
            struct nv_strv *paths, int host)
{
	struct nv_drv_chain c = { .label = "header cache", .n = 1, .name = { host ? "host" : "front end" },
	                          .src = src, .arch = arch };
	struct nv_trace t;
	struct timespec t0;
	struct rusage before;
	const char *why = NULL;
	int rc, st = 0, nul, used = 0;
	size_t said;
	struct nv_strv flags = { 0 }; /* the command, for the canary */

	for (size_t i = 0; i < av->n; i++)
		nv_strv_push(&flags, av->v[i]);
	nv_strv_push(paths, pch->lock);
	nv_strv_push(paths, pch->tmp_pch);
	nv_strv_push(paths, pch->tmp_deps);
	nv_drv_sig_paths(paths);
	probe(pch, av);
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
	nv_drv_diags_set(err, "", 0);
	if (nv_drv.verbose)
		nv_drv_show_chain(stderr, &c, "");
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	getrusage(RUSAGE_CHILDREN, &before);
	rc = nv_trace_run(c.argv[0], nul, -1, err, &t, &st, &why);
	close(nul);
	free(nv_drv_diags_text(err, &said));
	if (rc) {
		nv_pch_abandon(pch);
	} else {
		time_entry(&c, &t0, &before);
		/* put in place, then read back as any compile reads it */
		if (nv_pch_commit(pch, &t, WIFEXITED(st) && WEXITSTATUS(st) == 0, said == 0, &why) == 0 &&
		    nv_pch_fresh(pch, NULL)) {
			used = 1;
			if (pch->bytes && canary(pch, flags.v, err)) {
				why = "a compile through it defines other things than one without it";
				nv_pch_turn_off(pch, why);
				used = 0;
			}
			nv_pch_trim(pch->dir, nv_pch_budget());
		}
		nv_trace_release(&t);
	}
	if (why && nv_drv.verbose)
		fprintf(stderr, "#$ # header cache %s: %s\n", pch->key, why);
	nv_strv_free(&flags);
	return used ? 0 : -1;
}

/* The header cache's entry for this build: the longest prefix of the
 * source's preamble whose entry is fresh, or the longest one beyond it that
 * an earlier compile began with (built now); else the command's, used when
 * fresh, else built now unless another compile is building it (then this
 * one goes without).  Nothing here fails the build: without a cache it is
 * only slower.  A build that prints anything (a warning in a header) is
 * not cached, so the warning is not lost on the next compile; nor is any
 * longer prefix, which would print it too. */
const char *
nv_drv_header_cache(const struct nv_fe_cache *c, const char *src, const char *arch, struct nv_pch *pch,
                    int err, struct nv_strv *paths)
{
	struct nv_preamble pre = { 0 };
	struct nv_pch *e = NULL;
	char *cache;
	size_t n = 0, last = 0;
	long best = -1, build = -1;
	int off = 0, ok = 0, host = c ? c->host : 0;

	if (!c || !(cache = nv_pch_dir()))
		return NULL;
	nv_pch_init(pch, cache, c->key, NULL, 0);
	if (c->preamble && strcmp(src, "-") && (n = nv_pch_preamble(src, &pre))) {
		e = xcalloc(n, sizeof(*e));
		for (size_t i = 0; i < n; i++)
			nv_pch_init(&e[i], cache, c->flags, &pre, i);
		nv_preamble_free(&pre);
	}
	free(cache);
	/* the longest fresh prefix; the longer ones up to the first whose
	 * headers are not cached (nor any longer) */
	for (size_t i = n; i-- > 0 && best < 0;) {
		int o = 0;

		if (nv_pch_fresh(&e[i], &o) && !o)
			best = (long)i;
	}
	for (last = (size_t)(best + 1); last < n; last++) {
		int o = 0;

		if (nv_pch_fresh(&e[last], &o) && o)
			break;
	}
	/* a longer one an earlier compile began with is built now; this one
	 * marks those it begins with for the next */
	for (size_t i = (size_t)(best + 1); !nv_drv.dryrun && i < last; i++)
		if (nv_pch_seen(&e[i]))
			build = (long)i;
	if (build >= 0 && !nv_pch_lock(&e[build]) &&
	    !build_entry(src, arch, &e[build], copy_argv(c->flags), err, paths, host))
		best = build;
	if (best >= 0) {
		nv_pch_release(pch);
		*pch = e[best];
		memset(&e[best], 0, sizeof(e[best]));
		ok = 1;
	} else if (nv_pch_fresh(pch, &off)) {
		ok = !off;
	} else if (!nv_drv.dryrun && !(host && !nv_pch_seen(pch)) && !nv_pch_lock(pch)) {
		/* the host side's entry is built on its flag set's second compile */
		ok = !build_entry(src, arch, pch, copy_argv(c->key), err, paths, host);
	}
	for (size_t i = 0; i < n; i++)
		nv_pch_release(&e[i]);
	free(e);
	if (!pch->probe)
		pch->probe = probe_path(); /* no dependency of the compile's */
	return ok ? pch->pch : NULL;
}

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
nv_drv_with_pch(char **argv, size_t at, const struct nv_pch *pch)
{
	struct nv_strv av = { 0 };

	for (size_t i = 0; argv[i]; i++) {
		if (i == at)
			nv_drv_use_pch(&av, pch);
		nv_strv_push(&av, argv[i]);
	}
	return av.v;
}
