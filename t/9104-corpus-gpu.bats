#!/usr/bin/env bats
# bench/corpus-gpu.sh on a corpus-build output written here: "programs" that
# are shell scripts printing times as llm.c's and the samples' do, a variant
# build, a data directory, a deadline.  No GPU needed: run only runs them.

load helper

CG="$TOP/bench/corpus-gpu.sh"

# app PATH BODY: an executable script.
app() {
	mkdir -p "$(dirname "$1")"
	printf '#!/bin/sh\n%s\n' "$2" >"$1"
	chmod +x "$1"
}

setup() {
	cd "$BATS_TEST_TMPDIR" || exit 1
	mkdir -p src/p1/data src/p2
	echo hello >src/p1/data/x.txt
	b=b/corpus-build/demo
	app $b/p1/nvcc/app 'cat data/x.txt; echo "block_size 32 | time 1.0 ms"; echo "block_size 64 | time 2.0 ms"'
	app $b/p1/lite/app 'cat data/x.txt; echo "block_size 32 | time 1.1 ms"; echo "block_size 64 | time 2.2 ms"'
	printf 'src\t%s\tcu\n' "$PWD/src/p1/p1.cu" >$b/p1/plan
	app $b/p2/nvcc/app 'echo "GPU time: 0.5 msec"; echo "args: $*"'
	app $b/p2/lite/app 'echo "Time = 0.00025 s"'
	printf 'src\t%s\tcu\n' "$PWD/src/p2/p2.cu" >$b/p2/plan
	mkdir -p v/corpus-build/demo/p1/lite
	cp $b/p1/lite/app v/corpus-build/demo/p1/lite/app
	app v/corpus-build/demo/p2/lite/app 'echo "GPU time: 0.75 msec"; exit 1'
	printf 'demo/p1\n# a comment\ndemo/p2 7 x\t# a comment after the arguments\n' >list
}

@test "pack takes each build's executables and a program's data, but not a variant equal to nvcc-lite's; run runs every build but that one" {
	run sh "$CG" pack -o b.tar.gz -l list b var=v
	assert_success
	assert_output "corpus-gpu: 2 programs, 2 runs, each by: nvcc lite var; b.tar.gz"
	run tar tzf b.tar.gz
	assert_line apps/demo/p1/data/x.txt
	# p1's variant is nvcc-lite's byte for byte: named, not packed
	refute_line apps/demo/p1/var
	assert_line apps/demo/p1/same
	assert_line apps/demo/p2/var
	run sh "$CG" run -o out b.tar.gz
	# var fails where nvcc passed
	assert_failure 1
	run cat out/runs.csv
	assert_line --index 0 "program,args,build,status,ms"
	assert_line --partial "demo/p1,,var,same-as-lite,"
	assert_line --regexp '^demo/p2,7 x,var,1,[0-9]+$'
	run cat out/logs/demo_p1_.lite.txt
	assert_line hello
	run cat out/logs/demo_p2_7_x.nvcc.txt
	assert_line "args: 7 x"
}

@test "report gives each build's status and its times against nvcc's, ms and s alike" {
	sh "$CG" pack -o b.tar.gz -l list b var=v >/dev/null
	sh "$CG" run -o out b.tar.gz || true
	run sh "$CG" report out
	assert_failure 1
	assert_line "| demo/p1 |  | 0 | 0 | 1.100 (2) | same-as-lite | - |"
	assert_line "| demo/p2 | 7 x | 0 | 0 | 0.500 (1) | 1 | 1.500 (1) |"
	assert_line "var: failed where nvcc passed: 1; geomean of time ratios: 1.500 over 1 times"
	[ -f out/corpus-gpu.md ]
}

@test "run starts no program after the deadline; every program both built is the default list" {
	app b/corpus-build/demo/p1/nvcc/app 'sleep 2; echo "time 1 ms"'
	sh "$CG" pack -o b.tar.gz b >/dev/null
	run sh "$CG" run -o out -d 1 b.tar.gz
	assert_success
	assert_output --partial "corpus-gpu: deadline: demo/p2 and the rest not run"
	run grep -c '^demo/p1,' out/runs.csv
	assert_output 2
	run grep -c '^demo/p2,' out/runs.csv
	assert_output 0
}

@test "bad input: one line naming the program, exit 2" {
	run sh "$CG" pack -o b.tar.gz "$BATS_TEST_TMPDIR/nothing"
	assert_failure 2
	assert_output "corpus-gpu: pack: $BATS_TEST_TMPDIR/nothing is not a corpus-build output (no corpus-build/)"
	printf 'demo/p3\n' >bad
	run sh "$CG" pack -o b.tar.gz -l bad b
	assert_failure 2
	assert_output "corpus-gpu: pack: demo/p3: nvcc did not build it in b"
	[ ! -e b.tar.gz ]
	run sh "$CG" run -t soon b.tar.gz
	assert_failure 2
	assert_output "corpus-gpu: run: -t and -d want whole seconds"
	run sh "$CG" pack -o b.tar.gz -l list b 'no good=v'
	assert_failure 2
	assert_output "corpus-gpu: pack: bad variant name in 'no good=v'"
	run sh "$CG" report "$BATS_TEST_TMPDIR/nothing"
	assert_failure 2
	assert_output "corpus-gpu: report: a run's output directory (with runs.csv)"
	: >empty.tar.gz
	run sh "$CG" run -o out2 empty.tar.gz
	assert_failure 2
	assert_output "corpus-gpu: run: cannot unpack empty.tar.gz (not a bundle of corpus-gpu.sh pack)"
	tar czf other.tar.gz list
	run sh "$CG" run -o out2 other.tar.gz
	assert_failure 2
	assert_output "corpus-gpu: run: cannot unpack other.tar.gz (not a bundle of corpus-gpu.sh pack)"
	[ ! -e out2 ]
	run sh "$CG" frobnicate
	assert_failure 2
	assert_output "corpus-gpu: unknown command 'frobnicate' (pack, run or report; try --help)"
}
