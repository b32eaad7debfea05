/*
 * cuda: find the CUDA installation and read what nvcc reads from it.
 *
 * nvcc.profile is a list of "NAME = VALUE", "NAME += VALUE" (append) and
 * "NAME =+ VALUE" (prepend) lines whose values refer to $(NAME); nvcc
 * predefines _HERE_ (the profile's directory), _SPACE_ and _TARGET_DIR_
 * (targets/<machine>-linux).  INCLUDES and SYSTEM_INCLUDES hold the
 * quoted compiler arguments nvcc gives every compile: -I for the CUDA
 * headers, -isystem for CCCL (cub, thrust, cuda/std).
 */
#include "cuda.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../base/diag.h"

static int
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
has_cuda(const char *root)
{
	char *h = xasprintf("%s/include/cuda_runtime.h", root);
	int yes = is_file(h);

	free(h);
	return yes;
}

/* The root above the nvcc on PATH ("/opt/cuda/bin/nvcc" -> "/opt/cuda"). */
static char *
root_of_path_nvcc(void)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *found = NULL;

	if (!path)
		return NULL;
	copy = xstrdup(path);
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *nvcc = xasprintf("%s/nvcc", *d ? d : ".");
		char *real = is_file(nvcc) ? realpath(nvcc, NULL) : NULL;

		if (real) {
			char *slash = strrchr(real, '/');

			*slash = '\0';
			slash = strrchr(real, '/');
			if (slash && slash != real) {
				*slash = '\0';
				if (has_cuda(real))
					found = xstrdup(real);
			}
			free(real);
		}
		free(nvcc);
	}
	free(copy);
	return found;
}

/* CUDA_VERSION in include/cuda.h: 13000 is 13.0. */
static void
read_version(struct nv_cuda *c)
{
	char *path = xasprintf("%s/include/cuda.h", c->root), line[512];
	FILE *fp = fopen(path, "r");

	free(path);
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		int v;

		if (sscanf(line, " #define CUDA_VERSION %d", &v) == 1) {
			c->major = v / 1000;
			c->minor = v % 1000 / 10;
			break;
		}
	}
	fclose(fp);
}

int
nv_cuda_find(struct nv_cuda *c)
{
	const char *env = getenv("CUDA_PATH");

	memset(c, 0, sizeof(*c));
	if (env)
		c->root = *env && has_cuda(env) ? xstrdup(env) : NULL;
	else if (has_cuda("/usr/local/cuda"))
		c->root = xstrdup("/usr/local/cuda");
	else
		c->root = root_of_path_nvcc();
	if (!c->root)
		return -1;
	read_version(c);
	return 0;
}

char *
nv_cuda_expand(const char *s, char **vars, size_t nvars)
{
	size_t len = 0, cap = strlen(s) + 1;
	char *buf = xmalloc(cap);

	while (*s) {
		const char *val = s, *end;
		size_t vlen = 1;

		if (s[0] == '$' && s[1] == '(' && (end = strchr(s, ')'))) {
			size_t nlen = (size_t)(end - s - 2);

			val = "";
			for (size_t i = nvars; i-- > 0;)
				if (!strncmp(vars[i], s + 2, nlen) && vars[i][nlen] == '=') {
					val = vars[i] + nlen + 1;
					break;
				}
			vlen = strlen(val);
			s = end + 1;
		} else {
			s++;
		}
		if (len + vlen + 1 > cap) {
			cap = 2 * (len + vlen + 1);
			buf = xrealloc(buf, cap);
		}
		memcpy(buf + len, val, vlen);
		len += vlen;
	}
	buf[len] = '\0';
	return buf;
}

void
nv_cuda_split_words(const char *s, struct nv_strv *out)
{
	char *w = xmalloc(strlen(s) + 1);

	while (*s) {
		size_t n = 0;
		int quote = 0, any = 0;

		while (*s && isspace((unsigned char)*s))
			s++;
		for (; *s && (quote || !isspace((unsigned char)*s)); s++) {
			any = 1;
			if (quote && *s == quote)
				quote = 0;
			else if (!quote && (*s == '"' || *s == '\''))
				quote = *s;
			else if (*s == '\\' && s[1] && quote != '\'')
				w[n++] = *++s;
			else
				w[n++] = *s;
		}
		w[n] = '\0';
		if (any)
			nv_strv_push(out, w);
	}
	free(w);
}

