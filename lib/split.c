/*
 * split: per-function parts of a module and their join.
 *
 * Requires: a verified module.  Preserves: every function body, bit for
 * bit, in exactly one part; global variables and their initializers in
 * every part.  The join restores internal/private linkage and the missing
 * names, and its function order is the parts' order of definitions,
 * whatever the number of parts.
 */
#include "split.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>

#include "diag.h"
#include "inline.h"
#include "link.h"
#include "util.h"

#define MAP_MAGIC "nv-split-map 1"

unsigned
nv_split_count_defs(LLVMModuleRef m)
{
	unsigned n = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		n += !LLVMIsDeclaration(f);
	return n;
}

void
nv_split_strip_body(LLVMValueRef f)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(f));
	unsigned dbg = LLVMGetMDKindIDInContext(ctx, "dbg", 3);
	LLVMBasicBlockRef bb;

	/* Cut every use between instructions first, so none is left dangling
	 * whatever the order of deletion. */
	for (bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
			LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(i));

			if (k != LLVMVoidTypeKind && k != LLVMTokenTypeKind && k != LLVMLabelTypeKind)
				LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
		}
	for (bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetLastInstruction(bb), p; i; i = p) {
			p = LLVMGetPreviousInstruction(i);
			LLVMInstructionEraseFromParent(i);
		}
	while ((bb = LLVMGetFirstBasicBlock(f)))
		LLVMDeleteBasicBlock(bb);
	LLVMSetLinkage(f, LLVMExternalLinkage);
	LLVMSetVisibility(f, LLVMDefaultVisibility);
	LLVMSetComdat(f, NULL);
	LLVMGlobalEraseMetadata(f, dbg);
}

static int
is_local(LLVMValueRef g)
{
	LLVMLinkage l = LLVMGetLinkage(g);

	return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* Make one symbol external, recording what it was. */
static void
promote(LLVMValueRef g, struct nv_split_map *map, unsigned *anon)
{
	struct nv_split_rec *r;
	size_t len;
	const char *name = LLVMGetValueName2(g, &len);

	map->rec = xrealloc(map->rec, (map->nrec + 1) * sizeof(*map->rec));
	r = &map->rec[map->nrec++];
	r->linkage = LLVMGetLinkage(g);
	r->anon = len == 0;
	if (r->anon) {
		char *n = xasprintf("__nv_split_anon.%u", (*anon)++);

		LLVMSetValueName2(g, n, strlen(n));
		free(n);
		name = LLVMGetValueName2(g, &len);
	}
	r->name = xstrdup(name);
	LLVMSetLinkage(g, LLVMExternalLinkage);
	LLVMSetVisibility(g, LLVMDefaultVisibility);
}

/* Every internal or private function and variable of m becomes external:
 * a superset of those shared between parts, so that a function sees the
 * same module whatever part it lands in. */
static void
promote_all(LLVMModuleRef m, struct nv_split_map *map)
{
	unsigned anon = 0;

	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (is_local(g))
			promote(g, map, &anon);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && is_local(f))
			promote(f, map, &anon);
}

static unsigned
weight(LLVMValueRef f)
{
	/* Phase II's work grows with the code nv-unroll makes: a loop of 64
	 * rounds fully unrolled (sha256) costs codegen 64 bodies, so weigh the
	 * function as the inliner does, loops counted unrolled. */
	long long n = nv_inline_size(f) + 1;

	return n > UINT_MAX / 64 ? UINT_MAX / 64 : (unsigned)n;
}

struct fn {
	unsigned index, weight, part;
};

static int
heavier_first(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int
by_index(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* Keep only the bodies of the functions of m whose slot in part[] is p. */
static void
keep_part(LLVMModuleRef m, const struct fn *fns, unsigned p)
{
	unsigned d = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		if (fns[d++].part != p)
			nv_split_strip_body(f);
	}
}

int
nv_split_module(LLVMModuleRef m, unsigned n, LLVMModuleRef **parts, unsigned *nparts,
                struct nv_split_map *map)
{
	unsigned ndefs = nv_split_count_defs(m), d = 0, *load;
	struct fn *fns;

	memset(map, 0, sizeof(*map));
	if (ndefs <= 1 || n <= 1 || LLVMGetFirstGlobalAlias(m) || LLVMGetFirstGlobalIFunc(m)) {
		/* Nothing to cut, or aliases, which this split does not follow:
		 * one part, the module as it is. */
		if (ndefs > 1)
			promote_all(m, map);
		*parts = xcalloc(1, sizeof(**parts));
		(*parts)[0] = m;
		*nparts = map->nparts = 1;
		return 0;
	}
	n = n < ndefs ? n : ndefs;
	promote_all(m, map);
	fns = xcalloc(ndefs, sizeof(*fns));
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			fns[d].index = d;
			fns[d].weight = weight(f);
			d++;
		}
	/* Largest first, each to the least loaded part: the parts finish together. */
	qsort(fns, ndefs, sizeof(*fns), heavier_first);
	load = xcalloc(n, sizeof(*load));
	for (unsigned i = 0; i < ndefs; i++) {
		unsigned best = 0;

		for (unsigned p = 1; p < n; p++)
			if (load[p] < load[best])
				best = p;
		fns[i].part = best;
		load[best] += fns[i].weight;
	}
	qsort(fns, ndefs, sizeof(*fns), by_index);
	*parts = xcalloc(n, sizeof(**parts));
	for (unsigned p = 1; p < n; p++) {
		(*parts)[p] = LLVMCloneModule(m);
		keep_part((*parts)[p], fns, p);
	}
	keep_part(m, fns, 0);
	(*parts)[0] = m;
	*nparts = map->nparts = n;
	free(load);
	free(fns);
	return 0;
}

