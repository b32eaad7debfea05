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

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>

#include "../base/diag.h"
#include "../base/ptrmap.h"
#include "../base/remarks.h"
#include "../base/util.h"
#include "inline.h"
#include "link.h"

#define MAP_MAGIC "nv-split-map 2"

/*
 * The type anchor.  Every part declares one variable whose type holds every
 * named struct type of the module.  The parts are read into one context,
 * where a second reading of a name gets a suffix ("%struct.float4.3"); the
 * linker maps a suffixed type back onto its name only if the module linked
 * into already uses that name, and otherwise keeps whichever it met first
 * or drops the name ("%0").  With the anchor, the base of the join uses
 * every name from the start, so the joined module's types are named as in
 * the module that was split, whatever N.  The join deletes the anchor.
 */
#define ANCHOR "__nv_split_types"

struct types {
	struct nv_ptrmap seen; /* types and constants walked */
	LLVMTypeRef *named;
	size_t n;
};

static void
walk_type(struct types *t, LLVMTypeRef ty)
{
	const char *name;

	if (nv_ptrmap_get(&t->seen, ty) != NV_NONE)
		return;
	nv_ptrmap_put(&t->seen, ty, 1);
	switch (LLVMGetTypeKind(ty)) {
	case LLVMStructTypeKind:
		name = LLVMGetStructName(ty);
		for (unsigned i = 0; i < LLVMCountStructElementTypes(ty); i++)
			walk_type(t, LLVMStructGetTypeAtIndex(ty, i));
		if (!LLVMIsLiteralStruct(ty) && name && *name && !LLVMIsOpaqueStruct(ty)) {
			t->named = xrealloc(t->named, (t->n + 1) * sizeof(*t->named));
			t->named[t->n++] = ty;
		}
		break;
	case LLVMArrayTypeKind:
	case LLVMVectorTypeKind:
	case LLVMScalableVectorTypeKind:
		walk_type(t, LLVMGetElementType(ty));
		break;
	case LLVMFunctionTypeKind: {
		unsigned np = LLVMCountParamTypes(ty);
		LLVMTypeRef *ps = xcalloc(np ? np : 1, sizeof(*ps));

		walk_type(t, LLVMGetReturnType(ty));
		LLVMGetParamTypes(ty, ps);
		for (unsigned i = 0; i < np; i++)
			walk_type(t, ps[i]);
		free(ps);
		break;
	}
	default:
		break;
	}
}

/* A value's type, and a constant's operands (not a global's initializer:
 * the globals are walked on their own). */
static void
walk_value(struct types *t, LLVMValueRef v)
{
	walk_type(t, LLVMTypeOf(v));
	if (!LLVMIsAConstant(v) || LLVMIsAGlobalValue(v) || nv_ptrmap_get(&t->seen, v) != NV_NONE)
		return;
	nv_ptrmap_put(&t->seen, v, 1);
	if (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMGetElementPtr)
		walk_type(t, LLVMGetGEPSourceElementType(v));
	for (int i = 0; i < LLVMGetNumOperands(v); i++)
		walk_value(t, LLVMGetOperand(v, (unsigned)i));
}

/* The types byval, sret, elementtype and the like carry. */
static void
walk_attrs(struct types *t, LLVMAttributeRef *as, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (LLVMIsTypeAttribute(as[i]))
			walk_type(t, LLVMGetTypeAttributeValue(as[i]));
}

static void
walk_fn_attrs(struct types *t, LLVMValueRef f, LLVMValueRef call)
{
	unsigned np = call ? LLVMGetNumArgOperands(call) : LLVMCountParams(f);

	for (unsigned idx = 0; idx <= np; idx++) {
		unsigned n = call ? LLVMGetCallSiteAttributeCount(call, idx)
		                  : LLVMGetAttributeCountAtIndex(f, idx);
		LLVMAttributeRef *as = xcalloc(n ? n : 1, sizeof(*as));

		if (call)
			LLVMGetCallSiteAttributes(call, idx, as);
		else
			LLVMGetAttributesAtIndex(f, idx, as);
		walk_attrs(t, as, n);
		free(as);
	}
}

static void
walk_inst(struct types *t, LLVMValueRef i)
{
	walk_type(t, LLVMTypeOf(i));
	for (int k = 0; k < LLVMGetNumOperands(i); k++)
		walk_value(t, LLVMGetOperand(i, (unsigned)k));
	if (LLVMIsAAllocaInst(i))
		walk_type(t, LLVMGetAllocatedType(i));
	else if (LLVMIsAGetElementPtrInst(i))
		walk_type(t, LLVMGetGEPSourceElementType(i));
	else if (LLVMIsACallInst(i) || LLVMIsAInvokeInst(i) || LLVMIsACallBrInst(i)) {
		walk_type(t, LLVMGetCalledFunctionType(i));
		walk_fn_attrs(t, NULL, i);
	}
}

