#!/usr/bin/env bats
# Man pages and completions against what the programs really accept.

load helper

# options PROG: every option name in PROG --help ("-o", "-arch", "-O").
options() {
	"$1" --help | sed -n 's/^  \(-[A-Za-z][^ ,=[]*\).*/\1/p' | sed 's/0\.\.3$//'
}

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
