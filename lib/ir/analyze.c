#include "analyze.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include "../base/remarks.h"
#include "../base/util.h"
#include "cfg.h"
#include "cost.h"
#include "dom.h"
#include "indvars.h"
#include "liveness.h"
#include "loops.h"
#include "occupancy.h"
#include "uniform.h"

const char nv_analyze_names[] = "cfg dom postdom loops tripcount liveness peak cost occupancy uniform summary";

int
nv_analyze_known(const char *name)
{
	size_t n = strlen(name);

	for (const char *p = nv_analyze_names; *p;) {
		size_t k = strcspn(p, " ");

		if (k == n && !strncmp(p, name, n))
			return 1;
		p += k + (p[k] == ' ');
	}
	return 0;
}

struct fa {
	struct nv_cfg g;
	struct nv_dom d;
	struct nv_loops ls;
	char **label;
};

static void
fa_build(struct fa *a, LLVMValueRef f, int labels)
{
	nv_cfg_build(&a->g, f);
	nv_dom_build(&a->d, &a->g, 0);
	nv_loops_build(&a->ls, &a->g, &a->d);
	a->label = labels ? nv_cfg_labels(&a->g) : NULL;
}

static void
fa_release(struct fa *a)
{
	nv_cfg_labels_free(&a->g, a->label);
	nv_loops_release(&a->ls);
	nv_dom_release(&a->d);
	nv_cfg_release(&a->g);
}

static void
print_cfg(FILE *fp, struct fa *a)
{
	for (unsigned b = 0; b < a->g.n; b++) {
		fprintf(fp, "  %s:%s succ", a->label[b], nv_cfg_reachable(&a->g, b) ? "" : " (unreachable)");
		for (unsigned e = a->g.succ_off[b]; e < a->g.succ_off[b + 1]; e++)
			fprintf(fp, " %s", a->label[a->g.succ[e]]);
		fputs("; pred", fp);
		for (unsigned e = a->g.pred_off[b]; e < a->g.pred_off[b + 1]; e++)
			fprintf(fp, " %s", a->label[a->g.pred[e]]);
		fputc('\n', fp);
	}
}

static void
print_dom(FILE *fp, struct fa *a, int post)
{
	struct nv_dom pd, *d = &a->d;

	if (post) {
		nv_dom_build(&pd, &a->g, 1);
		d = &pd;
	}
	for (unsigned b = 0; b < a->g.n; b++) {
		unsigned i = d->idom[b];

		if (i == NV_NONE)
			fprintf(fp, "  %s: not in the tree\n", a->label[b]);
		else if (i == b)
			fprintf(fp, "  %s: root\n", a->label[b]);
		else if (i == a->g.n)
			fprintf(fp, "  %s: ipdom <exit>\n", a->label[b]);
		else
			fprintf(fp, "  %s: %s %s\n", a->label[b], post ? "ipdom" : "idom", a->label[i]);
	}
	if (post)
		nv_dom_release(&pd);
}

/* The pragmas the unroller and vectorizer read, as they are set. */
static void
print_loop_md(FILE *fp, const struct nv_loops *ls, unsigned l)
{
	static const char *const ints[] = { "llvm.loop.unroll.count", "llvm.loop.vectorize.width",
		                            "llvm.loop.interleave.count" };
	static const char *const flags[] = { "llvm.loop.unroll.disable", "llvm.loop.unroll.full",
		                             "llvm.loop.unroll.enable",
		                             "llvm.loop.unroll.runtime.disable",
		                             "llvm.loop.vectorize.enable", "llvm.loop.mustprogress" };
	int64_t v;

	for (size_t i = 0; i < sizeof(ints) / sizeof(*ints); i++)
		if (nv_loop_md_int(ls, l, ints[i], &v))
			fprintf(fp, ", %s %lld", ints[i] + 10, (long long)v);
	for (size_t i = 0; i < sizeof(flags) / sizeof(*flags); i++)
		if (nv_loop_md_has(ls, l, flags[i]))
			fprintf(fp, ", %s", flags[i] + 10);
}