/* Declare the anchor in m, if m has named struct types. */
static void
add_type_anchor(LLVMModuleRef m)
{
	struct types t = { 0 };

	nv_ptrmap_init(&t.seen, 256);
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
		walk_type(&t, LLVMGlobalGetValueType(g));
		if (LLVMGetInitializer(g))
			walk_value(&t, LLVMGetInitializer(g));
	}
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		walk_type(&t, LLVMGlobalGetValueType(f));
		walk_fn_attrs(&t, f, NULL);
		for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
			for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
				walk_inst(&t, i);
	}
	if (t.n)
		LLVMAddGlobalInAddressSpace(m, LLVMStructTypeInContext(LLVMGetModuleContext(m), t.named,
		                                                      (unsigned)t.n, 0), ANCHOR, 1);
	nv_ptrmap_release(&t.seen);
	free(t.named);
}

static void
drop_type_anchor(LLVMModuleRef m)
{
	LLVMValueRef g = LLVMGetNamedGlobal(m, ANCHOR);

	if (g && !LLVMGetFirstUse(g))
		LLVMDeleteGlobal(g);
}

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

static int
is_unnamed(LLVMValueRef g)
{
	size_t len;

	LLVMGetValueName2(g, &len);
	return len == 0;
}

/* Make one symbol external and named, recording what it was. */
static void
promote(LLVMValueRef g, struct nv_split_map *map, unsigned *anon)
{
	struct nv_split_rec *r;
	size_t len;
	const char *name = LLVMGetValueName2(g, &len);

	map->rec = xrealloc(map->rec, (map->nrec + 1) * sizeof(*map->rec));
	r = &map->rec[map->nrec++];
	r->linkage = is_local(g) ? (int)LLVMGetLinkage(g) : -1;
	r->anon = len == 0;
	if (r->anon) {
		char *n = xasprintf("__nv_split_anon.%u", (*anon)++);

		LLVMSetValueName2(g, n, strlen(n));
		free(n);
		name = LLVMGetValueName2(g, &len);
	}
	r->name = xstrdup(name);
	if (r->linkage >= 0) {
		LLVMSetLinkage(g, LLVMExternalLinkage);
		LLVMSetVisibility(g, LLVMDefaultVisibility);
	}
}

/* Every internal or private function and variable of m becomes external:
 * a superset of those shared between parts, so that a function sees the
 * same module whatever part it lands in.  A definition without a name
 * gets one: the join goes by names. */
static void
promote_all(LLVMModuleRef m, struct nv_split_map *map)
{
	unsigned anon = 0;

	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (is_local(g) || (!LLVMIsDeclaration(g) && is_unnamed(g)))
			promote(g, map, &anon);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f) && (is_local(f) || is_unnamed(f)))
			promote(f, map, &anon);
}

static void
add_def(struct nv_split_map *map, LLVMValueRef g, unsigned part, char kind)
{
	size_t len;
	struct nv_split_def *d;

	map->def = xrealloc(map->def, (map->ndef + 1) * sizeof(*map->def));
	d = &map->def[map->ndef++];
	d->name = xstrdup(LLVMGetValueName2(g, &len));
	d->part = part;
	d->kind = kind;
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

/* Which part each defined function of m goes to (in module order). */
static struct fn *
assign(LLVMModuleRef m, unsigned ndefs, unsigned n)
{
	struct fn *fns = xcalloc(ndefs ? ndefs : 1, sizeof(*fns));
	unsigned d = 0, *load = xcalloc(n, sizeof(*load));

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			fns[d].index = d;
			fns[d].weight = n > 1 ? weight(f) : 1;
			d++;
		}
	/* Largest first, each to the least loaded part: the parts finish
	 * together.  Ties go by index, so the same module and N always give
	 * the same parts. */
	qsort(fns, ndefs, sizeof(*fns), heavier_first);
	for (unsigned i = 0; i < ndefs; i++) {
		unsigned best = 0;

		for (unsigned p = 1; p < n; p++)
			if (load[p] < load[best])
				best = p;
		fns[i].part = best;
		load[best] += fns[i].weight;
	}
	qsort(fns, ndefs, sizeof(*fns), by_index);
	free(load);
	return fns;
}

/* The map's list of definitions: each function with its part, each
 * variable (every part has them all); and the functions only declared. */
static void
record_defs(LLVMModuleRef m, const struct fn *fns, struct nv_split_map *map)
{
	unsigned d = 0;

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			add_def(map, f, fns ? fns[d].part : 0, 'f');
			d++;
		}
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g) && strncmp(LLVMGetValueName2(g, &(size_t){ 0 }), "llvm.", 5))
			add_def(map, g, 0, 'v'); /* not llvm.used and the like: codegen takes them */
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (LLVMIsDeclaration(f))
			add_def(map, f, 0, 'd');
}

