/*
 * flags: nvcc-lite's command line.  One table of nvcc's flags drives
 * parsing and --help; nvcc's flags for what nvcc-lite does not build get
 * their own message; the options that depend on others are settled once
 * everything is parsed (nv_drv_finish).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/decisions.h"
#include "../base/diag.h"
#include "../base/knobs.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "../stages/target.h"
#include "cuda.h"
#include "flags.h"

struct nv_drv_opts nv_drv = { .olevel = 3, .fc = -1, .ftz = -1, .prec_div = -1, .prec_sqrt = -1,
                              .fmad = -1, .split_compile = -1, .out = NV_OUT_EXE, .host_olevel = -1 };
struct nv_cuda nv_drv_cuda;
int nv_drv_have_cuda;

/* How a flag takes its value: none; "-x V", "-x=V", "--long V",
 * "--long=V"; the same and "-xV" (the short name joined, tried after every
 * exact name).  LIST: a value of nvcc's "<v>,..." is split at commas and
 * each part applied, as nvcc does. */
enum kind { FLAG, VALUE, JOINED_OR_VALUE };
enum { LIST = 1 };

struct flag {
	const char *name, *alias; /* "-arch", "--gpu-architecture" */
	enum kind kind;
	const char *meta, *help;
	void (*set)(const char *v); /* NULL: nvcc's flag, refused; help says why */
	int list;
};

static void one_of(const char *flag, const char *v, const char *words);

static void set_output(const char *v) { nv_drv.output = v; }
static void set_arch(const char *v) { nv_drv.arch = v; }
/* An output kind: the last one given counts, as in nvcc. */
static void
set_out(enum nv_out kind)
{
	nv_drv.out = kind;
	nv_drv.out_given = 1;
}

static void set_ptx(const char *v) { (void)v; set_out(NV_OUT_PTX); }
static void set_cubin(const char *v) { (void)v; set_out(NV_OUT_CUBIN); }
static void set_llvm(const char *v) { (void)v; set_out(NV_OUT_LLVM); }
static void set_fatbin(const char *v) { (void)v; set_out(NV_OUT_FATBIN); }
static void set_compile(const char *v) { (void)v; set_out(NV_OUT_OBJ); }
static void set_dc(const char *v) { (void)v; set_out(NV_OUT_OBJ); nv_drv.rdc = 1; }
static void set_dlink(const char *v) { (void)v; set_out(NV_OUT_DLINK); }
static void set_lib(const char *v) { (void)v; set_out(NV_OUT_LIB); }
static void set_link(const char *v) { (void)v; set_out(NV_OUT_EXE); }
static void set_deps_only(const char *v) { (void)v; set_out(NV_OUT_DEPS); nv_drv.deps_nonsys = 0; }
static void set_deps_only_nonsys(const char *v) { (void)v; set_out(NV_OUT_DEPS); nv_drv.deps_nonsys = 1; }
static void set_preproc(const char *v) { (void)v; set_out(NV_OUT_PREPROC); }
static void set_run(const char *v) { (void)v; set_out(NV_OUT_EXE); nv_drv.run = 1; }

static void set_shared(const char *v) { (void)v; nv_drv.shared = 1; }
static void set_forward(const char *v) { (void)v; nv_drv.forward_unknown = 1; }
static void add_isystem(const char *v) { nv_strv_push(&nv_drv.cpp, "-isystem"); nv_strv_push(&nv_drv.cpp, v); }
static void add_l(const char *v) { nv_strv_pushf(&nv_drv.libs, "-l%s", v); }
static void add_L(const char *v) { nv_strv_pushf(&nv_drv.libs, "-L%s", v); }
static void set_verbose(const char *v) { (void)v; nv_drv.verbose = 1; }
static void set_dryrun(const char *v) { (void)v; nv_drv.dryrun = 1; }
static void set_keep(const char *v) { (void)v; nv_drv.keep = 1; }
static void set_keep_dir(const char *v) { nv_drv.keep_dir = v; nv_drv.keep = 1; }
static void set_lineinfo(const char *v) { (void)v; nv_drv.lineinfo = 1; }
static void set_help(const char *v) { (void)v; nv_drv.help = 1; }
static void set_version(const char *v) { (void)v; nv_drv.version = 1; }
static void set_list_knobs(const char *v) { (void)v; nv_drv.list_knobs = 1; }
static void set_save_remarks(const char *v) { nv_drv.save_remarks = v; }
static void set_md(const char *v) { (void)v; nv_drv.deps = 1; }
static void set_mmd(const char *v) { (void)v; nv_drv.deps = 2; }
static void set_mf(const char *v) { nv_drv.dep_file = v; }
static void set_mt(const char *v) { nv_drv.dep_target = v; }
static void set_mp(const char *v) { (void)v; nv_drv.dep_phony = 1; }
static void add_I(const char *v) { nv_strv_pushf(&nv_drv.cpp, "-I%s", v); }
static void add_D(const char *v) { nv_strv_pushf(&nv_drv.cpp, "-D%s", v); }
static void add_U(const char *v) { nv_strv_pushf(&nv_drv.cpp, "-U%s", v); }

/* nvcc splits the value of every -X option at commas: -Xptxas -v,-O2. */
static void
split_at(struct nv_strv *sv, const char *v, const char *seps)
{
	char *copy = xstrdup(v), *save = NULL;

	for (char *t = strtok_r(copy, seps, &save); t; t = strtok_r(NULL, seps, &save))
		nv_strv_push(sv, t);
	free(copy);
}

static void push_split(struct nv_strv *sv, const char *v) { split_at(sv, v, ","); }

static void add_xcicc(const char *v) { push_split(&nv_drv.xcicc, v); }
static void add_xptxas(const char *v) { push_split(&nv_drv.xptxas, v); }
static void add_xlinker(const char *v) { push_split(&nv_drv.linker, v); }
static void add_xnvlink(const char *v) { push_split(&nv_drv.xnvlink, v); }
static void add_run_args(const char *v) { push_split(&nv_drv.run_args, v); }
static void add_xclang(const char *v) { nv_strv_push(&nv_drv.fe, "-Xclang"); nv_strv_push(&nv_drv.fe, v); }
static void set_ccbin(const char *v) { nv_drv.ccbin = v; }
static void set_device_debug(const char *v) { (void)v; nv_drv.device_debug = 1; }
static void set_host_debug(const char *v) { (void)v; nv_strv_push(&nv_drv.host, "-g"); }
static void set_no_warnings(const char *v) { (void)v; nv_drv.no_warnings = 1; }
static void set_res_usage(const char *v) { (void)v; nv_drv.res_usage = 1; }
static void set_save_decisions(const char *v) { nv_drv.save_decisions = v; }
static void set_decisions(const char *v) { nv_drv.decisions = v; }
static void set_explain(const char *v) { (void)v; nv_drv.explain = nv_drv.explain ? nv_drv.explain : 1; }
static void set_explain_format(const char *v) { one_of("explain-format", v, "text|json"); nv_drv.explain = !strcmp(v, "json") ? 2 : 1; }
static void accept_flag(const char *v) { (void)v; }
static void accept_value(const char *v) { (void)v; }
static void set_no_cache(const char *v) { (void)v; nv_drv.no_cache = 1; }
static void set_relaxed_constexpr(const char *v) { (void)v; nv_drv.relaxed_constexpr = 1; }
static void set_extended_lambda(const char *v) { (void)v; nv_drv.extended_lambda = 1; }
static void set_no_host_check(const char *v) { (void)v; nv_drv.no_host_check = 1; }

static void
set_default_stream(const char *v)
{
	if (strcmp(v, "legacy") && strcmp(v, "null") && strcmp(v, "per-thread"))
		nv_usage_error("value '%s' is not defined for option 'default-stream': expected legacy, "
		               "null or per-thread", v);
	nv_drv.per_thread_stream = !strcmp(v, "per-thread");
}

/* -Xcompiler: the host compiler's options.  The preprocessor's -D, -U and
 * -I reach the device side too, as the host preprocessor nvcc runs on
 * device code sees them. */
static void
add_xcompiler(const char *v)
{
	size_t first = nv_drv.host.n;

	/* and at blanks: nvcc puts the value into a shell command unquoted */
	split_at(&nv_drv.host, v, ", \t\n");
	for (size_t i = first; i < nv_drv.host.n; i++) {
		const char *a = nv_drv.host.v[i];

		if (a[0] == '-' && strchr("DUI", a[1]) && a[2])
			nv_strv_push(&nv_drv.cpp, a);
	}
}

