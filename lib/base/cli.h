#ifndef NV_BASE_CLI_H
#define NV_BASE_CLI_H
/*
 * cli: the command line of a stage.  A stage declares its own options in a
 * table; the common ones (-o, -S, -f, remarks, --help, --version) and the
 * knobs it owns (knobs.def) are added here, so --help is generated from what
 * the parser really accepts.  Options take -name=value or -name value; one
 * or two leading dashes are the same.
 */
#include <stddef.h>

enum nv_opt_type {
	NV_OPT_FLAG,   /* -name: int dest set to 1 */
	NV_OPT_STR,    /* -name=V or -name V: const char * dest */
	NV_OPT_INT,    /* like STR, parsed into a long long dest within lo..hi */
	NV_OPT_OLEVEL, /* -O0..-O3: int dest */
	NV_OPT_LIST,   /* -name=V, repeatable: struct nv_strv dest */
	NV_OPT_OPTSTR, /* -name ("" in the const char * dest) or -name=V */
};

struct nv_option {
	const char *name; /* without dashes */
	enum nv_opt_type type;
	void *dest;
	const char *meta; /* value placeholder in --help */
	const char *help;
	long long lo, hi;
};

struct nv_cli {
	const char *summary;     /* one line for --help */
	const char *inputs;      /* "[input]" or "input..." for the usage line */
	unsigned stage;          /* NV_STAGE_* bit: which knobs apply */
	int writes_bitcode;      /* offer -S and -f */
	int many_inputs;         /* accept more than one positional */
	int decides;             /* offer -save-decisions and -decisions (base/decisions) */
	const struct nv_option *opts; /* terminated by a NULL name */
	void (*before_llvm)(void); /* map options to LLVM knobs before they apply */
	/* filled in by nv_cli_parse */
	const char **input;      /* positional arguments ("-" if none) */
	size_t ninput;
	const char *output;      /* -o, or NULL for stdout */
	int text, force;
};

/* Parse argv against cli; handles --help and --version (exit 0) and bad
 * usage (message, exit 2); sets up remarks and LLVM knobs. */
void nv_cli_parse(struct nv_cli *cli, int argc, char **argv);
/* Print the generated help of cli to stdout. */
void nv_cli_help(const struct nv_cli *cli);

#endif
