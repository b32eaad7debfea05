/*
 * The programs as one binary: bin/nvcc-lite, with bin/nv-* links to it.
 * Each cmd/PROG.c is compiled with its main() renamed nv_main_PROG (- as _),
 * and this main() runs the one its name says; any other name is the driver
 * (a link named nvcc runs nvcc-lite).  One static binary loads LLVM once per
 * process at a third of what libLLVM.so costs to load and relocate, and a
 * build starts a dozen of them per source file.
 *
 * programs.def is written by the Makefile, a line per program in cmd/: NV_PROGRAM(FN, "NAME").
 */
#include <string.h>

#define NV_PROGRAM(fn, name) int fn(int argc, char **argv);
#include "programs.def"
#undef NV_PROGRAM

static const struct program {
	const char *name;
	int (*main)(int argc, char **argv);
} programs[] = {
#define NV_PROGRAM(fn, name) { name, fn },
#include "programs.def"
#undef NV_PROGRAM
};

int
main(int argc, char **argv)
{
	const char *name = argc > 0 ? strrchr(argv[0], '/') : NULL;

	name = name ? name + 1 : argc > 0 ? argv[0] : "";
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++)
		if (!strcmp(name, programs[i].name))
			return programs[i].main(argc, argv);
	return nv_main_nvcc_lite(argc, argv);
}
