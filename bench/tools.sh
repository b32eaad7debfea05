# bench/tools.sh: what the benchmark scripts share (sourced, POSIX sh).

find_tool() { # find_tool NAME DIR...: the first of PATH, then DIRs
	t=$1; shift
	command -v "$t" 2>/dev/null && return
	for d in "$@"; do [ -x "$d/$t" ] && { echo "$d/$t"; return; }; done
	return 1
}

# flag_rules FILE HERE ROOT REL: the flags of FILE's "GLOB FLAGS..." lines
# whose glob matches REL (corpus.sh's), with a leading keyword KW when
# given as $5: then only the lines "KW GLOB REST..." count, REST printed.
flag_rules() {
	awk -v rel="$4" -v here="$2" -v root="$3" -v kw="${5-}" '
	function glob2re(g,   r, i, c) {
		r = "^"
		for (i = 1; i <= length(g); i++) {
			c = substr(g, i, 1)
			if (c == "*") r = r ".*"
			else if (c == "?") r = r "."
			else if (index(".[]^$+(){}|\\", c)) r = r "\\" c
			else r = r c
		}
		return r "$"
	}
	function subst(s, from, to,   i, o) {
		o = ""
		while ((i = index(s, from)) > 0) { o = o substr(s, 1, i - 1) to; s = substr(s, i + length(from)) }
		return o s
	}
	/^[ \t]*(#|$)/ { next }
	kw != "" { if ($1 != kw) next; sub(/^[ \t]*[^ \t]+[ \t]*/, "") }
	rel ~ glob2re($1) { sub(/^[ \t]*[^ \t]+[ \t]*/, ""); print subst(subst($0, "$ROOT", root), "$HERE", here) }' "$1"
}

# corpus_flags ROOT REL: a source's flags from CORPUS.flags and .corpus-flags.
corpus_flags() {
	cf_root=$1 cf_rel=$2
	f=$top/bench/corpus/$(basename "$cf_root").flags
	[ -f "$f" ] && flag_rules "$f" "$top/bench/corpus" "$cf_root" "$cf_rel"
	cf_d=$(dirname "$cf_rel") cf_dirs=.
	while [ "$cf_d" != . ]; do cf_dirs="$cf_dirs
$cf_d"; cf_d=$(dirname "$cf_d"); done
	echo "$cf_dirs" | sort | while IFS= read -r cf_d; do
		h=$cf_root/$cf_d
		[ "$cf_d" = . ] && h=$cf_root
		[ -f "$h/.corpus-flags" ] && flag_rules "$h/.corpus-flags" "$h" "$cf_root" "${cf_rel#"$cf_d"/}"
	done
	:
}

# first_error LOG ROOT NAME: the first line saying error or
# fatal (else one that mentions an error, else the first line).
first_error() {
	awk -v root="$2/" -v name="$3/" '
	{ gsub(/\t/, " "); sub(/^ +/, ""); sub(/ +$/, "") }
	$0 == "" || /^\$ / { next }
	first == "" { first = $0 }
	/(^|[^A-Za-z])(error|fatal)[ \t]*:/ && !/^collect2:/ { e = $0; exit }
	/^collect2: error/ && e == "" { e = $0 }
	# the linker says why before collect2 says it failed
	ld == "" && /undefined reference|cannot find -l|DSO missing/ { ld = $0 }
	loose == "" && /[Ee]rror|[Ff]atal|[Aa]ssert|[Ss]egmentation|[Aa]bort|[Kk]illed|signal|undefined reference/ { loose = $0 }
	END {
		if ((e == "" || e ~ /^collect2: error/) && ld != "") e = ld
		if (e == "") e = loose
		if (e == "") e = first
		if (e == "") e = "(no message)"
		while ((i = index(e, root)) > 0) e = substr(e, 1, i - 1) name substr(e, i + length(root))
		print substr(e, 1, 300)
	}' "$1"
}
