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

/* Build the entry pch of the front-end command av (consumed), traced, with
 * its diagnostics in err: 0 when it is there to use. */
static int
build_entry(const char *src, const char *arch, struct nv_pch *pch, struct nv_strv *av, const char *err,
            struct nv_strv *paths, int host)
{
	struct nv_drv_chain c = { .label = "header cache", .n = 1, .name = { host ? "host" : "front end" },
	                          .src = src, .arch = arch };
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

/* Build the prefix entry e, chained on base (the command's entry, or a
 * shorter prefix's; e locked): 0 when it is there to use. */
static int
build_prefix(const struct nv_fe_cache *c, const char *src, const char *arch, struct nv_pch *e,
             const struct nv_pch *base, const char *err, struct nv_strv *paths)
{
	struct nv_strv *av = copy_argv(c->flags);

	nv_strv_push(av, "-include-pch");
	nv_strv_push(av, base->pch);
	return build_entry(src, arch, e, av, err, paths, c->host);
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
nv_drv_header_cache(const struct nv_fe_cache *c, const char *src, const char *arch, struct nv_pch *pch,
                    const char *err, struct nv_strv *paths)
{
	struct nv_preamble pre = { 0 };
	struct nv_pch *e = NULL;
	char *cache;
	size_t n = 0, last = 0;
	long best = -1, build = -1;
	int off = 0, ok, host = c ? c->host : 0;

	if (!c || !(cache = nv_pch_dir()))
		return NULL;
	nv_pch_init(pch, cache, c->key, NULL, 0);
	if (c->preamble && strcmp(src, "-") && (n = nv_pch_preamble(src, &pre))) {
		struct nv_strv *av = copy_argv(c->flags);

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
		ok = !build_entry(src, arch, pch, copy_argv(c->key), err, paths, host);
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
		if (!nv_pch_lock(&e[build]) && !build_prefix(c, src, arch, &e[build], base, err, paths))
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