static char *
target_dir(const char *root)
{
	struct utsname u;
	const char *m = uname(&u) == 0 ? u.machine : "x86_64";
	const char *cands[] = { m, !strcmp(m, "aarch64") ? "sbsa" : NULL };

	for (size_t i = 0; i < 2 && cands[i]; i++) {
		char *rel = xasprintf("targets/%s-linux", cands[i]), *abs = xasprintf("%s/%s", root, rel);
		int ok = is_dir(abs);

		free(abs);
		if (ok)
			return rel;
		free(rel);
	}
	return xasprintf("targets/%s-linux", m);
}

static const char *
lookup(struct nv_strv *vars, const char *name)
{
	size_t nlen = strlen(name);

	for (size_t i = vars->n; i-- > 0;)
		if (!strncmp(vars->v[i], name, nlen) && vars->v[i][nlen] == '=')
			return vars->v[i] + nlen + 1;
	return NULL;
}

/* One "NAME op VALUE" line into vars: op is =, += or =+. */
static void
profile_line(char *line, struct nv_strv *vars)
{
	char *op = strchr(line, '='), *name = line, *val, *nv;
	const char *old;
	int append = 0, prepend = 0;
	size_t nlen;

	if (!op || line[0] == '#')
		return;
	if (op > line && op[-1] == '+')
		append = 1, op[-1] = '\0';
	else if (op[1] == '+')
		prepend = 1, *op++ = '\0';
	*op = '\0';
	val = op + 1;
	while (isspace((unsigned char)*name))
		name++;
	nlen = strlen(name);
	while (nlen && isspace((unsigned char)name[nlen - 1]))
		name[--nlen] = '\0';
	while (isspace((unsigned char)*val))
		val++;
	val[strcspn(val, "\r\n")] = '\0';
	if (!nlen)
		return;
	val = nv_cuda_expand(val, vars->v, vars->n);
	old = lookup(vars, name);
	if (!old)
		old = getenv(name) ? getenv(name) : "";
	nv = append ? xasprintf("%s=%s%s", name, old, val)
	   : prepend ? xasprintf("%s=%s%s", name, val, old)
	             : xasprintf("%s=%s", name, val);
	nv_strv_push(vars, nv);
	free(nv);
	free(val);
}

int
nv_cuda_read_profile(struct nv_cuda *c)
{
	char *path = xasprintf("%s/bin/nvcc.profile", c->root), line[4096], *td;
	struct nv_strv vars = { 0 };
	FILE *fp = fopen(path, "r");

	if (!fp) {
		nv_warn("cannot read '%s': using %s/include only", path, c->root);
		nv_strv_pushf(&c->incs, "-I%s/include", c->root);
		free(path);
		return -1;
	}
	td = target_dir(c->root);
	nv_strv_pushf(&vars, "_HERE_=%s/bin", c->root);
	nv_strv_push(&vars, "_SPACE_= ");
	nv_strv_pushf(&vars, "_TARGET_DIR_=%s", td);
	nv_strv_push(&vars, "_TARGET_SIZE_=");
	while (fgets(line, sizeof(line), fp))
		profile_line(line, &vars);
	fclose(fp);
	for (size_t k = 0; k < 2; k++) {
		const char *v = lookup(&vars, k ? "SYSTEM_INCLUDES" : "INCLUDES");

		if (v)
			nv_cuda_split_words(v, &c->incs);
	}
	nv_strv_free(&vars);
	free(td);
	free(path);
	return 0;
}

/* "13.0.88" at s into v: 0 when it is three numbers. */
static int
three_numbers(const char *s, int v[3])
{
	return sscanf(s, "%d.%d.%d", &v[0], &v[1], &v[2]) == 3 ? 0 : -1;
}

/* version.json: { ..., "cuda_nvcc" : { "name" : ..., "version" : "13.0.88" }, ... } */
static int
version_json(const char *root, int v[3])
{
	char *path = xasprintf("%s/version.json", root), buf[1 << 16];
	FILE *fp = fopen(path, "r");
	size_t n;
	const char *entry, *ver;
	int rc = -1;

	free(path);
	if (!fp)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	if ((entry = strstr(buf, "\"cuda_nvcc\"")) && (ver = strstr(entry, "\"version\"")) &&
	    (ver = strchr(ver + 9, '"')))
		rc = three_numbers(ver + 1, v);
	return rc;
}

