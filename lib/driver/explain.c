#include "explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../base/io.h"
#include "../base/util.h"
#include "../ir/occupancy.h"
#include "chain.h"
#include "cuda.h"
#include "usage.h"

/* How many occupancy steps below a kernel's count the ladder tries. */
#define LADDER_STEPS 3
/* The lowest cap ptxas takes for -maxrregcount. */
#define LADDER_FLOOR 16

/* One rung: a kernel compiled under -maxrregcount=cap, or (a kernel with
 * launch bounds, for which ptxas ignores -maxrregcount) with .minnctapersm
 * set to the blocks that cap gives. */
struct rung {
	unsigned cap, blocks;
	struct nv_kernel_use use;
};

/* A kernel's explanation: ptxas's figures, the peak's lines from the
 * analysis, the rungs of its ladder. */
struct kernel {
	const struct nv_kernel_use *use;
	const char *peak; /* its section of nv-opt -print=peak (NULL: none) */
	size_t peak_len;
	struct rung rung[LADDER_STEPS];
	size_t nrung;
	unsigned insts;   /* PTX instructions */
	struct whatif {
		char *was;        /* the decision's line as the build took it */
		char *now;        /* the line the what-if has instead */
		char *what;       /* in words */
		int done;         /* its compile's figures are in: */
		struct nv_kernel_use use;
		unsigned insts;
	} wi[NV_EXPLAIN_WHATIFS];
	size_t nwi;
};

/* What the preparation found, for the report. */
struct state {
	int sm;
	char *peak;
	struct nv_kernel_use *ks;
	struct kernel *kv;
	size_t n;
};

/* Rungs from the highest cap down. */
static int
by_cap(const void *a, const void *b)
{
	const struct rung *x = a, *y = b;

	return x->cap < y->cap ? 1 : x->cap > y->cap ? -1 : 0;
}

/* Run one command with its standard error kept: 0 and the text in *text,
 * or its failure. */
static int
run_keeping(const struct nv_job *like, char **argv, char **text)
{
	struct nv_job t = { .act = NV_ACT_TOOL, .label = like->label, .argv = argv, .input = like->input,
		            .arch = like->arch };
	int err = nv_drv_diags_new(), rc;
	size_t len;

	rc = nv_drv_try_tool(&t, err);
	*text = nv_drv_diags_text(err, &len);
	close(err);
	return rc;
}

/* ptxas -v on ptx for sm_XX, under -maxrregcount=cap when cap. */
static int
ptxas(const struct nv_job *j, int sm, unsigned cap, const char *ptx, const char *cubin, char **text)
{
	struct nv_strv av = { 0 };
	char *prog = nv_cuda_tool(&nv_drv_cuda, "ptxas", "--explain");
	int rc;

	nv_strv_push(&av, prog);
	free(prog);
	nv_strv_pushf(&av, "-arch=sm_%d", sm);
	nv_strv_push(&av, "-m64");
	nv_strv_push(&av, "-v");
	nv_strv_pushf(&av, "-O%d", nv_drv.olevel);
	for (size_t i = 0; i < nv_drv.xptxas.n; i++)
		nv_strv_push(&av, nv_drv.xptxas.v[i]);
	if (cap)
		nv_strv_pushf(&av, "-maxrregcount=%u", cap);
	nv_strv_push(&av, ptx);
	nv_strv_push(&av, "-o");
	nv_strv_push(&av, cubin);
	rc = run_keeping(j, av.v, text);
	unlink(cubin);
	nv_strv_free(&av);
	return rc;
}

/* The caps of kernel k's ladder: the most registers that reach each of the
 * next occupancy steps below its count, at most LADDER_STEPS, and the
 * blocks each gives. */
static size_t
ladder_caps(const struct nv_kernel_use *k, int sm, unsigned *caps, unsigned *nblocks)
{
	unsigned blocks = k->occ.blocks;
	size_t n = 0;

	if (!k->used || !blocks || strcmp(k->occ.limit, "registers"))
		return 0;
	for (unsigned r = k->regs; r-- > LADDER_FLOOR && n < LADDER_STEPS;) {
		struct nv_occupancy o;

		nv_occupancy_blocks(sm, r, k->smem, k->threads, &o);
		if (o.blocks > blocks) {
			nblocks[n] = o.blocks;
			caps[n++] = r;
			blocks = o.blocks;
		}
	}
	return n;
}