int
nv_split_module(LLVMModuleRef m, unsigned n, LLVMModuleRef **parts, unsigned *nparts,
                struct nv_split_map *map)
{
	unsigned ndefs = nv_split_count_defs(m);
	/* Aliases this split does not follow: one part, the module as it is. */
	int whole = LLVMGetFirstGlobalAlias(m) || LLVMGetFirstGlobalIFunc(m);
	struct fn *fns;

	memset(map, 0, sizeof(*map));
	if (whole || n > ndefs)
		n = whole || !ndefs ? 1 : ndefs;
	if (ndefs > 1)
		promote_all(m, map);
	if (ndefs > 1 && !whole)
		add_type_anchor(m);
	fns = assign(m, ndefs, n);
	record_defs(m, fns, map);
	*parts = xcalloc(n, sizeof(**parts));
	for (unsigned p = 1; p < n; p++) {
		(*parts)[p] = LLVMCloneModule(m);
		keep_part((*parts)[p], fns, p);
	}
	if (n > 1)
		keep_part(m, fns, 0);
	(*parts)[0] = m;
	*nparts = map->nparts = n;
	free(fns);
	return 0;
}

static int named_in(LLVMValueRef f, char **names, size_t n);

/* Cut m in two in place: part 1 defines the functions named in names[0..n),
 * part 0 the others; m keeps the bodies of part `which`. */
static int
split_by_names(LLVMModuleRef m, char *const *names, size_t n, unsigned which, struct nv_split_map *map)
{
	unsigned ndefs = nv_split_count_defs(m), d = 0;
	struct fn *fns;

	memset(map, 0, sizeof(*map));
	if (LLVMGetFirstGlobalAlias(m) || LLVMGetFirstGlobalIFunc(m)) {
		nv_error("cannot cut a module with aliases by function names");
		return -1;
	}
	promote_all(m, map);
	add_type_anchor(m);
	fns = xcalloc(ndefs ? ndefs : 1, sizeof(*fns));
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			fns[d].index = d;
			fns[d].part = named_in(f, (char **)names, n) ? 1 : 0;
			d++;
		}
	record_defs(m, fns, map);
	keep_part(m, fns, which);
	map->nparts = 2;
	free(fns);
	return 0;
}

#define OUTER_ANCHOR ANCHOR ".outer"

/* A part of an outer split carries that split's anchor: under another name
 * while an inner cut and join add and drop their own. */
static void
rename_global(LLVMModuleRef m, const char *from, const char *to)
{
	LLVMValueRef g = LLVMGetNamedGlobal(m, from);

	if (g)
		LLVMSetValueName2(g, to, strlen(to));
}

int
nv_split_merge_by_names(LLVMModuleRef a, LLVMModuleRef b, char *const *names, size_t n, LLVMModuleRef *out)
{
	struct nv_split_map ma, mb;
	LLVMModuleRef parts[2] = { a, b };
	int rc;

	*out = NULL;
	rename_global(a, ANCHOR, OUTER_ANCHOR);
	rename_global(b, ANCHOR, OUTER_ANCHOR);
	rc = split_by_names(a, names, n, 0, &ma);
	rc = rc || split_by_names(b, names, n, 1, &mb);
	if (!rc) {
		rc = nv_split_join(parts, 2, &ma, out);
	} else {
		LLVMDisposeModule(a);
		LLVMDisposeModule(b);
	}
	if (!rc)
		rename_global(*out, OUTER_ANCHOR, ANCHOR);
	nv_split_map_release(&ma);
	nv_split_map_release(&mb);
	return rc;
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
	add_type_anchor(m);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (f != want && !LLVMIsDeclaration(f))
			nv_split_strip_body(f);
	record_defs(m, NULL, map);
	map->nparts = 1;
	*part = m;
	return 0;
}

static const char *
linkage_name(int l)
{
	return l == LLVMPrivateLinkage ? "private" : l == LLVMInternalLinkage ? "internal" : "keep";
}

int
nv_split_map_write(const struct nv_split_map *map, FILE *fp)
{
	fprintf(fp, "%s\nparts %u\n", MAP_MAGIC, map->nparts);
	for (size_t i = 0; i < map->ndef; i++)
		if (map->def[i].kind == 'f')
			fprintf(fp, "define %u %s\n", map->def[i].part, map->def[i].name);
		else
			fprintf(fp, "%s %s\n", map->def[i].kind == 'v' ? "global" : "declare", map->def[i].name);
	for (size_t i = 0; i < map->nrec; i++)
		fprintf(fp, "%s%s %s\n", linkage_name(map->rec[i].linkage), map->rec[i].anon ? "-anon" : "",
		        map->rec[i].name);
	return ferror(fp) ? -1 : 0;
}

