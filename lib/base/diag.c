#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Support.h>

#include "io.h"
#include "util.h"

static const char *progname = "nv";
static int said; /* an error was printed, or another program reports it */
static char *outputs[8];
static char *llvm_err;

/* Every message is one write(2) of a whole line: a stage stopped by a
 * signal, or stages sharing a terminal, never leave half a line. */
static void
emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
emit(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	for (char *p = buf; n > 0;) {
		ssize_t w = write(2, p, (size_t)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (int)w;
	}
}

static void
vmsg(const char *sev, const char *fmt, va_list ap)
{
	size_t n = strlen(fmt);
	int err = errno;
	char msg[3072];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	said |= !strcmp(sev, "error");
	emit("%s: %s: %s%s%s\n", progname, sev, msg, n && fmt[n - 1] == ':' ? " " : "",
	     n && fmt[n - 1] == ':' ? strerror(err) : "");
}

const char *
nv_progname(void)
{
	return progname;
}

void
nv_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

void
nv_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

void
nv_warn_fn(LLVMValueRef fn, const char *fmt, ...)
{
	va_list ap;
	size_t len;
	char msg[3072];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit("%s: warning: in function '%s': %s\n", progname, LLVMGetValueName2(fn, &len), msg);
}

static void
remove_outputs(void)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (outputs[i])
			unlink(outputs[i]);
}

void
nv_diag_reported_elsewhere(void)
{
	said = 1;
}

void
nv_exit(int status)
{
	/* nvcc-lite trusts exit 1 and 2 to come with a reason: never silent */
	if (status && !said)
		emit("%s: error: failed with exit status %d and no other message\n", progname, status);
	remove_outputs();
	if (fflush(stderr))
		status = status ? status : NV_EXIT_ERROR;
	exit(status);
}

void
nv_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	nv_exit(NV_EXIT_ERROR);
}

void
nv_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	nv_exit(NV_EXIT_USAGE);
}

void
nv_register_output(const char *path)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (!outputs[i]) {
			outputs[i] = xstrdup(path);
			return;
		}
	nv_fatal("too many outputs in flight");
}

void
nv_forget_output(const char *path)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (outputs[i] && !strcmp(outputs[i], path)) {
			free(outputs[i]);
			outputs[i] = NULL;
		}
}

static void (*signal_hook)(void);

void
nv_diag_on_signal(void (*fn)(void))
{
	signal_hook = fn;
}

static void
on_signal(int sig)
{
	/* Only async-signal-safe calls: kill (in the hook), unlink, signal, raise. */
	if (signal_hook)
		signal_hook();
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (outputs[i])
			unlink(outputs[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* LLVM's reason can be a DAG dump: keep its first line and the function. */
static void
on_llvm_fatal(const char *reason)
{
	const char *fn = strstr(reason, "\nIn function: ");
	int n = (int)strcspn(reason, "\n");

	if (fn)
		emit("%s: error: LLVM: %.*s (in function '%.*s')\n", progname, n, reason,
		        (int)strcspn(fn + 14, "\n"), fn + 14);
	else
		emit("%s: error: LLVM: %.*s\n", progname, n, reason);
	remove_outputs();
	_exit(NV_EXIT_ERROR);
}

void
nv_diag_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	progname = slash ? slash + 1 : argv0;
	/* A closed standard fd must stay unusable, or the next open() would
	 * take its number and output could land in an input file. */
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
			int nfd = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);

			if (nfd >= 0 && nfd != fd) {
				dup2(nfd, fd);
				close(nfd);
			}
		}
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (signal(sigs[i], SIG_IGN) != SIG_IGN)
			signal(sigs[i], on_signal);
	LLVMInstallFatalErrorHandler(on_llvm_fatal);
}

/* Remarks. */

static struct {
	regex_t re[3];
	int on[3];
	char *yaml_path;
	char *yaml;
	size_t yaml_len;
	FILE *yaml_fp;
	int llvm_quiet; /* LLVM's own remarks are not shown */
	int llvm_wanted; /* some pattern names an LLVM pass */
} rm;

void
nv_diag_llvm_remarks(int on)
{
	rm.llvm_quiet = !on;
}

