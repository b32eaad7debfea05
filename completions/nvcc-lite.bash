# bash completion for nvcc-lite and the nv-* stages.  Options and knobs are
# read from the programs themselves (--help, --list-knobs), so they cannot
# drift from what the parsers accept.

_nvcc_lite_archs() {
	nvcc-lite --help 2>/dev/null | sed -n 's/^GPU architectures: //p'
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
	-o|--output-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-I|--include-path|-keep-dir|--keep-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	esac
	case $cur in
	-arch=*) COMPREPLY=($(compgen -P -arch= -W "$(_nvcc_lite_archs)" -- "${cur#-arch=}")); return ;;
	-*)
		COMPREPLY=($(compgen -W "$(nvcc-lite --help 2>/dev/null | sed -n 's/^  \(-[^ ,]*\).*/\1/p') -O0 -O1 -O2 -O3" -- "$cur"))
		return ;;
	esac
	COMPREPLY=($(compgen -f -X '!*.@(cu|bc|ll)' -- "$cur") $(compgen -d -- "$cur"))
}

_nv_stage() {
	local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]}
	case $cur in
	-arch=*) COMPREPLY=($(compgen -P -arch= -W "$(_nvcc_lite_archs)" -- "${cur#-arch=}")); return ;;
	-*)
		COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | sed -n 's/^  \(-[^ =]*=\{0,1\}\).*/\1/p')" -- "$cur"))
		compopt -o nospace 2>/dev/null || :
		return ;;
	esac
	COMPREPLY=($(compgen -f -X '!*.@(bc|ll)' -- "$cur") $(compgen -d -- "$cur"))
}

complete -F _nvcc_lite nvcc-lite
complete -F _nv_stage nv-opt nv-llc nv-reflect nv-inline nv-unroll nv-remat nv-vectorize nv-split nv-link