static int
parse_def(char *line, struct nv_split_map *map)
{
	struct nv_split_def d = { 0 };
	long long part = 0;
	char *sp;

	d.kind = line[0] == 'g' ? 'v' : line[2] == 'c' ? 'd' : 'f';
	line = strchr(line, ' ') + 1;
	if (d.kind == 'f') {
		if (!(sp = strchr(line, ' ')) || !sp[1])
			return -1;
		*sp = '\0';
		if (nv_parse_int(line, 0, (long long)map->nparts - 1, &part))
			return -1;
		line = sp + 1;
	}
	if (!*line)
		return -1;
	d.part = (unsigned)part;
	d.name = xstrdup(line);
	map->def = xrealloc(map->def, (map->ndef + 1) * sizeof(*map->def));
	map->def[map->ndef++] = d;
	return 0;
}

static int
parse_rec(char *line, struct nv_split_map *map)
{
	static const struct { const char *word; int linkage, anon; } kinds[] = {
		{ "internal", LLVMInternalLinkage, 0 }, { "internal-anon", LLVMInternalLinkage, 1 },
		{ "private", LLVMPrivateLinkage, 0 },   { "private-anon", LLVMPrivateLinkage, 1 },
		{ "keep-anon", -1, 1 },
	};
	char *sp = strchr(line, ' ');
	size_t k;

	if (!sp || !sp[1])
		return -1;
	if (!strncmp(line, "define ", 7) || !strncmp(line, "global ", 7) || !strncmp(line, "declare ", 8))
		return parse_def(line, map);
	*sp = '\0';
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(line, kinds[k].word); k++)
		;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return -1;
	map->rec = xrealloc(map->rec, (map->nrec + 1) * sizeof(*map->rec));
	map->rec[map->nrec].linkage = kinds[k].linkage;
	map->rec[map->nrec].anon = kinds[k].anon;
	map->rec[map->nrec++].name = xstrdup(sp + 1);
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
			rc = parse_rec(line, map);
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
	for (size_t i = 0; i < map->ndef; i++)
		free(map->def[i].name);
	free(map->rec);
	free(map->def);
	memset(map, 0, sizeof(*map));
}

static LLVMValueRef
named_global(LLVMModuleRef m, const char *name)
{
	LLVMValueRef g = LLVMGetNamedGlobal(m, name);

	return g ? g : LLVMGetNamedFunction(m, name);
}