static void
on_llvm_diag(LLVMDiagnosticInfoRef di, void *ctx)
{
	char *desc = LLVMGetDiagInfoDescription(di);

	(void)ctx;
	switch (LLVMGetDiagInfoSeverity(di)) {
	case LLVMDSError:
		free(llvm_err);
		llvm_err = xstrdup(desc);
		break;
	case LLVMDSWarning:
		emit("%s: warning: %s\n", progname, desc);
		break;
	case LLVMDSRemark:
		/* The C API hands us every remark, unfiltered and without its
		 * pass name: shown when some pattern names an LLVM pass. */
		if (rm.llvm_wanted && !rm.llvm_quiet)
			emit("%s: remark: %s\n", progname,
			        strncmp(desc, "<unknown>:0:0: ", 15) ? desc : desc + 15);
		break;
	case LLVMDSNote:
		break;
	}
	LLVMDisposeMessage(desc);
}

void
nv_diag_attach(LLVMContextRef ctx)
{
	LLVMContextSetDiagnosticHandler(ctx, on_llvm_diag, NULL);
}

char *
nv_llvm_error(void)
{
	char *e = llvm_err;

	llvm_err = NULL;
	return e;
}

/* LLVM's own passes (nv-opt's pipelines, the backend) filter their remarks
 * with LLVM's options of the same names. */
static void
forward_to_llvm(const char *const pat[3])
{
	static const char *const opt[] = { "-pass-remarks=", "-pass-remarks-missed=",
		                           "-pass-remarks-analysis=" };
	struct nv_strv av = { 0 };

	nv_strv_push(&av, progname);
	for (int k = 0; k < 3; k++)
		if (pat[k])
			nv_strv_pushf(&av, "%s%s", opt[k], pat[k]);
	if (av.n > 1)
		LLVMParseCommandLineOptions((int)av.n, (const char *const *)av.v, NULL);
	nv_strv_free(&av);
}

/* The LLVM passes (by remark name) that report in nv-opt's and nv-llc's
 * pipelines; a -pass-remarks* pattern matching none of them (nv-unroll,
 * say) keeps LLVM's remarks out. */
static const char *const llvm_remark_passes[] = {
	"inline", "loop-vectorize", "slp-vectorizer", "gvn", "licm", "tailcallelim", "loop-unroll",
	"loop-idiom", "loop-delete", "loop-distribute", "loop-interchange", "loop-load-elim",
	"loop-unroll-and-jam", "memcpyopt", "sroa", "instcombine", "simplifycfg", "asm-printer",
	"regalloc", "prologepilog", "size-info", "annotation-remarks", "stack-protector",
};

static const char *const kind_tag[] = { "Passed", "Missed", "Analysis" };
static const char *const kind_flag[] = { "-pass-remarks", "-pass-remarks-missed",
	                                 "-pass-remarks-analysis" };

int
nv_remarks_setup(const char *passed, const char *missed, const char *analysis,
                 const char *yaml_path)
{
	const char *pat[3] = { passed, missed, analysis };

	for (int k = 0; k < 3; k++) {
		int rc;
		char buf[256];

		if (!pat[k])
			continue;
		rc = regcomp(&rm.re[k], pat[k], REG_EXTENDED | REG_NOSUB);
		if (rc) {
			regerror(rc, &rm.re[k], buf, sizeof(buf));
			nv_error("invalid regular expression '%s' for %s: %s", pat[k], kind_flag[k],
			         buf);
			return -1;
		}
		rm.on[k] = 1;
		for (size_t i = 0; i < sizeof(llvm_remark_passes) / sizeof(*llvm_remark_passes); i++)
			if (regexec(&rm.re[k], llvm_remark_passes[i], 0, NULL, 0) == 0)
				rm.llvm_wanted = 1;
	}
	forward_to_llvm(pat);
	if (yaml_path) {
		/* a file that cannot be written is refused now, before any work or output */
		if (nv_io_check_output(yaml_path))
			return -1;
		rm.yaml_path = xstrdup(yaml_path);
		rm.yaml_fp = open_memstream(&rm.yaml, &rm.yaml_len);
		if (!rm.yaml_fp)
			nv_fatal("open_memstream:");
	}
	return 0;
}

int
nv_remark_enabled(enum nv_remark_kind kind, const char *pass)
{
	if (rm.yaml_fp)
		return 1;
	return rm.on[kind] && regexec(&rm.re[kind], pass, 0, NULL, 0) == 0;
}

static void
yaml_quoted(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', fp);
		if (*s == '\n')
			fputs("\\n", fp);
		else
			fputc(*s, fp);
	}
	fputc('\'', fp);
}

