#!/usr/bin/env bats
# Remarks people can look at: every stage's -pass-remarks-output YAML is
# read by llvm-remarkutil; nvcc-lite -save-remarks DIR collects a whole
# build's; with -lineinfo they carry source locations and LLVM's opt-viewer
# renders them as HTML over the source.

load helper

OPT_VIEWER=/usr/lib/llvm-22/share/opt-viewer/opt-viewer.py

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	# a loop, a reflect query and a helper: something for every stage
	cat >k.cu <<'CU'
__device__ float half_of(float v) { return v * 0.5f; }

__global__ void k(const float *x, float *y, int n)
{
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		y[i] = half_of(x[i]);
	float s = 0.0f;
	for (int j = 0; j < 8; j++)
		s += x[j];
	y[n] = s + __nvvm_reflect("__CUDA_ARCH");
}
CU
	mkdir keep
	nvcc-lite -ptx -lineinfo -arch=sm_90 -keep-dir keep -save-remarks rem k.cu -o k.ptx
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "nvcc-lite -save-remarks gives every stage of the pipeline its own YAML, named as -keep names modules" {
	run nvcc-lite -ptx -dryrun -arch=sm_90 -save-remarks rem k.cu
	assert_success
	for p in nv-link nv-reflect nv-inline nv-opt nv-vectorize nv-unroll nv-llc; do
		assert_output --regexp "/$p .*-pass-remarks-output=rem/k\.[0-9]+-$p\.opt\.yaml"
	done
	# the front end's line gets no remark option
	! grep -q 'clang.*-pass-remarks' <<<"$output" || fail "$output"
	assert_line "mkdir -p rem"
	# the modules -keep kept and the remarks -save-remarks saved pair up
	for y in rem/*.opt.yaml; do
		n=$(basename "$y" .opt.yaml)
		[ "${n%-nv-llc}" != "$n" ] || assert_file_exists "keep/$n.bc"
	done
}

# bats test_tags=slow
@test "every stage's remark YAML is read by llvm-remarkutil" {
	for p in nv-link nv-reflect nv-inline nv-opt nv-vectorize nv-unroll nv-llc; do
		ls rem/k.*-"$p".opt.yaml >/dev/null 2>&1 || fail "$p wrote no remarks"
	done
	for y in rem/*.opt.yaml; do
		run llvm-remarkutil count --parser=yaml --group-by=total "$y"
		assert_success
		[ "${lines[1]#Total,}" -gt 0 ] || fail "$y: $output"
	done
	# and a stage outside the pipeline, run by hand
	for p in $(stages); do
		rm -f by-hand.yaml
		"$p" -pass-remarks-output=by-hand.yaml keep/k.0-cudafe.bc -o /dev/null 2>/dev/null || continue
		[ -s by-hand.yaml ] || continue
		run llvm-remarkutil count --parser=yaml by-hand.yaml
		assert_success
	done
}

@test "nvcc-lite -save-remarks leaves no empty file, which llvm-remarkutil would refuse" {
	run nvcc-lite -ptx -O0 -arch=sm_90 -save-remarks rem0 k.cu -o k0.ptx
	assert_success
	for y in rem0/*; do
		[ -s "$y" ] || fail "$y is empty"
	done
	run ls rem0
	refute_output --partial tmp
}

@test "with -lineinfo the remarks carry the kernel's source lines" {
	cat rem/*.opt.yaml >all.yaml
	run llvm-remarkutil count --parser=yaml --group-by=source all.yaml
	assert_success
	assert_line --regexp '^k\.cu,[0-9]+$'
	# the grid-stride loop of lines 5-6, in nv-unroll's words, at its for (line 5)
	grep -A3 'Pass: *nv-unroll' rem/k.*-nv-unroll.opt.yaml | grep -q "File: 'k.cu', Line: 5," ||
		fail "no nv-unroll remark at k.cu:5"
	run --separate-stderr nvcc-lite -ptx -lineinfo -arch=sm_90 -Xcicc -pass-remarks-missed=nv-unroll \
		-Xcicc -pass-remarks=nv-unroll k.cu -o /dev/null
	assert_success
	[[ "$stderr" == *"nv-unroll: remark: k.cu:5:2: loop "*" not unrolled: "*"[-pass-remarks-missed=nv-unroll]"* ]] || fail "$stderr"
	# a loop that is gone, unrolled fully, still has its line
	[[ "$stderr" == *"nv-unroll: remark: k.cu:8:2: loop "*" completely unrolled with count 8"* ]] || fail "$stderr"
}

@test "without debug information the remarks still name their function" {
	nvcc-lite -ptx -arch=sm_90 -save-remarks nodebug k.cu -o /dev/null
	! grep -q DebugLoc nodebug/*.opt.yaml
	# nv-llc runs twice (before and after nv-remat): the last writes the PTX
	run llvm-remarkutil count --parser=yaml --group-by=function "$(ls nodebug/k.*-nv-llc.opt.yaml | sort -V | tail -1)"
	assert_success
	assert_line --regexp '^_Z1kPKfPfi,1$'
}

@test "opt-viewer renders a build's remarks as HTML next to the source" {
	[ -f "$OPT_VIEWER" ] || skip "LLVM's opt-viewer is not installed"
	python3 -c 'import yaml, pygments' 2>/dev/null || skip "opt-viewer needs python3-yaml and python3-pygments"
	run python3 "$OPT_VIEWER" --no-progress-indicator -j 1 -s . -o html rem
	assert_success
	assert_file_exists html/index.html
	assert_file_exists html/k.cu.html
	for p in nv-inline nv-unroll nv-vectorize nv-llc; do
		grep -q "$p" html/k.cu.html || fail "html/k.cu.html shows nothing from $p"
	done
	grep -q 'completely unrolled' html/k.cu.html
}
