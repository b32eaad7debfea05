#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decisions.h"
#include "diag.h"
#include "io.h"
#include "knobs.h"
#include "remarks.h"
#include "util.h"

#ifndef NV_VERSION
#define NV_VERSION "0.1"
#endif

static const char *remark_pat[3], *remark_yaml;
static int want_help, want_version, want_text, want_force;
static const char *want_output, *save_decisions, *replay_decisions;

static const struct nv_option common[] = {
	{ "o", NV_OPT_STR, &want_output, "FILE", "write output to FILE (atomically) instead of stdout" },
	{ "S", NV_OPT_FLAG, &want_text, NULL, "write textual IR instead of bitcode" },
	{ "f", NV_OPT_FLAG, &want_force, NULL, "write bitcode even to a terminal" },
	{ "pass-remarks", NV_OPT_STR, &remark_pat[0], "REGEX", "report decisions taken by passes matching REGEX" },
	{ "pass-remarks-missed", NV_OPT_STR, &remark_pat[1], "REGEX", "report decisions not taken by passes matching REGEX" },
	{ "pass-remarks-analysis", NV_OPT_STR, &remark_pat[2], "REGEX", "report analyses of passes matching REGEX" },
	{ "pass-remarks-output", NV_OPT_STR, &remark_yaml, "FILE", "write every remark to FILE as LLVM remark YAML" },
	{ "save-decisions", NV_OPT_STR, &save_decisions, "FILE", "write each choice taken at a source line to FILE, a line each (STAGE FILE:LINE in FUNCTION CHOICE)" },
	{ "decisions", NV_OPT_STR, &replay_decisions, "FILE", "take the choices FILE gives, where its lines match (the lines of -save-decisions, edited or not)" },
	{ "help", NV_OPT_FLAG, &want_help, NULL, "print this help and exit" },
	{ "version", NV_OPT_FLAG, &want_version, NULL, "print the version and exit" },
	{ NULL },
};

static int
common_applies(const struct nv_cli *cli, const struct nv_option *o)
{
	if (!strcmp(o->name, "save-decisions") || !strcmp(o->name, "decisions"))
		return cli->decides;
	return cli->writes_bitcode || (strcmp(o->name, "S") && strcmp(o->name, "f"));
}

/* Match arg (dashes stripped) against o.  0: no match; 1: match with no
 * value in arg; 2: match with the value at *val. */
static int
match(const struct nv_option *o, const char *arg, const char **val)
{
	size_t n = strlen(o->name);

	if (strncmp(arg, o->name, n))
		return 0;
	if (o->type == NV_OPT_OLEVEL || (o->type == NV_OPT_LIST && n == 1 && arg[n] && arg[n] != '=')) {
		*val = arg + n;
		return arg[n] ? 2 : 0;
	}
	if (arg[n] == '=') {
		*val = arg + n + 1;
		return 2;
	}
	return arg[n] ? 0 : 1;
}

static void
store(const struct nv_option *o, const char *flag, const char *val)
{
	long long x;

	switch (o->type) {
	case NV_OPT_FLAG:
		*(int *)o->dest = 1;
		break;
	case NV_OPT_STR:
	case NV_OPT_OPTSTR:
		*(const char **)o->dest = val;
		break;
	case NV_OPT_LIST:
		nv_strv_push(o->dest, val);
		break;
	case NV_OPT_INT:
		if (nv_parse_int(val, o->lo, o->hi, &x))
			nv_usage_error("invalid value '%s' for %s: expected an integer from %lld to %lld",
			               val, flag, o->lo, o->hi);
		*(long long *)o->dest = x;
		break;
	case NV_OPT_OLEVEL:
		if (strlen(val) != 1 || val[0] < '0' || val[0] > '3')
			nv_usage_error("invalid optimization level '%s': expected -O0, -O1, -O2 or -O3",
			               flag);
		*(int *)o->dest = val[0] - '0';
		break;
	}
}

