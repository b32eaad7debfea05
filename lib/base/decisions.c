#include "decisions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "diag.h"
#include "io.h"
#include "util.h"

/* A replayed line: its key, its choice, and whether a place took it. */
struct line {
	char *key, *choice;
	unsigned lineno;
	int taken;
};

static struct {
	const char *save, *replay;
	struct line *lines;
	size_t nlines;
	struct nv_strv keys;  /* the places so far, for #K */
	char *out;            /* the saved lines */
	size_t out_len, out_cap;
} dc;

int
nv_decisions_on(void)
{
	return dc.save || dc.replay;
}

/* Split "STAGE LOC in FUNCTION CHOICE..." at the choice: the key's length,
 * or 0 when the line is not one. */
static size_t
key_length(const char *s)
{
	const char *p = s;

	for (int field = 0; field < 4; field++) {
		size_t n = strcspn(p, " \t");

		if (!n || (field == 2 && (n != 2 || strncmp(p, "in", 2))))
			return 0;
		p += n;
		if (field < 3 && (*p != ' ' && *p != '\t'))
			return 0;
		if (field < 3)
			p += strspn(p, " \t");
	}
	return (size_t)(p - s);
}

void
nv_decisions_init(const char *save_path, const char *replay_path)
{
	char *data, *raw;
	size_t len;
	unsigned lineno = 0;

	dc.save = save_path;
	dc.replay = replay_path;
	if (!replay_path)
		return;
	if (nv_io_slurp(replay_path, &raw, &len))
		nv_exit(NV_EXIT_ERROR);
	data = xmalloc(len + 1);
	memcpy(data, raw, len);
	data[len] = '\0';
	free(raw);
	for (char *l = data, *nl; l < data + len; l = nl + 1) {
		size_t k, n;
		char *key;

		nl = memchr(l, '\n', (size_t)(data + len - l));
		if (!nl)
			nl = data + len;
		*nl = '\0';
		lineno++;
		n = strlen(l);
		while (n && (l[n - 1] == '\r' || l[n - 1] == ' ' || l[n - 1] == '\t'))
			l[--n] = '\0';
		l += strspn(l, " \t");
		if (!*l || *l == '#')
			continue;
		k = key_length(l);
		if (!k || !l[k + strspn(l + k, " \t")]) {
			nv_error("%s:%u: not a decision (STAGE FILE:LINE in FUNCTION CHOICE): '%s'", replay_path,
			         lineno, l);
			nv_exit(NV_EXIT_ERROR);
		}
		/* the key with single blanks, as nv_decision_begin makes it */
		key = xstrdup("");
		for (const char *p = l; p < l + k;) {
			size_t w = strcspn(p, " \t");
			char *t = xasprintf("%s%s%.*s", key, *key ? " " : "", (int)w, p);

			free(key);
			key = t;
			p += w;
			p += strspn(p, " \t");
		}
		dc.lines = xrealloc(dc.lines, (dc.nlines + 1) * sizeof(*dc.lines));
		dc.lines[dc.nlines++] = (struct line){ key, xstrdup(l + k + strspn(l + k, " \t")), lineno, 0 };
	}
	free(data);
}

const char *
nv_decision_begin(struct nv_decision *d, const char *stage, const struct nv_srcloc *loc, const char *fn)
{
	char *place;
	unsigned k = 1;

	d->key = NULL;
	if (!nv_decisions_on() || !loc || !loc->line || !loc->file)
		return NULL;
	place = xasprintf("%s %.*s:%u in %s", stage, (int)loc->len, loc->file, loc->line, fn);
	for (size_t i = 0; i < dc.keys.n; i++)
		k += !strcmp(dc.keys.v[i], place);
	nv_strv_push(&dc.keys, place);
	if (k == 1) {
		d->key = place;
	} else {
		d->key = xasprintf("%s %.*s:%u#%u in %s", stage, (int)loc->len, loc->file, loc->line, k, fn);
		free(place);
	}
	for (size_t i = 0; i < dc.nlines; i++)
		if (!strcmp(dc.lines[i].key, d->key)) {
			dc.lines[i].taken = 1;
			return dc.lines[i].choice;
		}
	return NULL;
}

void
nv_decision_end(struct nv_decision *d, const char *choice)
{
	if (!d->key)
		return;
	if (dc.save) {
		char *line = xasprintf("%s %s\n", d->key, choice);
		size_t n = strlen(line);

		if (dc.out_len + n + 1 > dc.out_cap)
			dc.out = xrealloc(dc.out, dc.out_cap = 2 * (dc.out_len + n + 1));
		memcpy(dc.out + dc.out_len, line, n + 1);
		dc.out_len += n;
		free(line);
	}
	free(d->key);
	d->key = NULL;
}

/* The function a key names, if m defines it. */
static int
defines(LLVMModuleRef m, const char *key)
{
	const char *in = strstr(key, " in ");
	LLVMValueRef f = in ? LLVMGetNamedFunction(m, in + 4) : NULL;

	return f && !LLVMIsDeclaration(f);
}

int
nv_decisions_finish(LLVMModuleRef m, const char *stage)
{
	size_t sl = strlen(stage);
	int rc = 0;

	for (size_t i = 0; i < dc.nlines; i++)
		if (!dc.lines[i].taken && !strncmp(dc.lines[i].key, stage, sl) && dc.lines[i].key[sl] == ' ' &&
		    defines(m, dc.lines[i].key))
			nv_warn("%s:%u: decision '%s %s' matched nothing", dc.replay, dc.lines[i].lineno,
			        dc.lines[i].key, dc.lines[i].choice);
	if (dc.save)
		rc = nv_io_write(dc.save, dc.out ? dc.out : "", dc.out_len, 0, 1);
	return rc;
}