/* A copy of PTX file in as out, in which each kernel named in names (n of
 * them) has .minnctapersm blocks[k] after its .maxntid or .reqntid (an
 * earlier .minnctapersm of it left out).  0, or -1 (said). */
static int
edit_ptx(const char *in, const char *out, char **names, const unsigned *blocks, size_t n)
{
	FILE *fi = fopen(in, "r"), *fo = fi ? fopen(out, "wx") : NULL;
	char *line = NULL;
	size_t cap = 0;
	long want = -1; /* the kernel whose directives these are, while they are */

	if (!fo) {
		nv_error("--explain: cannot %s '%s':", fi ? "create" : "read", fi ? out : in);
		if (fi)
			fclose(fi);
		return -1;
	}
	while (getline(&line, &cap, fi) > 0) {
		const char *e = strstr(line, ".entry ");
		const char *d = line + strspn(line, " \t");

		if (e) {
			size_t len = strcspn(e + 7, "( \t\n");

			want = -1;
			for (size_t k = 0; k < n; k++)
				if (strlen(names[k]) == len && !strncmp(names[k], e + 7, len))
					want = (long)k;
		} else if (strchr(line, '{')) {
			want = -1;
		} else if (want >= 0 && !strncmp(d, ".minnctapersm", 13)) {
			continue;
		}
		fputs(line, fo);
		if (want >= 0 && (!strncmp(d, ".maxntid", 8) || !strncmp(d, ".reqntid", 8)))
			fprintf(fo, ".minnctapersm %u\n", blocks[want]);
	}
	free(line);
	fclose(fi);
	if (fclose(fo)) {
		nv_error("--explain: cannot write '%s':", out);
		unlink(out);
		return -1;
	}
	return 0;
}

/* Function name's section of the peak analysis ("peak for function 'N':"
 * and its indented lines). */
static const char *
peak_of(const char *text, const char *name, size_t *len)
{
	char *head = xasprintf("peak for function '%s':\n", name);
	const char *at = text ? strstr(text, head) : NULL, *end;

	if (at) {
		at += strlen(head);
		for (end = at; *end == ' ';)
			end = strchr(end, '\n') ? strchr(end, '\n') + 1 : end + strlen(end);
		*len = (size_t)(end - at);
	}
	free(head);
	return at;
}

