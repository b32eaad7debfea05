# bench/tools.sh: what the benchmark scripts share (sourced, POSIX sh).

find_tool() { # find_tool NAME DIR...: the first of PATH, then DIRs
	t=$1; shift
	command -v "$t" 2>/dev/null && return
	for d in "$@"; do [ -x "$d/$t" ] && { echo "$d/$t"; return; }; done
	return 1
}
