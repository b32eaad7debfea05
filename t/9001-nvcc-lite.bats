#!/usr/bin/env bats
# nvcc-lite, first version: front end | nvopt<ON> stages | PTX, nvcc's flags.

load helper

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$FIXTURES/saxpy.cu" k.cu
}

@test "nvcc-lite k.cu writes k.ptx beside the current directory, for sm_75 at -O3" {
	run nvcc-lite -ptx k.cu
	assert_success
	assert_equal "$output" ""
	assert_file_exists k.ptx
	grep -qx '.target sm_75' k.ptx
	grep -q '.visible .entry _Z5saxpyifPKfPf' k.ptx
}

@test "nvcc-lite PTX is accepted by ptxas for every example kernel at -O0 and -O3" {
	have_ptxas || skip "ptxas is not installed"
	for cu in "$TOP"/share/examples/*.cu; do
		for o in 0 3; do
			nvcc-lite -ptx -arch=sm_90 -O$o "$cu" -o out.ptx
			run "$(ptxas_bin)" -arch=sm_90 out.ptx -o /dev/null
			[ "$status" -eq 0 ] || fail "$cu -O$o: $output"
		done
	done
}

# bats test_tags=slow
@test "without CUDA headers the shim compiles every example kernel" {
	for cu in "$TOP"/share/examples/*.cu; do
		run env CUDA_PATH=/nonexistent nvcc-lite -ptx -arch=sm_90 "$cu" -o shim.ptx -v
		[ "$status" -eq 0 ] || fail "$cu: $output"
		[[ "$output" == *"-nocudainc -include"*cuda_shim.h* ]] || fail "shim not used: $output"
	done
}

@test "-O0 runs nvopt<O0>: link, reflect, codegen; the PTX keeps the local stack" {
	run nvcc-lite -ptx -O0 -arch=sm_90 k.cu -o k0.ptx -v
	assert_success
	refute_output --partial "nv-opt"
	assert_output --regexp "nv-link -cudafe --libdevice -internalize [^ ]*k.0-cudafe.bc \|
#\\$ [^ ]*/nv-reflect -arch=sm_90 \|
#\\$ [^ ]*/nv-llc -O0 -arch=sm_90( -ptx-isa=[0-9]+)? -o k0.ptx"
	grep -q 'local_depot' k0.ptx
	nvcc-lite -ptx -O3 -arch=sm_90 k.cu -o k3.ptx
	! grep -q 'local_depot' k3.ptx
}

@test ".ll and .bc inputs skip the front end" {
	bc=$(fixture_bc saxpy)
	llvm-dis "$bc" -o k.ll
	run nvcc-lite -ptx -arch=sm_90 k.ll -o from-ll.ptx -v
	assert_success
	refute_output --partial clang
	run nvcc-lite -ptx -arch=sm_90 "$bc" -o from-bc.ptx
	assert_success
	cmp from-ll.ptx from-bc.ptx
}

@test "-dryrun prints a shell script that reproduces the build and runs nothing" {
	run nvcc-lite -ptx -dryrun -arch=sm_90 k.cu -o dry.ptx
	assert_success
	assert_line --index 0 "#!/bin/sh"
	assert_output --partial "nvopt<O3>"
	assert_file_not_exists dry.ptx
	echo "$output" >build.sh
	sh build.sh
	nvcc-lite -ptx -arch=sm_90 k.cu -o real.ptx
	cmp dry.ptx real.ptx
}

@test "-keep leaves every intermediate, and -keep-dir puts them in a directory" {
	run nvcc-lite -ptx -keep -arch=sm_90 k.cu -o kept.ptx
	assert_success
	for f in k.0-cudafe.bc k.1-nv-link.bc k.2-nv-reflect.bc k.3-nv-inline.bc k.4-nv-unroll.bc k.5-nv-opt.bc; do
		assert_file_exists "$f"
	done
	mkdir kd
	run nvcc-lite -ptx -keep-dir kd -arch=sm_90 k.cu -o kd.ptx
	assert_success
	assert_file_exists kd/k.0-cudafe.bc
	cmp kept.ptx kd.ptx
}