int
nv_drv_host_query(void)
{
	static const char *const asks[] = { "--version", "-dumpversion", "-dumpfullversion", "-dumpmachine",
		                            "-dumpspecs", "-print-" };

	for (size_t i = 0; i < nv_drv.host.n; i++)
		for (size_t k = 0; k < sizeof(asks) / sizeof(*asks); k++)
			if (asks[k][1] == 'p' ? !strncmp(nv_drv.host.v[i], asks[k], strlen(asks[k]))
			                      : !strcmp(nv_drv.host.v[i], asks[k]))
				return 1;
	return 0;
}

static void
set_std(const char *v)
{
	static const char *const ok[] = { "c++03", "c++11", "c++14", "c++17", "c++20" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
		if (!strcmp(v, ok[i])) {
			nv_drv.std = v;
			return;
		}
	nv_usage_error("value '%s' is not defined for option 'std': expected c++03, c++11, c++14, "
	               "c++17 or c++20", v);
}

/* -x: nvcc's languages; c and c++ go to the host compiler alone. */
static void
set_lang(const char *v)
{
	if (strcmp(v, "cu") && strcmp(v, "c++") && strcmp(v, "c"))
		nv_usage_error("value '%s' is not defined for option 'x': expected c, c++ or cu", v);
	nv_drv.lang = v;
}

/* nvcc's -Werror kinds; the ones with a clang warning group map to it. */
static void
set_werror(const char *v)
{
	static const struct { const char *kind, *clang; } kinds[] = {
		{ "all-warnings", "-Werror" },
		{ "cross-execution-space-call", NULL }, /* clang: always an error */
		{ "deprecated-declarations", "-Werror=deprecated-declarations" },
		{ "reorder", "-Werror=reorder" },
		{ "default-stream-launch", NULL },
		{ "missing-launch-bounds", NULL },
		{ "ext-lambda-captures-this", NULL },
	};
	char *copy = xstrdup(v), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t i = 0;

		while (i < sizeof(kinds) / sizeof(*kinds) && strcmp(kinds[i].kind, t))
			i++;
		if (i == sizeof(kinds) / sizeof(*kinds))
			nv_usage_error("value '%s' is not defined for option 'Werror'", t);
		if (kinds[i].clang)
			nv_strv_push(&nv_drv.fe, kinds[i].clang);
	}
	free(copy);
}

static void
set_threads(const char *v)
{
	long long n;

	if (nv_parse_int(v, 0, 4096, &n))
		nv_usage_error("invalid value '%s' for --threads: expected a number of threads", v);
}
static void set_jobserver(const char *v) { (void)v; nv_drv.jobserver = 1; }
static void set_time(const char *v) { nv_drv.time_file = v; }
static void set_print_pipeline(const char *v) { (void)v; nv_drv.print_pipeline = 1; }

static void
set_split_compile(const char *v)
{
	if (nv_parse_int(v, 0, 4096, &nv_drv.split_compile))
		nv_usage_error("invalid value '%s' for -split-compile: expected 0 (one per CPU) to 4096", v);
}

/* -Ofc=max|mid|min (and nvcc's -Ofast-compile=); 0 turns it off. */
static void
set_fast_compile(const char *v)
{
	if (!strcmp(v, "0")) {
		nv_drv.fc = -1;
		return;
	}
	nv_drv.fc = nv_pipe_fast_compile(v);
	if (nv_drv.fc < 0)
		nv_usage_error("-Ofast-compile called with unsupported level '%s', only supports 0, min, mid, or max", v);
}

/* -code and -gencode are read whole by nv_drv_finish (lib/gencode.c). */
static void set_code(const char *v) { nv_drv.code = v; }
static void set_gencode(const char *v) { nv_strv_push(&nv_drv.gencode, v); }

static void
set_cudart(const char *v)
{
	static const char *const names[] = { [NV_CUDART_STATIC] = "static", [NV_CUDART_SHARED] = "shared",
		                             [NV_CUDART_NONE] = "none" };

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(v, names[i])) {
			nv_drv.cudart = (enum nv_cudart)i;
			return;
		}
	nv_usage_error("invalid value '%s' for -cudart: expected static, shared or none", v);
}

/* nvcc's booleans: true/false (and 1/0). */
static int
boolean(const char *flag, const char *v)
{
	if (!strcmp(v, "true") || !strcmp(v, "1"))
		return 1;
	if (!strcmp(v, "false") || !strcmp(v, "0"))
		return 0;
	nv_usage_error("invalid value '%s' for %s: expected true or false", v, flag);
}

static void set_ftz(const char *v) { nv_drv.ftz = boolean("-ftz", v); }
static void set_prec_div(const char *v) { nv_drv.prec_div = boolean("-prec-div", v); }
static void set_prec_sqrt(const char *v) { nv_drv.prec_sqrt = boolean("-prec-sqrt", v); }
static void set_fmad(const char *v) { nv_drv.fmad = boolean("-fmad", v); }
static void set_fast_math(const char *v) { (void)v; nv_drv.fast_math = 1; }
static void set_rdc(const char *v) { nv_drv.rdc = boolean("-rdc", v); }
static void add_include(const char *v) { nv_strv_push(&nv_drv.cpp, "-include"); nv_strv_push(&nv_drv.cpp, v); }

static void
set_maxreg(const char *v)
{
	if (nv_parse_int(v, 1, 255, &nv_drv.maxreg))
		nv_usage_error("invalid value '%s' for -maxrregcount: expected 1 to 255", v);
}

static void
set_olevel(const char *v)
{
	if (!strncmp(v, "fc=", 3) || !strncmp(v, "fast-compile=", 13)) {
		set_fast_compile(strchr(v, '=') + 1);
		return;
	}
	if (strlen(v) != 1 || v[0] < '0' || v[0] > '3')
		nv_usage_error("invalid optimization level '-O%s': expected -O0 to -O3", v);
	nv_drv.olevel = nv_drv.host_olevel = v[0] - '0';
}


static void options_file(const char *path, int depth);
static int optf_depth;
static void read_optf(const char *v) { options_file(v, optf_depth); }

static void set_dw(const char *v) { (void)v; set_out(NV_OUT_OBJ); nv_drv.rdc = 0; }
static void set_odir(const char *v) { nv_drv.odir = v; }
static void set_arbin(const char *v) { nv_drv.arbin = v; }
static void set_ldir(const char *v) { nv_drv.ldir = v; }
static void add_xarchive(const char *v) { nv_strv_push(&nv_drv.xarchive, v); }
static void add_xfatbin(const char *v) { nv_strv_push(&nv_drv.xfatbin, v); }
static void set_nodlink(const char *v) { (void)v; nv_drv.no_dlink = 1; }
static void set_profile(const char *v) { (void)v; nv_drv.profile = 1; nv_strv_push(&nv_drv.host, "-pg"); }
static void set_keep_device_functions(const char *v) { (void)v; nv_drv.keep_device_functions = 1; }
static void set_save_temps(const char *v) { (void)v; nv_drv.keep = 1; }
static void set_time_trace(const char *v) { nv_drv.time_trace = v; }
static void set_reloc_ptx(const char *v) { (void)v; nv_drv.rdc = 1; }
static void set_src_in_ptx(const char *v) { (void)v; nv_drv.lineinfo = 1; }
static void set_no_compress(const char *v) { (void)v; nv_drv.compress = "-compress=false"; }
static void set_arch_ls(const char *v) { (void)v; nv_drv.list_codes = 1; }
static void set_code_ls(const char *v) { (void)v; nv_drv.list_codes = 2; }
static void set_clean(const char *v) { (void)v; nv_drv.clean = 1; }
static void set_forward_linker(const char *v) { (void)v; nv_drv.forward_linker = 1; }
static void set_forward_opts(const char *v) { (void)v; nv_drv.forward_unknown = nv_drv.forward_linker = 1; }
static void add_fe(const char *v) { nv_strv_push(&nv_drv.fe, v); }
static void set_noeh(const char *v) { (void)v; add_fe("-fno-exceptions"); }
static void set_wreorder(const char *v) { (void)v; add_fe("-Wreorder"); }
static void set_wno_deprecated(const char *v) { (void)v; add_fe("-Wno-deprecated-declarations"); }