int
nv_split_function(LLVMModuleRef m, const char *name, LLVMModuleRef *part, struct nv_split_map *map)
{
	LLVMValueRef want = LLVMGetNamedFunction(m, name);

	memset(map, 0, sizeof(*map));
	if (!want || LLVMIsDeclaration(want)) {
		nv_error("the module does not define function '%s'", name);
		return -1;
	}
	promote_all(m, map);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (f != want && !LLVMIsDeclaration(f))
			nv_split_strip_body(f);
	map->nparts = 1;
	*part = m;
	return 0;
}

static const char *
linkage_name(int l)
{
	return l == LLVMPrivateLinkage ? "private" : "internal";
}

int
nv_split_map_write(const struct nv_split_map *map, FILE *fp)
{
	fprintf(fp, "%s\nparts %u\n", MAP_MAGIC, map->nparts);
	for (size_t i = 0; i < map->nrec; i++)
		fprintf(fp, "%s%s %s\n", linkage_name(map->rec[i].linkage), map->rec[i].anon ? "-anon" : "",
		        map->rec[i].name);
	return ferror(fp) ? -1 : 0;
}

static int
parse_rec(char *line, struct nv_split_rec *r)
{
	char *sp = strchr(line, ' ');

	if (!sp || !sp[1])
		return -1;
	*sp = '\0';
	r->anon = 0;
	if (!strcmp(line, "internal") || !strcmp(line, "internal-anon"))
		r->linkage = LLVMInternalLinkage;
	else if (!strcmp(line, "private") || !strcmp(line, "private-anon"))
		r->linkage = LLVMPrivateLinkage;
	else
		return -1;
	r->anon = strstr(line, "-anon") != NULL;
	r->name = xstrdup(sp + 1);
	return 0;
}

int
nv_split_map_read(const char *path, struct nv_split_map *map)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	int rc = 0;

	memset(map, 0, sizeof(*map));
	if (!fp) {
		nv_error("cannot open split map '%s':", path);
		return -1;
	}
	while (!rc && (len = getline(&line, &cap, fp)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		lineno++;
		if (lineno == 1) {
			rc = strcmp(line, MAP_MAGIC) ? -1 : 0;
		} else if (lineno == 2) {
			long long n;

			rc = strncmp(line, "parts ", 6) || nv_parse_int(line + 6, 1, 1 << 20, &n) ? -1 : 0;
			map->nparts = (unsigned)n;
		} else {
			map->rec = xrealloc(map->rec, (map->nrec + 1) * sizeof(*map->rec));
			rc = parse_rec(line, &map->rec[map->nrec]);
			map->nrec += !rc;
		}
	}
	if (!rc && lineno < 2)
		rc = -1;
	if (rc)
		nv_error("'%s' is not a split map (line %u)", path, lineno);
	free(line);
	fclose(fp);
	if (rc)
		nv_split_map_release(map);
	return rc;
}

void
nv_split_map_release(struct nv_split_map *map)
{
	for (size_t i = 0; i < map->nrec; i++)
		free(map->rec[i].name);
	free(map->rec);
	memset(map, 0, sizeof(*map));
}

static void
restore(LLVMModuleRef m, const struct nv_split_map *map)
{
	for (size_t i = 0; i < map->nrec; i++) {
		const struct nv_split_rec *r = &map->rec[i];
		LLVMValueRef g = LLVMGetNamedGlobal(m, r->name);

		if (!g)
			g = LLVMGetNamedFunction(m, r->name);
		if (!g || LLVMIsDeclaration(g))
			continue;
		LLVMSetLinkage(g, r->linkage);
		LLVMSetVisibility(g, LLVMDefaultVisibility);
		if (r->anon)
			LLVMSetValueName2(g, "", 0);
	}
}

/* Is f's name among names[0..n)? */
static int
named_in(LLVMValueRef f, char **names, size_t n)
{
	size_t len;
	const char *name = LLVMGetValueName2(f, &len);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

static void
keep_bodies(LLVMModuleRef m, char **names, size_t n)
{
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && !named_in(f, names, n))
			nv_split_strip_body(f);
}

