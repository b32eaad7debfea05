#!/usr/bin/env bats
# Make integration: share/nvcc-lite.mk's pattern rules, used by the example
# project in share/examples/, under make -j: every kernel built, header
# edits rebuild what includes them, and make's jobserver reaches nvcc-lite.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# bats test_tags=slow
@test "the example project builds every kernel with make -j and rebuilds nothing the second time" {
	cp -r "$TOP/share/examples" ex
	cp "$TOP/share/nvcc-lite.mk" .
	run make -C ex -j4 NVCC_LITE="$TOP/bin/nvcc-lite"
	assert_success
	for cu in ex/*.cu; do
		n=$(basename "$cu" .cu)
		assert_file_exists "ex/build/$n.ptx"
		assert_file_exists "ex/build/$n.d"
		grep -qx '.target sm_90' "ex/build/$n.ptx"
	done
	run make -C ex -j4 NVCC_LITE="$TOP/bin/nvcc-lite"
	assert_success
	assert_output --partial "Nothing to be done"
	run make -C ex clean
	assert_success
	assert_file_not_exists ex/build
}

@test "the example project in the tree finds bin/nvcc-lite by itself" {
	# (make -n would run the '+' lines: ask make for the variable instead)
	run make -s -C "$TOP/share/examples" --eval 'show: ; @echo $(NVCC_LITE) $(PTX)' show
	assert_success
	assert_output "$TOP/bin/nvcc-lite build/histogram.ptx build/matmul.ptx build/reduce.ptx build/registers.ptx build/saxpy.ptx build/stencil.ptx"
	assert_file_not_exists "$TOP/share/examples/build"
}

# bats test_tags=slow
@test "editing a header rebuilds the kernels that include it, and only those" {
	mkdir -p src
	echo '#define SCALE 2.0f' >src/scale.h
	printf '#include "scale.h"\n__global__ void a(float *p) { p[0] *= SCALE; }\n' >src/a.cu
	printf '__global__ void b(float *p) { p[0] += 1.0f; }\n' >src/b.cu
	cat >Makefile <<MK
NVCC_LITE = $TOP/bin/nvcc-lite
NVCC_LITE_OUT = out
NVCC_LITE_FLAGS = -O2 -Isrc
include $TOP/share/nvcc-lite.mk
PTX := \$(call nvcc-lite-ptx,src/a.cu src/b.cu)
all: \$(PTX)
-include \$(PTX:.ptx=.d)
MK
	run make -j2
	assert_success
	assert_file_exists out/src/a.ptx
	assert_file_exists out/src/b.ptx
	grep -q 'src/scale.h' out/src/a.d
	sleep 1
	echo '#define SCALE 3.0f' >src/scale.h
	run make -j2
	assert_success
	assert_output --partial "-o out/src/a.ptx"
	refute_output --partial "-o out/src/b.ptx"
	# deleting the header (and its use) breaks nothing: -MP's empty rule
	printf '__global__ void a(float *p) { p[0] *= 4.0f; }\n' >src/a.cu
	rm src/scale.h
	run make -j2
	assert_success
	assert_output --partial "-o out/src/a.ptx"
}

# bats test_tags=slow
@test "make's jobserver reaches nvcc-lite through the rules' '+'" {
	mkdir -p src
	for n in a b c; do printf '__global__ void %s(float *p) { p[0] = 1.0f; }\n' $n >src/$n.cu; done
	# a driver that records whether the jobserver make advertises is open to it
	cat >spy <<SH
#!/bin/sh
auth=\$(printf '%s\n' "\$MAKEFLAGS" | sed -n 's/.*--jobserver-auth=\([^ ]*\).*/\1/p')
case \$auth in
fifo:*) [ -p "\${auth#fifo:}" ] && echo open >>jobserver.log || echo closed >>jobserver.log ;;
*,*) [ -e "/proc/\$\$/fd/\${auth%,*}" ] && echo open >>jobserver.log || echo closed >>jobserver.log ;;
*) echo none >>jobserver.log ;;
esac
exec $TOP/bin/nvcc-lite "\$@"
SH
	chmod +x spy
	printf 'NVCC_LITE = ./spy\ninclude %s/share/nvcc-lite.mk\nall: src/a.ptx src/b.ptx src/c.ptx\n' "$TOP" >Makefile
	run make -j3
	assert_success
	run cat jobserver.log
	assert_output "$(printf 'open\nopen\nopen')"
	# without -j there is no jobserver, and nvcc-lite runs alone
	rm jobserver.log src/*.ptx
	make >/dev/null
	run sort -u jobserver.log
	assert_output none
}
