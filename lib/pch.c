/*
 * pch: the front end's header cache (see pch.h for the files).
 *
 * An entry is used only when clang would accept it: clang records the
 * size and modification time of every file a precompiled header was built
 * from and refuses the header when one differs, so the list keeps exactly
 * those and nv_pch_fresh compares them.  The key covers the rest: the
 * command (every -D, -I, -std, the architecture ...), the working
 * directory when the command names a relative path, clang's binary and
 * nvcc-lite's version.
 *
 * Concurrent compiles: one takes the lock and builds; the others compile
 * without the cache meanwhile.  The entry appears by rename, list before
 * header, so a reader sees a whole entry or none.  A lock left by a killed
 * build is taken over after two minutes.
 */
#include "pch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#ifndef NV_VERSION
#define NV_VERSION "0"
#endif

#define LIST_MAGIC "nv-pch 1"

/* Characters the cache path may hold: no quoting in a dependency file. */
static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-";

/* Is tok one of the cache's own files (a chained entry's bases)? */
static int
in_cache(const struct nv_pch *p, const char *tok)
{
	size_t n = strlen(p->dir);

	return !strncmp(tok, p->dir, n) && tok[n] == '/';
}

static int
mkdirs(char *path)
{
	struct stat st;

	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0777) && errno != EEXIST) {
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	if (mkdir(path, 0777) && errno != EEXIST)
		return -1;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && access(path, W_OK | X_OK) == 0 ? 0 : -1;
}

