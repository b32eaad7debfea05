# bash completion for nvcc-lite and the nv-* stages.  Options and knobs are
# read from the programs themselves (--help, --list-knobs), so they cannot
# drift from what the parsers accept.

_nvcc_lite_archs() {
	nvcc-lite --help 2>/dev/null | sed -n 's/^GPU architectures: //p'
}

# Every option name of nvcc-lite --help, short and long: a line's names
# come before two blanks ("-o FILE, --output-file FILE   help").
_nvcc_lite_opts() {
	nvcc-lite --help 2>/dev/null | awk '/^  -/ {
		l = substr($0, 3); sub(/  .*/, "", l)
		n = split(l, w, /, /)
		for (i = 1; i <= n; i++) { split(w[i], x, " "); print x[1] }
	}'
}

# _nvcc_lite_choices OPT: the words of OPT's value when --help gives them
# as a|b|c ("-cudart static|shared|none, --cudart ...").
_nvcc_lite_choices() {
	nvcc-lite --help 2>/dev/null | awk -v o="$1" '/^  -/ {
		l = substr($0, 3); sub(/  .*/, "", l)
		n = split(l, w, /, /)
		for (i = 1; i <= n; i++) {
			split(w[i], x, " ")
			if (x[1] == o && x[2] ~ /\|/) { gsub(/\|/, " ", x[2]); print x[2]; exit }
		}
	}'
}

# _nvcc_lite_files CUR EXT...: files with those extensions, and directories
# (without needing extglob).
_nvcc_lite_files() {
	local cur=$1 ext
	shift
	for ext; do
		compgen -f -X "!*.$ext" -- "$cur"
	done
	compgen -d -- "$cur"
}

_nvcc_lite() {
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-arch|--gpu-architecture)
		COMPREPLY=($(compgen -W "$(_nvcc_lite_archs)" -- "$cur")); return ;;
	-Xcicc|--Xcicc)
		COMPREPLY=($(compgen -W "$(nvcc-lite --list-knobs 2>/dev/null | cut -f1 | sed 's/^/-/; s/$/=/')" -- "$cur"))
		compopt -o nospace 2>/dev/null || :
		return ;;
	-o|--output-file|-MF|--dependency-output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-I|--include-path|-keep-dir|--keep-dir|-save-remarks|--save-remarks|-odir|--output-directory|-L|--library-path)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	-*)
		local choices
		choices=$(_nvcc_lite_choices "$prev")
		if [ -n "$choices" ]; then
			COMPREPLY=($(compgen -W "$choices" -- "$cur")); return
		fi ;;
	esac
	case $cur in
	-arch=*) COMPREPLY=($(compgen -P -arch= -W "$(_nvcc_lite_archs)" -- "${cur#-arch=}")); return ;;
	-*)
		COMPREPLY=($(compgen -W "$(_nvcc_lite_opts) -O0 -O1 -O2 -O3" -- "$cur"))
		return ;;
	esac
	COMPREPLY=($(_nvcc_lite_files "$cur" cu bc ll))
}

_nv_stage() {
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]}
	case $cur in
	-arch=*) COMPREPLY=($(compgen -P -arch= -W "$(_nvcc_lite_archs)" -- "${cur#-arch=}")); return ;;
	-*)
		COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | sed -n 's/^  \(-[^ =]*=\{0,1\}\).*/\1/p' |
			sed 's/^-O0\.\.3$/-O0 -O1 -O2 -O3/')" -- "$cur"))
		compopt -o nospace 2>/dev/null || :
		return ;;
	esac
	COMPREPLY=($(_nvcc_lite_files "$cur" bc ll))
}

complete -F _nvcc_lite nvcc-lite
# every stage installed beside nvcc-lite, and the known ones wherever they are
complete -F _nv_stage nv-opt nv-llc nv-reflect nv-inline nv-unroll nv-remat nv-vectorize nv-split nv-link
_nvcc_lite_dir=$(type -P nvcc-lite 2>/dev/null)
for _nvcc_lite_p in ${_nvcc_lite_dir:+"${_nvcc_lite_dir%/*}"/nv-*}; do
	[ -x "$_nvcc_lite_p" ] && complete -F _nv_stage "${_nvcc_lite_p##*/}"
done
unset _nvcc_lite_dir _nvcc_lite_p
