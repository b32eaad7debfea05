#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>

#include "../base/diag.h"
#include "../base/util.h"

/* nvcc 13 --list-gpu-arch, with the a/f variants LLVM 22 knows; the PTX
 * ISA is the first that supports each (PTX ISA manual, release notes). */
static const struct nv_arch archs[] = {
	{ "sm_75", 75, 63 },   { "sm_80", 80, 70 },   { "sm_86", 86, 71 },   { "sm_87", 87, 74 },
	{ "sm_88", 88, 90 },   { "sm_89", 89, 78 },   { "sm_90", 90, 78 },   { "sm_90a", 90, 80 },
	{ "sm_100", 100, 86 }, { "sm_100a", 100, 86 }, { "sm_100f", 100, 88 }, { "sm_103", 103, 88 },
	{ "sm_103a", 103, 88 }, { "sm_103f", 103, 88 }, { "sm_110", 110, 90 }, { "sm_110a", 110, 90 },
	{ "sm_110f", 110, 90 }, { "sm_120", 120, 87 }, { "sm_120a", 120, 87 }, { "sm_120f", 120, 88 },
	{ "sm_121", 121, 88 }, { "sm_121a", 121, 88 }, { "sm_121f", 121, 88 },
};
#define NARCH (sizeof(archs) / sizeof(*archs))

const struct nv_arch *
nv_target_arch(const char *name)
{
	if (!strncmp(name, "compute_", 8)) {
		char buf[32];

		snprintf(buf, sizeof(buf), "sm_%s", name + 8);
		return nv_target_arch(buf);
	}
	for (size_t i = 0; i < NARCH; i++)
		if (!strcmp(archs[i].name, name))
			return &archs[i];
	return NULL;
}

const struct nv_arch *
nv_target_arch_or_die(const char *name)
{
	const struct nv_arch *a = nv_target_arch(name);

	if (!a)
		nv_usage_error("unknown GPU architecture '%s'; did you mean '%s'?", name,
		               nv_target_suggest(name));
	return a;
}

const char *
nv_target_suggest(const char *name)
{
	const char *best = NV_DEFAULT_ARCH;
	size_t bestd = (size_t)-1;

	for (size_t i = 0; i < NARCH; i++) {
		size_t d = nv_edit_distance(name, archs[i].name, 8);

		if (d < bestd) {
			bestd = d;
			best = archs[i].name;
		}
	}
	return best;
}

const char *
nv_target_arch_list(void)
{
	static char buf[512];

	if (!*buf)
		for (size_t i = 0; i < NARCH; i++) {
			strcat(buf, archs[i].name);
			if (i + 1 < NARCH)
				strcat(buf, " ");
		}
	return buf;
}

void
nv_target_init(void)
{
	static int done;

	if (done)
		return;
	LLVMInitializeNVPTXTargetInfo();
	LLVMInitializeNVPTXTarget();
	LLVMInitializeNVPTXTargetMC();
	LLVMInitializeNVPTXAsmPrinter();
	done = 1;
}

int
nv_target_short_ptr(LLVMModuleRef m)
{
	return m && strstr(LLVMGetDataLayoutStr(m), "-p3:32:32") != NULL;
}

/* NVPTX reads -nvptx-short-ptr when it makes a target machine. */
static void
use_short_ptr(int on)
{
	static int cur;
	const char *args[] = { "nv", on ? "-nvptx-short-ptr=true" : "-nvptx-short-ptr=false" };

	if (on != cur)
		LLVMParseCommandLineOptions(2, args, NULL);
	cur = on;
}