/* Try one option table; 1 if arg was consumed (*i advanced past a
 * separate value). */
static int
try_table(const struct nv_cli *cli, const struct nv_option *t, int argc, char **argv, int *i,
          const char *arg)
{
	for (; t->name; t++) {
		const char *v = NULL, *flag = argv[*i];
		int m;

		if (!common_applies(cli, t) || !(m = match(t, arg, &v)))
			continue;
		if (t->type == NV_OPT_FLAG && m == 2)
			nv_usage_error("option '%s' takes no value", argv[*i]);
		if (t->type == NV_OPT_OPTSTR && m == 1)
			v = "";
		else if (t->type != NV_OPT_FLAG && m == 1) {
			if (*i + 1 >= argc)
				nv_usage_error("option '%s' needs a value", argv[*i]);
			v = argv[++*i];
		}
		store(t, flag, v);
		return 1;
	}
	return 0;
}

static int
try_knob(const struct nv_cli *cli, const char *flag, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name = eq ? xasprintf("%.*s", (int)(eq - arg), arg) : xstrdup(arg);
	int id = nv_knob_find(name);
	char *why;

	free(name);
	if (id < 0)
		return 0;
	if (!(nv_knobs[id].stages & cli->stage)) {
		const struct nv_knob *k = &nv_knobs[id];

		nv_usage_error("knob '-%s' belongs to %s, not %s", k->name, nv_stage_name(k->stages),
		               nv_progname());
	}
	if ((why = nv_knob_take(id, flag, eq ? eq + 1 : NULL)))
		nv_usage_error("%s", why);
	return 1;
}

static void
consider(const char **best, size_t *bestd, const char *cand, const char *name)
{
	size_t d = nv_edit_distance(name, cand, 3);

	if (d < *bestd) {
		*bestd = d;
		*best = cand;
	}
}

/* The suggestion for "-nmae=V" keeps "=V" unless the option is a flag. */
static int
takes_no_value(const struct nv_cli *cli, const char *name)
{
	for (const struct nv_option *t = cli->opts; t->name; t++)
		if (!strcmp(t->name, name))
			return t->type == NV_OPT_FLAG;
	for (const struct nv_option *t = common; t->name; t++)
		if (!strcmp(t->name, name))
			return t->type == NV_OPT_FLAG;
	return 0;
}

_Noreturn static void
unknown(const struct nv_cli *cli, const char *flag, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name = eq ? xasprintf("%.*s", (int)(eq - arg), arg) : xstrdup(arg);
	const char *best = NULL;
	size_t bestd = 4;

	for (const struct nv_option *o = cli->opts; o->name; o++)
		consider(&best, &bestd, o->name, name);
	for (const struct nv_option *o = common; o->name; o++)
		if (common_applies(cli, o))
			consider(&best, &bestd, o->name, name);
	for (int k = 0; k < NV_KNOB_COUNT; k++)
		if (nv_knobs[k].stages & cli->stage)
			consider(&best, &bestd, nv_knobs[k].name, name);
	if (best && bestd <= (strlen(name) > 4 ? 3u : 1u)) {
		if (takes_no_value(cli, best))
			eq = NULL;
		free(name);
		nv_usage_error("unknown option '%s'; did you mean '-%s%s'?", flag, best, eq ? eq : "");
	}
	free(name);
	nv_usage_error("unknown option '%s' (see '%s --help')", flag, nv_progname());
}