/* A value that must be one of words (a '|' list): else nvcc's message. */
static void
one_of(const char *flag, const char *v, const char *words)
{
	size_t n = strlen(v);

	for (const char *w = words; *w; w += strcspn(w, "|") + (w[strcspn(w, "|")] == '|'))
		if (strcspn(w, "|") == n && !strncmp(w, v, n))
			return;
	nv_usage_error("value '%s' is not defined for option '%s': expected %s", v, flag, words);
}

static void
number(const char *flag, const char *v, long long lo, long long hi)
{
	long long n;

	if (nv_parse_int(v, lo, hi, &n))
		nv_usage_error("invalid value '%s' for %s: expected a number from %lld to %lld", v, flag, lo, hi);
}

/* Flags for what clang does alike: -ftemplate-depth=N and the others. */
static void set_tbl(const char *v) { number("--ftemplate-backtrace-limit", v, 0, 1 << 30); nv_strv_pushf(&nv_drv.fe, "-ftemplate-backtrace-limit=%s", v); }
static void set_tdepth(const char *v) { number("--ftemplate-depth", v, 1, 1 << 30); nv_strv_pushf(&nv_drv.fe, "-ftemplate-depth=%s", v); }
static void set_seed(const char *v) { nv_strv_pushf(&nv_drv.fe, "-frandom-seed=%s", v); }
static void set_machine(const char *v) { one_of("machine", v, "64"); }
static void set_target_dir(const char *v) { one_of("target-directory", v, "x86_64-linux"); }
static void check_bool(const char *v) { one_of("true|false", v, "true|false"); }
static void set_brief(const char *v) { check_bool(v); }
static void set_template_stub(const char *v) { check_bool(v); nv_drv.template_stub_weak = !strcmp(v, "false"); }
static void set_hidden(const char *v) { check_bool(v); }
static void set_jtd(const char *v) { number("--jump-table-density", v, 0, 101); }
static void set_split_ext(const char *v) { number("--split-compile-extended", v, 0, 4096); }
static void set_opt_info(const char *v) { one_of("optimization-info", v, "inline"); push_split(&nv_drv.xcicc, "-pass-remarks=nv-inline,-pass-remarks-missed=nv-inline"); }

static void
set_cudadevrt(const char *v)
{
	one_of("cudadevrt", v, "none|static");
	nv_drv.no_cudadevrt = !strcmp(v, "none");
}

static void
set_dopt(const char *v)
{
	one_of("dopt", v, "on|off");
	if (!strcmp(v, "off"))
		nv_drv.olevel = 0;
	else
		nv_drv.dopt_on = 1;
}

static void
set_compress_mode(const char *v)
{
	one_of("compress-mode", v, "default|size|speed|balance|none");
	nv_drv.compress = xasprintf("--compress-mode=%s", v);
}

static void
set_stack_protector(const char *v)
{
	check_bool(v);
	if (!strcmp(v, "true"))
		nv_usage_error("--device-stack-protector=true: nvcc-lite's device code has no stack canaries");
}

/* -dlto, -lto, -gen-opt-lto: said, not silently dropped. */
static void
set_lto(const char *v)
{
	(void)v;
	nv_warn("device link-time optimization is not done: each source's device code is optimized "
	        "whole when compiled and linked as machine code (-dlto, -lto, -gen-opt-lto)");
}

/* nvcc's -diag-* numbers that name a warning clang has. */
static const struct { const char *num, *clang; } diags[] = {
	{ "177", "unused-variable" },            /* declared but never referenced */
	{ "550", "unused-but-set-variable" },    /* set but never used */
	{ "1444", "deprecated-declarations" },   /* declared deprecated */
	{ "1215", "deprecated-declarations" },
	{ "128", "unreachable-code" },           /* loop is not reachable */
	{ "111", "unreachable-code" },           /* statement is unreachable */
	{ "186", "tautological-unsigned-zero-compare" }, /* pointless comparison of unsigned with zero */
	{ "68", "sign-conversion" },             /* integer conversion resulted in a change of sign */
	{ "2361", "deprecated-declarations" },
	{ "940", "return-type" },                /* missing return statement */
	{ "1394", "unused-parameter" },
	{ "221", "literal-conversion" },         /* floating-point value does not fit */
	{ "3012", "deprecated-declarations" },
	{ NULL, NULL },
};

/* -diag-suppress/-diag-warn/-diag-error N,...: nvcc's message numbers (or
 * their names), onto clang's groups where one matches; the others change
 * only nvcc's own messages, which nvcc-lite does not print. */
static void
diag(const char *v, const char *how)
{
	size_t n = strspn(v, "0123456789");

	if (!*v || (v[n] && !(v[0] >= 'a' && v[0] <= 'z')))
		nv_usage_error("invalid value '%s' for -diag-%s: expected a message number", v, how);
	for (size_t i = 0; diags[i].num; i++)
		if (!strcmp(diags[i].num, v))
			nv_strv_pushf(&nv_drv.fe, !strcmp(how, "suppress") ? "-Wno-%s"
			                          : !strcmp(how, "error")  ? "-Werror=%s"
			                                                   : "-W%s", diags[i].clang);
}

static void diag_suppress(const char *v) { diag(v, "suppress"); }
static void diag_error(const char *v) { diag(v, "error"); }
static void diag_warn(const char *v) { diag(v, "warn"); }

/* -Xcudafe: EDG's options; its --diag_* are nvcc's -diag-*, the others
 * change only cudafe's own output.  A number alone continues the --diag_*
 * before it (-Xcudafe --diag_suppress=177,550). */
static void
add_xcudafe(const char *v)
{
	static void (*last)(const char *);

	static const struct { const char *opt; void (*set)(const char *); } opts[] = {
		{ "--diag_suppress=", diag_suppress }, { "--diag_error=", diag_error },
		{ "--diag_warning=", diag_warn }, { "--diag-suppress=", diag_suppress },
		{ "--diag-error=", diag_error }, { "--diag-warning=", diag_warn },
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++)
		if (!strncmp(v, opts[i].opt, strlen(opts[i].opt))) {
			last = opts[i].set;
			last(v + strlen(opts[i].opt));
			return;
		}
	if (last && v[0] >= '0' && v[0] <= '9') {
		last(v);
		return;
	}
	last = NULL;
	if (strcmp(v, "--display_error_number") && strcmp(v, "--no_display_error_number"))
		nv_warn("-Xcudafe %s: ignored (nvcc-lite's front end is clang, not cudafe)", v);
}

