#include "remarks.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Support.h>

#include "diag.h"
#include "io.h"
#include "util.h"

static struct {
	regex_t re[3];
	int on[3];
	char *yaml_path;
	char *yaml;
	size_t yaml_len;
	FILE *yaml_fp;
} rm;

/* LLVM's own passes (nv-opt's pipelines, the backend) filter their remarks
 * with LLVM's options of the same names. */
static void
forward_to_llvm(const char *const pat[3])
{
	static const char *const opt[] = { "-pass-remarks=", "-pass-remarks-missed=",
		                           "-pass-remarks-analysis=" };
	struct nv_strv av = { 0 };

	nv_strv_push(&av, nv_progname());
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
				nv_diag_llvm_remarks_wanted(1);
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
			nv_diag_remark("%s%s [%s=%s]", loc, msg, kind_flag[kind], pass);
		else if (*fn)
			nv_diag_remark("in function '%s': %s [%s=%s]", fn, msg, kind_flag[kind], pass);
		else
			nv_diag_remark("%s [%s=%s]", msg, kind_flag[kind], pass);
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

void
nv_srcloc_of(LLVMValueRef i, struct nv_srcloc *loc)
{
	LLVMMetadataRef md = LLVMInstructionGetDebugLoc(i), file;
	unsigned len = 0;

	memset(loc, 0, sizeof(*loc));
	if (!md || LLVMGetMetadataKind(md) != LLVMDILocationMetadataKind)
		return;
	file = LLVMDIScopeGetFile(LLVMDILocationGetScope(md));
	if (file) {
		loc->file = LLVMDIFileGetFilename(file, &len);
		loc->len = len;
	}
	loc->line = LLVMDILocationGetLine(md);
	loc->col = LLVMDILocationGetColumn(md);
}

void
nv_srcloc_of_function(LLVMValueRef f, struct nv_srcloc *loc)
{
	LLVMMetadataRef sp = LLVMGetSubprogram(f), file;
	unsigned len = 0;

	memset(loc, 0, sizeof(*loc));
	if (!sp)
		return;
	file = LLVMDIScopeGetFile(sp);
	if (file) {
		loc->file = LLVMDIFileGetFilename(file, &len);
		loc->len = len;
	}
	loc->line = LLVMDISubprogramGetLine(sp);
}