char *
nv_pch_dir(void)
{
	const char *env = getenv("NVCC_LITE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir;

	if (env && *env)
		dir = xstrdup(env);
	else if (xdg && *xdg == '/')
		dir = xasprintf("%s/nvcc-lite", xdg);
	else if (home && *home == '/')
		dir = xasprintf("%s/.cache/nvcc-lite", home);
	else
		return NULL;
	if (*dir != '/' || strspn(dir, plain) != strlen(dir) || mkdirs(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t
fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s, strlen(s) + 1);
}

/* Whether args name a directory or file relative to the working directory;
 * include: whether "-include FILE" counts (it searches the working
 * directory first).  nvcc-lite's own "-include nvcc_compat.h" does not:
 * it is on nvcc-lite's -isystem path. */
static int
relative_in(char *const *args, size_t n, int include)
{
	static const char *const takes_path[] = { "-include", "-isystem", "-idirafter", "-iquote",
		                                  "-imacros", "-isysroot", NULL };

	for (size_t i = 0; i < n; i++) {
		const char *a = args[i];

		if (!strncmp(a, "-I", 2) && a[2] && a[2] != '/')
			return 1;
		if (!strncmp(a, "--cuda-path=", 12) && a[12] != '/')
			return 1;
		for (size_t k = include ? 0 : 1; takes_path[k] && i + 1 < n; k++)
			if (!strcmp(a, takes_path[k]) && args[i + 1][0] != '/')
				return 1;
	}
	return 0;
}

/* The command's and its -Xclang arguments' relative paths. */
static int
relative_paths(char *const *argv)
{
	size_t n = 0, nx = 0;
	char **xclang;
	int rel;

	while (argv[n])
		n++;
	xclang = xcalloc(n + 1, sizeof(*xclang));
	for (size_t i = 1; i + 1 < n; i++)
		if (!strcmp(argv[i], "-Xclang"))
			xclang[nx++] = argv[++i];
	rel = relative_in(argv + 1, n - 1, 0) || relative_in(xclang, nx, 1);
	free(xclang);
	return rel;
}

void
nv_pch_init(struct nv_pch *p, const char *dir, char *const *argv, const struct nv_preamble *pre,
            size_t stop)
{
	size_t bytes = pre ? pre->stop[stop].text : 0;
	uint64_t h = 0xcbf29ce484222325ull;
	char cwd[4096];
	struct stat st;

	memset(p, 0, sizeof(*p));
	h = fnv_str(h, NV_VERSION);
	if (relative_paths(argv) && getcwd(cwd, sizeof(cwd)))
		h = fnv_str(h, cwd);
	if (stat(argv[0], &st) == 0) {
		h = fnv(h, &st.st_mtim, sizeof(st.st_mtim));
		h = fnv(h, &st.st_size, sizeof(st.st_size));
	}
	for (size_t i = 0; argv[i]; i++)
		h = fnv_str(h, argv[i]);
	if (bytes) {
		h = fnv(h, pre->text, bytes);
		p->preamble = xmalloc(bytes);
		memcpy(p->preamble, pre->text, bytes);
		p->bytes = bytes;
		p->skip = pre->stop[stop].bytes;
	}
	p->dir = xstrdup(dir);
	p->key = xasprintf("%016llx", (unsigned long long)h);
	p->pch = xasprintf("%s/fe-%s.pch", dir, p->key);
	p->list = xasprintf("%s/fe-%s.list", dir, p->key);
	p->src = xasprintf("%s/fe-%s.cu", dir, p->key);
	p->lock = xasprintf("%s/fe-%s.lock", dir, p->key);
	p->tmp_pch = xasprintf("%s/fe-%s.pch.%ld", dir, p->key, (long)getpid());
	p->tmp_deps = xasprintf("%s/fe-%s.d.%ld", dir, p->key, (long)getpid());
}

/* Does line (n bytes, no newline) hold only an `#include <...>`, spaces
 * and comments?  *comment: whether a block comment is open, before and
 * after.  0 for a blank line, 1 for an include (its name in *name, *len
 * bytes), -1 for anything else. */
static int
include_line(const char *line, size_t n, int *comment, const char **name, size_t *len)
{
	const char *s = line, *end = line + n;
	int inc = 0;

	while (s < end) {
		if (*comment) {
			const char *close = memmem(s, (size_t)(end - s), "*/", 2);

			if (!close)
				return inc;
			*comment = 0;
			s = close + 2;
		} else if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' || *s == '\v') {
			s++;
		} else if (end - s >= 2 && s[0] == '/' && s[1] == '*') {
			*comment = 1;
			s += 2;
		} else if (end - s >= 2 && s[0] == '/' && s[1] == '/') {
			/* a comment to the line's end, unless a backslash carries it on */
			return end[-1] == '\\' ? -1 : inc;
		} else if (*s == '#' && !inc) {
			for (s++; s < end && (*s == ' ' || *s == '\t'); s++)
				;
			if (end - s < 7 || memcmp(s, "include", 7))
				return -1;
			for (s += 7; s < end && (*s == ' ' || *s == '\t'); s++)
				;
			if (s == end || *s != '<')
				return -1;
			*name = ++s;
			while (s < end && *s != '>' && *s != '"' && *s != '\\')
				s++;
			if (s == end || *s != '>' || s == *name)
				return -1;
			*len = (size_t)(s - *name);
			s++;
			inc = 1;
		} else {
			return -1;
		}
	}
	return inc;
}

size_t
nv_pch_preamble(const char *path, struct nv_preamble *pre)
{
	enum { MAX = 1 << 16, STOPS = 32 };
	char *buf = xmalloc(MAX);
	size_t n = 0, r, at = 0, count = 0, cap = 0, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), comment = 0;

	memset(pre, 0, sizeof(*pre));
	while (fd >= 0 && n < MAX && (r = (size_t)read(fd, buf + n, MAX - n)) > 0 && r != (size_t)-1)
		n += r;
	if (fd >= 0)
		close(fd);
	while (at < n && pre->n < STOPS) {
		char *nl = memchr(buf + at, '\n', n - at);
		const char *name = NULL;
		size_t name_len = 0;
		int k;

		if (!nl || memchr(buf + at, '\0', (size_t)(nl - (buf + at))))
			break;
		k = include_line(buf + at, (size_t)(nl - (buf + at)), &comment, &name, &name_len);
		if (k < 0)
			break;
		at = (size_t)(nl - buf) + 1;
		if (k) {
			/* "#include <" NAME ">\n", and sprintf's NUL */
			if (len + name_len + 13 > cap)
				pre->text = xrealloc(pre->text, cap = 2 * (len + name_len + 13));
			len += (size_t)sprintf(pre->text + len, "#include <%.*s>\n", (int)name_len, name);
			count++;
		}
		/* a stop: the includes so far end here, outside any comment */
		if (!comment && count && (!pre->n || pre->stop[pre->n - 1].includes < count)) {
			pre->stop = xrealloc(pre->stop, (pre->n + 1) * sizeof(*pre->stop));
			pre->stop[pre->n].includes = count;
			pre->stop[pre->n].text = len;
			pre->stop[pre->n].bytes = at;
			pre->n++;
		}
	}
	free(buf);
	if (!pre->n)
		nv_preamble_free(pre);
	return pre->n;
}