@test "a front-end error names the failing stage, leaves no output and exits as nvcc: 1 for -ptx (cicc's), 2 for -c (cudafe's)" {
	cp "$FIXTURES/broken.cu" b.cu
	if [ -x "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" ]; then
		run --separate-stderr nvcc-lite -c -arch=sm_90 b.cu -o b.o
		assert_equal "$status" 2
		assert_file_not_exists b.o
	fi
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 b.cu -o b.ptx
	assert_equal "$status" 1
	[[ "$stderr" == *"undeclared_name"* ]] || fail "$stderr"
	[[ "$stderr" == *"1 error generated"* ]] || fail "$stderr"
	# clang's diagnostics are the whole story: no stage that got no input
	# speaks, and the driver adds nothing to an ordinary compile error
	[[ "$stderr" != *"nv-"* && "$stderr" != *"nvcc-lite:"* ]] || fail "$stderr"
	assert_file_not_exists b.ptx
}

@test "a failing stage's own line is the whole story, and a stale output is removed" {
	echo stale >bad.ptx
	run --separate-stderr nvcc-lite -ptx -arch=sm_90 "$FIXTURES/use-before-def.ll" -o bad.ptx
	assert_equal "$status" 1
	[[ "$stderr" == *"nv-link: error: input module"*"does not dominate"* ]] || fail "$stderr"
	# the stages after it, with nothing to read, say nothing, and the
	# driver adds nothing to a stage that said why (exit 1): one line
	[ "$(grep -c '' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	# the -dryrun script's stages behave so too
	nvcc-lite -ptx -dryrun -arch=sm_90 "$FIXTURES/use-before-def.ll" -o bad.ptx >build.sh
	run --separate-stderr sh build.sh
	assert_equal "$status" 1
	[ "$(grep -c '' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	# outside nvcc-lite's chains an empty input is still an error
	run --separate-stderr sh -c 'printf "" | nv-unroll -o out.bc'
	assert_equal "$status" 1
	assert_one_error nv-unroll
	# every line on stderr is whole: program, severity, message
	while IFS= read -r line; do
		[[ "$line" =~ ^nv(cc-lite|-[a-z]+):\ error:\ .+ ]] || fail "broken line: '$line'"
	done <<<"$stderr"
	assert_file_not_exists bad.ptx
}

@test "a stage killed by a signal is reported as such" {
	mkdir -p fake/bin
	ln -s "$TOP/share" fake/share
	cp "$TOP"/bin/nv-* "$TOP"/bin/nvcc-lite fake/bin/
	printf '#!/bin/sh\nkill -SEGV $$\n' >fake/bin/nv-llc
	chmod +x fake/bin/nv-llc
	run --separate-stderr fake/bin/nvcc-lite -ptx -arch=sm_90 k.cu -o sig.ptx
	assert_equal "$status" 1
	[[ "$stderr" == *"nvcc-lite: error: nv-llc killed by signal 11 (Segmentation fault)"* ]] || fail "$stderr"
	assert_file_not_exists sig.ptx
}

# bats test_tags=slow
@test "a stage that exits with a status no stage uses is named by the driver" {
	mkdir -p fake/bin
	ln -s "$TOP/share" fake/share
	cp "$TOP"/bin/nv-* "$TOP"/bin/nvcc-lite fake/bin/
	printf '#!/bin/sh\ncat >/dev/null\nexit 7\n' >fake/bin/nv-llc
	chmod +x fake/bin/nv-llc
	run --separate-stderr fake/bin/nvcc-lite -ptx -arch=sm_90 k.cu -o st.ptx
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: nv-llc failed with exit status 7"
	assert_file_not_exists st.ptx
}

# bats test_tags=slow
@test "-split-compile: one part's stage killed is one failure, not its stopped siblings too" {
	cp "$FIXTURES/split-templates.cu" s.cu
	mkdir -p fake/bin
	ln -s "$TOP/share" fake/share
	cp "$TOP"/bin/nv-* "$TOP"/bin/nvcc-lite fake/bin/
	# part 0 dies; the other parts run until nvcc-lite stops them
	printf '#!/bin/sh\ncase "$*" in *split.0.bc*) sleep 0.5; kill -SEGV $$;; esac\nexec sleep 30\n' \
		>fake/bin/nv-vectorize
	chmod +x fake/bin/nv-vectorize
	run --separate-stderr fake/bin/nvcc-lite -ptx -arch=sm_90 -split-compile=4 s.cu -o s.ptx
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: nv-vectorize killed by signal 11 (Segmentation fault)"
	assert_file_not_exists s.ptx
}

# bats test_tags=slow
@test "stages start with SIGPIPE as a shell gives it: clang whose reader died prints no crash report" {
	# a front end of 20000 functions (more than a pipe holds) whose output
	# goes through a reader that dies early, as a stage dying mid-chain
	for i in $(seq 20000); do echo "__device__ int f$i(int x) { return x * $i; }"; done >big.cu
	cat >fe <<'SH'
#!/bin/bash
n=$#; args=("${@:1:n-2}")
clang-22 "${args[@]}" -o - | head -c 100 >/dev/null
echo "fe: error: the reader died" >&2
exit 1
SH
	chmod +x fe
	mkdir tmp
	run --separate-stderr env TMPDIR="$PWD/tmp" NVCC_LITE_CLANG="$PWD/fe" nvcc-lite -ptx -arch=sm_90 big.cu -o big.ptx
	assert_equal "$status" 1
	assert_equal "$stderr" "fe: error: the reader died"
	[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls -A tmp)"
	assert_file_not_exists big.ptx
}

@test "unknown flags are errors with a suggestion, like nvcc" {
	run --separate-stderr nvcc-lite -ptx -arhc=sm_90 k.cu
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: unknown option '-arhc=sm_90'; did you mean '-arch=sm_90'?"
	run --separate-stderr nvcc-lite -ptx --frobnicate k.cu
	assert_equal "$status" 1
	assert_one_error nvcc-lite
}

@test "an unsupported GPU is refused with the nearest one suggested" {
	run --separate-stderr nvcc-lite -ptx -arch=sm_91 k.cu
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: unknown GPU architecture 'sm_91'; did you mean 'sm_90'?"
}

# bats test_tags=slow
@test "nvcc's spellings of flags are accepted" {
	run nvcc-lite -ptx --gpu-architecture sm_90 -O 2 --output-file long.ptx -DSCALE=2 -I . k.cu
	assert_success
	grep -qx '.target sm_90' long.ptx
	run nvcc-lite -arch sm_86 -maxrregcount 40 -ptx k.cu -o sep.ptx
	assert_success
	grep -qx '.maxnreg 40' sep.ptx
}

@test "-I and -D reach the front end" {
	mkdir inc
	echo '#define FACTOR 3.5f' >inc/factor.h
	printf '#include "factor.h"\n__global__ void k(float *p) { p[0] = FACTOR * SCALE; }\n' >d.cu
	run nvcc-lite -ptx -arch=sm_90 -Iinc -DSCALE=2 d.cu -o d.ptx
	assert_success
	# 3.5f * 2 = 7.0f = 0x40E00000, stored as an integer immediate
	grep -q 'st.global.b32 	\[%rd[0-9]*\], 1088421888;' d.ptx
}

@test "-Xcicc routes a knob to the stage that owns it and rejects unknown ones" {
	run nvcc-lite -ptx -arch=sm_90 -Xcicc -nvptx-prec-divf32=0 k.cu -o approx.ptx -v
	assert_success
	assert_output --regexp "nv-llc -O3 -start-after=codegenprepare -arch=sm_90( -ptx-isa=[0-9]+)? -nvptx-prec-divf32=0"
	grep -q 'div.approx.f32' approx.ptx
	run --separate-stderr nvcc-lite -ptx -Xcicc -nvptx-prec-divf3=0 k.cu
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: unknown knob '-nvptx-prec-divf3=0' in -Xcicc; did you mean '-nvptx-prec-divf32=0'?"
}

# bats test_tags=slow
@test "-MD writes make dependencies beside the output, as nvcc; -MMD -MP -MF -MT as gcc" {
	mkdir -p inc out
	echo '#define SCALE 2.0f' >inc/scale.h
	printf '#include "scale.h"\n__global__ void k(float *p) { p[0] *= SCALE; }\n' >d.cu
	run nvcc-lite -ptx -arch=sm_90 -Iinc -MD d.cu -o out/d.ptx
	assert_success
	assert_file_exists out/d.ptx
	run cat out/d.d
	assert_line --index 0 --regexp '^out/d\.ptx: d\.cu'
	assert_output --partial "inc/scale.h"
	run nvcc-lite -ptx -arch=sm_90 -Iinc -MMD -MP -MF deps.mk -MT mine d.cu -o out/e.ptx
	assert_success
	run cat deps.mk
	assert_line --index 0 --regexp '^mine: d\.cu inc/scale\.h$'
	assert_line "inc/scale.h:"
	refute_output --partial "cuda_runtime.h"
	# a module has itself as its one dependency
	nvcc-lite -arch=sm_90 -Iinc -emit-llvm d.cu -o d.bc
	run nvcc-lite -ptx -arch=sm_90 -MD -MP d.bc -o out/f.ptx
	assert_success
	run cat out/f.d
	assert_output "$(printf 'out/f.ptx: d.bc\n\nd.bc:')"
}

# bats test_tags=slow
@test "-emit-llvm writes optimized bitcode, -cubin a cubin" {
	run nvcc-lite -arch=sm_90 -emit-llvm k.cu
	assert_success
	llvm-dis k.bc -o - | grep -q 'define .*ptx_kernel void @_Z5saxpyifPKfPf'
	run nvcc-lite -O0 -arch=sm_90 -emit-llvm k.cu -o k0.bc
	assert_success
	llvm-dis k0.bc -o - | grep -q alloca
	have_ptxas || skip "ptxas is not installed"
	run nvcc-lite -arch=sm_90 -cubin k.cu
	assert_success
	[ "$(head -c 4 k.cubin | od -An -c | tr -d ' ')" = '177ELF' ]
	# -rdc=true: a relocatable cubin, its calls to other units unresolved (ptxas --compile-only)
	printf 'extern __device__ int g(int);\n__global__ void e(int *p) { p[0] = g(p[1]); }\n' >ext.cu
	for o in ext.cubin -; do
		run --separate-stderr nvcc-lite -arch=sm_90 -cubin -rdc=true ext.cu -o $o
		assert_success
	done
	[ "$(head -c 4 ext.cubin | od -An -c | tr -d ' ')" = '177ELF' ]
	run --separate-stderr nvcc-lite -arch=sm_90 -cubin ext.cu -o ext2.cubin
	[ "$status" -ne 0 ] || fail "an unresolved call linked without -rdc"
	assert_file_not_exists ext2.cubin
}

@test "inputs the driver cannot handle are usage errors" {
	run --separate-stderr nvcc-lite
	assert_equal "$status" 1
	run --separate-stderr nvcc-lite k.txt
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: don't know what to do with 'k.txt': expected a .cu, .cpp, .c, .o, .a or .so file"
	run --separate-stderr nvcc-lite -ptx k.cpp
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: don't know what to do with 'k.cpp' for -ptx: expected a .cu, .bc or .ll file (or -x cu)"
	run --separate-stderr nvcc-lite -ptx k.cu k.cu -o two.ptx
	assert_equal "$status" 1
	run --separate-stderr nvcc-lite -ptx k.cu missing.cu
	assert_equal "$status" 1
	assert_file_not_exists k.ptx # every input is checked before any is compiled
	run --separate-stderr nvcc-lite -ptx missing.cu
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: cannot read 'missing.cu': No such file or directory"
}

@test "--help lists every flag the driver accepts" {
	run nvcc-lite --help
	assert_success
	for f in -o -arch -O -ptx -cubin -emit-llvm -I -D -U -maxrregcount -lineinfo -Xcicc -v -dryrun -keep -keep-dir; do
		grep -qE -- "^  $f[ ,]" <<<"$output" || fail "$f is not in --help"
	done
}

# bats test_tags=slow
@test "make demo's script compiles every example and prints a row per kernel" {
	run env DEMO_OUT="$BATS_TEST_TMPDIR/demo" sh "$TOP/share/examples/demo.sh"
	assert_success
	for k in saxpy reduce_sum jacobi5 matmul_tiled histogram256; do
		assert_output --regexp " $k +[0-9]+ "
	done
}

@test "a failed build removes a regular output file but never a device" {
	run nvcc-lite -ptx -arch=sm_90 "$FIXTURES/use-before-def.ll" -o /dev/null
	assert_equal "$status" 1
	[ -c /dev/null ]
}

@test "-keep names each intermediate after the stage that wrote it" {
	nv-opt "$(fixture_bc saxpy)" -o in.bc
	run nvcc-lite -ptx -keep -arch=sm_90 in.bc -o in.ptx
	assert_success
	assert_file_exists in.0-nv-link.bc
	assert_file_not_exists in.0-cudafe.bc
}

# bats test_tags=slow
@test "SIGTERM to nvcc-lite stops its stages and leaves no output" {
	mkdir -p slow/bin
	ln -s "$TOP/share" slow/share
	cp "$TOP"/bin/nv-* "$TOP"/bin/nvcc-lite slow/bin/
	# a stage that hangs until it is killed
	printf '#!/bin/sh\necho $$ >%s/stage.pid\nexec sleep 30\n' "$BATS_TEST_TMPDIR" >slow/bin/nv-llc
	chmod +x slow/bin/nv-llc
	slow/bin/nvcc-lite -ptx -arch=sm_90 k.cu -o slow.ptx 2>/dev/null &
	pid=$!
	for _ in $(seq 100); do [ -s stage.pid ] && break; sleep 0.1; done
	assert_file_exists stage.pid
	kill -TERM "$pid"
	wait "$pid" || true
	for _ in $(seq 50); do kill -0 "$(cat stage.pid)" 2>/dev/null || break; sleep 0.1; done
	run kill -0 "$(cat stage.pid)"
	assert_failure
	assert_file_not_exists slow.ptx
}

# bats test_tags=slow
@test "SIGINT or SIGTERM mid-build leaves neither the output nor its -MD file" {
	mkdir -p slow/bin
	ln -s "$TOP/share" slow/share
	cp "$TOP"/bin/nv-* "$TOP"/bin/nvcc-lite slow/bin/
	printf '#!/bin/sh\necho $$ >%s/stage.pid\nexec sleep 30\n' "$BATS_TEST_TMPDIR" >slow/bin/nv-llc
	chmod +x slow/bin/nv-llc
	for sig in INT TERM; do
		rm -f stage.pid
		mkdir -p "tmp$sig"
		TMPDIR="$PWD/tmp$sig" slow/bin/nvcc-lite -ptx -arch=sm_90 -MD k.cu -o slow.ptx 2>/dev/null &
		pid=$!
		for _ in $(seq 100); do [ -s stage.pid ] && break; sleep 0.1; done
		assert_file_exists stage.pid
		kill -"$sig" "$pid"
		wait "$pid" || true
		assert_file_not_exists slow.ptx
		assert_file_not_exists slow.d
		[ -z "$(ls -A "tmp$sig")" ] || fail "$sig left in TMPDIR: $(ls -A "tmp$sig")"
	done
	# and a build that succeeds writes both
	nvcc-lite -ptx -arch=sm_90 -MD k.cu -o ok.ptx
	assert_file_exists ok.ptx
	grep -q '^ok.ptx: k.cu' ok.d
}

# sqrt, division, rsqrt and sin opcodes, as nvcc -ptx picks them per flag set
opcodes() {
	grep -oE '\b(sqrt|div|rsqrt|sin)\.[a-z0-9.]+' "$1" | sort | uniq -c | tr -s ' \n' ' '
}

@test "math opcodes match nvcc for the default flags, -ftz, -prec-sqrt, -prec-div, -fmad and --use_fast_math" {
	command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "nvcc is not installed"
	[ -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ] || skip "libdevice is not installed"
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	cp "$FIXTURES/math.cu" m.cu
	table=""
	for flags in "" "-ftz=true" "-prec-sqrt=false" "-prec-div=false" "-fmad=false" "--use_fast_math"; do
		nvcc-lite -ptx -arch=sm_90 $flags m.cu -o ours.ptx
		"$nvcc" -ptx -arch=sm_90 $flags m.cu -o theirs.ptx
		table+="[$flags] ours: $(opcodes ours.ptx)| nvcc: $(opcodes theirs.ptx)"$'\n'
		[ "$(opcodes ours.ptx)" = "$(opcodes theirs.ptx)" ] || fail "$table"
	done
	echo "$table" >&3
}

@test "--use_fast_math gives expf, exp10f, log10f, tanf, tanhf and powf nvcc's approximations" {
	[ -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ] || skip "libdevice is not installed"
	cat >f.cu <<-'CU'
	__global__ void k(float *a) {
	  int i = threadIdx.x;
	  a[i] = expf(a[i]) + exp10f(a[i + 1]) + log10f(a[i + 2]) + tanf(a[i + 3]) + tanhf(a[i + 4]) +
	         powf(a[i + 5], a[i + 6]);
	}
	CU
	approx() {
		grep -oE '\b(ex2|lg2|sin|cos|tanh|rcp|div)\.approx\.[a-z0-9.]+' "$1" | sort | uniq -c | tr -s ' \n' ' '
	}
	nvcc-lite -ptx -arch=sm_90 --use_fast_math f.cu -o ours.ptx
	# tanh.approx, and no libdevice polynomial (the slow expf alone is 20 instructions)
	grep -q 'tanh\.approx\.f32' ours.ptx
	[ "$(grep -cE '^[[:space:]]+[a-z]' ours.ptx)" -le 60 ] || fail "$(grep -cE '^[[:space:]]+[a-z]' ours.ptx) instructions"
	command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "nvcc is not installed"
	"$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" -ptx -arch=sm_90 --use_fast_math f.cu -o theirs.ptx
	assert_equal "$(approx ours.ptx)" "$(approx theirs.ptx)"
}

@test "a libdevice-heavy kernel leaves no reflect and no libdevice function in the PTX" {
	[ -f /usr/local/cuda/nvvm/libdevice/libdevice.10.bc ] || skip "libdevice is not installed"
	cp "$FIXTURES/math.cu" m.cu
	nvcc-lite -ptx -arch=sm_90 m.cu -o m.ptx
	! grep -q 'reflect' m.ptx
	! grep -q '\.func' m.ptx
	have_ptxas || skip "ptxas is not installed"
	run "$(ptxas_bin)" -arch=sm_90 m.ptx -o /dev/null
	assert_success
	nvcc-lite -ptx -O0 -arch=sm_90 m.cu -o m0.ptx
	run "$(ptxas_bin)" -arch=sm_90 m0.ptx -o /dev/null
	assert_success
	# at -O0 nothing is inlined: exactly the five functions called remain
	[ "$(grep -c '^.func .*__nv_[a-z]*($' m0.ptx)" -eq 5 ] || fail "$(grep '^.func' m0.ptx)"
}

@test "--use_fast_math sets ftz, prec-div, prec-sqrt and fast transcendentals on every stage" {
	run nvcc-lite -ptx -dryrun -arch=sm_90 --use_fast_math k.cu
	assert_success
	assert_output --partial "-fgpu-flush-denormals-to-zero"
	assert_output --partial "-fgpu-approx-transcendentals"
	assert_output --regexp "nv-reflect -arch=sm_90 -ftz=1 -prec-div=0 -prec-sqrt=0"
	assert_output --regexp "nv-llc -O3 -start-after=codegenprepare -arch=sm_90 -ftz=1 -prec-div=0 -prec-sqrt=0 -fast-math"
	assert_output --regexp "nv-link -cudafe --libdevice -internalize -fast-math"
	run nvcc-lite -ptx -dryrun --use_fast_math -prec-sqrt=true k.cu
	assert_output --regexp "nv-reflect -arch=sm_75 -ftz=1 -prec-div=0 \|"
}

@test "precision flags take true or false" {
	run --separate-stderr nvcc-lite -ptx -ftz=maybe k.cu
	assert_equal "$status" 1
	assert_equal "$stderr" "nvcc-lite: error: invalid value 'maybe' for -ftz: expected true or false"
	run nvcc-lite -ptx -ftz true -prec-div=0 -fmad=false -arch=sm_90 k.cu -o f.ptx
	assert_success
	grep -q 'div.full.ftz.f32' f.ptx
}