LLVMTargetMachineRef
nv_target_machine(const struct nv_arch *arch, int olevel, LLVMModuleRef m)
{
	static const LLVMCodeGenOptLevel lv[] = { LLVMCodeGenLevelNone, LLVMCodeGenLevelLess,
		                                  LLVMCodeGenLevelDefault, LLVMCodeGenLevelAggressive };
	LLVMTargetRef t;
	char *err = NULL, feat[16];
	LLVMTargetMachineRef tm;

	nv_target_init();
	if (LLVMGetTargetFromTriple(NV_TRIPLE, &t, &err))
		nv_fatal("no NVPTX target in this LLVM: %s", err);
	snprintf(feat, sizeof(feat), "+ptx%d", arch->ptx);
	use_short_ptr(nv_target_short_ptr(m));
	tm = LLVMCreateTargetMachine(t, NV_TRIPLE, arch->name, feat, lv[olevel], LLVMRelocDefault,
	                             LLVMCodeModelDefault);
	if (!tm)
		nv_fatal("cannot create a target machine for %s", arch->name);
	return tm;
}

int
nv_target_check(LLVMModuleRef m)
{
	const char *triple = LLVMGetTarget(m);

	if (!*triple || !strncmp(triple, "nvptx64-", 8))
		return 0;
	nv_error("module is for target '%s', not " NV_TRIPLE, triple);
	return -1;
}

int
nv_target_adopt(LLVMModuleRef m, LLVMTargetMachineRef tm)
{
	const char *triple = LLVMGetTarget(m);
	const char *dl = LLVMGetDataLayoutStr(m);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	char *want = LLVMCopyStringRepOfTargetData(td);
	int rc = 0;

	if (!*triple)
		LLVMSetTarget(m, NV_TRIPLE);
	else
		rc = nv_target_check(m);
	if (!rc && !*dl)
		LLVMSetDataLayout(m, want);
	else if (!rc && strcmp(dl, want)) {
		nv_error("module data layout '%s' is not the NVPTX layout '%s'", dl, want);
		rc = -1;
	}
	LLVMDisposeMessage(want);
	LLVMDisposeTargetData(td);
	return rc;
}

LLVMTargetMachineRef
nv_target_for_module(LLVMModuleRef m, const char *arch, int olevel)
{
	const struct nv_arch *a;
	char *cpu = NULL;

	if (strncmp(LLVMGetTarget(m), "nvptx64", 7))
		return NULL;
	if (!arch)
		for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !cpu; f = LLVMGetNextFunction(f)) {
			LLVMAttributeRef at = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex,
			                                                    "target-cpu", 10);
			unsigned len;

			if (at)
				cpu = xasprintf("%s", LLVMGetStringAttributeValue(at, &len));
		}
	a = nv_target_arch(arch ? arch : cpu ? cpu : NV_DEFAULT_ARCH);
	free(cpu);
	if (!a)
		a = nv_target_arch(NV_DEFAULT_ARCH);
	return nv_target_machine(a, olevel, m);
}

int
nv_is_kernel(LLVMValueRef fn)
{
	LLVMModuleRef m = LLVMGetGlobalParent(fn);
	unsigned n;

	if (LLVMGetFunctionCallConv(fn) == LLVMPTXKernelCallConv)
		return 1;
	n = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
	if (!n)
		return 0;
	LLVMValueRef *ops = xcalloc(n, sizeof(*ops));
	int found = 0;

	LLVMGetNamedMetadataOperands(m, "nvvm.annotations", ops);
	for (unsigned i = 0; i < n && !found; i++) {
		unsigned k = LLVMGetMDNodeNumOperands(ops[i]);
		LLVMValueRef *v;

		if (k < 3)
			continue;
		v = xcalloc(k, sizeof(*v));
		LLVMGetMDNodeOperands(ops[i], v);
		for (unsigned j = 0; j + 1 < k && !found; j += 2) {
			unsigned len;
			const char *key = v[j + 1] && LLVMIsAMDString(v[j + 1])
			                          ? LLVMGetMDString(v[j + 1], &len)
			                          : NULL;

			found = v[0] == fn && key && len == 6 && !memcmp(key, "kernel", 6);
		}
		free(v);
	}
	free(ops);
	return found;
}

int
nv_target_sm(LLVMTargetMachineRef tm)
{
	const struct nv_arch *a;
	char *cpu;

	if (!tm)
		return 0;
	cpu = LLVMGetTargetMachineCPU(tm);
	a = nv_target_arch(cpu);
	LLVMDisposeMessage(cpu);
	return a ? a->sm : 0;
}