static void
json_str(FILE *fp, const char *s, size_t n)
{
	fputc('"', fp);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

/* "FILE:LINE" of a peak line's "at FILE:LINE" (or the source), for the
 * start of each text line. */
static char *
where(const struct kernel *k, const char *src)
{
	const char *at;

	if (k->peak && (at = strstr(k->peak, " at ")) && at < k->peak + k->peak_len) {
		size_t n = strcspn(at + 4, " \n");

		if (at[4] != '?')
			return xasprintf("%.*s", (int)n, at + 4);
	}
	return xstrdup(src);
}

/* Whether a what-if of k lowers its registers. */
static int
lowers(const struct kernel *k)
{
	for (size_t w = 0; w < k->nwi; w++)
		if (k->wi[w].done && k->wi[w].use.regs < k->use->regs)
			return 1;
	return 0;
}

static void
text_kernel(const struct kernel *k, const char *src, int sm)
{
	const struct nv_kernel_use *u = k->use;
	char *w = where(k, src), *lead = xasprintf("%s: kernel '%s'", w, u->name);

	fprintf(stderr, "%s on sm_%d: %u registers, %u bytes spill stores, %u bytes spill loads, "
	        "%u bytes stack frame\n", lead, sm, u->regs, u->spill_st, u->spill_ld, u->stack);
	fprintf(stderr, "%s: ", lead);
	nv_drv_usage_occupancy(stderr, u, sm);
	fputc('\n', stderr);
	if (!k->peak) {
		fprintf(stderr, "%s: no peak: nvcc-lite's IR has no function of that name\n", lead);
	} else {
		for (const char *l = k->peak; l < k->peak + k->peak_len;) {
			const char *nl = strchr(l, '\n');
			size_t n;

			l += strspn(l, " ");
			n = (size_t)(nl - l);
			if (!strncmp(l, "peak ", 5))
				fprintf(stderr, "%s: most live before instruction selection: %.*s\n", lead, (int)(n - 5),
				        l + 5);
			else if (!strncmp(l, "in loop ", 8))
				fprintf(stderr, "%s:   in the %.*s\n", lead, (int)(n - 3), l + 3);
			else if (!strncmp(l, "live ", 5))
				fprintf(stderr, "%s:   %.*s\n", lead, (int)(n - 5), l + 5);
			else
				fprintf(stderr, "%s: %.*s\n", lead, (int)n, l);
			l = nl + 1;
		}
	}
	for (size_t r = 0; r < k->nrung; r++) {
		const struct nv_kernel_use *c = &k->rung[r].use;

		if (u->bounded)
			fprintf(stderr, "%s: __launch_bounds__(%u, %u): ", lead, u->threads, k->rung[r].blocks);
		else
			fprintf(stderr, "%s: -maxrregcount=%u: ", lead, k->rung[r].cap);
		fprintf(stderr, "%u registers, %u bytes spill stores, %u bytes spill loads, %u bytes stack "
		        "frame, %u block%s an SM\n", c->regs, c->spill_st, c->spill_ld, c->stack, c->occ.blocks,
		        c->occ.blocks == 1 ? "" : "s");
	}
	if (u->step && !k->nrung)
		fprintf(stderr, "%s: no -maxrregcount ladder: ptxas failed under a cap\n", lead);
	for (size_t w = 0; w < k->nwi; w++) {
		const struct whatif *wi = &k->wi[w];

		if (!wi->done) {
			fprintf(stderr, "%s: what if %s: no figures (its compile failed)\n", lead, wi->what);
			continue;
		}
		fprintf(stderr, "%s: what if %s: %u registers (%+d), %u bytes spill stores, %u bytes stack frame, "
		        "%u PTX instructions (%+d), %u block%s an SM\n", lead, wi->what, wi->use.regs,
		        (int)wi->use.regs - (int)u->regs, wi->use.spill_st, wi->use.stack, wi->insts,
		        (int)wi->insts - (int)k->insts, wi->use.occ.blocks, wi->use.occ.blocks == 1 ? "" : "s");
	}
	if (!k->nwi && (u->step || u->regs >= 64))
		fprintf(stderr, "%s: no what-if: no unroll or inlining decision in this kernel to undo\n", lead);
	else if (k->nwi && !lowers(k))
		fprintf(stderr, "%s: none of these decisions costs it registers\n", lead);
	free(lead);
	free(w);
}

/* The figures of u as JSON members. */
static void
json_use(FILE *fp, const struct nv_kernel_use *u)
{
	fprintf(fp, "\"registers\":%u,\"spill_stores\":%u,\"spill_loads\":%u,\"stack_frame\":%u,\"blocks\":%u",
	        u->regs, u->spill_st, u->spill_ld, u->stack, u->occ.blocks);
}

/* The peak section as JSON: "peak":{"units":U,"values":N,"at":"F:L",
 * "loops":[...],"live":[...]}, each line kept as the analysis says it. */
static void
json_peak(FILE *fp, const struct kernel *k)
{
	unsigned units = 0, values = 0;
	const char *l = k->peak, *end = k->peak + k->peak_len;
	int loops = 0, live = 0;

	fputs(",\"peak\":", fp);
	if (!k->peak) {
		fputs("null", fp);
		return;
	}
	l += strspn(l, " ");
	sscanf(l, "peak %u register units, %u values", &units, &values);
	fprintf(fp, "{\"units\":%u,\"values\":%u,\"at\":", units, values);
	{
		char *w = where(k, "?");

		json_str(fp, w, strlen(w));
		free(w);
	}
	fputs(",\"loops\":[", fp);
	for (const char *p = l; p < end; p = strchr(p, '\n') + 1) {
		const char *q = p + strspn(p, " "), *at, *comma;
		unsigned depth = 0;

		if (strncmp(q, "in loop ", 8) || !(at = strstr(q, " at ")) || !(comma = strstr(at, ", depth ")))
			continue;
		sscanf(comma + 8, "%u", &depth);
		fputs(loops++ ? ",{\"block\":" : "{\"block\":", fp);
		json_str(fp, q + 8, (size_t)(at - q - 8));
		fputs(",\"at\":", fp);
		json_str(fp, at + 4, (size_t)(comma - at - 4));
		fprintf(fp, ",\"depth\":%u}", depth);
	}
	/* "live NAME: C x TYPE, U units, LINES" */
	fputs("],\"live\":[", fp);
	for (const char *p = l; p < end; p = strchr(p, '\n') + 1) {
		const char *q = p + strspn(p, " "), *colon, *x, *units, *nl = strchr(q, '\n');
		unsigned count = 0, u = 0;

		if (strncmp(q, "live ", 5) || !(colon = strstr(q, ": ")) || colon > nl ||
		    !(x = strstr(colon, " x ")) || !(units = strstr(x, " units, ")) || units > nl)
			continue;
		while (units > x && units[-1] != ',')
			units--;
		sscanf(colon + 2, "%u", &count);
		sscanf(units + 1, "%u", &u);
		fputs(live++ ? ",{\"what\":" : "{\"what\":", fp);
		json_str(fp, q + 5, (size_t)(colon - q - 5));
		fprintf(fp, ",\"count\":%u,\"type\":", count);
		json_str(fp, x + 3, (size_t)(units - 1 - x - 3));
		fprintf(fp, ",\"units\":%u,\"lines\":", u);
		units = strstr(units, " units, ") + 8;
		json_str(fp, units, (size_t)(nl - units));
		fputc('}', fp);
	}
	fputs("]}", fp);
}

static void
json_kernel(const struct kernel *k, const char *src, int sm)
{
	const struct nv_kernel_use *u = k->use;

	fputs("{\"kernel\":", stderr);
	json_str(stderr, u->name, strlen(u->name));
	fputs(",\"source\":", stderr);
	json_str(stderr, src, strlen(src));
	fprintf(stderr, ",\"arch\":\"sm_%d\",", sm);
	json_use(stderr, u);
	fprintf(stderr, ",\"threads\":%u,\"launch_bounds\":%s,\"warps\":%u,\"limit\":", u->threads,
	        u->bounded ? "true" : "false", u->occ.warps);
	json_str(stderr, u->occ.limit ? u->occ.limit : "", u->occ.limit ? strlen(u->occ.limit) : 0);
	if (u->step)
		fprintf(stderr, ",\"next_step\":{\"registers\":%u,\"blocks\":%u}", u->step, u->step_blocks);
	else
		fputs(",\"next_step\":null", stderr);
	json_peak(stderr, k);
	fputs(",\"whatifs\":[", stderr);
	for (size_t w = 0; w < k->nwi; w++) {
		const struct whatif *wi = &k->wi[w];

		fputs(w ? ",{\"what\":" : "{\"what\":", stderr);
		json_str(stderr, wi->what, strlen(wi->what));
		fputs(",\"was\":", stderr);
		json_str(stderr, wi->was, strlen(wi->was));
		fputs(",\"now\":", stderr);
		json_str(stderr, wi->now, strlen(wi->now));
		if (wi->done) {
			fputc(',', stderr);
			json_use(stderr, &wi->use);
			fprintf(stderr, ",\"ptx_instructions\":%u}", wi->insts);
		} else {
			fputs(",\"registers\":null}", stderr);
		}
	}
	fprintf(stderr, "],\"ptx_instructions\":%u", k->insts);
	fputs(",\"ladder\":[", stderr);
	for (size_t r = 0; r < k->nrung; r++) {
		fprintf(stderr, "%s{\"maxrregcount\":%u,\"min_blocks\":%u,\"by\":\"%s\",", r ? "," : "",
		        k->rung[r].cap, k->rung[r].blocks, u->bounded ? "launch_bounds" : "maxrregcount");
		json_use(stderr, &k->rung[r].use);
		fputc('}', stderr);
	}
	fputs("]}\n", stderr);
}

/* PTX instructions of kernel name in the PTX file: the lines of its body
 * that end a statement, directives, labels and braces aside. */
static unsigned
ptx_insts(const char *ptx, const char *name)
{
	FILE *fp = fopen(ptx, "r");
	char *line = NULL;
	size_t cap = 0, len = strlen(name);
	unsigned n = 0;
	int in = 0, body = 0;

	if (!fp)
		return 0;
	while (getline(&line, &cap, fp) > 0) {
		const char *e = strstr(line, ".entry "), *t = line + strspn(line, " \t");

		if (e && !strncmp(e + 7, name, len) && strchr("( \t\n", e[7 + len])) {
			in = 1;
			continue;
		}
		if (in && !body && *t == '{') {
			body = 1;
			continue;
		}
		if (in && body && line[0] == '}')
			break;
		if (in && body && strchr(t, ';') && *t != '.' && *t != '/' && *t != '{' && *t != '}')
			n++;
	}
	free(line);
	fclose(fp);
	return n;
}

/* A decisions line's fields: stage, place (FILE:LINE[#K]), function,
 * choice; 0, or -1 when it is not one. */
struct dline {
	char *text;
	const char *stage, *place, *fn, *choice;
};

static int
dline_read(char *line, struct dline *d)
{
	char *save = NULL, *in;

	d->text = xstrdup(line);
	d->stage = strtok_r(line, " ", &save);
	d->place = strtok_r(NULL, " ", &save);
	in = strtok_r(NULL, " ", &save);
	d->fn = strtok_r(NULL, " ", &save);
	d->choice = save;
	if (!d->stage || !d->place || !in || strcmp(in, "in") || !d->fn || !d->choice || !*d->choice) {
		free(d->text);
		return -1;
	}
	return 0;
}

/* The source line of a place, in file (len bytes of it): 0 when in another file. */
static unsigned
place_line(const char *place, const char *file, size_t len)
{
	const char *colon = strrchr(place, ':');

	if (!colon || (size_t)(colon - place) != len || strncmp(place, file, len))
		return 0;
	return (unsigned)strtoul(colon + 1, NULL, 10);
}

/* How close a decision at line is to the peak: 0 on the start line of a
 * loop around it, else 1 + the distance in lines. */
static unsigned
closeness(const struct kernel *k, unsigned line, unsigned peak_line)
{
	const char *l = k->peak, *end = k->peak + k->peak_len;

	for (const char *p = l; p && p < end; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *q = p + strspn(p, " "), *at = strstr(q, " at "), *colon;

		if (!strncmp(q, "in loop ", 8) && at && (colon = strchr(at + 4, ':')) &&
		    (unsigned)strtoul(colon + 1, NULL, 10) == line)
			return 0;
	}
	return 1 + (line > peak_line ? line - peak_line : peak_line - line);
}

struct cand {
	struct dline d;
	char *copy; /* what d's fields point into */
	unsigned close;
	int inline_;
	unsigned target; /* a remat decision's new target (0: not one) */
};

static int
by_close(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->inline_ != y->inline_)
		return x->inline_ - y->inline_;
	return x->close < y->close ? -1 : x->close > y->close;
}