/* The map's linkage and names back, and the type anchor gone. */
static void
restore(LLVMModuleRef m, const struct nv_split_map *map)
{
	for (size_t i = 0; i < map->nrec; i++) {
		const struct nv_split_rec *r = &map->rec[i];
		LLVMValueRef g = named_global(m, r->name);

		if (!g || LLVMIsDeclaration(g))
			continue;
		if (r->linkage >= 0) {
			LLVMSetLinkage(g, r->linkage);
			LLVMSetVisibility(g, LLVMDefaultVisibility);
			nv_remark(NV_REMARK_PASSED, "nv-link", "LinkageRestored",
			          LLVMIsAFunction(g) ? g : NULL, "'%s' is %s again, as before the split",
			          r->name, linkage_name(r->linkage));
		}
		if (r->anon)
			LLVMSetValueName2(g, "", 0);
	}
	drop_type_anchor(m);
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
	/* The one definition is strong and external while it is linked: the
	 * linker then has no choice to make (a linkonce or local body against
	 * the base's declaration) and the join puts back what it was. */
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			LLVMSetLinkage(f, LLVMExternalLinkage);
			LLVMSetVisibility(f, LLVMDefaultVisibility);
		}
	for (LLVMValueRef g = LLVMGetFirstGlobal(m), next; g; g = next) {
		next = LLVMGetNextGlobal(g);
		if (LLVMGetLinkage(g) == LLVMAppendingLinkage) {
			LLVMDeleteGlobal(g); /* llvm.used and the like: the base has them */
			continue;
		}
		if (!LLVMIsDeclaration(g) && !is_local(g)) {
			LLVMSetInitializer(g, NULL);
			LLVMSetLinkage(g, LLVMExternalLinkage);
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

/* What the join changes on a definition while it links, to put back. */
struct saved {
	char *name;
	LLVMLinkage linkage;
	LLVMVisibility visibility;
	LLVMUnnamedAddr unnamed;
	char *comdat; /* NULL: none */
	LLVMComdatSelectionKind kind;
};

/* One function of the join: its name, the input that gives its body. */
struct joined {
	struct saved s;
	unsigned in;
	LLVMModuleRef m;
};

struct join {
	LLVMModuleRef *in;
	unsigned n;
	const struct nv_split_map *map;
	unsigned *part_in;  /* part p is input part_in[p] */
	struct joined *js;  /* the functions, in the joined module's order */
	size_t nj;
	struct saved *vars; /* the base's variables in a comdat */
	size_t nvars;
	struct nv_ptrmap mapidx; /* part 0's function -> index in map->def */
	struct nv_ptrmap seen;   /* part 0's function -> listed */
};

static LLVMValueRef
defined_fn(LLVMModuleRef m, const char *name)
{
	LLVMValueRef f = LLVMGetNamedFunction(m, name);

	return f && !LLVMIsDeclaration(f) ? f : NULL;
}

/* Does input i define every function the map gives part p?  The first it
 * lacks in *missing. */
static int
covers(struct join *j, unsigned i, unsigned p, const char **missing)
{
	for (size_t d = 0; d < j->map->ndef; d++)
		if (j->map->def[d].kind == 'f' && j->map->def[d].part == p &&
		    !defined_fn(j->in[i], j->map->def[d].name)) {
			*missing = j->map->def[d].name;
			return 0;
		}
	return 1;
}

static unsigned
count_map_defs(struct join *j, unsigned i)
{
	unsigned n = 0;

	for (size_t d = 0; d < j->map->ndef; d++)
		n += j->map->def[d].kind == 'f' && defined_fn(j->in[i], j->map->def[d].name);
	return n;
}

/* Which input is which part: the inputs come in any order.  Part p is the
 * input that defines all the functions the map gives p and the fewest
 * others (a part Phase II added bodies to still matches). */
static int
match_parts(struct join *j)
{
	int *used = xcalloc(j->n, sizeof(*used));
	int rc = 0;

	for (unsigned p = 0; p < j->n && !rc; p++) {
		unsigned best = j->n, fewest = UINT_MAX;
		const char *missing = NULL;

		for (unsigned i = 0; i < j->n; i++) {
			unsigned k;

			if (used[i] || !covers(j, i, p, &missing))
				continue;
			if ((k = count_map_defs(j, i)) < fewest) {
				best = i;
				fewest = k;
			}
		}
		if (best == j->n) {
			nv_error("the join would drop '%s': no input defines it, and the split gave it part %u",
			         missing, p);
			rc = -1;
		} else {
			used[best] = 1;
			j->part_in[p] = best;
		}
	}
	free(used);
	return rc;
}

static long
map_part_of(struct join *j, const char *name)
{
	LLVMValueRef f = LLVMGetNamedFunction(j->in[j->part_in[0]], name);
	unsigned d = f ? nv_ptrmap_get(&j->mapidx, f) : NV_NONE;

	return d == NV_NONE ? -1 : (long)j->map->def[d].part;
}

/* The input that gives name's body: its part's, for a function the split
 * made; for one Phase II made, the first part's that defines it, unless
 * two parts each define a local one (two functions, one name). */
static int
body_from(struct join *j, const char *name, unsigned *in)
{
	long p = map_part_of(j, name);
	unsigned first = j->n;

	if (p >= 0) {
		*in = j->part_in[p];
		return 0;
	}
	for (unsigned q = 0; q < j->n; q++) {
		LLVMValueRef f = defined_fn(j->in[j->part_in[q]], name);

		if (!f)
			continue;
		if (first < j->n && is_local(f)) {
			nv_error("the join would duplicate '%s': parts %u and %u each define it as a local "
			         "function", name, first, q);
			return -1;
		}
		if (first == j->n)
			first = q;
	}
	*in = j->part_in[first];
	return 0;
}

/* Has name been listed?  Part 0 has every function of the split module,
 * so a lookup there answers for all but what Phase II made elsewhere. */
static int
listed(struct join *j, const char *name)
{
	LLVMValueRef f = LLVMGetNamedFunction(j->in[j->part_in[0]], name);

	if (f)
		return nv_ptrmap_get(&j->seen, f) != NV_NONE;
	for (size_t i = 0; i < j->nj; i++)
		if (!strcmp(j->js[i].s.name, name))
			return 1;
	return 0;
}

/* The functions, in order: part 0's list (it names every function of the
 * split module, defined there or not), then what Phase II made in later
 * parts.  The order, like the bodies, does not depend on N. */
static int
list_functions(struct join *j)
{
	LLVMModuleRef m0 = j->in[j->part_in[0]];
	size_t cap = 0;

	nv_ptrmap_init(&j->mapidx, j->map->ndef);
	nv_ptrmap_init(&j->seen, j->map->ndef);
	for (size_t d = 0; d < j->map->ndef; d++) {
		LLVMValueRef f = j->map->def[d].kind == 'f' ? LLVMGetNamedFunction(m0, j->map->def[d].name) : NULL;

		if (f)
			nv_ptrmap_put(&j->mapidx, f, (unsigned)d);
	}
	for (unsigned p = 0; p < j->n; p++)
		cap += nv_split_count_defs(j->in[p]);
	j->js = xcalloc(cap ? cap : 1, sizeof(*j->js));
	/* The split module's order first (a part's own list may have been
	 * reordered: nv-llc joins an inner cut of it, whose definitions land
	 * after its declarations), then what Phase II made. */
	for (size_t d = 0; d < j->map->ndef; d++) {
		const char *name = j->map->def[d].name;
		int defined = 0;

		if (j->map->def[d].kind != 'f' || listed(j, name))
			continue;
		for (unsigned q = 0; q < j->n && !defined; q++)
			defined = defined_fn(j->in[q], name) != NULL;
		if (!defined)
			continue; /* Phase II deleted it */
		if (body_from(j, name, &j->js[j->nj].in))
			return -1;
		if (LLVMGetNamedFunction(m0, name))
			nv_ptrmap_put(&j->seen, LLVMGetNamedFunction(m0, name), 1);
		j->js[j->nj++].s.name = xstrdup(name);
	}
	for (unsigned p = 0; p < j->n; p++) {
		for (LLVMValueRef f = LLVMGetFirstFunction(j->in[j->part_in[p]]); f;
		     f = LLVMGetNextFunction(f)) {
			size_t len;
			const char *name = LLVMGetValueName2(f, &len);
			LLVMValueRef f0 = LLVMGetNamedFunction(m0, name);
			int defined = !LLVMIsDeclaration(f) || map_part_of(j, name) >= 0;

			for (unsigned q = 0; q < j->n && !defined; q++)
				defined = defined_fn(j->in[q], name) != NULL;
			if (!defined || listed(j, name))
				continue;
			if (body_from(j, name, &j->js[j->nj].in))
				return -1;
			if (f0)
				nv_ptrmap_put(&j->seen, f0, 1);
			j->js[j->nj++].s.name = xstrdup(name);
		}
	}
	return 0;
}

/* The name of g's comdat: g's own, as clang gives, or another global's of
 * m.  (LLVM-C reads no comdat's name; a lookup that misses adds an empty
 * comdat, which no global joins and no bitcode keeps.) */
static char *
comdat_name(LLVMModuleRef m, LLVMValueRef g)
{
	LLVMComdatRef c = LLVMGetComdat(g);
	size_t len;

	if (LLVMGetOrInsertComdat(m, LLVMGetValueName2(g, &len)) == c)
		return xstrdup(LLVMGetValueName2(g, &len));
	for (LLVMValueRef h = LLVMGetFirstGlobal(m); h; h = LLVMGetNextGlobal(h))
		if (LLVMGetOrInsertComdat(m, LLVMGetValueName2(h, &len)) == c)
			return xstrdup(LLVMGetValueName2(h, &len));
	for (LLVMValueRef h = LLVMGetFirstFunction(m); h; h = LLVMGetNextFunction(h))
		if (LLVMGetOrInsertComdat(m, LLVMGetValueName2(h, &len)) == c)
			return xstrdup(LLVMGetValueName2(h, &len));
	return NULL;
}

static int
save(LLVMModuleRef m, LLVMValueRef g, struct saved *s)
{
	size_t len;

	if (!s->name)
		s->name = xstrdup(LLVMGetValueName2(g, &len));
	s->linkage = LLVMGetLinkage(g);
	s->visibility = LLVMGetVisibility(g);
	s->unnamed = LLVMGetUnnamedAddress(g);
	if (LLVMGetComdat(g)) {
		s->kind = LLVMGetComdatSelectionKind(LLVMGetComdat(g));
		if (!(s->comdat = comdat_name(m, g))) {
			nv_error("cannot join '%s': its comdat is named after no symbol of the module", s->name);
			return -1;
		}
	}
	return 0;
}

static void
put_back(LLVMModuleRef m, LLVMValueRef g, const struct saved *s)
{
	LLVMSetLinkage(g, s->linkage);
	LLVMSetVisibility(g, s->visibility);
	LLVMSetUnnamedAddress(g, s->unnamed);
	if (s->comdat) {
		LLVMComdatRef c = LLVMGetOrInsertComdat(m, s->comdat);

		LLVMSetComdatSelectionKind(c, s->kind);
		LLVMSetComdat(g, c);
	}
}

/* What every definition linked is, and the base's variables' comdats; then
 * no global of any input is in a comdat, and every comdat an input knows
 * selects any: with nothing in them, no comdat can make the linker keep
 * one body over another. */
static int
save_all(struct join *j)
{
	for (size_t i = 0; i < j->nj; i++)
		if (save(j->in[j->js[i].in], defined_fn(j->in[j->js[i].in], j->js[i].s.name), &j->js[i].s))
			return -1;
	for (LLVMValueRef g = LLVMGetFirstGlobal(j->in[0]); g; g = LLVMGetNextGlobal(g))
		if (!LLVMIsDeclaration(g) && LLVMGetComdat(g)) {
			j->vars = xrealloc(j->vars, (j->nvars + 1) * sizeof(*j->vars));
			memset(&j->vars[j->nvars], 0, sizeof(*j->vars));
			if (save(j->in[0], g, &j->vars[j->nvars++]))
				return -1;
		}
	for (unsigned i = 0; i < j->n; i++) {
		for (LLVMValueRef g = LLVMGetFirstGlobal(j->in[i]); g; g = LLVMGetNextGlobal(g))
			if (LLVMGetComdat(g)) {
				LLVMSetComdatSelectionKind(LLVMGetComdat(g), LLVMAnyComdatSelectionKind);
				LLVMSetComdat(g, NULL);
			}
		for (LLVMValueRef f = LLVMGetFirstFunction(j->in[i]); f; f = LLVMGetNextFunction(f))
			if (LLVMGetComdat(f)) {
				LLVMSetComdatSelectionKind(LLVMGetComdat(f), LLVMAnyComdatSelectionKind);
				LLVMSetComdat(f, NULL);
			}
	}
	return 0;
}

/* The base: the first input's variables (every part has them all, and the
 * first read holds the types' own names) and the split module's
 * declarations, no definition; what Phase II declared comes with the
 * functions that use it, in the joined order. */
static LLVMModuleRef
make_base(struct join *j)
{
	LLVMModuleRef base = LLVMCloneModule(j->in[0]);
	struct nv_ptrmap keep;
	int again = 1;

	nv_ptrmap_init(&keep, j->map->ndef);
	for (size_t d = 0; d < j->map->ndef; d++) {
		LLVMValueRef f = LLVMGetNamedFunction(base, j->map->def[d].name);

		if (f && j->map->def[d].kind == 'd')
			nv_ptrmap_put(&keep, f, 1);
	}
	for (LLVMValueRef f = LLVMGetFirstFunction(base); f; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f))
			nv_split_strip_body(f);
	nv_drop_unused_internals(base);
	while (again) {
		again = 0;
		for (LLVMValueRef f = LLVMGetFirstFunction(base), next; f; f = next) {
			next = LLVMGetNextFunction(f);
			if (!LLVMGetFirstUse(f) && nv_ptrmap_get(&keep, f) == NV_NONE) {
				LLVMDeleteFunction(f);
				again = 1;
			}
		}
	}
	nv_ptrmap_release(&keep);
	return base;
}

/*
 * The base is a copy of the first input, and so shares its types.  The
 * linker, given a type both modules hold, finds it isomorphic to itself
 * and takes its name away ("%0").  Read again, the input has types of
 * its own, named with a suffix, which the linker maps by name onto the
 * base's (all there, through the type anchor).
 */
static int
reread(LLVMModuleRef *m)
{
	LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(*m);
	LLVMModuleRef again;

	if (LLVMParseBitcodeInContext2(LLVMGetModuleContext(*m), buf, &again)) {
		nv_error("cannot read back a split part");
		LLVMDisposeMemoryBuffer(buf);
		return -1;
	}
	LLVMDisposeMemoryBuffer(buf);
	LLVMDisposeModule(*m);
	*m = again;
	return 0;
}

/* Each input cut into one module per function it gives. */
static void
cut_inputs(struct join *j)
{
	for (unsigned in = 0; in < j->n; in++) {
		size_t k = 0;
		char **names = xcalloc(j->nj ? j->nj : 1, sizeof(*names));
		LLVMModuleRef *ms = xcalloc(j->nj ? j->nj : 1, sizeof(*ms));

		for (size_t i = 0; i < j->nj; i++)
			if (j->js[i].in == in)
				names[k++] = j->js[i].s.name;
		if (k) {
			keep_bodies(j->in[in], names, k); /* a body another part gives goes */
			cut_functions(j->in[in], names, k, ms);
		} else {
			LLVMDisposeModule(j->in[in]);
		}
		j->in[in] = NULL;
		for (size_t i = 0, q = 0; i < j->nj; i++)
			if (j->js[i].in == in)
				j->js[i].m = ms[q++];
		free(names);
		free(ms);
	}
}

/* The joined module defines each function once, and every variable the
 * split made: a join never loses a definition without saying so. */
static int
check_joined(struct join *j, LLVMModuleRef m)
{
	unsigned defs = nv_split_count_defs(m);

	for (size_t i = 0; i < j->nj; i++)
		if (!defined_fn(m, j->js[i].s.name)) {
			nv_error("the join would drop '%s'", j->js[i].s.name);
			return -1;
		}
	for (size_t d = 0; d < j->map->ndef; d++) {
		LLVMValueRef g = j->map->def[d].kind == 'v' ? LLVMGetNamedGlobal(m, j->map->def[d].name)
		                                            : defined_fn(m, j->map->def[d].name);

		if (j->map->def[d].kind == 'd')
			continue;
		if (!g || LLVMIsDeclaration(g)) {
			nv_error("the join would drop '%s'", j->map->def[d].name);
			return -1;
		}
	}
	if (defs != j->nj)
		for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
			size_t len, i;
			const char *name = LLVMGetValueName2(f, &len);

			for (i = 0; i < j->nj && strcmp(j->js[i].s.name, name); i++)
				;
			if (!LLVMIsDeclaration(f) && i == j->nj) {
				nv_error("the join would duplicate a definition: '%s' is one too many", name);
				return -1;
			}
		}
	return 0;
}

