#!/usr/bin/env bats
# make install: programs, library, headers, libnv.pc, man pages, completions;
# an out-of-tree C program builds against the installed libnv.

load helper

# the tests rewrite lib/libnv.pc in the tree (make install PREFIX=...): one at a time
BATS_NO_PARALLELIZE_WITHIN_FILE=true

setup_file() {
	export DEST="$BATS_FILE_TMPDIR/root" PREFIX=/opt/nvcc-lite
	make -C "$TOP" -s install DESTDIR="$DEST" PREFIX="$PREFIX" >/dev/null
}

@test "make install puts everything under DESTDIR/PREFIX" {
	for f in bin/nvcc-lite bin/nv-opt bin/nv-llc lib/libnv.a lib/pkgconfig/libnv.pc \
		include/nv/base/io.h include/nv/base/knobs.def share/man/man1/nvcc-lite.1 \
		share/nvcc-lite/cuda_shim.h share/nvcc-lite/nvcc-lite.mk \
		share/bash-completion/completions/nvcc-lite \
		share/zsh/site-functions/_nvcc-lite; do
		assert_file_exists "$DEST$PREFIX/$f"
	done
	grep -qx "prefix=$PREFIX" "$DEST$PREFIX/lib/pkgconfig/libnv.pc"
}

@test "the installed nvcc-lite finds its stages and shim beside itself" {
	cd "$BATS_TEST_TMPDIR"
	cp "$FIXTURES/saxpy.cu" k.cu
	run env CUDA_PATH=/nonexistent "$DEST$PREFIX/bin/nvcc-lite" -ptx -arch=sm_90 k.cu -o k.ptx -v
	assert_success
	assert_output --partial "$DEST$PREFIX/bin/nv-llc"
	assert_output --partial "$DEST$PREFIX/bin/../share/nvcc-lite/cuda_shim.h"
	grep -qx '.target sm_90' k.ptx
}

@test "each installed program's name runs that program, and a link named nvcc runs the driver" {
	cd "$BATS_TEST_TMPDIR"
	for p in "$DEST$PREFIX"/bin/nv-*; do
		run "$p" --version
		assert_success
		assert_output --regexp "^$(basename "$p") "
	done
	ln -s "$DEST$PREFIX/bin/nvcc-lite" nvcc
	run ./nvcc --version
	assert_output --regexp '^nvcc-lite '
	# the stages are found beside the real binary, whatever the link is named
	cp "$FIXTURES/saxpy.cu" k.cu
	CUDA_PATH=/nonexistent ./nvcc -ptx -arch=sm_90 k.cu -o k.ptx
	grep -qx '.target sm_90' k.ptx
}

@test "a C program builds against the installed libnv with pkg-config and reads a module" {
	command -v pkg-config >/dev/null || skip "pkg-config is not installed"
	cd "$BATS_TEST_TMPDIR"
	cat >count.c <<'C'
#include <stdio.h>
#include <llvm-c/Core.h>
#include <nv/base/diag.h>
#include <nv/base/io.h>

int
main(int argc, char **argv)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef m;
	int n = 0;

	nv_diag_init(argv[0]);
	if (nv_io_read_module(ctx, argc > 1 ? argv[1] : "-", &m))
		return 1;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		n += !LLVMIsDeclaration(f);
	printf("%d defined functions\n", n);
	return 0;
}
C
	pc="$DEST$PREFIX/lib/pkgconfig"
	flags=$(PKG_CONFIG_PATH="$pc" pkg-config --define-variable=prefix="$DEST$PREFIX" --cflags --libs libnv)
	cc -std=c17 count.c $flags -o count
	run ./count "$(fixture_bc saxpy)"
	assert_success
	assert_output "4 defined functions"
	run ./count "$FIXTURES/use-before-def.ll"
	assert_failure 1
	assert_output --partial "count: error: input module"
}

# bats test_tags=slow
@test "every installed header compiles alone with pkg-config's flags, as <nv/LAYER/NAME.h>" {
	command -v pkg-config >/dev/null || skip "pkg-config is not installed"
	cd "$BATS_TEST_TMPDIR"
	pc="$DEST$PREFIX/lib/pkgconfig"
	flags=$(PKG_CONFIG_PATH="$pc" pkg-config --define-variable=prefix="$DEST$PREFIX" --cflags libnv)
	n=0
	for h in "$DEST$PREFIX"/include/nv/*/*.h; do
		rel=${h#"$DEST$PREFIX/include/"}
		printf '#include <%s>\n' "$rel" >one.c
		cc -std=c17 -D_GNU_SOURCE -fsyntax-only $flags one.c || fail "<$rel> does not compile alone"
		n=$((n + 1))
	done
	assert_equal "$n" "$(ls "$TOP"/lib/*/*.h | wc -l)"
	assert_file_not_exists "$DEST$PREFIX/include/nv/io.h"
}

@test "the installed make snippet builds a kernel with the installed nvcc-lite" {
	cd "$BATS_TEST_TMPDIR"
	cp "$FIXTURES/saxpy.cu" k.cu
	printf 'include %s\nall: k.ptx\n-include k.d\n' "$DEST$PREFIX/share/nvcc-lite/nvcc-lite.mk" >Makefile
	run env PATH="$DEST$PREFIX/bin:$PATH" make -j2
	assert_success
	grep -qx '.target sm_90' k.ptx
	assert_file_exists k.d
}

@test "make install with another PREFIX writes a libnv.pc naming that prefix" {
	d="$BATS_TEST_TMPDIR/root2"
	make -C "$TOP" -s install DESTDIR="$d" PREFIX=/opt/other >/dev/null
	grep -qx "prefix=/opt/other" "$d/opt/other/lib/pkgconfig/libnv.pc"
	grep -qx "prefix=/opt/other" "$TOP/lib/libnv.pc"
}