/* Kernel k's what-ifs from the build's decisions (lines[0..n)): its unroll
 * decisions that did unroll, nearest the peak first (a loop around it
 * first, then by lines in the peak's file), nv-remat aiming at the next
 * step's share of its target, its unroll decisions in other files, then
 * its calls inlined; each undone alone. */
static void
pick_whatifs(struct kernel *k, char **lines, size_t n)
{
	const char *at = k->peak ? strstr(k->peak, " at ") : NULL, *colon;
	struct cand *c = xcalloc(n ? n : 1, sizeof(*c));
	size_t nc = 0, flen = 0;
	unsigned peak_line = 0;

	if (at && at < k->peak + k->peak_len && (colon = strchr(at + 4, ':'))) {
		flen = (size_t)(colon - at - 4);
		peak_line = (unsigned)strtoul(colon + 1, NULL, 10);
	}
	for (size_t i = 0; i < n; i++) {
		char *copy = xstrdup(lines[i]);
		struct dline d;
		unsigned line, t;
		int unroll;

		if (dline_read(copy, &d) || strcmp(d.fn, k->use->name)) {
			free(copy);
			continue;
		}
		line = flen ? place_line(d.place, at + 4, flen) : 0;
		unroll = !strncmp(d.stage, "unroll", 6);
		/* remat aiming at the next step's share of what it aimed at */
		if (!strcmp(d.stage, "remat") && k->use->step && sscanf(d.choice, "target=%u", &t) == 1 &&
		    t * k->use->step / k->use->regs < t && t * k->use->step / k->use->regs > 0) {
			c[nc].d = d;
			c[nc].copy = copy;
			c[nc].close = 1u << 29; /* after the unrolls in the peak's file */
			c[nc++].target = t * k->use->step / k->use->regs;
		} else if ((unroll && strncmp(d.choice, "none", 4)) ||
		           (!strcmp(d.stage, "inline") && !strncmp(d.choice, "yes", 3))) {
			c[nc].d = d;
			c[nc].copy = copy;
			/* a decision in another file than the peak's (a header's
			 * loop inlined) after those of its file, in the order taken */
			c[nc].close = line ? closeness(k, line, peak_line) : (1u << 30) + (unsigned)i;
			c[nc++].inline_ = !unroll;
		} else {
			free(d.text);
			free(copy);
		}
	}
	qsort(c, nc, sizeof(*c), by_close);
	for (size_t i = 0; i < nc && k->nwi < NV_EXPLAIN_WHATIFS; i++) {
		struct whatif *w = &k->wi[k->nwi++];
		struct dline *d = &c[i].d;
		size_t keylen = strlen(d->text) - strlen(d->choice);

		w->was = xstrdup(d->text);
		if (c[i].target) {
			w->now = xasprintf("%.*starget=%u", (int)keylen, d->text, c[i].target);
			w->what = xasprintf("remat aims at %u register units (%s: %s)", c[i].target, d->stage, d->choice);
		} else if (c[i].inline_) {
			w->now = xasprintf("%.*sno%s", (int)keylen, d->text, d->choice + 3);
			w->what = xasprintf("the call at %s stays a call (%s)", d->place, d->choice + 4);
		} else {
			w->now = xasprintf("%.*snone mark=now", (int)keylen, d->text);
			w->what = xasprintf("the loop at %s stays rolled (%s: %s)", d->place, d->stage, d->choice);
		}
	}
	for (size_t i = 0; i < nc; i++) {
		free(c[i].d.text);
		free(c[i].copy);
	}
	free(c);
}