static void
join_release(struct join *j)
{
	for (unsigned i = 0; i < j->n; i++)
		if (j->in[i])
			LLVMDisposeModule(j->in[i]);
	for (size_t i = 0; i < j->nj; i++) {
		if (j->js[i].m)
			LLVMDisposeModule(j->js[i].m);
		free(j->js[i].s.name);
		free(j->js[i].s.comdat);
	}
	for (size_t i = 0; i < j->nvars; i++) {
		free(j->vars[i].name);
		free(j->vars[i].comdat);
	}
	free(j->js);
	free(j->vars);
	free(j->part_in);
	if (j->mapidx.cap)
		nv_ptrmap_release(&j->mapidx);
	if (j->seen.cap)
		nv_ptrmap_release(&j->seen);
}

/* One part and nothing to link (one function, or aliases the split did
 * not cut): the part is the joined module. */
static int
join_one(LLVMModuleRef part, const struct nv_split_map *map, LLVMModuleRef *out)
{
	for (size_t d = 0; d < map->ndef; d++) {
		LLVMValueRef g = named_global(part, map->def[d].name);

		if (map->def[d].kind != 'd' && (!g || LLVMIsDeclaration(g))) {
			nv_error("the join would drop '%s'", map->def[d].name);
			LLVMDisposeModule(part);
			return -1;
		}
	}
	restore(part, map);
	*out = part;
	return 0;
}