/* dist-info/nvidia_cuda_nvcc-13.0.88.dist-info: a pip installation's. */
static int
dist_info(const char *root, int v[3])
{
	static const char prefix[] = "nvidia_cuda_nvcc-";
	char *path = xasprintf("%s/dist-info", root);
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = -1;

	free(path);
	while (d && rc && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, sizeof(prefix) - 1))
			rc = three_numbers(e->d_name + sizeof(prefix) - 1, v);
	if (d)
		closedir(d);
	return rc;
}

/* The "Cuda compilation tools, release 13.0, V13.0.88" nvcc --version prints,
 * read from the program without running it. */
static int
nvcc_banner(const char *root, int v[3])
{
	static const char mark[] = "Cuda compilation tools, release ";
	char *path = xasprintf("%s/bin/nvcc", root);
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	struct stat st;
	const char *map, *at, *ver;

	free(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		at = memmem(map, (size_t)st.st_size, mark, sizeof(mark) - 1);
		/* ", V13.0.88" within the same string */
		ver = at ? memchr(at, 'V', (size_t)(map + st.st_size - at)) : NULL;
		if (ver && ver - at < 64) {
			char tmp[32] = "";
			size_t left = (size_t)(map + st.st_size - ver - 1);

			memcpy(tmp, ver + 1, left < sizeof(tmp) - 1 ? left : sizeof(tmp) - 1);
			rc = three_numbers(tmp, v);
		}
		munmap((void *)map, (size_t)st.st_size);
	}
	close(fd);
	return rc;
}

int
nv_cuda_nvcc_version(struct nv_cuda *c)
{
	int (*const source[])(const char *, int[3]) = { version_json, dist_info, nvcc_banner };

	if (c->nvcc[0])
		return 0;
	for (size_t i = 0; i < sizeof(source) / sizeof(*source); i++)
		if (source[i](c->root, c->nvcc) == 0 && c->nvcc[0] > 0)
			return 0;
	c->nvcc[0] = c->major;
	c->nvcc[1] = c->minor;
	c->nvcc[2] = 0;
	return -1;
}

char *
nv_cuda_lib_dir(const struct nv_cuda *c)
{
	char *d = xasprintf("%s/lib64", c->root);

	if (access(d, F_OK)) {
		free(d);
		d = xasprintf("%s/targets/x86_64-linux/lib", c->root);
	}
	return d;
}

char *
nv_cuda_tool(const struct nv_cuda *c, const char *name, const char *why)
{
	char *path;

	if (!c->root)
		nv_fatal("%s needs CUDA's %s: no CUDA installation found (set CUDA_PATH)", why, name);
	path = xasprintf("%s/bin/%s", c->root, name);
	if (access(path, X_OK))
		nv_fatal("%s needs CUDA's %s, which is not in %s/bin", why, name, c->root);
	return path;
}

void
nv_cuda_release(struct nv_cuda *c)
{
	free(c->root);
	nv_strv_free(&c->incs);
	memset(c, 0, sizeof(*c));
}

/* The newest PTX ISA each CUDA release's ptxas reads (PTX ISA manual,
 * release notes), as nvcc writes it; 0 for a CUDA older than 12.0. */
int
nv_cuda_ptx_isa(const struct nv_cuda *c)
{
	static const struct { int major, minor, isa; } rel[] = {
		{ 12, 0, 80 }, { 12, 1, 81 }, { 12, 2, 82 }, { 12, 3, 83 }, { 12, 4, 84 },
		{ 12, 5, 85 }, { 12, 6, 85 }, { 12, 8, 87 }, { 12, 9, 88 }, { 13, 0, 90 },
	};
	int isa = 0;

	for (size_t i = 0; i < sizeof(rel) / sizeof(*rel); i++)
		if (c->major > rel[i].major || (c->major == rel[i].major && c->minor >= rel[i].minor))
			isa = rel[i].isa;
	return isa;
}