/* The decisions file of what-if w: the build's lines, each kernel's w-th
 * what-if in place of its decision.  0 when no kernel has one (no file),
 * 1 when written, -1 on error (said). */
static int
write_variant(const struct nv_explain *x, struct state *st, char **lines, size_t n, unsigned w)
{
	struct nv_strv out = { 0 };
	char *text;
	size_t len = 0;
	int any = 0, rc;

	for (size_t i = 0; i < n; i++) {
		const char *line = lines[i];

		for (size_t k = 0; k < st->n; k++)
			if (st->kv[k].nwi > w && !strcmp(st->kv[k].wi[w].was, lines[i])) {
				line = st->kv[k].wi[w].now;
				any = 1;
			}
		nv_strv_pushf(&out, "%s\n", line);
		len += strlen(line) + 1;
	}
	if (!any) {
		nv_strv_free(&out);
		return 0;
	}
	text = xmalloc(len + 1);
	len = 0;
	for (size_t i = 0; i < out.n; i++) {
		memcpy(text + len, out.v[i], strlen(out.v[i]));
		len += strlen(out.v[i]);
	}
	rc = nv_io_write(x->variant[w], text, len, 0, 1);
	free(text);
	nv_strv_free(&out);
	return rc ? -1 : 1;
}

/* The preparation: the peak, ptxas's figures, the ladder, the what-ifs'
 * decisions files. */