static void
print_loops(FILE *fp, struct fa *a)
{
	for (unsigned l = 0; l < a->ls.n; l++) {
		const struct nv_loop *lp = &a->ls.v[l];

		fprintf(fp, "%*sLoop at depth %u containing: ", 2 * (lp->depth - 1), "", lp->depth);
		for (unsigned i = 0; i < lp->nblocks; i++) {
			unsigned b = lp->blocks[i];
			int latch = 0, exiting = 0;

			for (unsigned k = 0; k < lp->nlatches; k++)
				latch |= lp->latches[k] == b;
			for (unsigned k = 0; k < lp->nexiting; k++)
				exiting |= lp->exiting[k] == b;
			fprintf(fp, "%s%s%s%s%s", i ? "," : "", a->label[b], b == lp->header ? "<header>" : "",
			        latch ? "<latch>" : "", exiting ? "<exiting>" : "");
		}
		fprintf(fp, "\n%*s  preheader %s, %u exit%s, %s, %s", 2 * (lp->depth - 1), "",
		        lp->preheader == NV_NONE ? "none" : a->label[lp->preheader], lp->nexits,
		        lp->nexits == 1 ? "" : "s",
		        nv_loop_is_simplified(&a->ls, l) ? "simplified" : "not simplified",
		        nv_loop_is_lcssa(&a->ls, l) ? "lcssa" : "not lcssa");
		print_loop_md(fp, &a->ls, l);
		fputc('\n', fp);
	}
}

static const char *
pred_name(LLVMIntPredicate p)
{
	static const char *const names[] = { "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle" };

	return p >= LLVMIntEQ && p <= LLVMIntSLE ? names[p - LLVMIntEQ] : "?";
}

/* A value as llvm-dis names it: constant, %name, or its slot (%5). */
static void
value_text(char *buf, size_t n, LLVMValueRef v)
{
	size_t len;
	const char *name;
	char *text, *pct;

	if (LLVMIsAConstantInt(v)) {
		snprintf(buf, n, "%lld", LLVMConstIntGetSExtValue(v));
		return;
	}
	name = LLVMGetValueName2(v, &len);
	if (len) {
		snprintf(buf, n, "%%%.*s", (int)len, name);
		return;
	}
	text = LLVMPrintValueToString(v);
	pct = strchr(text, '%');
	snprintf(buf, n, "%.*s", pct ? (int)strcspn(pct, " ,)") : 1, pct ? pct : "?");
	LLVMDisposeMessage(text);
}

static void
print_trip(FILE *fp, struct fa *a)
{
	for (unsigned l = 0; l < a->ls.n; l++) {
		struct nv_trip t;
		const char *h = a->label[a->ls.v[l].header];
		char s[128], b[128];

		switch (nv_trip_count(&a->ls, l, &t)) {
		case NV_TRIP_UNKNOWN:
			fprintf(fp, "Loop %s: Unpredictable backedge-taken count (%s).\n", h, t.why);
			continue;
		case NV_TRIP_CONST:
			fprintf(fp, "Loop %s: backedge-taken count is i%u %llu\n", h, t.width,
			        (unsigned long long)t.btc);
			break;
		case NV_TRIP_SYMBOLIC:
			value_text(s, sizeof(s), t.start);
			value_text(b, sizeof(b), t.bound);
			if (t.step_value) {
				char st[128];

				value_text(st, sizeof(st), t.step_value);
				fprintf(fp, "Loop %s: backedge-taken count is symbolic: {%s,+,%s} %s %s%s\n", h, s,
				        st, pred_name(t.pred), b, t.on_next ? " (tested after the step)" : "");
			} else
				fprintf(fp, "Loop %s: backedge-taken count is symbolic: {%s,+,%lld} %s %s%s%s\n", h, s,
				        (long long)t.step, pred_name(t.pred), b,
				        t.on_next ? " (tested after the step)" : "",
				        t.may_wrap ? " (may wrap past the bound)"
				        : t.nuw_only ? " (no wrap by nuw alone)" : "");
			break;
		}
		if (t.kind == NV_TRIP_SYMBOLIC && !LLVMIsAConstantInt(t.start)) {
			int64_t lo, hi;

			value_text(s, sizeof(s), t.start);
			if (nv_trip_start_range(&t, &lo, &hi))
				fprintf(fp, "Loop %s: start %s in S: [%lld,%lld]\n", h, s, (long long)lo, (long long)hi);
		}
		if (t.has_max)
			fprintf(fp, "Loop %s: constant max backedge-taken count is i%u %llu\n", h, t.width,
			        (unsigned long long)t.max_btc);
		fprintf(fp, "Loop %s: Trip multiple is %llu\n", h, (unsigned long long)t.multiple);
	}
}