static const struct flag flags[] = {
	/* what the command line writes */
	{ "-cuda", "--cuda", FLAG, NULL, "not supported: nvcc's host-side .cpp.ii file comes from cudafe, which nvcc-lite does not have", NULL },
	{ "-ptx", "--ptx", FLAG, NULL, "write PTX", set_ptx },
	{ "-cubin", "--cubin", FLAG, NULL, "write a cubin (needs ptxas)", set_cubin },
	{ "-fatbin", "--fatbin", FLAG, NULL, "write a fatbin: a cubin per GPU, the PTX asked for (needs CUDA)", set_fatbin },
	{ "-optix-ir", "--optix-ir", FLAG, NULL, "not supported: OptiX IR is NVVM's own format", NULL },
	{ "-ltoir", "--ltoir", FLAG, NULL, "not supported: LTO IR is NVVM's own format (-emit-llvm writes LLVM bitcode)", NULL },
	{ "-emit-llvm", NULL, FLAG, NULL, "write the optimized LLVM bitcode instead of PTX", set_llvm },
	{ "-c", "--compile", FLAG, NULL, "write a host object with the device code embedded as a fatbin (needs CUDA)", set_compile },
	{ "-dc", "--device-c", FLAG, NULL, "-c with relocatable device code (-rdc=true)", set_dc },
	{ "-dw", "--device-w", FLAG, NULL, "-c with whole-program device code (-rdc=false)", set_dw },
	{ "-dlink", "--device-link", FLAG, NULL, "device-link -dc objects (nvlink) into one host object (default a_dlink.o)", set_dlink },
	{ "-lib", "--lib", FLAG, NULL, "write a static library of the objects (default a.a)", set_lib },
	{ "-link", "--link", FLAG, NULL, "link a program (the default; a.out unless -o)", set_link },
	{ "-run", "--run", FLAG, NULL, "link a program and run it (with -run-args); its exit status is nvcc-lite's", set_run },
	{ "-E", "--preprocess", FLAG, NULL, "write each source preprocessed, as nvcc: a CUDA source's device side for the first GPU (__CUDA_ARCH__ defined), a .c or .cpp file's by the host compiler (to stdout, or -o FILE)", set_preproc },
	{ "-M", "--generate-dependencies", FLAG, NULL, "write make's dependencies of each source (to stdout, or -MF FILE or -o FILE) and nothing else", set_deps_only },
	{ "-MM", "--generate-nonsystem-dependencies", FLAG, NULL, "-M without system headers (what sccache runs for -MMD)", set_deps_only_nonsys },
	{ "-MD", "--generate-dependencies-with-compile", FLAG, NULL, "also write a make dependency file (default: the output's name with .d)", set_md },
	{ "-MMD", "--generate-nonsystem-dependencies-with-compile", FLAG, NULL, "the same without system headers", set_mmd },
	{ "-MF", "--dependency-output", VALUE, "FILE", "the dependency file of -MD/-MMD", set_mf },
	{ "-MT", "--dependency-target-name", VALUE, "TARGET", "the target in the dependency file (default: the output)", set_mt },
	{ "-MP", "--generate-dependency-targets", FLAG, NULL, "add a phony target for each header", set_mp },
	{ "-o", "--output-file", VALUE, "FILE", "write the output to FILE (default: a.out for a program, else each input's name with the kind's extension)", set_output },
	{ "-odir", "--output-directory", VALUE, "DIR", "write each output that -o does not name into DIR", set_odir },
	{ "-objtemp", "--objdir-as-tempdir", FLAG, NULL, "accepted: nvcc's intermediate files beside the object; nvcc-lite's are in a private directory, removed at the end", accept_flag },
	/* sources and the preprocessor */
	{ "-x", "--x", VALUE, "c|c++|cu", "the language of the sources whatever their extension: cu (CUDA), c or c++ (the host compiler alone)", set_lang },
	{ "-std", "--std", VALUE, "c++NN", "the C++ dialect: c++03, c++11, c++14, c++17 (the default) or c++20", set_std },
	{ "-include", "--pre-include", VALUE, "FILE,...", "include FILE before the source", add_include, LIST },
	{ "-isystem", "--system-include", VALUE, "DIR,...", "add DIR to the system include search path", add_isystem, LIST },
	{ "-optf", "--options-file", VALUE, "FILE,...", "read more options from FILE (words separated by blanks, quotes group)", read_optf, LIST },
	/* optimization and code generation */
	{ "-Ofc", "--Ofast-compile", VALUE, "max|mid|min|0", "fast-compile pipeline nvopt<Ofcmax|mid|min> instead of an -O level (0: off)", set_fast_compile },
	{ "-dopt", "--dopt", VALUE, "on|off", "device code optimization: off is nvopt<O0>; on keeps the -O level under -G", set_dopt },
	{ "-arch", "--gpu-architecture", VALUE, "sm_XX", "GPU to compile for (default " NV_DEFAULT_ARCH ")", set_arch },
	{ "-code", "--gpu-code", VALUE, "sm_XX,...", "the GPUs (sm_XX: a cubin) and PTX (compute_XX) made from -arch's virtual architecture", set_code },
	{ "-gencode", "--generate-code", VALUE, "arch=compute_XX,code=[sm_XX,...]", "one virtual architecture and the codes made from it (repeatable)", set_gencode },
	{ "-arch-ls", "--list-gpu-arch", FLAG, NULL, "list the virtual architectures (compute_XX) -arch takes, and exit", set_arch_ls },
	{ "-code-ls", "--list-gpu-code", FLAG, NULL, "list the GPUs (sm_XX) -code takes, and exit", set_code_ls },
	{ "-rdc", "--relocatable-device-code", VALUE, "true|false", "relocatable device code: no whole-program mode, extern device functions and variables, kernels launching kernels (default false)", set_rdc },
	{ "-reloc-ptx", "--relocatable-ptx", FLAG, NULL, "PTX with relocatable device code (-rdc=true)", set_reloc_ptx },
	{ "-ewp", "--extensible-whole-program", FLAG, NULL, "accepted: whole-program device code that a device link may extend; nvcc-lite's whole-program objects link as nvcc's", accept_flag },
	{ "-keep-device-functions", "--keep-device-functions", FLAG, NULL, "keep device functions no kernel calls (no whole-program internalizing)", set_keep_device_functions },
	{ "-e", "--entries", VALUE, "ENTRY,...", "not supported: nvcc-lite compiles every kernel of a source", NULL },
	{ "-maxrregcount", "--maxrregcount", VALUE, "N", "at most N registers per thread in kernels", set_maxreg },
	{ "-lineinfo", "--generate-line-info", FLAG, NULL, "keep source line information in the PTX", set_lineinfo },
	{ "-src-in-ptx", "--source-in-ptx", FLAG, NULL, "-lineinfo: the PTX's .loc lines name the source lines (nvcc also copies them into the PTX as comments; nvcc-lite does not)", set_src_in_ptx },
	{ "-ftz", "--ftz", VALUE, "true|false", "flush f32 denormals to zero (default false)", set_ftz },
	{ "-prec-div", "--prec-div", VALUE, "true|false", "IEEE-rounded f32 division (default true)", set_prec_div },
	{ "-prec-sqrt", "--prec-sqrt", VALUE, "true|false", "IEEE-rounded f32 square root (default true)", set_prec_sqrt },
	{ "-fmad", "--fmad", VALUE, "true|false", "contract multiply-add into fma (default true)", set_fmad },
	{ "-use_fast_math", "--use_fast_math", FLAG, NULL, "-ftz=true -prec-div=false -prec-sqrt=false -fmad=true, fast transcendentals", set_fast_math },
	{ "-extra-device-vectorization", "--extra-device-vectorization", FLAG, NULL, "accepted: nv-vectorize's decisions are cicc's default ones", accept_flag },
	{ "-restrict", "--restrict", FLAG, NULL, "accepted: a hint that kernel pointers do not alias; nvcc-lite does not assume it", accept_flag },
	{ "-jtd", "--jump-table-density", VALUE, "0-101", "accepted: LLVM's NVPTX backend makes no jump tables", set_jtd },
	{ "-opt-info", "--optimization-info", VALUE, "inline", "print the inliner's decisions (nv-inline's remarks)", set_opt_info },
	{ "-G", "--device-debug", FLAG, NULL, "device debug information; the device code is not optimized (nvopt<O0>)", set_device_debug },
	{ "-g", "--debug", FLAG, NULL, "host debug information: kept for the host compiler, no effect on device code", set_host_debug },
	{ "-pg", "--profile", FLAG, NULL, "host code instrumented for gprof (-pg in the host compiles and the link)", set_profile },
	{ "-dlto", "--dlink-time-opt", FLAG, NULL, "accepted with a warning: the device code is optimized when compiled, and linked as machine code", set_lto },
	{ "-lto", "--lto", FLAG, NULL, "the same as -dlto", set_lto },
	{ "-gen-opt-lto", "--gen-opt-lto", FLAG, NULL, "the same as -dlto", set_lto },
	{ "-device-stack-protector", "--device-stack-protector", VALUE, "true|false", "false accepted (nvcc-lite's device code has no stack canaries); true refused", set_stack_protector },
	{ "-sanitize", "--sanitize", VALUE, "TOOL", "not supported: compute-sanitizer's instrumentation is NVVM's", NULL },
	{ "-Xcicc", "--Xcicc", VALUE, "KNOB,...", "pass knobs (-name=value) to the stages that own them", add_xcicc },
	{ "-Xptxas", "--ptxas-options", VALUE, "OPT,...", "pass options to ptxas", add_xptxas },
	{ "-list-knobs", "--list-knobs", FLAG, NULL, "list every -Xcicc knob: name, stage, type, default, help", set_list_knobs },
	{ "-print-pipeline", "--print-pipeline", FLAG, NULL, "print the steps of the pipeline the flags select, and exit", set_print_pipeline },
	/* the host side and the link */
	{ "-Xcompiler", "--compiler-options", VALUE, "OPT,...", "host compiler options (split at commas and blanks, as nvcc's shell does), kept for the host side; -D, -U and -I also reach the device front end; --version, -dumpversion, -dumpmachine, -print-... ask the host compiler alone", add_xcompiler },
	{ "-Xlinker", "--linker-options", VALUE, "OPT,...", "host linker options, for the link", add_xlinker },
	{ "-Xarchive", "--archive-options", VALUE, "OPT,...", "archiver options, for -lib's ar", add_xarchive, LIST },
	{ "-Xnvlink", "--nvlink-options", VALUE, "OPT,...", "nvlink options, for the device link", add_xnvlink },
	{ "-Xfatbin", "--fatbin-options", VALUE, "OPT,...", "fatbinary options, for each source's fatbin", add_xfatbin, LIST },
	{ "-Xcudafe", "--cudafe-options", VALUE, "OPT,...", "cudafe's --diag_suppress=, --diag_error=, --diag_warning= as -diag-*; other cudafe options are ignored with a warning", add_xcudafe, LIST },
	{ "-Xclang", NULL, VALUE, "ARG", "pass ARG to the clang-22 front end (nvcc-lite's own, not nvcc's)", add_xclang },
	{ "-ccbin", "--compiler-bindir", VALUE, "PATH", "the host compiler (default gcc); device code sees its own headers (omp.h) as nvcc's does", set_ccbin },
	{ "-allow-unsupported-compiler", "--allow-unsupported-compiler", FLAG, NULL, "accepted: defines __NV_NO_HOST_COMPILER_CHECK, as nvcc does; nvcc-lite checks no host compiler version", set_no_host_check },
	{ "-arbin", "--archiver-binary", VALUE, "PATH", "the archiver of -lib (default ar)", set_arbin },
	{ "-cudart", "--cudart", VALUE, "static|shared|none", "the CUDA runtime a program links (default static)", set_cudart },
	{ "-cudadevrt", "--cudadevrt", VALUE, "static|none", "link CUDA's device runtime (libcudadevrt) into the device link (default static)", set_cudadevrt },
	{ "-ldir", "--libdevice-directory", VALUE, "DIR", "the directory of libdevice.10.bc (default CUDA's nvvm/libdevice)", set_ldir },
	{ "-target-dir", "--target-directory", VALUE, "x86_64-linux", "accepted: CUDA's target directory (only x86_64-linux)", set_target_dir },
	{ "-nodlink", "--no-device-link", FLAG, NULL, "link a program without the device link", set_nodlink },
	{ "-shared", "--shared", FLAG, NULL, "link a shared library instead of a program (the host code is compiled -fPIC, as nvcc's)", set_shared },
	{ "-m", "--machine", VALUE, "64", "accepted: the host code is 64-bit", set_machine },
	{ "-m64", "--m64", FLAG, NULL, "accepted: the host code is 64-bit", accept_flag },
	{ "-noeh", "--no-exceptions", FLAG, NULL, "no C++ exceptions (-fno-exceptions)", set_noeh },
	{ "-ftemplate-backtrace-limit", "--ftemplate-backtrace-limit", VALUE, "N", "at most N template instantiation notes per error (0: all)", set_tbl },
	{ "-ftemplate-depth", "--ftemplate-depth", VALUE, "N", "template instantiations nest at most N deep", set_tdepth },
	{ "-frandom-seed", "--frandom-seed", VALUE, "SEED", "the seed of the front end's random names (-frandom-seed=)", set_seed },
	{ "-static-global-template-stub", "--static-global-template-stub", VALUE, "true|false", "true (the default without -rdc): a template kernel's host stub is static, each unit launching its own instantiation; false: a weak symbol, one for the program", set_template_stub },
	{ "-device-entity-has-hidden-visibility", "--device-entity-has-hidden-visibility", VALUE, "true|false", "accepted: clang's device entities have nvcc's default visibility", set_hidden },
	{ "-forward-unknown-to-host-compiler", "--forward-unknown-to-host-compiler", FLAG, NULL, "an option nvcc-lite does not know goes to the host compiler instead of being an error", set_forward },
	{ "-forward-unknown-to-host-linker", "--forward-unknown-to-host-linker", FLAG, NULL, "an option nvcc-lite does not know goes to the host link instead of being an error", set_forward_linker },
	{ "-forward-unknown-opts", "--forward-unknown-opts", FLAG, NULL, "an option nvcc-lite does not know goes to the host compiler and the host link", set_forward_opts },
	{ "-hls", "--host-linker-script", VALUE, "use-lcs|gen-lcs", "not supported: nvcc-lite writes no host linker script", NULL },
	{ "-aug-hls", "--augment-host-linker-script", FLAG, NULL, "not supported: nvcc-lite writes no host linker script", NULL },
	{ "-r", "--relocatable-link", FLAG, NULL, "not supported: a relocatable host link (ld -r) of CUDA objects", NULL },
	{ "-no-compress", "--no-compress", FLAG, NULL, "fatbins uncompressed (fatbinary -compress=false)", set_no_compress },
	{ "-compress-mode", "--compress-mode", VALUE, "default|size|speed|balance|none", "fatbinary's compression (--compress-mode=)", set_compress_mode },
	{ "-expt-relaxed-constexpr", "--expt-relaxed-constexpr", FLAG, NULL, "device code may call constexpr host functions (always so in clang's CUDA); defines __CUDACC_RELAXED_CONSTEXPR__", set_relaxed_constexpr },
	{ "-extended-lambda", "--extended-lambda", FLAG, NULL, "__device__ lambdas in host code (always so in clang's CUDA); defines __CUDACC_EXTENDED_LAMBDA__", set_extended_lambda },
	{ "-expt-extended-lambda", "--expt-extended-lambda", FLAG, NULL, "the same as --extended-lambda", set_extended_lambda },
	{ "-nohdinitlist", "--no-host-device-initializer-list", FLAG, NULL, "accepted: clang's CUDA treats std::initializer_list's members as its headers declare them", accept_flag },
	{ "-nohdmoveforward", "--no-host-device-move-forward", FLAG, NULL, "accepted: clang's CUDA treats std::move and std::forward as its headers declare them", accept_flag },
	{ "-default-stream", "--default-stream", VALUE, "legacy|null|per-thread", "the stream of launches that name none: per-thread defines CUDA_API_PER_THREAD_DEFAULT_STREAM (default legacy)", set_default_stream },
	/* messages */
	{ "-w", "--disable-warnings", FLAG, NULL, "no warnings", set_no_warnings },
	{ "-Werror", "--Werror", VALUE, "KIND,...", "warnings of these kinds are errors: all-warnings, cross-execution-space-call, deprecated-declarations, reorder, default-stream-launch, missing-launch-bounds, ext-lambda-captures-this", set_werror },
	{ "-Wreorder", "--Wreorder", FLAG, NULL, "warn of members initialized out of order (-Wreorder)", set_wreorder },
	{ "-Wno-deprecated-declarations", "--Wno-deprecated-declarations", FLAG, NULL, "no warnings of deprecated entities", set_wno_deprecated },
	{ "-Wno-deprecated-gpu-targets", "--Wno-deprecated-gpu-targets", FLAG, NULL, "accepted: nvcc-lite warns of no deprecated target", accept_flag },
	{ "-Wdefault-stream-launch", "--Wdefault-stream-launch", FLAG, NULL, "accepted: clang has no such warning", accept_flag },
	{ "-Wmissing-launch-bounds", "--Wmissing-launch-bounds", FLAG, NULL, "accepted: clang has no such warning", accept_flag },
	{ "-Wext-lambda-captures-this", "--Wext-lambda-captures-this", FLAG, NULL, "accepted: clang has no such warning", accept_flag },
	{ "-diag-error", "--diag-error", VALUE, "N,...", "nvcc's warning N is an error (the ones with a clang group: 177, 550, 1444, 128, 186, 68, 940 ...)", diag_error, LIST },
	{ "-diag-suppress", "--diag-suppress", VALUE, "N,...", "no warning N (mapped as -diag-error's)", diag_suppress, LIST },
	{ "-diag-warn", "--diag-warn", VALUE, "N,...", "warning N is a warning (mapped as -diag-error's)", diag_warn, LIST },
	{ "-err-no", "--display-error-number", FLAG, NULL, "accepted: clang's messages carry its group names, not nvcc's numbers", accept_flag },
	{ "-no-err-no", "--no-display-error-number", FLAG, NULL, "accepted: the same", accept_flag },
	{ "-brief-diag", "--brief-diagnostics", VALUE, "true|false", "accepted: clang's messages are as they are", set_brief },
	{ "-res-usage", "--resource-usage", FLAG, NULL, "print each kernel's registers, stack and shared memory (ptxas -v) and its occupancy where a cubin is made", set_res_usage },
	{ "-explain", "--explain", FLAG, NULL, "nvcc-lite's own: explain each kernel's registers: ptxas's figures and occupancy, where the most values are live and which, and what ptxas spills at the next occupancy steps (compiles each source again with line tables; the build's output is unchanged)", set_explain },
	{ "-save-decisions", "--save-decisions", VALUE, "FILE", "nvcc-lite's own: write every choice nv-inline, the unswitch engine, nv-unroll, nv-vectorize and nv-remat took at a source line to FILE, a line each, to edit and give back with -decisions", set_save_decisions },
	{ "-decisions", "--decisions", VALUE, "FILE", "nvcc-lite's own: nv-inline, the unswitch engine, nv-unroll, nv-vectorize and nv-remat take the choice FILE gives wherever one of its lines matches (-save-decisions' format), and decide the rest as usual", set_decisions },
	{ "-explain-format", "--explain-format", VALUE, "text|json", "--explain's output: text on stderr (default), or a JSON object a kernel, a line each (implies --explain)", set_explain_format },
	/* the driver itself */
	{ "-t", "--threads", VALUE, "N", "accepted: nvcc's threads for compiling several targets; nvcc-lite compiles them in turn", set_threads },
	{ "-split-compile", "--split-compile", VALUE, "N", "Phase II on at most N functions' parts at once (0: one per CPU); make's jobserver wins", set_split_compile },
	{ "-split-compile-extended", "--split-compile-extended", VALUE, "N", "accepted: nvcc's split of whole-program compiles; -split-compile's Phase II is nvcc-lite's", set_split_ext },
	{ "-jobserver", "--jobserver", FLAG, NULL, "share make's jobs: it is an error if MAKEFLAGS names no usable jobserver", set_jobserver },
	{ "-fdevice-syntax-only", "--fdevice-syntax-only", FLAG, NULL, "not supported yet: the device front end's check alone", NULL },
	{ "-fdevice-time-trace", "--fdevice-time-trace", VALUE, "FILE", "the device front end's time trace, as Chrome's trace JSON (clang's -ftime-trace=FILE; the stages' times are -time's)", set_time_trace },
	{ "-time", "--time", VALUE, "FILE", "append each stage's wall time to FILE, as CSV like nvcc's", set_time },
	{ "-no-cache", "--no-cache", FLAG, NULL, "compile without the front end's header cache ($NVCC_LITE_CACHE_DIR, else ~/.cache/nvcc-lite)", set_no_cache },
	{ "-v", "--verbose", FLAG, NULL, "print each command before running it", set_verbose },
	{ "-dryrun", "--dryrun", FLAG, NULL, "print the commands as a shell script and run nothing", set_dryrun },
	{ "-keep", "--keep", FLAG, NULL, "keep every intermediate file (in the current directory)", set_keep },
	{ "-keep-dir", "--keep-dir", VALUE, "DIR", "keep intermediate files in DIR", set_keep_dir },
	{ "-save-temps", "--save-temps", FLAG, NULL, "the same as -keep", set_save_temps },
	{ "-clean", "--clean-targets", FLAG, NULL, "delete the files the command would write, and run nothing else", set_clean },
	{ "-save-remarks", "--save-remarks", VALUE, "DIR", "write each stage's remarks as LLVM remark YAML into DIR (for llvm-remarkutil, opt-viewer)", set_save_remarks },
	{ "-run-args", "--run-args", VALUE, "ARG,...", "the arguments of the program -run runs", add_run_args },
	{ "-noprof", "--dont-use-profile", FLAG, NULL, "accepted: nvcc-lite reads nvcc.profile for CUDA's include and library directories only", accept_flag },
	{ "-use-local-env", "--use-local-env", FLAG, NULL, "accepted: for Windows' cl.exe, no effect here (as nvcc on Linux)", accept_flag },
	{ "-force-cl-env-setup", "--force-cl-env-setup", FLAG, NULL, "accepted: for Windows' cl.exe, no effect here (as nvcc on Linux)", accept_flag },
	{ "-idp", "--input-drive-prefix", VALUE, "PREFIX", "accepted: for Windows paths, no effect here (as nvcc on Linux)", accept_value },
	{ "-ddp", "--dependency-drive-prefix", VALUE, "PREFIX", "accepted: for Windows paths, no effect here (as nvcc on Linux)", accept_value },
	{ "-dp", "--drive-prefix", VALUE, "PREFIX", "accepted: for Windows paths, no effect here (as nvcc on Linux)", accept_value },
	{ "--no-align-double", NULL, FLAG, NULL, "accepted: no -malign-double for the host (nvcc-lite passes none)", accept_flag },
	{ "-qpp-config", "--qpp-config", VALUE, "CONFIG", "not supported: QNX's host compiler", NULL },
	{ "-astoolspatch", "--compile-as-tools-patch", FLAG, NULL, "not supported: CUDA tools' patch code", NULL },
	{ "-h", "--help", FLAG, NULL, "print this help and exit", set_help },
	{ "-V", "--version", FLAG, NULL, "print the version and exit", set_version },
	/* short names that prefix others' (-lineinfo, -lib, -Ofc, -Ddp): -xVALUE is tried last */
	{ "-O", "--optimize", JOINED_OR_VALUE, "N", "optimization level 0-3: runs nvopt<ON> (default 3), and the host's -ON", set_olevel },
	{ "-I", "--include-path", JOINED_OR_VALUE, "DIR,...", "add DIR to the include search path", add_I, LIST },
	{ "-D", "--define-macro", JOINED_OR_VALUE, "NAME[=V],...", "define a preprocessor macro", add_D, LIST },
	{ "-U", "--undefine-macro", JOINED_OR_VALUE, "NAME,...", "undefine a preprocessor macro", add_U, LIST },
	{ "-l", "--library", JOINED_OR_VALUE, "LIB,...", "link library LIB", add_l, LIST },
	{ "-L", "--library-path", JOINED_OR_VALUE, "DIR,...", "search DIR for libraries (and nvlink for device libraries)", add_L, LIST },
	{ NULL, NULL, FLAG, NULL, NULL, NULL, 0 },
};