static int
prepare(const struct nv_job *j, struct nv_explain *x, int sm)
{
	struct state *st = xcalloc(1, sizeof(*st));
	char *text = NULL, *data = NULL;
	struct nv_strv lines = { 0 };
	unsigned caps[64];
	size_t ncaps = 0, len;
	char *edited = xasprintf("%s.ptx", x->cubin);

	st->sm = sm;
	x->state = st;
	if (run_keeping(j, j->argv, &st->peak)) {
		nv_warn("--explain: no peak for '%s': the analysis of its IR failed", j->input);
		free(st->peak);
		st->peak = NULL;
	}
	if (ptxas(j, sm, 0, x->ptx, x->cubin, &text)) {
		fputs(text, stderr);
		nv_error("--explain: ptxas could not assemble '%s' for sm_%d", x->ptx, sm);
		free(text);
		free(edited);
		return -1;
	}
	st->n = nv_drv_usage_read(text, x->ptx, sm, &st->ks);
	free(text);
	st->kv = xcalloc(st->n ? st->n : 1, sizeof(*st->kv));
	if (!access(x->decisions, R_OK) && !nv_io_slurp(x->decisions, &data, &len)) {
		data = xrealloc(data, len + 1);
		data[len] = '\0';
		for (char *l = data, *nl; *l; l = nl + 1) {
			nl = strchr(l, '\n');
			if (!nl)
				nl = l + strlen(l);
			nv_strv_pushf(&lines, "%.*s", (int)(nl - l), l);
			if (!*nl)
				break;
		}
	}
	for (size_t i = 0; i < st->n; i++) {
		unsigned c[LADDER_STEPS], bl[LADDER_STEPS];
		size_t m = ladder_caps(&st->ks[i], sm, c, bl);
		struct kernel *k = &st->kv[i];

		k->use = &st->ks[i];
		k->peak = peak_of(st->peak, st->ks[i].name, &k->peak_len);
		k->insts = ptx_insts(x->ptx, st->ks[i].name);
		if (st->ks[i].used && (st->ks[i].step || st->ks[i].regs >= 64))
			pick_whatifs(k, lines.v, lines.n);
		for (size_t a = 0; a < m; a++) {
			size_t b = 0;

			while (b < ncaps && caps[b] != c[a])
				b++;
			if (b == ncaps && ncaps < sizeof(caps) / sizeof(*caps))
				caps[ncaps++] = c[a];
		}
	}
	for (unsigned w = 0; w < NV_EXPLAIN_WHATIFS; w++) {
		unlink(x->variant[w]);
		if (write_variant(x, st, lines.v, lines.n, w) < 0)
			break;
	}
	nv_strv_free(&lines);
	free(data);
	/* one ptxas a cap: -maxrregcount for the kernels without launch
	 * bounds, .minnctapersm in a copy of the PTX for those with */
	for (size_t c = 0; c < ncaps; c++) {
		struct nv_strv names = { 0 };
		unsigned *bl = xcalloc(st->n ? st->n : 1, sizeof(*bl));
		struct nv_kernel_use *at;
		const char *ptx = x->ptx;
		size_t m;
		int rc;

		for (size_t i = 0; i < st->n; i++) {
			unsigned mine[LADDER_STEPS], mb[LADDER_STEPS];
			size_t nm = ladder_caps(&st->ks[i], sm, mine, mb);

			for (size_t a = 0; a < nm; a++)
				if (mine[a] == caps[c]) {
					st->kv[i].rung[st->kv[i].nrung].cap = caps[c];
					st->kv[i].rung[st->kv[i].nrung].blocks = mb[a];
					if (st->ks[i].bounded) {
						bl[names.n] = mb[a];
						nv_strv_push(&names, st->ks[i].name);
					}
				}
		}
		if (names.n) {
			unlink(edited);
			if (edit_ptx(x->ptx, edited, names.v, bl, names.n)) {
				nv_strv_free(&names);
				free(bl);
				break;
			}
			ptx = edited;
		}
		rc = ptxas(j, sm, caps[c], ptx, x->cubin, &text);
		m = rc ? 0 : nv_drv_usage_read(text, ptx, sm, &at);
		free(text);
		for (size_t i = 0; i < st->n; i++) {
			struct rung *r;

			if (st->kv[i].nrung == LADDER_STEPS || (r = &st->kv[i].rung[st->kv[i].nrung])->cap != caps[c])
				continue;
			for (size_t b = 0; b < m; b++)
				if (!strcmp(at[b].name, st->ks[i].name)) {
					r->use = at[b];
					r->use.name = NULL;
					st->kv[i].nrung++;
				}
		}
		if (!rc)
			nv_drv_usage_free(at, m);
		unlink(edited);
		nv_strv_free(&names);
		free(bl);
	}
	for (size_t i = 0; i < st->n; i++)
		qsort(st->kv[i].rung, st->kv[i].nrung, sizeof(*st->kv[i].rung), by_cap);
	free(edited);
	return 0;
}