void
nv_split_decl_to_end(LLVMModuleRef m, LLVMValueRef f)
{
	LLVMValueRef g = LLVMAddFunction(m, "", LLVMGlobalGetValueType(f));
	unsigned nparams = LLVMCountParams(f);
	size_t len, nmd;
	char *name = xstrdup(LLVMGetValueName2(f, &len));
	LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(f, &nmd);

	for (long idx = -1; idx <= (long)nparams; idx++) {
		unsigned na = LLVMGetAttributeCountAtIndex(f, (LLVMAttributeIndex)idx);
		LLVMAttributeRef *a = xcalloc(na ? na : 1, sizeof(*a));

		LLVMGetAttributesAtIndex(f, (LLVMAttributeIndex)idx, a);
		for (unsigned k = 0; k < na; k++)
			LLVMAddAttributeAtIndex(g, (LLVMAttributeIndex)idx, a[k]);
		free(a);
	}
	for (size_t k = 0; k < nmd; k++)
		LLVMGlobalSetMetadata(g, LLVMValueMetadataEntriesGetKind(md, (unsigned)k),
		                      LLVMValueMetadataEntriesGetMetadata(md, (unsigned)k));
	if (md)
		LLVMDisposeValueMetadataEntries(md);
	LLVMSetFunctionCallConv(g, LLVMGetFunctionCallConv(f));
	LLVMSetLinkage(g, LLVMGetLinkage(f));
	LLVMSetVisibility(g, LLVMGetVisibility(f));
	LLVMSetDLLStorageClass(g, LLVMGetDLLStorageClass(f));
	LLVMSetUnnamedAddress(g, LLVMGetUnnamedAddress(f));
	if (LLVMGetSection(f))
		LLVMSetSection(g, LLVMGetSection(f));
	LLVMReplaceAllUsesWith(f, g);
	LLVMDeleteFunction(f);
	LLVMSetValueName2(g, name, len);
	free(name);
}