void
nv_preamble_free(struct nv_preamble *pre)
{
	free(pre->text);
	free(pre->stop);
	memset(pre, 0, sizeof(*pre));
}

/* A dependency file's token as a path: "\ " is a space, "$$" a dollar. */
static char *
unescape(const char *tok)
{
	char *s = xstrdup(tok), *d = s;

	for (const char *t = tok; *t; t++) {
		if (*t == '\\' && (t[1] == ' ' || t[1] == '#'))
			t++;
		else if (*t == '$' && t[1] == '$')
			t++;
		*d++ = *t;
	}
	*d = '\0';
	return s;
}

/* The prerequisites of the first rule of a dependency file, as escaped
 * tokens; the target text before them in *target when asked.  -1 when
 * the file cannot be read or has no rule. */
static int
read_deps(const char *path, struct nv_strv *toks, char **target)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL, *s, *colon;
	size_t cap = 0, n = 0;
	int c;

	if (!fp)
		return -1;
	/* the first rule: lines joined where they end in a backslash */
	while ((c = getc(fp)) != EOF) {
		if (n + 2 >= cap)
			buf = xrealloc(buf, cap = cap ? cap * 2 : 4096);
		if (c == '\n') {
			if (n && buf[n - 1] == '\\') {
				buf[n - 1] = ' ';
				continue;
			}
			break;
		}
		buf[n++] = (char)c;
	}
	fclose(fp);
	if (!buf || !(colon = strstr(buf, ": "))) {
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	if (target)
		*target = xasprintf("%.*s", (int)(colon - buf), buf);
	for (s = colon + 2; *s;) {
		char *t;

		while (*s == ' ' || *s == '\t')
			s++;
		for (t = s; *t && *t != ' ' && *t != '\t'; t++)
			if (*t == '\\' && t[1])
				t++;
		if (t > s) {
			char save = *t;

			*t = '\0';
			nv_strv_push(toks, s);
			*t = save;
		}
		s = t;
	}
	free(buf);
	return 0;
}

static int
has(const struct nv_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

/* The list's tokens (escaped, as the build's dependency file gave them). */
static int
read_list(const struct nv_pch *p, struct nv_strv *toks, int check, int *off)
{
	FILE *fp = fopen(p->list, "r");
	struct nv_strv bases = { 0 };
	char line[8192];
	int ok = 1;

	if (!fp)
		return -1;
	if (!fgets(line, sizeof(line), fp) || strncmp(line, LIST_MAGIC, strlen(LIST_MAGIC))) {
		fclose(fp);
		return -1;
	}
	if (off)
		*off = !strcmp(line, LIST_MAGIC " off\n");
	while (ok && fgets(line, sizeof(line), fp)) {
		long long sec, nsec, size;
		int at = 0;
		struct stat st;
		char *path;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%lld.%lld %lld %n", &sec, &nsec, &size, &at) != 3 || !at) {
			ok = 0;
			break;
		}
		/* the cache's own files (a chained entry's bases) are checked,
		 * never dependencies */
		if (!in_cache(p, line + at)) {
			if (toks)
				nv_strv_push(toks, line + at);
		} else if (check) {
			nv_strv_push(&bases, line + at);
		}
		if (!check)
			continue;
		path = unescape(line + at);
		ok = stat(path, &st) == 0 && st.st_mtim.tv_sec == sec && st.st_mtim.tv_nsec == nsec &&
		     st.st_size == size;
		free(path);
	}
	fclose(fp);
	/* a fresh entry's bases are in use too: nv_pch_trim keeps them */
	for (size_t i = 0; ok && i < bases.n; i++) {
		size_t n = strlen(bases.v[i]);

		if (n > 4 && !strcmp(bases.v[i] + n - 4, ".pch")) {
			char *list = xasprintf("%.*s.list", (int)(n - 4), bases.v[i]);

			utimensat(AT_FDCWD, list, NULL, 0);
			free(list);
		}
	}
	nv_strv_free(&bases);
	return ok ? 0 : -1;
}

