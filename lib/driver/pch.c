/*
 * pch: the front end's header cache (see pch.h for the files and the rule
 * that a hit is proof).
 *
 * The directory is the user's: one that another user owns, or can write,
 * or that sits below a directory another user could rename it out of, is
 * not used.  Every file made in it is made with O_EXCL under a name no one
 * can guess and renamed into place; a manifest goes in after its header,
 * and names the header's identity, so a reader sees a whole entry or none.
 *
 * Concurrent compiles: one takes the lock and builds; the others compile
 * without the cache meanwhile.  A lock left by a killed build is taken over
 * after two minutes; what such a build left is removed by nv_pch_trim.
 */
#include "pch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/trace.h"
#include "../base/util.h"

#ifndef NV_VERSION
#define NV_VERSION "0"
#endif

#define MAN_MAGIC "nv-pch 3"
/* A file changed this close before a build may change again unseen, its
 * times no different: a clock tick, or two seconds where the file system
 * keeps whole seconds. */
#define TOO_NEW_NS 100000000LL
#define TOO_NEW_COARSE_NS 2000000000LL
/* The source whose preamble a compile skips is read once more by clang:
 * two writes within one tick (a jiffy, at most 10 ms) around the first
 * read would leave its times as they were. */
#define SOURCE_TOO_NEW_NS 20000000LL
#define HASH_MAX (16LL << 20)   /* a file read that is no header is hashed up to this size */
#define STRAY_SECS 3600         /* what a killed build left is removed after this */
#define LOCK_SECS 120           /* a lock older than this was left by a killed build */

/* Characters the cache path may hold: no quoting in a dependency file. */
static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-";

/* What the file system said of a name: the fields of stat that tell a file
 * and its state apart. */
struct id {
	unsigned long long dev, ino;
	unsigned mode, uid, gid;
	long long size, mt_s, mt_ns, ct_s, ct_ns;
};

/* One name the build asked about (a probe of lib/base/trace.h) and its answer. */
struct rec {
	char how;
	int follow, mode, err;
	struct id id;
	uint64_t hash[2];  /* 'o': the content (0 0: not hashed); 'r': the link's target */
	char *path;
};

struct nv_pch_man {
	char *off;              /* why these headers are not cached; NULL: they are */
	struct id pch;          /* the entry's header as it was put in place */
	struct rec *r;
	size_t n;
	struct nv_strv deps;    /* the -MD list of its build, the cache's own files left out */
};

/* Is name (no directory) one the cache gives its own files: fe-KEY.EXT,
 * or a build's fe-KEY.EXT.tmp-XXXXXX?  The extension in *ext when asked. */
static int
own_name(const char *name, const char **ext)
{
	static const char *const exts[] = { ".pch", ".man", ".cu", ".lock", ".seen", NULL };
	const char *dot = name + 35;

	if (strncmp(name, "fe-", 3) || strspn(name + 3, "0123456789abcdef") != 32)
		return 0;
	for (size_t i = 0; exts[i]; i++) {
		size_t n = strlen(exts[i]);

		if (strncmp(dot, exts[i], n))
			continue;
		if (ext)
			*ext = exts[i];
		return !dot[n] || (!strncmp(dot + n, ".tmp-", 5) && strlen(dot + n) == 11);
	}
	return 0;
}

/* Is path one of the cache's own files (an entry's source, header,
 * manifest, a build's temporaries)?  Anything else in the directory, a
 * header a build put there, is a header like any other. */
static int
own_file(const struct nv_pch *p, const char *path)
{
	size_t n = strlen(p->dir);

	return !strncmp(path, p->dir, n) && path[n] == '/' && !strchr(path + n + 1, '/') &&
	       own_name(path + n + 1, NULL);
}

static void id_of(const struct stat *st, struct id *id);
static int man_write(const struct nv_pch *p, const struct nv_pch_man *m);
static int same_id(const struct id *a, const struct id *b);
static int too_new(const struct id *id, const struct timespec *t0, long long window);

/* --- the directory --- */

/*
 * Why another user could change what is in the directory at path, or NULL
 * when no one can: every directory on the way to it (symlinks followed) is
 * root's or ours, one that others can write is sticky and what we step into
 * from it is root's or ours, and the directory itself is ours and writable
 * by no one else.  A symlink on the way must be root's or ours too.  A
 * directory missing on the way is made (mode 0700) when it is reached, in
 * a directory that has passed: nothing is made where another user could
 * have put a link.  *made_none: nothing was wrong but that a directory
 * could not be made (a read-only home): no warning is due.
 */
