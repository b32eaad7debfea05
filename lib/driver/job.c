/*
 * job: the plan as data.  A job's files in the run's directory, and the
 * user's files they are put in place as once the job succeeds.
 */
#include "job.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/io.h"
#include "../base/util.h"

void
nv_plan_add(struct nv_plan *p, const struct nv_job *j)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->jobs = xrealloc(p->jobs, p->cap * sizeof(*p->jobs));
	}
	p->jobs[p->n] = *j;
	/* the files nv_plan_out named since the last job are this one's */
	p->jobs[p->n].inst_lo = p->attached;
	p->jobs[p->n].inst_hi = p->attached = p->installs.n / 2;
	p->n++;
}

void
nv_plan_temp(struct nv_plan *p, char *path)
{
	nv_strv_push(&p->temps, path);
}

char *
nv_plan_out(struct nv_plan *p, char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct stat st;
	char *name, *tmp;

	if (!strcmp(path, "-") || nv_io_in_place(path, &st))
		return path;
	name = xasprintf("out%zu.%s", p->installs.n / 2, base);
	tmp = nv_plan_tmp(p, name);
	free(name);
	nv_strv_push(&p->installs, tmp);
	nv_strv_push(&p->installs, path);
	return p->installs.v[p->installs.n - 2];
}

const char *
nv_job_final(const struct nv_plan *p, const struct nv_job *j)
{
	for (size_t k = j->inst_lo; j->output && k < j->inst_hi; k++)
		if (!strcmp(p->installs.v[2 * k], j->output))
			return p->installs.v[2 * k + 1];
	return j->output;
}

const char *
nv_plan_tmp_dir(struct nv_plan *p)
{
	const char *t = getenv("TMPDIR");

	if (p->tmp)
		return p->tmp;
	p->tmp = xasprintf("%s/nvcc-lite.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(p->tmp))
		nv_fatal("cannot create a temporary directory in %s:", t && *t ? t : "/tmp");
	p->made_tmp = 1;
	return p->tmp;
}

char *
nv_plan_tmp(struct nv_plan *p, const char *name)
{
	return xasprintf("%s/%s", nv_plan_tmp_dir(p), name);
}

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

char *
nv_drv_stem(const char *path)
{
	const char *slash = strrchr(path, '/'), *b = slash ? slash + 1 : path;
	const char *dot = strrchr(b, '.');

	return dot ? xasprintf("%.*s", (int)(dot - b), b) : xstrdup(b);
}