int
nv_pch_fresh(const struct nv_pch *p, int *off)
{
	struct stat st;
	int o = 0;

	if (read_list(p, NULL, 1, &o))
		return 0;
	if (off)
		*off = o;
	if (o)
		return 1;
	if (stat(p->pch, &st))
		return 0;
	/* used: nv_pch_trim drops the entries used longest ago (the list's
	 * time: the header's is checked by the entries chained on it, and
	 * read_list has touched the lists of this one's bases) */
	utimensat(AT_FDCWD, p->list, NULL, 0);
	return 1;
}

int
nv_pch_lock(struct nv_pch *p)
{
	int fd;

	for (int tries = 0; tries < 2; tries++) {
		struct stat st;

		fd = open(p->lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0)
			break;
		if (errno != EEXIST || stat(p->lock, &st) || time(NULL) - st.st_mtime < 120)
			return -1;
		unlink(p->lock); /* left by a build that was killed */
	}
	if (fd < 0)
		return -1;
	close(fd);
	p->held = 1;
	/* the header's source: empty, so the header is what the command
	 * includes; or the preamble */
	fd = open(p->src, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 || (p->bytes > p->from &&
	                write(fd, p->preamble + p->from, p->bytes - p->from) != (ssize_t)(p->bytes - p->from))) {
		if (fd >= 0)
			close(fd);
		nv_pch_abandon(p);
		return -1;
	}
	close(fd);
	return 0;
}

static int file_id(const char *tok, struct stat *st);

/* Is tok one of the files of ids (n)? */
static int
same_file(const char *tok, const struct stat *ids, size_t n)
{
	struct stat st;

	if (!file_id(tok, &st))
		return 0;
	for (size_t k = 0; k < n; k++)
		if (ids[k].st_ino == st.st_ino && ids[k].st_dev == st.st_dev)
			return 1;
	return 0;
}

static void
put_file(FILE *fp, const char *tok)
{
	char *path = unescape(tok);
	struct stat st;

	if (stat(path, &st) == 0)
		fprintf(fp, "%lld.%09ld %lld %s\n", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		        (long long)st.st_size, tok);
	free(path);
}

/* The list of the build's dependency file: every file but the source.  A
 * chained entry's starts with its base's list (in the order the headers
 * were included, as the base's build gave it) and ends with the base's
 * header itself, which clang checks too. */
static int
write_list(const struct nv_pch *p, int off)
{
	struct nv_strv toks = { 0 }, base = { 0 };
	char *tmp = xasprintf("%s.%ld", p->list, (long)getpid());
	struct stat *ids = NULL;
	size_t nid = 0;
	FILE *fp;
	int rc = -1;

	if (read_deps(p->tmp_deps, &toks, NULL) || !(fp = fopen(tmp, "w")))
		goto out;
	fprintf(fp, "%s%s\n", LIST_MAGIC, off ? " off" : "");
	if (p->base_list) {
		FILE *in = fopen(p->base_list, "r");
		char line[8192];
		long long sec, nsec, size;
		int at = 0;

		if (!in || !fgets(line, sizeof(line), in) || strcmp(line, LIST_MAGIC "\n")) {
			if (in)
				fclose(in);
			fclose(fp);
			goto out;
		}
		while (fgets(line, sizeof(line), in)) {
			fputs(line, fp);
			line[strcspn(line, "\n")] = '\0';
			if (sscanf(line, "%lld.%lld %lld %n", &sec, &nsec, &size, &at) == 3 && at)
				nv_strv_push(&base, line + at);
		}
		fclose(in);
	}
	/* the base's files, as clang names them from the base's header (by
	 * their full paths), are the base's */
	ids = xcalloc(base.n + 1, sizeof(*ids));
	for (size_t k = 0; k < base.n; k++)
		if (file_id(base.v[k], &ids[nid]))
			nid++;
	for (size_t i = 0; i < toks.n; i++) {
		if (!in_cache(p, toks.v[i]) && !has(&base, toks.v[i]) &&
		    !same_file(toks.v[i], ids, nid))
			put_file(fp, toks.v[i]);
	}
	if (p->base_pch)
		put_file(fp, p->base_pch);
	rc = fclose(fp) ? -1 : 0;
	if (!rc && (off || rename(p->tmp_pch, p->pch) == 0))
		rc = rename(tmp, p->list);
	else
		rc = -1;
out:
	if (rc)
		unlink(tmp);
	free(tmp);
	free(ids);
	nv_strv_free(&toks);
	nv_strv_free(&base);
	return rc;
}