/*
 * --version: nvcc-lite's own line, then nvcc's two lines for the CUDA it
 * compiles against: build tools name the compiler from them (CMake's
 * "nvcc: NVIDIA (R) Cuda compiler driver" and "V13.0.88", the toolkit's
 * version; ccache's and sccache's nvcc support key on the release).
 */
void
nv_drv_print_version(const char *own)
{
	printf("nvcc-lite %s (LLVM 22 NVPTX)\n", own);
	if (nv_cuda_find(&nv_drv_cuda))
		return;
	nv_cuda_nvcc_version(&nv_drv_cuda);
	printf("nvcc: NVIDIA (R) Cuda compiler driver, as nvcc-lite takes its command lines\n"
	       "Cuda compilation tools, release %d.%d, V%d.%d.%d (%s)\n",
	       nv_drv_cuda.nvcc[0], nv_drv_cuda.nvcc[1], nv_drv_cuda.nvcc[0], nv_drv_cuda.nvcc[1],
	       nv_drv_cuda.nvcc[2], nv_drv_cuda.root);
}

void
nv_drv_help(void)
{
	printf("usage: nvcc-lite [options] file.cu|.cpp|.c|.o|.a|.so|.bc|.ll ...\n\n"
	       "Compiles CUDA programs as nvcc does, the device code through the nv-* stages.\n"
	       "Every option of nvcc 13.0 is listed; the ones nvcc-lite cannot honour say so.\n\n"
	       "Options:\n");
	for (const struct flag *f = flags; f->name; f++) {
		char lhs[160];
		const char *m = f->kind == FLAG ? "" : f->meta;

		snprintf(lhs, sizeof(lhs), "%s%s%s%s%s%s%s", f->name, *m ? " " : "", m, f->alias ? ", " : "",
		         f->alias ? f->alias : "", f->alias && *m ? " " : "", f->alias ? m : "");
		/* the names alone on their line when long, as nvcc's --help */
		if (strlen(lhs) > 36)
			printf("  %s\n  %-36s %s\n", lhs, "", f->help);
		else
			printf("  %-36s %s\n", lhs, f->help);
	}
	printf("\nGPU architectures: %s\n", nv_target_arch_list());
}