/* Build liveness, or say why not. */
static int
liveness(FILE *fp, struct nv_liveness *lv, struct fa *a, LLVMTargetDataRef td)
{
	size_t need;

	if (nv_liveness_build(lv, &a->g, td, &need) == 0)
		return 0;
	fprintf(fp, "  liveness not computed: %u blocks x %u values crossing them need %zu MiB "
	            "(limit %zu MiB)\n", a->g.n, lv->nvals, need >> 20, NV_LIVENESS_MAX_BYTES >> 20);
	nv_liveness_release(lv);
	return -1;
}

static void
print_liveness(FILE *fp, struct fa *a, LLVMTargetDataRef td)
{
	struct nv_liveness lv;
	unsigned bad;

	if (liveness(fp, &lv, a, td))
		return;
	for (unsigned b = 0; b < a->g.n; b++)
		fprintf(fp, "  Block %s: live-in = %u (%u units), live-out = %u (%u units), max = %u (%u units)\n",
		        a->label[b], nv_live_count(&lv, nv_live_in(&lv, b)), nv_live_units(&lv, nv_live_in(&lv, b)),
		        nv_live_count(&lv, nv_live_out(&lv, b)), nv_live_units(&lv, nv_live_out(&lv, b)),
		        lv.block_max[b], lv.block_max_units[b]);
	fprintf(fp, "  max live = %u values, %u register units, %u predicates%s\n", lv.max_live,
	        lv.max_units, lv.max_preds, nv_liveness_check(&lv, &bad) ? " (INCONSISTENT)" : "");
	{
		unsigned at = 0, most = nv_live_max_in(&lv, &at);

		fprintf(fp, "  most live in = %u register units (block %s)\n", most, a->g.n ? a->label[at] : "-");
	}
	nv_liveness_release(&lv);
}

/* A value's source variable, as a #dbg_value record names it: the
 * variable's name, and the bits of it the value holds (size 0: all). */
struct var {
	LLVMValueRef v;
	const char *name;
	size_t len;
	unsigned off, size;
};

/* Every value a #dbg_value record of fn names, with its variable. */
static struct var *
vars_of(LLVMValueRef fn, size_t *n)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
	struct var *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			for (LLVMDbgRecordRef r = LLVMGetFirstDbgRecord(i); r; r = LLVMGetNextDbgRecord(r)) {
				LLVMValueRef val;
				LLVMMetadataRef var;
				char *expr, *frag;
				struct var x = { 0 };
				unsigned k = 0;

				if (LLVMDbgRecordGetKind(r) != LLVMDbgRecordValue)
					continue;
				val = LLVMDbgVariableRecordGetValue(r, 0);
				var = LLVMDbgVariableRecordGetVariable(r);
				if (!val || !var || !(LLVMIsAInstruction(val) || LLVMIsAArgument(val)))
					continue;
				x.v = val;
				{
					LLVMValueRef mv = LLVMMetadataAsValue(ctx, var), ops[8];

					k = LLVMGetMDNodeNumOperands(mv);
					if (k < 2 || k > 8)
						continue;
					LLVMGetMDNodeOperands(mv, ops);
					x.name = ops[1] ? LLVMGetMDString(ops[1], &k) : NULL;
					x.len = k;
				}
				if (!x.name || !x.len)
					continue;
				expr = LLVMPrintValueToString(LLVMMetadataAsValue(ctx, LLVMDbgVariableRecordGetExpression(r)));
				frag = strstr(expr, "DW_OP_LLVM_fragment, ");
				if (frag && sscanf(frag + 21, "%u, %u", &x.off, &x.size) != 2)
					x.off = x.size = 0;
				LLVMDisposeMessage(expr);
				if (*n == cap)
					v = xrealloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));
				v[(*n)++] = x;
			}
	return v;
}

/* What the peak's values are grouped by: a source variable, or (for the
 * values no record names) their type. */
struct group {
	char *key;
	int named;
	char *type;         /* the values' type, "" when they differ */
	unsigned count, args, units; /* args: how many are arguments */
	unsigned lo, hi;    /* the lines that define them in the peak's file (0: none) */
	struct nv_srcloc other; /* the first that defines one in another file (line 0: none) */
	unsigned *elem;     /* a named array's elements (fragment offset / size) */
	size_t nelem;
	unsigned size;      /* the fragments' size, when all alike (else 0) */
	int mixed;          /* fragments of several sizes, or whole and fragment */
};

static int
by_units(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->units != y->units)
		return x->units < y->units ? 1 : -1;
	return strcmp(x->key, y->key);
}