static char *
unsafe_dir(const char *path, int *made_none)
{
	uid_t me = geteuid();
	char *todo = xstrdup(path), *cur = xstrdup(""), *rest = todo, *why = NULL;
	struct stat up, st;
	int links = 0;

	if (lstat("/", &up))
		why = xasprintf("cannot look at '/': %s", strerror(errno));
	while (!why) {
		char *name, *child, *next, target[PATH_MAX];
		ssize_t n;

		while (*rest == '/')
			rest++;
		if (!*rest)
			break;
		name = rest;
		next = strchr(rest, '/');
		rest = next ? (*next = '\0', next + 1) : rest + strlen(rest);
		if (!strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			char *slash = strrchr(cur, '/');

			if (slash)
				*slash = '\0';
			if (lstat(*cur ? cur : "/", &up))
				why = xasprintf("cannot look at '%s': %s", *cur ? cur : "/", strerror(errno));
			continue;
		}
		child = xasprintf("%s/%s", cur, name);
		if (lstat(child, &st) && errno == ENOENT && !((up.st_mode & 022) && !(up.st_mode & S_ISVTX)) &&
		    mkdir(child, 0700) && errno != EEXIST) {
			why = xasprintf("cannot create '%s': %s", child, strerror(errno));
			*made_none = 1;
		} else if (lstat(child, &st))
			why = xasprintf("cannot look at '%s': %s", child, strerror(errno));
		else if ((up.st_mode & 022) && !(up.st_mode & S_ISVTX))
			why = xasprintf("other users can write to '%s'", *cur ? cur : "/");
		else if (st.st_uid != me && st.st_uid != 0)
			why = xasprintf("'%s' belongs to user %u", child, (unsigned)st.st_uid);
		if (why) {
			free(child);
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			char *more;

			n = readlink(child, target, sizeof(target) - 1);
			free(child);
			if (n <= 0 || ++links > 40) {
				why = xasprintf("cannot follow the link '%s/%s'", cur, name);
				break;
			}
			target[n] = '\0';
			more = xasprintf("%s/%s", target, rest);
			free(todo);
			todo = rest = more;
			if (target[0] == '/') {
				cur[0] = '\0';
				lstat("/", &up);
			}
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			why = xasprintf("'%s' is not a directory", child);
			*made_none = 1; /* nothing another user did: no warning */
			free(child);
			break;
		}
		free(cur);
		cur = child;
		up = st;
	}
	if (!why && up.st_uid != me)
		why = xasprintf("it belongs to user %u", (unsigned)up.st_uid);
	else if (!why && (up.st_mode & 022))
		why = xasprintf("other users can write to it (mode %04o)", (unsigned)(up.st_mode & 07777));
	free(todo);
	free(cur);
	return why;
}

