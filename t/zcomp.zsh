# zsh -f t/zcomp.zsh SERVICE PREFIX WORD...: what completions/_nvcc-lite offers
# on a command line WORD... (the last one being completed), one per line.
# compadd, compset and _files are stand-ins that print what they are given.
compadd() {
	local arrays=0 w
	while (( $# )); do
		case $1 in
		-[SPXJ]) shift 2 ;;
		-a) arrays=1; shift ;;
		--) shift; break ;;
		-*) shift ;;
		*) break ;;
		esac
	done
	for w; do if (( arrays )); then print -rl -- ${(P)w}; else print -r -- $w; fi; done
}
compset() { [[ $1 == -P && $PREFIX == ${~2}* ]] || return 1; PREFIX=${PREFIX#${~2}} }
_files() { print -r -- "_files $*" }
eval "_c() { $(<${0:h}/../completions/_nvcc-lite) }"
service=$1 PREFIX=$2; shift 2; words=("$@"); CURRENT=${#words}
_c