static int
by_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* "acc[0..15]", "acc[0..3,8]", "x": a group's name with its elements. */
static void
print_group_name(FILE *fp, struct group *g)
{
	fputs(g->key, fp);
	if (!g->named || !g->nelem || g->mixed || !g->size)
		return;
	qsort(g->elem, g->nelem, sizeof(*g->elem), by_uint);
	fputc('[', fp);
	for (size_t k = 0; k < g->nelem;) {
		size_t e = k;

		while (e + 1 < g->nelem && g->elem[e + 1] <= g->elem[e] + 1)
			e++;
		fprintf(fp, "%s%u", k ? "," : "", g->elem[k]);
		if (g->elem[e] != g->elem[k])
			fprintf(fp, "..%u", g->elem[e]);
		k = e + 1;
	}
	fputc(']', fp);
}

/* What an unnamed value is, for grouping: a loop's phi carries it, a load
 * brings it, an argument, or it is computed. */
static const char *
value_kind(LLVMValueRef v)
{
	if (LLVMIsAArgument(v))
		return "argument";
	if (LLVMIsAPHINode(v))
		return "carried";
	if (LLVMIsALoadInst(v) || (LLVMIsACallInst(v) && LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVoidTypeKind &&
	                           !LLVMIsAIntrinsicInst(v)))
		return LLVMIsALoadInst(v) ? "loaded" : "returned";
	return "computed";
}

/* The length of the stem of a value's name, as clang names values after
 * variables and expressions (-fno-discard-value-names): "acc.sroa.3.0",
 * "add17", "i.0" -> "acc", "add", "i"; 0 for none ("", "42"). */