char *
nv_pch_dir(void)
{
	static int warned;
	const char *env = getenv("NVCC_LITE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char *dir, *why;
	int made_none = 0;

	if (env && *env)
		dir = xstrdup(env);
	else if (xdg && *xdg == '/')
		dir = xasprintf("%s/nvcc-lite", xdg);
	else if (home && *home == '/')
		dir = xasprintf("%s/.cache/nvcc-lite", home);
	else
		return NULL;
	if (*dir != '/' || strspn(dir, plain) != strlen(dir)) {
		free(dir);
		return NULL;
	}
	if ((why = unsafe_dir(dir, &made_none)) || access(dir, W_OK | X_OK)) {
		if (why && !made_none && !warned++)
			nv_warn("not using the header cache '%s': %s", dir, why);
		free(why);
		free(dir);
		return NULL;
	}
	return dir;
}

/* --- the key --- */

/* What clang reads from the environment that changes what it compiles. */
static const char *const env_keys[] = {
	"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "OBJCPLUS_INCLUDE_PATH",
	"SOURCE_DATE_EPOCH", "CCC_OVERRIDE_OPTIONS", "CLANG_NO_DEFAULT_CONFIG", "COMPILER_PATH",
	"GCC_EXEC_PREFIX", NULL,
};

static void
hash_str(struct nv_hash *h, const char *s)
{
	nv_hash_add(h, s, strlen(s) + 1);
}

/* Whether args name a directory or file relative to the working directory;
 * include: whether "-include FILE" counts. */
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

/* The entry of key in dir: its files' names. */
static void
name_entry(struct nv_pch *p, const char *dir, const char *key)
{
	p->dir = xstrdup(dir);
	p->key = xstrdup(key);
	p->pch = xasprintf("%s/fe-%s.pch", dir, key);
	p->man = xasprintf("%s/fe-%s.man", dir, key);
	p->src = xasprintf("%s/fe-%s.cu", dir, key);
	p->lock = xasprintf("%s/fe-%s.lock", dir, key);
}

void
nv_pch_init(struct nv_pch *p, const char *dir, char *const *argv, const struct nv_preamble *pre,
            size_t stop)
{
	size_t bytes = pre ? pre->stop[stop].text : 0;
	struct nv_hash h;
	uint64_t k[2];
	char cwd[PATH_MAX], key[40];
	struct stat st;

	memset(p, 0, sizeof(*p));
	nv_hash_init(&h);
	hash_str(&h, MAN_MAGIC);
	hash_str(&h, NV_VERSION);
	for (size_t i = 0; env_keys[i]; i++) {
		const char *v = getenv(env_keys[i]);

		hash_str(&h, env_keys[i]);
		hash_str(&h, v ? v : "\x01unset");
	}
	if (relative_paths(argv) && getcwd(cwd, sizeof(cwd)))
		hash_str(&h, cwd);
	if (stat(argv[0], &st) == 0) {
		nv_hash_add(&h, &st.st_mtim, sizeof(st.st_mtim));
		nv_hash_add(&h, &st.st_size, sizeof(st.st_size));
	}
	for (size_t i = 0; argv[i]; i++)
		hash_str(&h, argv[i]);
	if (bytes) {
		nv_hash_add(&h, pre->text, bytes);
		p->preamble = xmalloc(bytes);
		memcpy(p->preamble, pre->text, bytes);
		p->bytes = bytes;
		p->skip = pre->stop[stop].bytes;
		p->src_st = pre->st;
		p->nlines = pre->stop[stop].includes;
		p->lines = xmalloc(p->nlines * sizeof(*p->lines));
		memcpy(p->lines, pre->line, p->nlines * sizeof(*p->lines));
	}
	nv_hash_done(&h, k);
	snprintf(key, sizeof(key), "%016llx%016llx", (unsigned long long)k[0], (unsigned long long)k[1]);
	name_entry(p, dir, key);
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

	/* what the lexer reads otherwise than the bytes say: a trigraph (with
	 * -std=c++14, "?" "?/" at a line's end continues a comment onto the
	 * next one), a line splice, a UCN */
	if (memmem(line, n, "??", 2) || memchr(line, '\\', n))
		return -1;
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
			return inc; /* a comment to the line's end */
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
			while (s < end && *s != '>' && *s != '"')
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
	size_t n = 0, r, at = 0, count = 0, cap = 0, len = 0, line = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK), comment = 0;
	struct stat st;
	struct id before, after;
	struct timespec now;

	memset(pre, 0, sizeof(*pre));
	/* The bytes read here are the ones the compile skips: a regular file,
	 * not changed just before (a change within the clock's tick would not
	 * show in its times), the same file after the read.  Its identity is
	 * kept: the compile is good only if the file is still this one after
	 * it (nv_pch_same_source). */
	clock_gettime(CLOCK_REALTIME, &now);
	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		id_of(&st, &before);
		while (!too_new(&before, &now, SOURCE_TOO_NEW_NS) && n < MAX && (r = (size_t)read(fd, buf + n, MAX - n)) > 0 &&
		       r != (size_t)-1)
			n += r;
		if (fstat(fd, &pre->st) || (id_of(&pre->st, &after), !same_id(&before, &after)))
			n = 0;
	}
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
		line++;
		if (k) {
			pre->line = xrealloc(pre->line, (count + 1) * sizeof(*pre->line));
			pre->line[count] = line;
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
	free(pre->line);
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


/* --- asking the file system again --- */

static void
id_of(const struct stat *st, struct id *id)
{
	id->dev = (unsigned long long)st->st_dev;
	id->ino = (unsigned long long)st->st_ino;
	id->mode = (unsigned)st->st_mode;
	id->uid = (unsigned)st->st_uid;
	id->gid = (unsigned)st->st_gid;
	id->size = (long long)st->st_size;
	id->mt_s = (long long)st->st_mtim.tv_sec;
	id->mt_ns = (long long)st->st_mtim.tv_nsec;
	id->ct_s = (long long)st->st_ctim.tv_sec;
	id->ct_ns = (long long)st->st_ctim.tv_nsec;
}

static int
same_id(const struct id *a, const struct id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->mode == b->mode && a->uid == b->uid &&
	       a->gid == b->gid && a->size == b->size && a->mt_s == b->mt_s && a->mt_ns == b->mt_ns &&
	       a->ct_s == b->ct_s && a->ct_ns == b->ct_ns;
}

/* The tokens whose value a precompiled header freezes at its build: a
 * header that names one is not cached.  The probe (pch.h) catches them as
 * the preprocessor expands them in a header of the user's, however the name
 * was spelled or pasted; this scan is for system headers, where clang says
 * nothing, and for -w: the name in the text, read through line splices and
 * trigraphs (backslash-newline, ??/-newline) as the preprocessor reads it. */
static const char *const frozen[] = { "__DATE__", "__TIME__", "__TIMESTAMP__", "__BASE_FILE__", NULL };

/* Copy n bytes of s to d without their line splices: a backslash, or the
 * trigraph ??/, then a newline (or CR LF).  *held: the bytes at the end of
 * s that may begin a splice the next bytes end, left for the next call
 * (at most 4).  The bytes written. */
static size_t
unsplice(const char *s, size_t n, char *d, size_t *held)
{
	size_t i = 0, k = 0;

	while (i < n) {
		size_t j = i;

		if (s[i] == '\\')
			j = i + 1;
		else if (s[i] == '?' && n - i >= 3 && s[i + 1] == '?' && s[i + 2] == '/')
			j = i + 3;
		else if (s[i] == '?' && n - i < 3 && (n - i == 1 || s[i + 1] == '?'))
			break; /* a ?? the next bytes may end as ??/ */
		if (j > i && j < n && s[j] == '\r')
			j++;
		if (j > i && j == n)
			break; /* a splice the next bytes may end */
		if (j > i && s[j] == '\n') {
			i = j + 1;
			continue;
		}
		d[k++] = s[i++];
	}
	*held = n - i;
	return k;
}

/* Hash the file at path (a regular file of size bytes, read through fd
 * when >= 0); *uses set to the frozen token it names, when asked.  0, or
 * -1 when it cannot be read whole. */
static int
hash_file(const char *path, int fd, long long size, uint64_t out[2], const char **uses)
{
	enum { CHUNK = 1 << 16, KEEP = 16, HELD = 4 };
	char *buf = xmalloc(HELD + CHUNK), *text = xmalloc(KEEP + HELD + CHUNK);
	struct nv_hash h;
	long long got = 0;
	size_t held = 0, kept = 0, end;
	int own = fd < 0, rc = 0;

	if (own && (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0) {
		free(buf);
		free(text);
		return -1;
	}
	nv_hash_init(&h);
	for (;;) {
		ssize_t n = read(fd, buf + held, CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = -1;
		if (n <= 0)
			break;
		nv_hash_add(&h, buf + held, (size_t)n);
		got += n;
		if (!uses || *uses)
			continue;
		/* the text as the preprocessor reads it, the last bytes of the
		 * chunk before kept in front: a token may straddle two reads */
		end = held + (size_t)n;
		kept += unsplice(buf, end, text + kept, &held);
		memmove(buf, buf + end - held, held);
		for (size_t i = 0; !*uses && frozen[i]; i++)
			if (memmem(text, kept, frozen[i], strlen(frozen[i])))
				*uses = frozen[i];
		if (kept > KEEP) {
			memmove(text, text + kept - KEEP, KEEP);
			kept = KEEP;
		}
	}
	if (own)
		close(fd);
	free(buf);
	free(text);
	nv_hash_done(&h, out);
	return rc || got != size ? -1 : 0;
}

static void
hash_link(const char *target, uint64_t out[2])
{
	struct nv_hash h;

	nv_hash_init(&h);
	nv_hash_add(&h, target, strlen(target));
	nv_hash_done(&h, out);
}

/* Ask again what r asked: the answer in now (err, what was found, a link's
 * target).  A name that was found is looked at with stat; one that was not
 * is asked again the way the build asked it. */
static void
ask(const struct rec *r, struct rec *now)
{
	struct stat st;
	int rc;

	memset(now, 0, sizeof(*now));
	errno = 0;
	switch (r->how) {
	case 'a':
		rc = faccessat(AT_FDCWD, r->path, r->mode, r->follow ? 0 : AT_SYMLINK_NOFOLLOW);
		break;
	case 'r': {
		char target[PATH_MAX];
		ssize_t n = readlink(r->path, target, sizeof(target) - 1);

		rc = n < 0 ? -1 : 0;
		if (n >= 0) {
			target[n] = '\0';
			hash_link(target, now->hash);
		}
		break;
	}
	case 'o':
		if (r->err) {
			int fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (r->follow ? 0 : O_NOFOLLOW));

			rc = fd < 0 ? -1 : 0;
			if (fd >= 0)
				close(fd);
			break;
		}
		/* found before: stat says whether it is the same */
		/* fall through */
	default:
		rc = r->follow ? stat(r->path, &st) : lstat(r->path, &st);
		if (!rc && r->how == 'o' && !r->follow && S_ISLNK(st.st_mode))
			rc = -1, errno = ELOOP;
		if (!rc)
			id_of(&st, &now->id);
		break;
	}
	now->err = rc ? (errno ? errno : EIO) : 0;
}

/* Is the answer now the one r got?  A file read that is not the same file
 * is still the same when its bytes are. */
static int
same_answer(const struct rec *r, const struct rec *now)
{
	if (r->err != now->err)
		return 0;
	if (r->err)
		return 1;
	switch (r->how) {
	case 'o': {
		uint64_t h[2];

		if (same_id(&r->id, &now->id))
			return 1;
		if (!(r->hash[0] | r->hash[1]) || !S_ISREG(now->id.mode) || now->id.size != r->id.size ||
		    hash_file(r->path, -1, now->id.size, h, NULL))
			return 0;
		return h[0] == r->hash[0] && h[1] == r->hash[1];
	}
	case 's':
		return (r->id.mode & S_IFMT) == (now->id.mode & S_IFMT);
	case 'r':
		return r->hash[0] == now->hash[0] && r->hash[1] == now->hash[1];
	case 'L':
		return r->id.dev == now->id.dev && r->id.ino == now->id.ino && r->id.mt_s == now->id.mt_s &&
		       r->id.mt_ns == now->id.mt_ns && r->id.ct_s == now->id.ct_s && r->id.ct_ns == now->id.ct_ns;
	default:
		return 1;
	}
}

/* --- the manifest --- */

static void
put_id(FILE *fp, const struct id *id)
{
	fprintf(fp, " %llu %llu %o %u %u %lld %lld.%09lld %lld.%09lld", id->dev, id->ino, id->mode, id->uid,
	        id->gid, id->size, id->mt_s, id->mt_ns, id->ct_s, id->ct_ns);
}

/* An id at s: the characters it took, or -1. */
static int
get_id(const char *s, struct id *id)
{
	int used = -1;

	if (sscanf(s, " %llu %llu %o %u %u %lld %lld.%lld %lld.%lld%n", &id->dev, &id->ino, &id->mode, &id->uid,
	           &id->gid, &id->size, &id->mt_s, &id->mt_ns, &id->ct_s, &id->ct_ns, &used) != 10)
		return -1;
	return used;
}

static void
man_free(struct nv_pch_man *m)
{
	if (!m)
		return;
	free(m->off);
	for (size_t i = 0; i < m->n; i++)
		free(m->r[i].path);
	free(m->r);
	nv_strv_free(&m->deps);
	free(m);
}

static void
add_rec(struct nv_pch_man *m, const struct rec *r)
{
	if ((m->n & (m->n - 1)) == 0)
		m->r = xrealloc(m->r, (m->n ? 2 * m->n : 1) * sizeof(*m->r));
	m->r[m->n++] = *r;
}

/* One line of a manifest; -1 when it is not one. */
static int
man_line(struct nv_pch_man *m, char *line)
{
	struct rec r = { 0 };
	char *s = line + 2;
	int used;

	if (!strncmp(line, "off ", 4)) {
		free(m->off);
		m->off = xstrdup(line + 4);
	} else if (!strncmp(line, "pch ", 4)) {
		return get_id(line + 4, &m->pch) < 0 ? -1 : 0;
	} else if (!strncmp(line, "d ", 2)) {
		nv_strv_push(&m->deps, line + 2);
	} else if (!strncmp(line, "p ", 2)) {
		if (sscanf(s, "%c %d %d %d%n", &r.how, &r.follow, &r.mode, &r.err, &used) != 4 || !strchr("osarL", r.how))
			return -1;
		s += used;
		if ((used = get_id(s, &r.id)) < 0)
			return -1;
		s += used;
		if (sscanf(s, " %" SCNx64 " %" SCNx64 "%n", &r.hash[0], &r.hash[1], &used) != 2 || s[used] != ' ' ||
		    !s[used + 1])
			return -1;
		r.path = xstrdup(s + used + 1);
		add_rec(m, &r);
	} else {
		return -1;
	}
	return 0;
}

/* --- dependency files --- */

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


/* A file of the cache, read whole: ours, regular, not through a link.
 * NULL when it is not there or not fit to trust. */
static char *
read_own(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *buf;
	size_t n = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_size > (1 << 28)) {
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (n != (size_t)st.st_size || memchr(buf, '\0', n)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* The manifest at path, or NULL when it is missing or damaged. */
static struct nv_pch_man *
man_read(const char *path)
{
	size_t len;
	char *text = read_own(path, &len), *line, *save = NULL;
	struct nv_pch_man *m;
	int ok;

	if (!text)
		return NULL;
	m = xcalloc(1, sizeof(*m));
	ok = len > 0 && text[len - 1] == '\n' && !strncmp(text, MAN_MAGIC "\n", strlen(MAN_MAGIC) + 1);
	for (line = strtok_r(text + strlen(MAN_MAGIC) + 1, "\n", &save); ok && line;
	     line = strtok_r(NULL, "\n", &save))
		ok = man_line(m, line) == 0;
	/* an entry in use names its header; one that is off names none */
	ok = ok && (m->off || m->pch.ino);
	free(text);
	if (!ok) {
		man_free(m);
		return NULL;
	}
	return m;
}

/* Put text in path by a file made for it under a name no one can guess,
 * renamed into place.  0 or -1. */
static int
write_file(const char *path, const char *text, size_t len)
{
	char *tmp = xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkstemp(tmp), ok;

	if (fd < 0) {
		free(tmp);
		return -1;
	}
	nv_register_output(tmp);
	ok = 1;
	for (size_t n = 0; ok && n < len;) {
		ssize_t w = write(fd, text + n, len - n);

		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		n += ok ? (size_t)w : 0;
	}
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path))
		ok = 0;
	if (!ok)
		unlink(tmp);
	nv_forget_output(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

/* Verdicts already reached in this process, by key: an entry is checked
 * once however many prefixes chain on it. */
static struct verdict {
	char key[40];
	int fresh;
} verdicts[64];
static size_t nverdicts;

static struct verdict *
verdict(const char *key)
{
	for (size_t i = 0; i < nverdicts; i++)
		if (!strcmp(verdicts[i].key, key))
			return &verdicts[i];
	return NULL;
}

static void
set_verdict(const char *key, int fresh)
{
	struct verdict *v = verdict(key);

	if (!v && nverdicts < sizeof(verdicts) / sizeof(*verdicts))
		v = &verdicts[nverdicts++];
	if (v) {
		snprintf(v->key, sizeof(v->key), "%s", key);
		v->fresh = fresh;
	}
}

/* Is the header at path the one id describes (ours, put in place then)? */
static int
header_is(const char *path, const struct id *id)
{
	struct stat st;
	struct id now;

	if (lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return 0;
	id_of(&st, &now);
	return same_id(&now, id);
}

int
nv_pch_fresh(struct nv_pch *p, int *off)
{
	struct verdict *v = verdict(p->key);
	int ok = 1;

	if (v && !v->fresh)
		return 0;
	man_free(p->m);
	if (!(p->m = man_read(p->man)))
		return 0;
	if (!p->m->off && !header_is(p->pch, &p->m->pch))
		ok = 0;
	for (size_t i = 0; ok && !v && i < p->m->n; i++) {
		struct rec now;

		ask(&p->m->r[i], &now);
		ok = same_answer(&p->m->r[i], &now);
	}
	set_verdict(p->key, ok);
	if (!ok)
		return 0;
	if (off)
		*off = p->m->off != NULL;
	/* used: nv_pch_trim drops the entries used longest ago */
	utimensat(AT_FDCWD, p->man, NULL, AT_SYMLINK_NOFOLLOW);
	return 1;
}

int
nv_pch_same_source(const struct nv_pch *p, const char *src)
{
	struct stat st;
	struct id was, now;

	if (!p->skip)
		return 1;
	if (stat(src, &st))
		return 0;
	id_of(&p->src_st, &was);
	id_of(&st, &now);
	return same_id(&was, &now);
}

int
nv_pch_seen(const struct nv_pch *p)
{
	char *path = xasprintf("%s/fe-%s.seen", p->dir, p->key);
	int fd, seen = 0;
	struct stat st;

	if (!lstat(path, &st))
		seen = 1;
	else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0)
		close(fd);
	free(path);
	return seen;
}

/* A name for a file of the build, made now (O_EXCL) so that no one else
 * has it: the tool writes it, or renames its own output onto it. */
static char *
reserve(const char *path)
{
	char *tmp = xasprintf("%s.tmp-XXXXXX", path);
	int fd = mkstemp(tmp);

	if (fd < 0) {
		free(tmp);
		return NULL;
	}
	close(fd);
	return tmp;
}

int
nv_pch_lock(struct nv_pch *p)
{
	int fd = -1;

	for (int tries = 0; tries < 2 && fd < 0; tries++) {
		struct stat st;

		fd = open(p->lock, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			break;
		if (errno != EEXIST || lstat(p->lock, &st) || time(NULL) - st.st_mtime < LOCK_SECS)
			return -1;
		unlink(p->lock); /* left by a build that was killed */
	}
	if (fd < 0)
		return -1;
	close(fd);
	p->held = 1;
	clock_gettime(CLOCK_REALTIME, &p->t0);
	/* the header's source: empty, so the header is what the command
	 * includes; or the preamble */
	if (write_file(p->src, p->preamble ? p->preamble : "", p->bytes) ||
	    !(p->tmp_pch = reserve(p->pch)) || !(p->tmp_deps = reserve(p->man))) {
		nv_pch_abandon(p);
		return -1;
	}
	return 0;
}

void
nv_pch_abandon(struct nv_pch *p)
{
	if (p->tmp_pch)
		unlink(p->tmp_pch);
	if (p->tmp_deps)
		unlink(p->tmp_deps);
	free(p->tmp_pch);
	free(p->tmp_deps);
	p->tmp_pch = p->tmp_deps = NULL;
	if (p->held)
		unlink(p->lock);
	p->held = 0;
}

int
nv_pch_turn_off(struct nv_pch *p, const char *why)
{
	int rc;

	if (!p->m)
		return -1;
	free(p->m->off);
	p->m->off = xstrdup(why);
	/* the manifest first: an entry that is off names no header */
	rc = man_write(p, p->m);
	unlink(p->pch);
	set_verdict(p->key, rc == 0);
	return rc;
}

void
nv_pch_drop(struct nv_pch *p)
{
	unlink(p->man); /* the manifest first: without it the header is never used */
	unlink(p->pch);
	set_verdict(p->key, 0);
}

/* --- putting an entry in place --- */

/* Names whose answers say nothing of what the headers are: the program's
 * own image and descriptors (clang asks /proc/self/fd/N for the name of a
 * file it opened, a file recorded by its own name), the loader's cache,
 * and the cache's own files (the entry's source and outputs).  Anything
 * else is recorded, under /dev, /proc and /sys too: a header in /dev/shm,
 * or reached through /proc/self/cwd, is a header like any other. */
static int
excluded(const struct nv_pch *p, const char *path)
{
	static const char *const names[] = { "/etc/ld.so.cache", "/proc/self/exe", "/proc/self/fd", "/dev/null", NULL };

	for (size_t i = 0; names[i]; i++)
		if (!strcmp(path, names[i]))
			return 1;
	return !strncmp(path, "/proc/self/fd/", 14) || own_file(p, path);
}

/* The files of the build's -MD list (its headers), by identity. */
static struct stat *
header_ids(const struct nv_strv *deps, size_t *n)
{
	struct stat *ids = xcalloc(deps->n + 1, sizeof(*ids));

	*n = 0;
	for (size_t i = 0; i < deps->n; i++) {
		char *path = unescape(deps->v[i]);

		if (stat(path, &ids[*n]) == 0)
			(*n)++;
		free(path);
	}
	return ids;
}

static int
is_header(const struct id *id, const struct stat *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned long long)ids[i].st_dev == id->dev && (unsigned long long)ids[i].st_ino == id->ino)
			return 1;
	return 0;
}

/* Did the file change less than window ns before t0 (two seconds where
 * the file system keeps whole seconds)? */
static int
too_new(const struct id *id, const struct timespec *t0, long long window)
{
	long long start = (long long)t0->tv_sec * 1000000000LL + t0->tv_nsec;

	return id->mt_s * 1000000000LL + id->mt_ns >= start - (id->mt_ns ? window : TOO_NEW_COARSE_NS) ||
	       id->ct_s * 1000000000LL + id->ct_ns >= start - (id->ct_ns ? window : TOO_NEW_COARSE_NS);
}

/* The records of the trace, each asked again now: the answer must be the
 * one the build got, and a file it read must be older than the build.
 * NULL when one is not (*why says which); *off set to why the headers
 * cannot be cached, when a header names a frozen token. */
static const char *
make_records(const struct nv_pch *p, const struct nv_trace *t, struct nv_pch_man *m, char **off)
{
	static char why[PATH_MAX + 64];
	size_t nh;
	struct stat *ids = header_ids(&m->deps, &nh);

	for (size_t i = 0; i < t->n; i++) {
		const struct nv_probe *pr = &t->v[i];
		struct rec r = { .how = pr->how, .follow = pr->follow, .mode = pr->mode, .err = pr->err }, now;
		const char *uses = NULL;

		if (excluded(p, pr->path))
			continue;
		if (strchr(pr->path, '\n')) {
			snprintf(why, sizeof(why), "a file name holds a newline");
			goto bad;
		}
		r.path = pr->path;
		ask(&r, &now);
		if (now.err != r.err) {
			snprintf(why, sizeof(why), "'%s' changed during the build", pr->path);
			goto bad;
		}
		r.id = now.id;
		memcpy(r.hash, now.hash, sizeof(r.hash));
		if (!r.err && r.how == 'o' && !S_ISREG(r.id.mode) && !S_ISDIR(r.id.mode)) {
			snprintf(why, sizeof(why), "'%s' is not a regular file", pr->path);
			goto bad;
		}
		if (!r.err && (r.how == 'o' || r.how == 'L') && too_new(&r.id, &p->t0, TOO_NEW_NS)) {
			snprintf(why, sizeof(why), "'%s' changed during or just before the build", pr->path);
			goto bad;
		}
		if (!r.err && r.how == 'o' && S_ISREG(r.id.mode)) {
			int header = is_header(&r.id, ids, nh);

			if ((header || r.id.size <= HASH_MAX) &&
			    hash_file(r.path, -1, r.id.size, r.hash, header ? &uses : NULL)) {
				snprintf(why, sizeof(why), "'%s' changed during the build", pr->path);
				goto bad;
			}
			if (uses && !*off)
				*off = xasprintf("'%s' names %s", pr->path, uses);
		}
		r.path = xstrdup(pr->path);
		add_rec(m, &r);
	}
	free(ids);
	return NULL;
bad:
	free(ids);
	return why;
}

/* The build's -MD list, the cache's own files (its source) and the probe
 * left out: no compile through the entry depends on them. */
static int
own_deps(const struct nv_pch *p, struct nv_strv *deps)
{
	struct nv_strv toks = { 0 };

	if (read_deps(p->tmp_deps, &toks, NULL))
		return -1;
	for (size_t i = 0; i < toks.n; i++) {
		char *path = unescape(toks.v[i]);

		if (!own_file(p, path) && !(p->probe && !strcmp(path, p->probe)) && !nv_strv_has(deps, toks.v[i]))
			nv_strv_push(deps, toks.v[i]);
		free(path);
	}
	nv_strv_free(&toks);
	return 0;
}

static int
man_write(const struct nv_pch *p, const struct nv_pch_man *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int rc;

	fprintf(fp, "%s\n", MAN_MAGIC);
	if (m->off) {
		fprintf(fp, "off %s\n", m->off);
	} else {
		fputs("pch", fp);
		put_id(fp, &m->pch);
		fputc('\n', fp);
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct rec *r = &m->r[i];

		fprintf(fp, "p %c %d %d %d", r->how, r->follow, r->mode, r->err);
		put_id(fp, &r->id);
		fprintf(fp, " %016" PRIx64 " %016" PRIx64 " %s\n", r->hash[0], r->hash[1], r->path);
	}
	for (size_t i = 0; i < m->deps.n; i++)
		fprintf(fp, "d %s\n", m->deps.v[i]);
	if (fclose(fp))
		return -1;
	rc = write_file(p->man, text, len);
	free(text);
	return rc;
}

int
nv_pch_commit(struct nv_pch *p, const struct nv_trace *t, int ok, int quiet, const char **why)
{
	struct nv_pch_man *m = xcalloc(1, sizeof(*m));
	char *off = NULL;
	struct stat st;
	int rc = -1;

	*why = NULL;
	if (!ok)
		*why = "its build failed";
	else if (t->unsure)
		*why = "the trace of its build is not whole";
	else if (own_deps(p, &m->deps))
		*why = "its build wrote no dependency list";
	else
		*why = make_records(p, t, m, &off);
	if (*why)
		goto out;
	if (!quiet && !off)
		off = xstrdup("its build printed a diagnostic");
	m->off = off;
	if (!off) {
		if (rename(p->tmp_pch, p->pch) || lstat(p->pch, &st)) {
			*why = "cannot put it in place";
			goto out;
		}
		id_of(&st, &m->pch);
	}
	if (man_write(p, m)) {
		*why = "cannot write its manifest";
		goto out;
	}
	set_verdict(p->key, 1);
	rc = off ? -1 : 0;
	if (off) {
		static char offwhy[PATH_MAX + 64];

		snprintf(offwhy, sizeof(offwhy), "not cached: %s", off);
		*why = offwhy;
	}
out:
	man_free(m);
	nv_pch_abandon(p);
	return rc;
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
	struct nv_strv got = { 0 }, out = { 0 };
	const struct nv_strv *from_pch;
	char *target = NULL, *src = escape(input);
	struct stat *ids = NULL;
	int rc = -1;
	FILE *fp = NULL;
	char *text = NULL;
	size_t len = 0;

	if (!p->m || read_deps(dep_file, &got, &target))
		goto done;
	from_pch = &p->m->deps;
	/* the source first, as clang puts it without the header; then what
	 * the header was built from; then the source's own includes */
	nv_strv_push(&out, src);
	for (size_t i = 0; full && i < from_pch->n; i++)
		if (!nv_strv_has(&out, from_pch->v[i]))
			nv_strv_push(&out, from_pch->v[i]);
	ids = xcalloc(from_pch->n + 1, sizeof(*ids));
	for (size_t k = 0; k < from_pch->n; k++)
		if (!file_id(from_pch->v[k], &ids[k]))
			ids[k].st_ino = 0;
	for (size_t i = 0; i < got.n; i++) {
		const char *tok = got.v[i];
		char *path = unescape(tok);
		int cached = own_file(p, path) || (p->probe && !strcmp(path, p->probe));
		struct stat st;

		free(path);
		if (cached || nv_strv_has(&out, tok))
			continue; /* the cache's own files are no dependencies */
		/* a header of the entry, as clang names it from the entry (by
		 * its full path): named as the compile without it names it */
		for (size_t k = 0, ok = file_id(tok, &st); ok && k < from_pch->n; k++)
			if (ids[k].st_ino && ids[k].st_ino == st.st_ino && ids[k].st_dev == st.st_dev) {
				tok = from_pch->v[k];
				break;
			}
		if (!nv_strv_has(&out, tok))
			nv_strv_push(&out, tok);
	}
	if (!(fp = open_memstream(&text, &len)))
		goto done;
	put_deps(fp, target, &out, phony);
	if (!fclose(fp) && !write_file(dep_file, text, len))
		rc = 0;
done:
	free(text);
	free(ids);
	free(src);
	free(target);
	nv_strv_free(&got);
	nv_strv_free(&out);
	return rc;
}

/* line is "In file included from PATH:N:" (its newline cut): N, else 0. */
static size_t
included_from(const char *line, const char *path)
{
	static const char lead[] = "In file included from ";
	size_t n = strlen(path);
	unsigned long k;
	char *end;

	if (strncmp(line, lead, sizeof(lead) - 1) || strncmp(line + sizeof(lead) - 1, path, n) ||
	    line[sizeof(lead) - 1 + n] != ':')
		return 0;
	line += sizeof(lead) + n;
	errno = 0;
	k = strtoul(line, &end, 10);
	return end != line && !strcmp(end, ":") && !errno ? (size_t)k : 0;
}

int
nv_pch_fix_diags(const struct nv_pch *p, char *text, size_t *len, const char *input)
{
	char *out = NULL, *prev = NULL;
	size_t olen = 0;
	FILE *fp;
	int rc = 0;

	if (!p->skip)
		return 0;
	if (!(fp = open_memstream(&out, &olen)))
		return -1;
	/* the include stack of a header the entry holds: "from SRC:1:" (where
	 * the entry comes in), "from ENTRY.cu:K:" (its K-th include); without
	 * the entry, "from SRC:L:", L the line of the source's K-th include */
	for (char *line = text, *nl; *line; line = nl) {
		size_t k;

		nl = strchr(line, '\n');
		nl = nl ? (*nl = '\0', nl + 1) : line + strlen(line);
		if ((k = included_from(line, p->src)) && prev && included_from(prev, input) == 1 && k <= p->nlines) {
			free(prev);
			prev = xasprintf("In file included from %s:%zu:", input, p->lines[k - 1]);
			continue;
		}
		if (prev)
			fprintf(fp, "%s\n", prev);
		free(prev);
		prev = xstrdup(line);
	}
	if (prev)
		fprintf(fp, "%s\n", prev);
	free(prev);
	if (fclose(fp) || olen > *len || memmem(out, olen, p->key, strlen(p->key)))
		rc = -1;
	else
		memcpy(text, out, (*len = olen) + 1);
	free(out);
	return rc;
}

int
nv_pch_renames(const struct nv_pch *p)
{
	for (size_t i = 0; p->m && i < p->m->deps.n; i++)
		if (p->m->deps.v[i][0] != '/')
			return 1;
	return !p->m;
}

long long
nv_pch_budget(void)
{
	const char *env = getenv("NVCC_LITE_CACHE_SIZE");
	char *end;
	long long n;
	int shift = 0;

	if (!env || !*env)
		return 2LL << 30;
	errno = 0;
	n = strtoll(env, &end, 10);
	if (errno == ERANGE && n == LLONG_MAX)
		return LLONG_MAX;
	if (errno || n < 0 || end == env)
		return 2LL << 30;
	switch (*end) {
	case 'G': case 'g': shift = 30; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'K': case 'k': shift = 10; end++; break;
	default: break;
	}
	if (*end)
		return 2LL << 30;
	/* more than fits is all there is */
	return n > (LLONG_MAX >> shift) ? LLONG_MAX : n << shift;
}

/* --- trimming --- */

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

/* The bytes of an entry's files. */
static long long
entry_size(const char *dir, const char *key)
{
	static const char *const ext[] = { ".pch", ".man", ".cu" };
	long long n = 0;

	for (size_t i = 0; i < sizeof(ext) / sizeof(*ext); i++) {
		char *f = xasprintf("%s/fe-%s%s", dir, key, ext[i]);
		struct stat st;

		if (lstat(f, &st) == 0)
			n += st.st_size;
		free(f);
	}
	return n;
}

/* What a file of the cache is: an entry's manifest (1), another file of a
 * live entry (2), or something a killed build left or an older nvcc-lite
 * wrote (0).  The key in key. */
static int
cache_file(const char *dir, const char *name, char key[40])
{
	static const char *const own[] = { ".pch", ".cu", ".lock", ".seen", NULL };
	const char *dot = strchr(name, '.');
	char *man;
	struct stat st;
	int live;

	if (strncmp(name, "fe-", 3) || !dot || dot - name != 35)
		return 0;
	memcpy(key, name + 3, 32);
	key[32] = '\0';
	if (!strcmp(dot, ".man"))
		return 1;
	for (size_t i = 0; own[i]; i++)
		if (!strcmp(dot, own[i])) {
			/* a header or source is an entry's while its manifest is there;
			 * a mark of a flag set compiled once, or a lock, for a while */
			if (!strcmp(own[i], ".seen") || !strcmp(own[i], ".lock"))
				return 2;
			man = xasprintf("%s/fe-%s.man", dir, key);
			live = lstat(man, &st) == 0;
			free(man);
			return live ? 2 : 0;
		}
	return 0;
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
		char key[40], *path;
		struct stat st;
		int kind;

		if (de->d_name[0] == '.')
			continue;
		kind = cache_file(dir, de->d_name, key);
		path = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(path, &st)) {
			free(path);
			continue;
		}
		if ((kind == 0 && now - st.st_mtime > STRAY_SECS) ||
		    (kind == 2 && strstr(de->d_name, ".seen") && now - st.st_mtime > 86400) ||
		    (kind == 2 && strstr(de->d_name, ".lock") && now - st.st_mtime > STRAY_SECS)) {
			/* left by a build that was killed, or by an older nvcc-lite;
			 * a mark of a flag set compiled once, after a day */
			unlink(path);
		} else if (kind == 1) {
			if (n == cap)
				es = xrealloc(es, (cap = cap ? cap * 2 : 32) * sizeof(*es));
			es[n].used = st.st_mtime;
			es[n].key = xstrdup(key);
			es[n].size = entry_size(dir, key);
			total += es[n++].size;
		}
		free(path);
	}
	closedir(d);
	if (n)
		qsort(es, n, sizeof(*es), by_use);
	for (size_t i = 0; i < n; i++) {
		if (total > budget && now - es[i].used > 600) {
			static const char *const ext[] = { ".man", ".pch", ".cu" };

			/* the manifest first: without it the header is never used */
			for (size_t k = 0; k < sizeof(ext) / sizeof(*ext); k++) {
				char *f = xasprintf("%s/fe-%s%s", dir, es[i].key, ext[k]);

				unlink(f);
				free(f);
			}
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
	free(p->man);
	free(p->src);
	free(p->lock);
	free(p->tmp_pch);
	free(p->tmp_deps);
	free(p->preamble);
	free(p->probe);
	free(p->lines);
	man_free(p->m);
	memset(p, 0, sizeof(*p));
}