static int
by_saved(const void *a, const void *b)
{
	const struct whatif *x = a, *y = b;

	if (x->done != y->done)
		return y->done - x->done;
	return x->use.regs < y->use.regs ? -1 : x->use.regs > y->use.regs;
}

/* The report: ptxas on each what-if's PTX, and every kernel explained. */
static int
report(const struct nv_job *j, struct nv_explain *x)
{
	struct state *st = x->state;

	if (!st)
		return 0;
	for (unsigned w = 0; w < NV_EXPLAIN_WHATIFS; w++) {
		struct nv_kernel_use *at;
		char *text;
		size_t m;

		if (access(x->whatif_ptx[w], F_OK))
			continue;
		if (ptxas(j, st->sm, 0, x->whatif_ptx[w], x->cubin, &text)) {
			free(text);
			continue;
		}
		m = nv_drv_usage_read(text, x->whatif_ptx[w], st->sm, &at);
		free(text);
		for (size_t i = 0; i < st->n; i++)
			for (size_t b = 0; b < m && st->kv[i].nwi > w; b++)
				if (!strcmp(at[b].name, st->ks[i].name)) {
					st->kv[i].wi[w].use = at[b];
					st->kv[i].wi[w].use.name = NULL;
					st->kv[i].wi[w].insts = ptx_insts(x->whatif_ptx[w], at[b].name);
					st->kv[i].wi[w].done = 1;
				}
		nv_drv_usage_free(at, m);
	}
	for (size_t i = 0; i < st->n; i++) {
		qsort(st->kv[i].wi, st->kv[i].nwi, sizeof(*st->kv[i].wi), by_saved);
		if (!st->ks[i].used)
			continue;
		if (nv_drv.explain == 2)
			json_kernel(&st->kv[i], j->input, st->sm);
		else
			text_kernel(&st->kv[i], j->input, st->sm);
	}
	fflush(stderr);
	for (size_t i = 0; i < st->n; i++)
		for (size_t w = 0; w < st->kv[i].nwi; w++) {
			free(st->kv[i].wi[w].was);
			free(st->kv[i].wi[w].now);
			free(st->kv[i].wi[w].what);
		}
	nv_drv_usage_free(st->ks, st->n);
	free(st->kv);
	free(st->peak);
	free(st);
	x->state = NULL;
	return 0;
}

int
nv_drv_run_explain(const struct nv_job *j)
{
	const char *virt = j->arch ? strchr(j->arch, '_') : NULL;
	int sm = virt ? atoi(virt + 1) : 0;

	if (!sm)
		return 0;
	return j->explain_report ? report(j, j->explain) : prepare(j, j->explain, sm);
}