/* The module to link for one function: m with only its body left (m is
 * made so by the caller), the variables made declarations (the base
 * defines them). */
static LLVMModuleRef
one_function(LLVMModuleRef m)
{
	for (LLVMValueRef g = LLVMGetFirstGlobal(m), next; g; g = next) {
		next = LLVMGetNextGlobal(g);
		if (LLVMGetLinkage(g) == LLVMAppendingLinkage) {
			LLVMDeleteGlobal(g); /* llvm.used and the like: the base has them */
			continue;
		}
		if (!LLVMIsDeclaration(g) && !is_local(g)) {
			LLVMSetInitializer(g, NULL);
			LLVMSetLinkage(g, LLVMExternalLinkage);
			LLVMSetComdat(g, NULL);
		}
	}
	nv_drop_unused_internals(m);
	return m;
}

/*
 * Cut m (consumed), which defines the functions names[0..n) and no other,
 * into one module per function: out[i] defines names[i].  Halving: each
 * copy takes half the bodies, so a body is copied log2(n) times, not n.
 */
static void
cut_functions(LLVMModuleRef m, char **names, size_t n, LLVMModuleRef *out)
{
	size_t h = n / 2;
	LLVMModuleRef hi;

	if (n == 1) {
		out[0] = one_function(m);
		return;
	}
	hi = LLVMCloneModule(m);
	keep_bodies(m, names, h);
	keep_bodies(hi, names + h, n - h);
	cut_functions(m, names, h, out);
	cut_functions(hi, names + h, n - h, out + h);
}

static long
part_defining(LLVMModuleRef *parts, unsigned n, const char *name)
{
	for (unsigned p = 0; p < n; p++) {
		LLVMValueRef f = LLVMGetNamedFunction(parts[p], name);

		if (f && !LLVMIsDeclaration(f))
			return (long)p;
	}
	return -1;
}

/* One function of the join: its name and the part that defines it. */
struct joined {
	char *name;
	unsigned part;
	LLVMModuleRef m;
};

int
nv_split_join(LLVMModuleRef *parts, unsigned n, const struct nv_split_map *map, LLVMModuleRef *out)
{
	unsigned total = 0;
	size_t nj = 0;
	struct joined *js;
	LLVMModuleRef base;
	int rc = 0;

	for (unsigned p = 0; p < n; p++)
		total += nv_split_count_defs(parts[p]);
	if (n == 1 && total <= 1) {
		restore(parts[0], map);
		*out = parts[0];
		return 0;
	}
	/* The order: definitions in part order; part 0's list has every
	 * function of the split module, so later parts add only what Phase II
	 * made. */
	js = xcalloc(total ? total : 1, sizeof(*js));
	for (unsigned p = 0; p < n; p++)
		for (LLVMValueRef f = LLVMGetFirstFunction(parts[p]); f; f = LLVMGetNextFunction(f)) {
			size_t len, i;
			const char *name = LLVMGetValueName2(f, &len);
			long q;

			for (i = 0; i < nj && strcmp(js[i].name, name); i++)
				;
			if (i < nj || (q = part_defining(parts, n, name)) < 0)
				continue;
			js[nj].name = xstrdup(name);
			js[nj++].part = (unsigned)q;
		}
	/* The base: the variables, no function. */
	base = LLVMCloneModule(parts[0]);
	for (LLVMValueRef f = LLVMGetFirstFunction(base); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			nv_split_strip_body(f);
	nv_drop_unused_internals(base);
	/* Each part cut into one module per function it defines. */
	for (unsigned p = 0; p < n; p++) {
		size_t k = 0;
		char **names = xcalloc(nj ? nj : 1, sizeof(*names));
		LLVMModuleRef *ms = xcalloc(nj ? nj : 1, sizeof(*ms));

		for (size_t i = 0; i < nj; i++)
			if (js[i].part == p)
				names[k++] = js[i].name;
		if (k) {
			keep_bodies(parts[p], names, k); /* a body another part gives too goes */
			cut_functions(parts[p], names, k, ms);
		}
		else
			LLVMDisposeModule(parts[p]);
		for (size_t i = 0, j = 0; i < nj; i++)
			if (js[i].part == p)
				js[i].m = ms[j++];
		free(names);
		free(ms);
	}
	/* Linked one at a time, in order: each definition lands at the end. */
	for (size_t i = 0; i < nj; i++) {
		if (!rc)
			rc = nv_link_modules(base, js[i].m, "a split part");
		else
			LLVMDisposeModule(js[i].m);
		free(js[i].name);
	}
	free(js);
	if (rc) {
		LLVMDisposeModule(base);
		return -1;
	}
	restore(base, map);
	*out = base;
	return 0;
}