static void
apply(const struct flag *f, const char *v)
{
	char *copy, *save = NULL;

	if (!f->set)
		nv_usage_error("%s (%s): %s", f->name, f->alias ? f->alias : f->name, f->help);
	if (!f->list) {
		f->set(v);
		return;
	}
	copy = xstrdup(v); /* the parts stay: flags keep pointers */
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		f->set(t);
}

/* Match argv[*i] against f's names exactly: "-x", "-x=V", "-x V" (and the
 * same of the long name).  The joined "-xV" is join()'s. */
static int
take(const struct flag *f, int argc, char **argv, int *i)
{
	const char *a = argv[*i];

	for (int alias = 0; alias < 2; alias++) {
		const char *n = alias ? f->alias : f->name;
		size_t len = n ? strlen(n) : 0;

		if (!n || strncmp(a, n, len))
			continue;
		if (f->kind == FLAG) {
			if (a[len])
				continue;
			apply(f, NULL);
			return 1;
		}
		if (a[len] == '=') {
			apply(f, a + len + 1);
			return 1;
		}
		if (a[len])
			continue;
		if (*i + 1 >= argc)
			nv_usage_error("option '%s' needs a value", a);
		apply(f, argv[++*i]);
		return 1;
	}
	return 0;
}

/* "-xV": a short name that takes its value joined, tried after every
 * exact name so that -lto, -ldir and -Ofc are never -l to, -l dir, -O fc. */
