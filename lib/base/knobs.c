#include "knobs.h"

#include <string.h>

#include <llvm-c/Support.h>

#include "util.h"

const struct nv_knob nv_knobs[NV_KNOB_COUNT] = {
#define KNOB(id, name, stages, type, def, lo, hi, help) \
	[NV_KNOB_##id] = { name, stages, NV_KNOB_##type, def, help, 0, lo, hi },
#define LLVM_KNOB(id, name, stages, type, def, lo, hi, help) \
	[NV_KNOB_##id] = { name, stages, NV_KNOB_##type, def, help, 1, lo, hi },
#include "knobs.def"
};

static const char *value[NV_KNOB_COUNT];

static const char *const stage_names[] = {
	"nv-reflect", "nv-inline", "nv-unroll", "nv-remat", "nv-vectorize",
	"nv-split",   "nv-link",   "nv-opt",    "nv-llc",   "nvcc-lite",
};

const char *
nv_stage_name(unsigned stage)
{
	for (unsigned i = 0; i < sizeof(stage_names) / sizeof(*stage_names); i++)
		if (stage & (1u << i))
			return stage_names[i];
	return "?";
}

int
nv_knob_find(const char *name)
{
	for (int i = 0; i < NV_KNOB_COUNT; i++)
		if (!strcmp(nv_knobs[i].name, name))
			return i;
	return -1;
}

static int
parse_bool(const char *v, long long *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "true")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(v, "0") || !strcmp(v, "false")) {
		*out = 0;
		return 0;
	}
	return -1;
}

int
nv_knob_set(int id, const char *v, const char **why)
{
	long long x;

	switch (nv_knobs[id].type) {
	case NV_KNOB_BOOL:
		if (parse_bool(v, &x)) {
			*why = "expected 0, 1, true or false";
			return -1;
		}
		break;
	case NV_KNOB_INT:
		if (nv_parse_int(v, nv_knobs[id].lo, nv_knobs[id].hi, &x)) {
			*why = "expected an integer in range";
			return -1;
		}
		break;
	case NV_KNOB_STR:
		break;
	}
	value[id] = v;
	return 0;
}

char *
nv_knob_take(int id, const char *flag, const char *v)
{
	const char *why;

	if (!v && nv_knobs[id].type != NV_KNOB_BOOL)
		return xasprintf("knob '%s' needs a value: -%s=VALUE", flag, nv_knobs[id].name);
	if (!nv_knob_set(id, v ? v : "1", &why))
		return NULL;
	if (nv_knobs[id].type == NV_KNOB_INT)
		return xasprintf("invalid value '%s' for knob -%s: expected an integer from %lld to %lld", v,
		                 nv_knobs[id].name, nv_knobs[id].lo, nv_knobs[id].hi);
	return xasprintf("invalid value '%s' for knob -%s: %s", v, nv_knobs[id].name, why);
}

int
nv_knob_is_set(int id)
{
	return value[id] != NULL;
}

long long
nv_knob_int(int id)
{
	const char *v = value[id] ? value[id] : nv_knobs[id].def;
	long long x = 0;

	if (nv_knobs[id].type == NV_KNOB_BOOL)
		parse_bool(v, &x);
	else
		nv_parse_int(v, nv_knobs[id].lo, nv_knobs[id].hi, &x);
	return x;
}

const char *
nv_knob_str(int id)
{
	return value[id] ? value[id] : nv_knobs[id].def;
}

void
nv_knobs_apply_llvm(void)
{
	static int done;
	struct nv_strv args = { 0 };

	if (done)
		return;
	done = 1;
	nv_strv_push(&args, "nv");
	for (int i = 0; i < NV_KNOB_COUNT; i++) {
		if (!nv_knobs[i].llvm || !value[i])
			continue;
		if (nv_knobs[i].type == NV_KNOB_BOOL)
			nv_strv_pushf(&args, "-%s=%s", nv_knobs[i].name, nv_knob_int(i) ? "true" : "false");
		else
			nv_strv_pushf(&args, "-%s=%s", nv_knobs[i].name, value[i]);
	}
	if (args.n > 1)
		LLVMParseCommandLineOptions((int)args.n, (const char *const *)args.v, NULL);
	nv_strv_free(&args);
}