static size_t
name_stem(const char *name, size_t n)
{
	size_t k = 0;

	if (!n || !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_'))
		return 0;
	while (k < n && name[k] != '.')
		k++;
	while (k > 1 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	return k;
}

/* The first line at or after instruction i in its block (else before it). */
static void
point_loc(LLVMValueRef i, LLVMBasicBlockRef bb, struct nv_srcloc *loc)
{
	memset(loc, 0, sizeof(*loc));
	for (LLVMValueRef k = i ? i : LLVMGetFirstInstruction(bb); k && !loc->line; k = LLVMGetNextInstruction(k))
		nv_srcloc_of(k, loc);
	for (LLVMValueRef k = i ? LLVMGetPreviousInstruction(i) : NULL; k && !loc->line;
	     k = LLVMGetPreviousInstruction(k))
		nv_srcloc_of(k, loc);
}

/* Where the most register units are live, and what: the values grouped by
 * source variable (the #dbg_value records of a compile with debug
 * information), else by type, the largest first; the loops around it. */
static void
print_peak(FILE *fp, struct fa *a, LLVMTargetDataRef td)
{
	struct nv_liveness lv;
	struct nv_live_peak pk;
	struct nv_srcloc at;
	struct var *vars;
	struct group *gs = NULL;
	size_t nvars, ng = 0;

	if (liveness(fp, &lv, a, td))
		return;
	if (nv_live_peak(&lv, &pk)) {
		fprintf(fp, "  no peak: no block\n");
		nv_liveness_release(&lv);
		return;
	}
	point_loc(pk.before, a->g.bb[pk.block], &at);
	fprintf(fp, "  peak %u register units, %zu values, at %.*s:%u in block %s\n", pk.units, pk.n,
	        at.line ? (int)at.len : 1, at.line ? at.file : "?", at.line, a->label[pk.block]);
	for (unsigned l = a->ls.innermost[pk.block]; l != NV_NONE; l = a->ls.v[l].parent) {
		struct nv_srcloc ll;

		if (!nv_loop_srcloc(&a->ls, l, &ll) || !ll.line)
			point_loc(NULL, a->g.bb[a->ls.v[l].header], &ll);
		fprintf(fp, "  in loop %s at %.*s:%u, depth %u\n", a->label[a->ls.v[l].header],
		        ll.line ? (int)ll.len : 1, ll.line ? ll.file : "?", ll.line, a->ls.v[l].depth);
	}
	vars = vars_of(a->g.fn, &nvars);
	for (size_t k = 0; k < pk.n; k++) {
		LLVMValueRef v = pk.val[k];
		LLVMTypeRef ty = LLVMTypeOf(v);
		unsigned units = nv_type_units(td, ty);
		char *type = LLVMPrintTypeToString(ty), *key = NULL;
		struct nv_srcloc def = { 0 };
		const struct var *x = NULL;
		struct group *g = NULL;

		for (size_t i = 0; i < nvars && !x; i++)
			if (vars[i].v == v)
				x = &vars[i];
		if (x) {
			key = xasprintf("%.*s", (int)x->len, x->name);
		} else {
			size_t n = 0;
			const char *name = LLVMGetValueName2(v, &n);
			size_t stem = name_stem(name, n);

			key = stem ? xasprintf("%.*s (%s %s)", (int)stem, name, value_kind(v), type)
			           : xasprintf("(%s %s)", value_kind(v), type);
		}
		for (size_t i = 0; i < ng && !g; i++)
			if (!strcmp(gs[i].key, key))
				g = &gs[i];
		if (!g) {
			gs = xrealloc(gs, (ng + 1) * sizeof(*gs));
			g = &gs[ng++];
			memset(g, 0, sizeof(*g));
			g->key = key;
			g->named = x != NULL;
			g->type = xstrdup(type);
			g->size = x ? x->size : 0;
		} else {
			free(key);
			if (strcmp(g->type, type))
				g->type[0] = '\0';
		}
		if (x) {
			if (x->size != g->size)
				g->mixed = 1;
			else if (x->size) {
				g->elem = xrealloc(g->elem, (g->nelem + 1) * sizeof(*g->elem));
				g->elem[g->nelem++] = x->off / x->size;
			}
		}
		g->count++;
		g->args += LLVMIsAArgument(v) != NULL;
		g->units += units;
		if (LLVMIsAInstruction(v))
			nv_srcloc_of(v, &def);
		/* a phi has no line of its own: its incoming values' */
		for (unsigned k = 0; !def.line && LLVMIsAPHINode(v) && k < LLVMCountIncoming(v); k++)
			if (LLVMIsAInstruction(LLVMGetIncomingValue(v, k)))
				nv_srcloc_of(LLVMGetIncomingValue(v, k), &def);
		if (def.line && (def.len != at.len || strncmp(def.file, at.file, at.len))) {
			if (!g->other.line)
				g->other = def;
		} else if (def.line) {
			g->lo = !g->lo || def.line < g->lo ? def.line : g->lo;
			g->hi = def.line > g->hi ? def.line : g->hi;
		}
		LLVMDisposeMessage(type);
	}
	qsort(gs, ng, sizeof(*gs), by_units);
	for (size_t i = 0; i < ng; i++) {
		fputs("  live ", fp);
		print_group_name(fp, &gs[i]);
		fprintf(fp, ": %u x %s, %u units, ", gs[i].count, gs[i].type[0] ? gs[i].type : "mixed", gs[i].units);
		if (!gs[i].lo && !gs[i].other.line)
			fputs(gs[i].args == gs[i].count ? "arguments" : "no line", fp);
		else if (gs[i].lo && gs[i].lo == gs[i].hi)
			fprintf(fp, "line %u", gs[i].lo);
		else if (gs[i].lo)
			fprintf(fp, "lines %u-%u", gs[i].lo, gs[i].hi);
		if (gs[i].other.line) {
			const char *f = gs[i].other.file, *base = f;

			for (size_t k = 0; k < gs[i].other.len; k++)
				if (f[k] == '/')
					base = f + k + 1;
			fprintf(fp, "%s%.*s:%u", gs[i].lo ? " and " : "", (int)(gs[i].other.len - (size_t)(base - f)),
			        base, gs[i].other.line);
		}
		fputc('\n', fp);
		free(gs[i].key);
		free(gs[i].type);
		free(gs[i].elem);
	}
	free(gs);
	free(vars);
	free(pk.val);
	nv_liveness_release(&lv);
}

static void
print_cost(FILE *fp, struct fa *a)
{
	unsigned total = 0;

	for (unsigned b = 0; b < a->g.n; b++)
		total += nv_cost_block(a->g.bb[b]);
	fprintf(fp, "  function cost %u\n", total);
	for (unsigned l = 0; l < a->ls.n; l++)
		fprintf(fp, "  Loop %s: body cost %u, fixed cost %u\n", a->label[a->ls.v[l].header],
		        nv_cost_loop(&a->ls, l), NV_COST_LOOP_FIXED);
}

static void
print_occupancy(FILE *fp, struct fa *a, LLVMTargetDataRef td, int sm)
{
	struct nv_liveness lv;
	unsigned u, last = 0;

	if (liveness(fp, &lv, a, td))
		return;
	u = lv.max_units ? lv.max_units : 1;
	fprintf(fp, "  max live %u register units: %u of %u warps on sm_%d; cliffs at", u,
	        nv_occupancy_warps(sm, u), nv_occupancy_max_warps(sm), sm);
	for (unsigned r = 1; r <= NV_MAX_REGS_PER_THREAD; r++) {
		unsigned w = nv_occupancy_warps(sm, r);

		if (r > 1 && w != last)
			fprintf(fp, " %u", r - 1);
		last = w;
	}
	fputc('\n', fp);
	nv_liveness_release(&lv);
}

/* As opt's print<uniformity>: "DIVERGENT:" before each divergent argument
 * and instruction.  A function of the ptx_kernel convention has uniform
 * arguments. */
static void
print_uniform(FILE *fp, struct fa *a)
{
	struct nv_uniform u;
	LLVMValueRef fn = a->g.fn;
	unsigned n = 0;

	nv_uniform_build(&u, fn, LLVMGetFunctionCallConv(fn) == LLVMPTXKernelCallConv);
	for (LLVMValueRef p = LLVMGetFirstParam(fn); p; p = LLVMGetNextParam(p))
		if (!nv_uniform_is(&u, p)) {
			char *s = LLVMPrintValueToString(p);

			fprintf(fp, "  DIVERGENT ARGUMENT: %s\n", s);
			LLVMDisposeMessage(s);
		}
	for (unsigned b = 0; b < a->g.n; b++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(a->g.bb[b]); i; i = LLVMGetNextInstruction(i)) {
			char *s;

			if (LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVoidTypeKind && !LLVMIsATerminatorInst(i))
				continue;
			if (LLVMIsATerminatorInst(i) && !((LLVMIsABranchInst(i) && LLVMIsConditional(i)) ||
			                                  LLVMIsASwitchInst(i)))
				continue;
			if (LLVMIsATerminatorInst(i) ? nv_uniform_is(&u, LLVMGetOperand(i, 0)) : nv_uniform_is(&u, i))
				continue;
			s = LLVMPrintValueToString(i);
			fprintf(fp, "  DIVERGENT: %s\n", s + strspn(s, " "));
			LLVMDisposeMessage(s);
			n++;
		}
	fprintf(fp, "  %u divergent\n", n);
	nv_uniform_release(&u);
}

void
nv_analyze_print(FILE *fp, LLVMModuleRef m, const char *name, int sm)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
	int summary = !strcmp(name, "summary");
	unsigned nfn = 0, nloops = 0, nconst = 0, maxlive = 0;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct fa a;
		size_t len;

		if (LLVMIsDeclaration(f))
			continue;
		fa_build(&a, f, !summary);
		nfn++;
		if (summary) {
			struct nv_liveness lv;

			nloops += a.ls.n;
			for (unsigned l = 0; l < a.ls.n; l++) {
				struct nv_trip t;

				nconst += nv_trip_count(&a.ls, l, &t) == NV_TRIP_CONST;
			}
			if (liveness(fp, &lv, &a, td) == 0) {
				maxlive = lv.max_units > maxlive ? lv.max_units : maxlive;
				nv_liveness_release(&lv);
			}
			fa_release(&a);
			continue;
		}
		fprintf(fp, "%s for function '%s':\n", name, LLVMGetValueName2(f, &len));
		if (!strcmp(name, "cfg"))
			print_cfg(fp, &a);
		else if (!strcmp(name, "dom") || !strcmp(name, "postdom"))
			print_dom(fp, &a, name[0] == 'p');
		else if (!strcmp(name, "loops"))
			print_loops(fp, &a);
		else if (!strcmp(name, "tripcount"))
			print_trip(fp, &a);
		else if (!strcmp(name, "liveness"))
			print_liveness(fp, &a, td);
		else if (!strcmp(name, "peak"))
			print_peak(fp, &a, td);
		else if (!strcmp(name, "cost"))
			print_cost(fp, &a);
		else if (!strcmp(name, "occupancy"))
			print_occupancy(fp, &a, td, sm);
		else if (!strcmp(name, "uniform"))
			print_uniform(fp, &a);
		fa_release(&a);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (summary)
		fprintf(fp, "summary: %u functions, %u loops, %u constant trip counts, max live %u units; "
		            "cfg+dom+loops+tripcount+liveness in %.1f ms\n",
		        nfn, nloops, nconst, maxlive,
		        (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
}