static int
join(const struct flag *f, const char *a)
{
	size_t len = strlen(f->name);

	if (f->kind != JOINED_OR_VALUE || strncmp(a, f->name, len) || !a[len])
		return 0;
	apply(f, a + len);
	return 1;
}

/* The flag a mistyped one most likely meant: close in spelling for its
 * length (no '-o' for '-c'), else none. */
static const char *
suggest(const char *name)
{
	const char *best = NULL;
	size_t len = strlen(name), third = (len + 1) / 3, bestd = (len < 2 + third ? len - 2 : third) + 1;

	for (const struct flag *f = flags; f->name; f++)
		for (int alias = 0; alias < 2; alias++) {
			const char *n = alias ? f->alias : f->name;
			size_t d = n ? nv_edit_distance(name, n, bestd) : bestd;

			if (d < bestd) {
				bestd = d;
				best = f->name;
			}
		}
	return best;
}

static void
unknown_flag(const char *a)
{
	const char *eq = strchr(a, '=');
	char *name = eq ? xasprintf("%.*s", (int)(eq - a), a) : xstrdup(a);
	const char *best;

	if (nv_drv.forward_unknown || nv_drv.forward_linker) {
		if (nv_drv.forward_unknown)
			nv_strv_push(&nv_drv.host, a);
		if (nv_drv.forward_linker)
			nv_strv_push(&nv_drv.link_extra, a);
		free(name);
		return;
	}
	best = suggest(name);
	if (best) {
		const struct flag *f = flags;

		while (strcmp(f->name, best))
			f++;
		nv_usage_error("unknown option '%s'; did you mean '%s%s'?", a, best,
		               eq && f->kind != FLAG ? eq : "");
	}
	nv_usage_error("unknown option '%s' (see 'nvcc-lite --help')", a);
}

static void parse(int argc, char **argv, int depth);

/* --options-file FILE: its words are options, parsed where it stands. */
static void
options_file(const char *path, int depth)
{
	FILE *fp = fopen(path, "r");
	struct nv_strv words = { 0 };
	char *text = NULL;
	size_t cap = 0, len = 0, got;

	if (depth > 8)
		nv_usage_error("options file '%s' includes itself", path);
	if (!fp)
		nv_usage_error("cannot read options file '%s': %s", path, strerror(errno));
	nv_strv_push(&nv_drv.optf, path);
	do {
		text = xrealloc(text, cap += 4096);
		got = fread(text + len, 1, cap - len - 1, fp);
		len += got;
	} while (got);
	text[len] = '\0';
	fclose(fp);
	nv_strv_push(&words, "options-file");
	nv_cuda_split_words(text, &words);
	free(text);
	parse((int)words.n, words.v, depth + 1); /* the words stay: flags keep pointers */
}

static void
parse(int argc, char **argv, int depth)
{
	for (int i = 1; i < argc; i++) {
		const struct flag *f;

		if (argv[i][0] != '-' || !argv[i][1]) {
			nv_strv_push(&nv_drv.inputs, argv[i]);
			continue;
		}
		optf_depth = depth;
		for (f = flags; f->name && !take(f, argc, argv, &i); f++)
			;
		for (const struct flag *g = flags; !f->name && g->name; g++)
			if (join(g, argv[i]))
				f = g;
		if (!f->name)
			unknown_flag(argv[i]);
	}
}

/* -pass-remarks=, -pass-remarks-missed= and -pass-remarks-analysis= in
 * -Xcicc go to every stage: each prints its own remarks. */
int
nv_drv_remark_flag(const char *a)
{
	return !strncmp(a, "-pass-remarks=", 14) || !strncmp(a, "-pass-remarks-missed=", 21) ||
	       !strncmp(a, "-pass-remarks-analysis=", 23);
}

/* The knobs given with -Xcicc, checked and routed to their stages.  cicc's
 * --Xopt / --Xllc markers are accepted and ignored: the table knows. */
static void
check_knobs(void)
{
	for (size_t i = 0; i < nv_drv.xcicc.n; i++) {
		const char *a = nv_drv.xcicc.v[i], *eq;
		char *name, *why;
		int id;

		if (!strcmp(a, "--Xopt") || !strcmp(a, "--Xllc") || nv_drv_remark_flag(a))
			continue;
		if (a[0] != '-')
			nv_usage_error("-Xcicc '%s': expected a knob, -name=value", a);
		eq = strchr(a, '=');
		name = eq ? xasprintf("%.*s", (int)(eq - a - 1), a + 1) : xstrdup(a + 1);
		id = nv_knob_find(name);
		if (id < 0) {
			const char *best = NULL;
			size_t bestd = 4;

			for (int k = 0; k < NV_KNOB_COUNT; k++) {
				size_t d = nv_edit_distance(name, nv_knobs[k].name, 3);

				if (d < bestd)
					bestd = d, best = nv_knobs[k].name;
			}
			if (best)
				nv_usage_error("unknown knob '%s' in -Xcicc; did you mean '-%s%s'?", a, best,
				               eq ? eq : "");
			nv_usage_error("unknown knob '%s' in -Xcicc", a);
		}
		/* a bad value is one line here, not one from each stage it reaches */
		if ((why = nv_knob_take(id, a, eq ? eq + 1 : NULL)))
			nv_usage_error("%s", why);
		free(name);
	}
}

/* -arch=native: the GPU of this machine, through the CUDA driver as nvcc
 * asks it; NULL when there is none. */
static char *
native_arch(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int (*init)(unsigned), (*count)(int *), (*attr)(int *, int, int);
	int n = 0, major = 0, minor = 0;
	char *name = NULL;

	if (!h)
		return NULL;
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&count = dlsym(h, "cuDeviceGetCount");
	*(void **)&attr = dlsym(h, "cuDeviceGetAttribute");
	/* 75, 76: CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, _MINOR */
	if (init && count && attr && !init(0) && !count(&n) && n > 0 && !attr(&major, 75, 0) &&
	    !attr(&minor, 76, 0))
		name = xasprintf("sm_%d%d", major, minor);
	dlclose(h);
	return name;
}

/* The build's targets from -arch, -code and -gencode, as nvcc reads them
 * (-arch=native: this machine's GPU); a device compile alone (-ptx,
 * -cubin, -emit-llvm) holds one, and nv_drv.arch is its GPU. */
