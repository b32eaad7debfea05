#include "decisions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>

#include "diag.h"
#include "io.h"
#include "util.h"

/* A replayed line: its key, its choice, its target (NULL: every one), and
 * whether a place took it. */
struct line {
	char *key, *choice, *target;
	unsigned lineno;
	int taken;
};

static struct {
	const char *save, *replay;
	char *target;         /* this run's GPU, as a target line names it ("90a") */
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

/* "compute_90a", "sm_90a" or "90a" -> "90a"; NULL when it is none. */
static char *
target_of(const char *name)
{
	const char *p = name;
	size_t digits;

	if (!strncmp(p, "compute_", 8))
		p += 8;
	else if (!strncmp(p, "sm_", 3))
		p += 3;
	digits = strspn(p, "0123456789");
	if (*p == '0' || digits < 2 || digits > 3 || (p[digits] && strcmp(p + digits, "a") && strcmp(p + digits, "f")))
		return NULL;
	return xstrdup(p);
}

void
nv_decisions_target(const char *arch)
{
	free(dc.target);
	dc.target = arch ? target_of(arch) : NULL;
}

/* Does line l apply to this run? */
static int
applies(const struct line *l)
{
	return !l->target || (dc.target && !strcmp(l->target, dc.target));
}

void
nv_decisions_init(const char *save_path, const char *replay_path)
{
	char *section = NULL;
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
		/* "target compute_XX": the lines up to the next are that GPU's */
		if (!strncmp(l, "target", 6) && (l[6] == ' ' || l[6] == '\t')) {
			const char *t = l + 6 + strspn(l + 6, " \t");

			free(section);
			if (!(section = target_of(t))) {
				nv_error("%s:%u: not a target (target compute_XX): '%s'", replay_path, lineno, l);
				nv_exit(NV_EXIT_ERROR);
			}
			continue;
		}
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
		dc.lines[dc.nlines++] = (struct line){ key, xstrdup(l + k + strspn(l + k, " \t")),
			                               section ? xstrdup(section) : NULL, lineno, 0 };
	}
	free(section);
	free(data);
}

int
nv_decisions_targets(const char **names, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < dc.nlines; i++) {
		size_t k = 0;

		if (!dc.lines[i].target)
			continue;
		for (; k < n; k++) {
			char *t = target_of(names[k]);
			int same = t && !strcmp(t, dc.lines[i].target);

			free(t);
			if (same)
				break;
		}
		if (k == n) {
			nv_warn("%s:%u: decisions for target compute_%s, which this build does not compile", dc.replay,
			        dc.lines[i].lineno, dc.lines[i].target);
			rc = -1;
			/* once a section */
			while (i + 1 < dc.nlines && dc.lines[i + 1].target &&
			       !strcmp(dc.lines[i + 1].target, dc.lines[i].target))
				i++;
		}
	}
	return rc;
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
		if (applies(&dc.lines[i]) && !strcmp(dc.lines[i].key, d->key)) {
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
		if (!dc.lines[i].taken && applies(&dc.lines[i]) && !strncmp(dc.lines[i].key, stage, sl) &&
		    dc.lines[i].key[sl] == ' ' && defines(m, dc.lines[i].key))
			nv_warn("%s:%u: decision '%s %s' matched nothing", dc.replay, dc.lines[i].lineno,
			        dc.lines[i].key, dc.lines[i].choice);
	if (dc.save)
		rc = nv_io_write(dc.save, dc.out ? dc.out : "", dc.out_len, 0, 1);
	return rc;
}