int
nv_split_join(LLVMModuleRef *parts, unsigned n, const struct nv_split_map *map, LLVMModuleRef *out)
{
	struct join j = { .in = parts, .n = n, .map = map };
	LLVMModuleRef base = NULL;
	int rc;

	if (n == 1 && (nv_split_count_defs(parts[0]) <= 1 || LLVMGetFirstGlobalAlias(parts[0]) ||
	               LLVMGetFirstGlobalIFunc(parts[0])))
		return join_one(parts[0], map, out);
	j.part_in = xcalloc(n, sizeof(*j.part_in));
	rc = match_parts(&j) || list_functions(&j) || save_all(&j);
	if (!rc) {
		base = make_base(&j);
		rc = reread(&parts[0]);
	}
	if (!rc)
		cut_inputs(&j);
	/* Linked one at a time, in order: each definition lands at the end. */
	for (size_t i = 0; i < j.nj && !rc; i++) {
		rc = nv_link_modules(base, j.js[i].m, "a split part");
		j.js[i].m = NULL;
	}
	rc = rc || check_joined(&j, base);
	for (size_t i = 0; i < j.nj && !rc; i++)
		put_back(base, defined_fn(base, j.js[i].s.name), &j.js[i].s);
	for (size_t i = 0; i < j.nvars && !rc; i++)
		put_back(base, LLVMGetNamedGlobal(base, j.vars[i].name), &j.vars[i]);
	join_release(&j);
	if (rc) {
		if (base)
			LLVMDisposeModule(base);
		return -1;
	}
	restore(base, map);
	*out = base;
	return 0;
}
