#include "ptxfix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/diag.h"
#include "../base/util.h"

/*
 * A function body is the lines between a "{" and a "}" alone on their
 * lines (LLVM prints nothing else at the left margin inside one).  In it:
 *
 *	mov.b64 	%SPL, __local_depot3;
 *	add.u64 	%rd12, %SPL, 0;
 *	cvt.u32.u64 	%r1, %rd12;
 *
 * becomes, for a %rd12 defined there only:
 *
 *	mov.u32 	%r1, __local_depot3;
 *
 * (an add.s32 of the offset after it when that is not 0).
 */

struct line {
	const char *p;
	size_t n;
};

/* The register a statement defines: its first operand, when the line is
 * "\tOPCODE\t%REG, ...".  Copies it into reg (at most size bytes). */
static int
defined_reg(struct line l, char *reg, size_t size)
{
	const char *p = l.p, *end = l.p + l.n, *q;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p == '%' || *p == '.' || *p == '$' || *p == '/' || *p == '{' || *p == '}' || *p == '@')
		return 0;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p != '%')
		return 0;
	for (q = p; q < end && *q != ',' && *q != ';' && *q != ' '; q++)
		;
	if ((size_t)(q - p) >= size)
		return 0;
	memcpy(reg, p, (size_t)(q - p));
	reg[q - p] = 0;
	return 1;
}

/* The line with its leading blanks skipped, if it starts with op. */
static const char *
after_op(struct line l, const char *op)
{
	const char *p = l.p, *end = l.p + l.n;
	size_t n = strlen(op);

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) <= n || strncmp(p, op, n) || (p[n] != ' ' && p[n] != '\t'))
		return NULL;
	for (p += n; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	return p;
}

struct spl {
	char reg[32];
	long off;
	unsigned defs;
};

static struct spl *
find_spl(struct spl *v, unsigned n, const char *reg)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(v[i].reg, reg))
			return &v[i];
	return NULL;
}

/* Rewrite one body, lines [b, e), onto out; the number of conversions. */
static unsigned
fix_body(const struct line *ls, size_t b, size_t e, FILE *out)
{
	char depot[64] = "", reg[32], rest[64];
	struct spl *v = NULL;
	unsigned n = 0, changed = 0;

	for (size_t i = b; i < e; i++) {
		const char *p = after_op(ls[i], "mov.b64");

		if (!p)
			p = after_op(ls[i], "mov.u64");
		if (p && !*depot && sscanf(p, "%%SPL, %63[A-Za-z0-9_$];", depot) != 1)
			*depot = 0;
	}
	if (*depot) {
		/* every definition of a 64-bit register, and which are %SPL + C */
		for (size_t i = b; i < e; i++) {
			const char *p = after_op(ls[i], "add.u64");
			long off;
			struct spl *s;

			if (!defined_reg(ls[i], reg, sizeof(reg)) || strncmp(reg, "%rd", 3))
				continue;
			if (!(s = find_spl(v, n, reg))) {
				v = xrealloc(v, (n + 1) * sizeof(*v));
				s = &v[n++];
				snprintf(s->reg, sizeof(s->reg), "%s", reg);
				s->off = -1;
				s->defs = 0;
			}
			s->defs++;
			if (p && sscanf(p, "%%rd%*[0-9], %%SPL, %ld%63[;]", &off, rest) == 2 && off >= 0)
				s->off = off;
		}
	}
	for (size_t i = b; i < e; i++) {
		const char *p = *depot ? after_op(ls[i], "cvt.u32.u64") : NULL;
		char dst[32], src[32];
		struct spl *s;

		if (p && sscanf(p, "%31[%a-z0-9], %31[%a-z0-9]%63[;]", dst, src, rest) == 3 &&
		    (s = find_spl(v, n, src)) && s->defs == 1 && s->off >= 0) {
			fprintf(out, "\tmov.u32 \t%s, %s;\n", dst, depot);
			if (s->off)
				fprintf(out, "\tadd.s32 \t%s, %s, %ld;\n", dst, dst, s->off);
			changed++;
			continue;
		}
		fprintf(out, "%.*s\n", (int)ls[i].n, ls[i].p);
	}
	free(v);
	return changed;
}

char *
nv_ptx_local_addresses(const char *ptx, size_t len, size_t *outlen, unsigned *changed)
{
	struct line *ls = NULL;
	size_t nl = 0, cap = 0;
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	unsigned total = 0;
	int trailing = len > 0 && ptx[len - 1] == '\n';

	for (const char *p = ptx, *end = ptx + len; p < end;) {
		const char *q = memchr(p, '\n', (size_t)(end - p));

		if (!q)
			q = end;
		if (nl == cap)
			ls = xrealloc(ls, (cap = cap ? 2 * cap : 1024) * sizeof(*ls));
		ls[nl++] = (struct line){ p, (size_t)(q - p) };
		p = q + 1;
	}
	for (size_t i = 0; i < nl;) {
		size_t j;

		if (ls[i].n != 1 || ls[i].p[0] != '{') {
			fprintf(out, "%.*s%s", (int)ls[i].n, ls[i].p, i + 1 < nl || trailing ? "\n" : "");
			i++;
			continue;
		}
		for (j = i + 1; j < nl && !(ls[j].n == 1 && ls[j].p[0] == '}'); j++)
			;
		fputs("{\n", out);
		total += fix_body(ls, i + 1, j, out);
		i = j; /* the "}" is copied as any line */
	}
	free(ls);
	if (!out || fclose(out))
		nv_fatal("out of memory");
	if (changed)
		*changed = total;
	*outlen = size;
	return buf;
}