static void
vremark(enum nv_remark_kind kind, const char *pass, const char *name, LLVMValueRef at,
        const struct nv_srcloc *src, const char *fmt, va_list ap)
{
	char msg[1024], loc[512] = "";
	const char *fn = "";
	const char *file = NULL;
	unsigned line = 0, col = 0, len = 0;
	size_t fnlen;
	LLVMValueRef f = NULL;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (src && src->line && src->len) {
		file = src->file;
		len = (unsigned)src->len;
		line = src->line;
		col = src->col;
		snprintf(loc, sizeof(loc), "%.*s:%u:%u: ", (int)len, file, line, col);
	}
	if (at) {
		if (LLVMIsAFunction(at))
			f = at;
		else if (LLVMIsAInstruction(at))
			f = LLVMGetBasicBlockParent(LLVMGetInstructionParent(at));
		if (f)
			fn = LLVMGetValueName2(f, &fnlen);
		if (!*loc && (LLVMIsAInstruction(at) || LLVMIsAFunction(at))) {
			file = LLVMGetDebugLocFilename(at, &len);
			line = LLVMGetDebugLocLine(at);
			if (LLVMIsAInstruction(at))
				col = LLVMGetDebugLocColumn(at);
		}
		if (file && len && line)
			snprintf(loc, sizeof(loc), "%.*s:%u:%u: ", (int)len, file, line, col);
	}
	if (rm.on[kind] && regexec(&rm.re[kind], pass, 0, NULL, 0) == 0) {
		if (*loc)
			emit("%s: remark: %s%s [%s=%s]\n", progname, loc, msg,
			        kind_flag[kind], pass);
		else if (*fn)
			emit("%s: remark: in function '%s': %s [%s=%s]\n", progname, fn,
			        msg, kind_flag[kind], pass);
		else
			emit("%s: remark: %s [%s=%s]\n", progname, msg, kind_flag[kind],
			        pass);
	}
	if (!rm.yaml_fp)
		return;
	fprintf(rm.yaml_fp, "--- !%s\nPass:            %s\nName:            %s\n", kind_tag[kind],
	        pass, name);
	if (file && len && line) {
		char *fname = xasprintf("%.*s", (int)len, file);

		fputs("DebugLoc:        { File: ", rm.yaml_fp);
		yaml_quoted(rm.yaml_fp, fname);
		fprintf(rm.yaml_fp, ", Line: %u, Column: %u }\n", line, col);
		free(fname);
	}
	fputs("Function:        ", rm.yaml_fp);
	yaml_quoted(rm.yaml_fp, *fn ? fn : "<module>");
	fputs("\nArgs:\n  - String:          ", rm.yaml_fp);
	yaml_quoted(rm.yaml_fp, msg);
	fputs("\n...\n", rm.yaml_fp);
}

void
nv_remark(enum nv_remark_kind kind, const char *pass, const char *name, LLVMValueRef at,
          const char *fmt, ...)
{
	va_list ap;

	if (!nv_remark_enabled(kind, pass))
		return;
	va_start(ap, fmt);
	vremark(kind, pass, name, at, NULL, fmt, ap);
	va_end(ap);
}

void
nv_remark_loc(enum nv_remark_kind kind, const char *pass, const char *name, LLVMValueRef at,
              const struct nv_srcloc *loc, const char *fmt, ...)
{
	va_list ap;

	if (!nv_remark_enabled(kind, pass))
		return;
	va_start(ap, fmt);
	vremark(kind, pass, name, at, loc, fmt, ap);
	va_end(ap);
}

int
nv_remarks_finish(void)
{
	char *tmp;
	FILE *fp = NULL;
	mode_t um = umask(0);
	int ok, fd;

	umask(um);
	if (!rm.yaml_fp)
		return 0;
	fclose(rm.yaml_fp);
	rm.yaml_fp = NULL;
	/* a file no one else can have made first, renamed into place */
	tmp = xasprintf("%s.tmp-XXXXXX", rm.yaml_path);
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0666 & ~um) || !(fp = fdopen(fd, "w"))) {
		nv_error("cannot open remarks file '%s':", rm.yaml_path);
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return -1;
	}
	nv_register_output(tmp);
	ok = fwrite(rm.yaml, 1, rm.yaml_len, fp) == rm.yaml_len;
	ok = (fclose(fp) == 0) && ok;
	if (!ok || rename(tmp, rm.yaml_path)) {
		nv_error("cannot write remarks file '%s':", rm.yaml_path);
		unlink(tmp);
		ok = 0;
	}
	nv_forget_output(tmp);
	free(tmp);
	free(rm.yaml);
	return ok ? 0 : -1;
}
