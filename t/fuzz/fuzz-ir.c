/*
 * libFuzzer target: textual IR in, every analysis and nv-reflect over it.
 * Parse errors and invalid modules are fine; a crash, a sanitizer report,
 * inconsistent liveness, or a module that nv-reflect leaves invalid is a
 * finding (abort).  Built by `make fuzz`; run with t/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>

#include "cfg.h"
#include "cost.h"
#include "diag.h"
#include "dom.h"
#include "indvars.h"
#include "io.h"
#include "liveness.h"
#include "loops.h"
#include "reflect.h"

static void
analyse(LLVMModuleRef m)
{
	LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);

	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		struct nv_cfg g;
		struct nv_dom d, pd;
		struct nv_loops ls;
		struct nv_liveness lv;
		size_t need;
		unsigned bad;

		if (LLVMIsDeclaration(f))
			continue;
		nv_cfg_build(&g, f);
		nv_dom_build(&d, &g, 0);
		nv_dom_build(&pd, &g, 1);
		nv_loops_build(&ls, &g, &d);
		for (unsigned l = 0; l < ls.n; l++) {
			struct nv_trip t;

			nv_trip_count(&ls, l, &t);
			nv_loop_is_simplified(&ls, l);
			nv_loop_is_lcssa(&ls, l);
			(void)nv_cost_loop(&ls, l);
		}
		if (nv_liveness_build(&lv, &g, td, &need) == 0 && nv_liveness_check(&lv, &bad))
			abort(); /* the dataflow equations do not hold */
		nv_liveness_release(&lv);
		nv_loops_release(&ls);
		nv_dom_release(&pd);
		nv_dom_release(&d);
		nv_cfg_release(&g);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	LLVMMemoryBufferRef mb;
	char *msg = NULL;

	if (!ready) {
		nv_diag_init("fuzz-ir");
		ready = 1;
	}
	/* LLVM's text parser reads past some malformed inline-asm constraints
	 * (t/fixtures/crash-parser-asm.ll): the stages guard their reads with a
	 * probe process, and here it would only hide findings in our code. */
	if (memchr(data, 0, size) || memmem(data, size, "asm", 3))
		return 0;
	ctx = LLVMContextCreate();
	nv_diag_attach(ctx);
	mb = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)data, size, "fuzz");
	if (LLVMParseIRInContext(ctx, mb, &m, &msg)) {
		LLVMDisposeMessage(msg);
		LLVMContextDispose(ctx);
		return 0;
	}
	if (nv_io_verify(m, "input") == 0) {
		struct nv_reflect r = { .ftz = -1, .arch = 900, .prec_div = 1, .prec_sqrt = 1 };

		analyse(m);
		if (nv_reflect_module(m, &r) == 0) {
			if (nv_io_verify(m, "module after nv-reflect"))
				abort(); /* nv-reflect broke a valid module */
			analyse(m);
		}
	}
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	return 0;
}