static void
help_table(const struct nv_cli *cli, const struct nv_option *t)
{
	for (; t->name; t++) {
		char lhs[64];

		if (!common_applies(cli, t))
			continue;
		if (t->type == NV_OPT_OLEVEL)
			snprintf(lhs, sizeof(lhs), "-%s0..3", t->name);
		else if (t->type == NV_OPT_FLAG && (!strcmp(t->name, "help") || !strcmp(t->name, "version")))
			snprintf(lhs, sizeof(lhs), "--%s", t->name);
		else if (t->type == NV_OPT_FLAG)
			snprintf(lhs, sizeof(lhs), "-%s", t->name);
		else if (strlen(t->name) == 1)
			snprintf(lhs, sizeof(lhs), "-%s %s", t->name, t->meta ? t->meta : "VALUE");
		else if (t->type == NV_OPT_OPTSTR)
			snprintf(lhs, sizeof(lhs), "-%s[=%s]", t->name, t->meta);
		else
			snprintf(lhs, sizeof(lhs), "-%s=%s", t->name, t->meta ? t->meta : "VALUE");
		printf("  %-28s %s\n", lhs, t->help);
	}
}

void
nv_cli_help(const struct nv_cli *cli)
{
	int any = 0;

	printf("usage: %s [options] %s\n\n%s\n\nOptions:\n", nv_progname(), cli->inputs,
	       cli->summary);
	help_table(cli, cli->opts);
	help_table(cli, common);
	for (int k = 0; k < NV_KNOB_COUNT; k++) {
		const struct nv_knob *kn = &nv_knobs[k];
		char lhs[96];

		if (!(kn->stages & cli->stage))
			continue;
		if (!any++)
			printf("\nKnobs (cicc/LLVM names):\n");
		snprintf(lhs, sizeof(lhs), "-%s=%s", kn->name,
		         kn->type == NV_KNOB_BOOL ? "0|1" : kn->type == NV_KNOB_INT ? "N" : "S");
		printf("  %-28s %s (default %s)\n", lhs, kn->help, kn->def);
	}
}

void
nv_cli_parse(struct nv_cli *cli, int argc, char **argv)
{
	static const char *dash = "-";
	int nopt = 1;

	cli->input = xcalloc((size_t)argc + 1, sizeof(*cli->input));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (nopt && !strcmp(a, "--")) {
			nopt = 0;
			continue;
		}
		if (!nopt || a[0] != '-' || !a[1]) {
			cli->input[cli->ninput++] = a;
			continue;
		}
		a += a[1] == '-' ? 2 : 1;
		if (!strcmp(a, "h"))
			a = "help";
		if (try_table(cli, cli->opts, argc, argv, &i, a) ||
		    try_table(cli, common, argc, argv, &i, a) || try_knob(cli, argv[i], a))
			continue;
		unknown(cli, argv[i], a);
	}
	if (want_help) {
		nv_cli_help(cli);
		if (fflush(stdout) || ferror(stdout))
			nv_fatal("cannot write help:");
		exit(NV_EXIT_OK);
	}
	if (want_version) {
		printf("%s (nvcc-lite) %s\n", nv_progname(), NV_VERSION);
		exit(fflush(stdout) ? NV_EXIT_ERROR : NV_EXIT_OK);
	}
	if (cli->ninput > 1 && !cli->many_inputs)
		nv_usage_error("too many inputs: '%s' and '%s' (one module at a time)", cli->input[0],
		               cli->input[1]);
	if (cli->ninput == 0)
		cli->input[cli->ninput++] = dash;
	cli->output = want_output;
	if (nv_io_check_output(want_output)) /* before any work: a missing directory, a read-only file */
		nv_exit(NV_EXIT_ERROR);
	cli->text = want_text;
	cli->force = want_force;
	if (nv_remarks_setup(remark_pat[0], remark_pat[1], remark_pat[2], remark_yaml))
		nv_exit(NV_EXIT_USAGE);
	if (save_decisions && nv_io_check_output(save_decisions))
		nv_exit(NV_EXIT_ERROR);
	nv_decisions_init(save_decisions, replay_decisions);
	/* a replayed file's target sections are for the stage's -arch */
	for (const struct nv_option *o = cli->opts; o && o->name; o++)
		if (!strcmp(o->name, "arch") && o->type == NV_OPT_STR)
			nv_decisions_target(*(const char **)o->dest);
	if (cli->before_llvm)
		cli->before_llvm();
	nv_knobs_apply_llvm();
}
