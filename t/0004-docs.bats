#!/usr/bin/env bats
# Man pages and completions against what the programs really accept.

load helper

# options PROG: every option name in PROG --help ("-o", "-arch", "-O").
options() {
	"$1" --help | sed -n 's/^  \(-[A-Za-z][^ ,=[]*\).*/\1/p' | sed 's/0\.\.3$//'
}

# bats test_tags=slow
@test "every program has a man page that documents each of its options and knobs" {
	for p in $(stages) nvcc-lite; do
		man="$TOP/share/man/man1/$p.1"
		assert_file_exists "$man"
		text=$(sed 's/\\-/-/g' "$man")
		for opt in $(options "$p"); do
			grep -qF -- "$opt" <<<"$text" || fail "$p: $opt is not in $man"
		done
	done
}

# bats test_tags=slow
@test "a man page documents no option its program rejects" {
	for p in $(stages) nvcc-lite; do
		man="$TOP/share/man/man1/$p.1"
		known=$(options "$p"; "$p" --help | sed -n 's/.*, \(--[a-z-]*\).*/\1/p')
		# the tags of the OPTIONS and KNOBS sections: the line after each .TP
		for opt in $(sed -n '/^\.SH OPTIONS/,/^\.SH EXIT/p' "$man" | awk '/^\.T[PQ]/ { getline; print }' |
			sed -n 's/^\.B[IR]\{0,1\} \\\(-[A-Za-z][A-Za-z0-9_\\-]*\).*/\1/p' | sed 's/\\-/-/g; s/=$//'); do
			grep -qxF -- "$opt" <<<"$known" || grep -qxF -- "-${opt#-}" <<<"$(nvcc-lite --list-knobs | cut -f1 | sed 's/^/-/')" ||
				fail "$p: $man documents $opt, which --help does not list"
		done
	done
}