void
nv_pch_chain(struct nv_pch *p, const struct nv_pch *base)
{
	free(p->base_pch);
	free(p->base_list);
	free(p->base_src);
	p->from = base->bytes;
	p->base_pch = xstrdup(base->pch);
	p->base_list = xstrdup(base->list);
	p->base_src = xstrdup(base->src);
}

int
nv_pch_commit(struct nv_pch *p, int ok, int quiet)
{
	int rc = -1;

	if (ok)
		rc = write_list(p, !quiet);
	nv_pch_abandon(p);
	return rc || !quiet ? -1 : 0;
}

void
nv_pch_abandon(struct nv_pch *p)
{
	unlink(p->tmp_pch);
	unlink(p->tmp_deps);
	if (p->held)
		unlink(p->lock);
	p->held = 0;
}

/* A dependency rule as clang writes it: lines kept under 75 columns. */
static void
put_deps(FILE *fp, const char *target, const struct nv_strv *deps, int phony)
{
	size_t cols = strlen(target) + 1;

	fprintf(fp, "%s:", target);
	for (size_t i = 0; i < deps->n; i++) {
		size_t n = strlen(deps->v[i]);

		if (cols + n + 1 + 2 > 75) {
			fputs(" \\\n ", fp);
			cols = 2;
		}
		fprintf(fp, " %s", deps->v[i]);
		cols += n + 1;
	}
	fputc('\n', fp);
	for (size_t i = 1; phony && i < deps->n; i++)
		fprintf(fp, "%s:\n", deps->v[i]);
}

/* A path as a dependency file writes it. */
static char *
escape(const char *path)
{
	char *s = xmalloc(strlen(path) * 2 + 1), *d = s;

	for (; *path; path++) {
		if (*path == ' ' || *path == '#')
			*d++ = '\\';
		else if (*path == '$')
			*d++ = '$';
		*d++ = *path;
	}
	*d = '\0';
	return s;
}

/* The file a dependency token names, as (device, inode); 0 when none. */
static int
file_id(const char *tok, struct stat *st)
{
	char *path = unescape(tok);
	int ok = stat(path, st) == 0;

	free(path);
	return ok;
}

int
nv_pch_fix_deps(const struct nv_pch *p, const char *dep_file, const char *input, int full, int phony)
{
	struct nv_strv got = { 0 }, from_pch = { 0 }, out = { 0 };
	char *target = NULL, *tmp = NULL, *src = escape(input);
	struct stat *ids = NULL;
	int rc = -1;
	FILE *fp;

	if (read_deps(dep_file, &got, &target) || read_list(p, &from_pch, 0, NULL))
		goto done;
	/* the source first, as clang puts it without the header; then what
	 * the header was built from; then the source's own includes */
	nv_strv_push(&out, src);
	for (size_t i = 0; full && i < from_pch.n; i++)
		if (!has(&out, from_pch.v[i]))
			nv_strv_push(&out, from_pch.v[i]);
	ids = xcalloc(from_pch.n + 1, sizeof(*ids));
	for (size_t k = 0; k < from_pch.n; k++)
		if (!file_id(from_pch.v[k], &ids[k]))
			ids[k].st_ino = 0;
	for (size_t i = 0; i < got.n; i++) {
		const char *tok = got.v[i];
		struct stat st;

		if (in_cache(p, tok) || has(&out, tok))
			continue; /* the cache's own files are no dependencies */
		/* a header of the entry, as clang names it from the entry (by
		 * its full path): named as the compile without it names it */
		for (size_t k = 0, ok = file_id(tok, &st); ok && k < from_pch.n; k++)
			if (ids[k].st_ino && ids[k].st_ino == st.st_ino && ids[k].st_dev == st.st_dev) {
				tok = from_pch.v[k];
				break;
			}
		if (!has(&out, tok))
			nv_strv_push(&out, tok);
	}
	tmp = xasprintf("%s.%ld", dep_file, (long)getpid());
	if (!(fp = fopen(tmp, "w")))
		goto done;
	put_deps(fp, target, &out, phony);
	if (fclose(fp) || rename(tmp, dep_file))
		unlink(tmp);
	else
		rc = 0;
done:
	free(ids);
	free(src);
	free(target);
	free(tmp);
	nv_strv_free(&got);
	nv_strv_free(&from_pch);
	nv_strv_free(&out);
	return rc;
}