static void
resolve_targets(void)
{
	static const char *const kind[] = { [NV_OUT_PTX] = "-ptx", [NV_OUT_CUBIN] = "-cubin",
		                            [NV_OUT_LLVM] = "-emit-llvm" };
	struct nv_gencodes *t = &nv_drv.targets;
	const char *arch = nv_drv.arch;

	if (arch && !strcmp(arch, "native")) {
		char *a = native_arch();

		if (!a || !nv_target_arch(a)) {
			nv_warn("cannot find a valid GPU for '-arch=native': the default arch %s is used",
			        NV_DEFAULT_ARCH);
			a = xstrdup(NV_DEFAULT_ARCH);
		}
		arch = a;
	}
	if (!arch && nv_drv.code && !nv_drv.gencode.n) {
		/* -code alone: its first code's virtual architecture */
		char *first = xasprintf("%.*s", (int)strcspn(nv_drv.code, ","), nv_drv.code + (*nv_drv.code == '['));

		arch = first;
	}
	for (size_t i = 0; i < nv_drv.gencode.n; i++)
		nv_gencode_add_spec(t, nv_drv.gencode.v[i]);
	if (arch || !nv_drv.gencode.n)
		nv_gencode_add_arch(t, arch ? arch : NV_DEFAULT_ARCH, nv_drv.code);
	nv_drv.arch = t->v[0].gpu;
	if (nv_drv.out > NV_OUT_LLVM)
		return;
	if (t->n > 1)
		nv_usage_error("%s writes the code of one virtual architecture; -arch and -gencode give %zu "
		               "(use -fatbin or -c for several)", kind[nv_drv.out], t->n);
	if (nv_drv.out == NV_OUT_CUBIN && t->v[0].nreal > 1)
		nv_usage_error("-cubin writes the code of one GPU; -code gives %zu (use -fatbin or -c for "
		               "several)", t->v[0].nreal);
	if (nv_drv.out == NV_OUT_CUBIN && t->v[0].nreal == 1)
		nv_drv.arch = t->v[0].real[0];
}

enum nv_pipe_id
nv_drv_pipe(void)
{
	return nv_drv.fc >= 0 ? (enum nv_pipe_id)nv_drv.fc : (enum nv_pipe_id)nv_drv.olevel;
}

void
nv_drv_deps(const char *out, struct nv_deps *d)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');

	d->file = nv_drv.dep_file;
	if (!d->file)
		d->file = dot && (!slash || dot > slash) ? xasprintf("%.*s.d", (int)(dot - out), out)
		                                         : xasprintf("%s.d", out);
	d->quote = !nv_drv.dep_target;
	d->target = nv_drv.dep_target ? nv_drv.dep_target : out;
}

void
nv_drv_list_codes(void)
{
	char *list = xstrdup(nv_target_arch_list()), *save = NULL;

	for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save))
		printf("%s%s\n", nv_drv.list_codes == 1 ? "compute_" : "sm_", strchr(t, '_') + 1);
	free(list);
}

void
nv_drv_list_knobs(void)
{
	static const char *const types[] = { "bool", "int", "string" };

	for (int k = 0; k < NV_KNOB_COUNT; k++)
		printf("%s\t%s\t%s\t%s\t%s\n", nv_knobs[k].name, nv_stage_name(nv_knobs[k].stages),
		       types[nv_knobs[k].type], nv_knobs[k].def, nv_knobs[k].help);
}

/* A closed or full standard output is an error, said (sbase's fshut). */
int
nv_drv_flush_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	nv_error("cannot write to standard output:");
	return -1;
}

void
nv_drv_parse(int argc, char **argv)
{
	/* nvcc's -forward-unknown-* hold for the whole command line */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i] + (argv[i][0] == '-' && argv[i][1] == '-');

		if (!strcmp(a, "-forward-unknown-to-host-compiler"))
			nv_drv.forward_unknown = 1;
		else if (!strcmp(a, "-forward-unknown-to-host-linker"))
			nv_drv.forward_linker = 1;
		else if (!strcmp(a, "-forward-unknown-opts"))
			nv_drv.forward_unknown = nv_drv.forward_linker = 1;
	}
	parse(argc, argv, 0);
}

/* -v: the CUDA installation as nvcc -v shows it, in its "#$ NAME=VALUE"
 * lines (what build tools read from nvcc: CMake takes TOP, the libdevice
 * directory and the LIBRARIES the link line carries). */
static void
show_cuda(void)
{
	char *lib = nv_cuda_lib_dir(&nv_drv_cuda);

	if (!nv_drv_cuda.incs.n)
		nv_cuda_read_profile(&nv_drv_cuda);
	fprintf(stderr, "#$ TOP=%s\n#$ NVVMIR_LIBRARY_DIR=%s/nvvm/libdevice\n", nv_drv_cuda.root,
	        nv_drv_cuda.root);
	/* the -I directories, then the -isystem ones, each on nvcc's line
	 * (CMake takes every word of INCLUDES for a directory) */
	for (int sys = 0; sys < 2; sys++) {
		const char *sep = "";

		fprintf(stderr, "#$ %sINCLUDES=", sys ? "SYSTEM_" : "");
		for (size_t i = 0; i < nv_drv_cuda.incs.n; i++) {
			const char *w = nv_drv_cuda.incs.v[i];
			int is_sys = !strcmp(w, "-isystem") && i + 1 < nv_drv_cuda.incs.n;

			if (is_sys == sys)
				fprintf(stderr, "%s%s", sep, nv_shell_quote(w));
			if (is_sys && sys)
				fprintf(stderr, " %s", nv_shell_quote(nv_drv_cuda.incs.v[i + 1]));
			if (is_sys == sys)
				sep = " ";
			i += is_sys;
		}
		fputc('\n', stderr);
	}
	fprintf(stderr, "#$ LIBRARIES=%s", nv_shell_quote(xasprintf("-L%s/stubs", lib)));
	fprintf(stderr, " %s\n", nv_shell_quote(xasprintf("-L%s", lib)));
	free(lib);
}

void
nv_drv_finish(void)
{
	resolve_targets();
	if (nv_drv.fast_math) {
		/* nvcc: --use_fast_math -> -ftz=1 -prec_div=0 -prec_sqrt=0 -fmad=1 -fast-math */
		nv_drv.ftz = nv_drv.ftz < 0 ? 1 : nv_drv.ftz;
		nv_drv.prec_div = nv_drv.prec_div < 0 ? 0 : nv_drv.prec_div;
		nv_drv.prec_sqrt = nv_drv.prec_sqrt < 0 ? 0 : nv_drv.prec_sqrt;
	}
	if (nv_drv.device_debug && !nv_drv.dopt_on) {
		/* nvcc -G: device code unoptimized, whatever -O says (that is for the host) */
		nv_drv.olevel = 0;
		nv_drv.fc = -1;
	}
	if (nv_drv.shared)
		nv_strv_push(&nv_drv.host, "-fPIC"); /* as nvcc adds it */
	if (nv_drv.res_usage) {
		/* ptxas runs for a cubin, and for the cubins of a fatbin, object or program */
		if (nv_drv.out == NV_OUT_CUBIN ||
		    (nv_drv.out >= NV_OUT_FATBIN && nv_drv.out <= NV_OUT_EXE && nv_gencode_nreal(&nv_drv.targets)))
			nv_strv_push(&nv_drv.xptxas, "-v");
		else
			nv_warn("resource usage is not shown as the final resource allocation is not done "
			        "(it is with -cubin)");
	}
	if (nv_drv.explain && (nv_drv.out == NV_OUT_LLVM || nv_drv.out == NV_OUT_DEPS || nv_drv.out == NV_OUT_PREPROC))
		nv_usage_error("--explain explains PTX: give -ptx, -cubin, -fatbin, -c or a link, not %s",
		               nv_drv.out == NV_OUT_LLVM ? "-emit-llvm" : nv_drv.out == NV_OUT_DEPS ? "-M" : "-E");
	if (nv_drv.explain && nv_drv.device_debug)
		nv_usage_error("--explain explains optimized code: not with -G");
	if (nv_drv.decisions) /* read once here: a bad file is one error, before any stage */
		nv_decisions_init(NULL, nv_drv.decisions);
	check_knobs();
	nv_drv_have_cuda = nv_cuda_find(&nv_drv_cuda) == 0;
	if (nv_drv.verbose && nv_drv_have_cuda)
		show_cuda();
}