@test "every man page is a program's, and renders without a warning" {
	for man in "$TOP"/share/man/man1/*.1; do
		p=$(basename "$man" .1)
		[ -f "$TOP/cmd/$p.c" ] || fail "$man documents '$p', which cmd/ does not build"
		grep -q "^\.TH $(echo "$p" | tr a-z A-Z) 1 " "$man" || fail "$man: its .TH names another page"
		[[ "$(sed -n '/^\.SH NAME/{n;p;}' "$man")" == "$p \\- "* ]] || fail "$man: NAME is not '$p \\- ...'"
	done
	command -v groff >/dev/null || skip "groff is not installed"
	for man in "$TOP"/share/man/man1/*.1; do
		run env LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$man"
		assert_success
		assert_output ""
	done
	command -v man >/dev/null || skip "man is not installed"
	run env MANWIDTH=80 man -l "$TOP/share/man/man1/nvcc-lite.1"
	assert_success
	assert_output --partial "nvcc-lite - compile CUDA programs"
	assert_output --regexp "-save-remarks DIR, --save-remarks DIR"
}

@test "every program gets bash and zsh completion, a new stage included" {
	source "$TOP/completions/nvcc-lite.bash"
	for p in nvcc-lite $(stages); do
		complete -p "$p" >/dev/null || fail "bash: no completion for $p"
	done
	# stages are found beside nvcc-lite, so one not in the list gets it too
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cp "$TOP/bin/nvcc-lite" "$BATS_TEST_TMPDIR/bin/"
	printf '#!/bin/sh\n' >"$BATS_TEST_TMPDIR/bin/nv-future"
	chmod +x "$BATS_TEST_TMPDIR/bin/nv-future"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" source "$TOP/completions/nvcc-lite.bash"
	run complete -p nv-future
	assert_output "complete -F _nv_stage nv-future"
	command -v zsh >/dev/null || skip "zsh is not installed"
	pats=$(sed -n '1s/^#compdef //p' "$TOP/completions/_nvcc-lite")
	for p in nvcc-lite $(stages) nv-future; do
		zsh -f -c 'p=$2; for w in ${=1}; do [[ $w != -p && $p == ${~w} ]] && exit 0; done; exit 1' \
			-- "$pats" "$p" || fail "zsh: '#compdef $pats' does not cover $p"
	done
}

@test "bash completion offers the input file types and directories for directory options" {
	source "$TOP/completions/nvcc-lite.bash"
	cd "$BATS_TEST_TMPDIR"
	mkdir -p rem sub
	touch k.cu m.bc t.ll notes.txt
	COMP_WORDS=(nvcc-lite ""); COMP_CWORD=1; _nvcc_lite
	assert_equal "$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')" "k.cu m.bc rem sub t.ll "
	COMP_WORDS=(nv-opt ""); COMP_CWORD=1; _nv_stage
	assert_equal "$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')" "m.bc rem sub t.ll "
	COMP_WORDS=(nvcc-lite -save-remarks r); COMP_CWORD=2; _nvcc_lite
	assert_equal "${COMPREPLY[*]}" "rem"
	COMP_WORDS=(nvcc-lite -arch=sm_9); COMP_CWORD=1; _nvcc_lite
	[[ " ${COMPREPLY[*]} " == *" -arch=sm_90 "* ]] || fail "${COMPREPLY[*]}"
	COMP_WORDS=(nvcc-lite -save-r); COMP_CWORD=1; _nvcc_lite
	assert_equal "${COMPREPLY[*]}" "-save-remarks"
	COMP_WORDS=(nv-unroll -O); COMP_CWORD=1; _nv_stage
	assert_equal "${COMPREPLY[*]}" "-O0 -O1 -O2 -O3"
}

@test "zsh completion offers flags, GPUs, -Xcicc knobs and file types" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	z="$TOP/t/zcomp.zsh"
	run zsh -f "$z" nvcc-lite sm_9 nvcc-lite -arch sm_9
	assert_line sm_90
	assert_line sm_90a
	run zsh -f "$z" nvcc-lite -arch=sm_9 nvcc-lite -arch=sm_9
	assert_line sm_90
	run zsh -f "$z" nvcc-lite -nvptx-f nvcc-lite -Xcicc -nvptx-f
	assert_line -nvptx-fma-level=
	run zsh -f "$z" nvcc-lite -sav nvcc-lite -sav
	assert_line -save-remarks
	assert_line -O3
	run zsh -f "$z" nvcc-lite "" nvcc-lite -save-remarks ""
	assert_output "_files -/"
	run zsh -f "$z" nvcc-lite "" nvcc-lite ""
	assert_output "_files -g *.(cu|bc|ll)"
	run zsh -f "$z" nv-llc -nvptx-sch nv-llc -nvptx-sch
	assert_line -nvptx-sched4reg=
	run zsh -f "$z" nv-opt "" nv-opt ""
	assert_output "_files -g *.(bc|ll)"
}

@test "bash completion offers nvcc-lite's flags, GPUs and -Xcicc knobs" {
	source "$TOP/completions/nvcc-lite.bash"
	run complete -p nvcc-lite
	assert_output "complete -F _nvcc_lite nvcc-lite"
	COMP_WORDS=(nvcc-lite -ar); COMP_CWORD=1; _nvcc_lite
	[[ " ${COMPREPLY[*]} " == *" -arch "* ]] || fail "${COMPREPLY[*]}"
	COMP_WORDS=(nvcc-lite -arch sm_9); COMP_CWORD=2; _nvcc_lite
	[[ " ${COMPREPLY[*]} " == *" sm_90 "* && " ${COMPREPLY[*]} " == *" sm_90a "* ]] || fail "${COMPREPLY[*]}"
	COMP_WORDS=(nvcc-lite -Xcicc -nvptx-f); COMP_CWORD=2; _nvcc_lite
	[ "${COMPREPLY[*]}" = "-nvptx-fma-level=" ] || fail "${COMPREPLY[*]}"
	COMP_WORDS=(nv-llc -nvptx-sch); COMP_CWORD=1; _nv_stage
	[ "${COMPREPLY[*]}" = "-nvptx-sched4reg=" ] || fail "${COMPREPLY[*]}"
}

@test "zsh completion parses" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	zsh -n "$TOP/completions/_nvcc-lite"
}