struct entry {
	char *key;
	time_t used;
	long long size;
};

static int
by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

int
nv_pch_seen(const struct nv_pch *p)
{
	char *path = xasprintf("%s/fe-%s.seen", p->dir, p->key);
	int fd, seen = access(path, F_OK) == 0;

	if (!seen && (fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666)) >= 0)
		close(fd);
	free(path);
	return seen;
}

long long
nv_pch_budget(void)
{
	const char *env = getenv("NVCC_LITE_CACHE_SIZE");
	char *end;
	long long n;

	if (!env || !*env)
		return 2LL << 30;
	errno = 0;
	n = strtoll(env, &end, 10);
	if (errno || n < 0 || end == env)
		return 2LL << 30;
	switch (*end) {
	case 'G': case 'g': n <<= 10; /* fall through */
	case 'M': case 'm': n <<= 10; /* fall through */
	case 'K': case 'k': n <<= 10; end++; break;
	default: break;
	}
	return *end ? 2LL << 30 : n;
}

/* The bytes of an entry's files. */
static long long
entry_size(const char *key)
{
	static const char *const ext[] = { ".pch", ".list", ".cu" };
	long long n = 0;

	for (size_t i = 0; i < sizeof(ext) / sizeof(*ext); i++) {
		char *f = xasprintf("%s%s", key, ext[i]);
		struct stat st;

		if (stat(f, &st) == 0)
			n += st.st_size;
		free(f);
	}
	return n;
}

void
nv_pch_trim(const char *dir, long long budget)
{
	DIR *d = opendir(dir);
	struct entry *es = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	time_t now = time(NULL);
	long long total = 0;

	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		struct stat st;
		char *path;

		if (!strncmp(de->d_name, "fe-", 3) && len > 8 && !strcmp(de->d_name + len - 5, ".seen")) {
			/* a mark of a flag set compiled once: gone after a day */
			path = xasprintf("%s/%s", dir, de->d_name);
			if (stat(path, &st) == 0 && now - st.st_mtime > 86400)
				unlink(path);
			free(path);
			continue;
		}
		if (strncmp(de->d_name, "fe-", 3) || len < 8 || strcmp(de->d_name + len - 5, ".list"))
			continue;
		if (n == cap)
			es = xrealloc(es, (cap = cap ? cap * 2 : 32) * sizeof(*es));
		path = xasprintf("%s/%s", dir, de->d_name);
		es[n].used = stat(path, &st) == 0 ? st.st_mtime : now;
		free(path);
		es[n].key = xasprintf("%s/%.*s", dir, (int)(len - 5), de->d_name);
		es[n].size = entry_size(es[n].key);
		total += es[n++].size;
	}
	closedir(d);
	qsort(es, n, sizeof(*es), by_use);
	for (size_t i = 0; i < n; i++) {
		if (total > budget && now - es[i].used > 600) {
			char *f = xasprintf("%s.list", es[i].key);

			unlink(f); /* the list first: without it the header is never used */
			free(f);
			f = xasprintf("%s.pch", es[i].key);
			unlink(f);
			free(f);
			f = xasprintf("%s.cu", es[i].key);
			unlink(f);
			free(f);
			total -= es[i].size;
		}
		free(es[i].key);
	}
	free(es);
}

void
nv_pch_release(struct nv_pch *p)
{
	free(p->dir);
	free(p->key);
	free(p->pch);
	free(p->list);
	free(p->src);
	free(p->lock);
	free(p->tmp_pch);
	free(p->tmp_deps);
	free(p->preamble);
	free(p->base_pch);
	free(p->base_list);
	free(p->base_src);
	memset(p, 0, sizeof(*p));
}
