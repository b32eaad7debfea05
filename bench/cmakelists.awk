# bench/cmakelists.awk: what a sample's CMakeLists.txt says about its one
# program, as bench/corpus-build.sh needs it (a small reading of CMake, not
# CMake: enough for NVIDIA/cuda-samples' style).  awk -v dir=SAMPLE_DIR
# -f bench/cmakelists.awk CMakeLists.txt prints tab-separated lines:
#
#   name NAME                  the add_executable target
#   src PATH LANG              a source (absolute), LANG cu, cpp or c
#   cuflag FLAG / flag FLAG    a compile flag for .cu sources / for all
#   lib FLAG                   a link flag (-lX, -Xcompiler -fopenmp, a path)
#   rdc on                     CUDA_SEPARABLE_COMPILATION ON
#   extra MODE SRC OUT         a custom command that runs the CUDA compiler
#                              with -fatbin or -ptx on SRC, writing OUT
#   (a CUDA:: library brings the ones FindCUDAToolkit gives it: cusolver
#   cublas, cusparse and cublasLt; cublas cublasLt; npp* nppc; nvrtc cuda)
#   need WHAT                  a package (find_package REQUIRED, if(X_FOUND)),
#                              a CUDA library (CUDA::x: "cudalib x") or a
#                              variable this reading cannot know ("${VAR}")
#
# Branches: if() conditions about Windows, MSVC, QNX, aarch64, cross
# compiling, ENABLE_CUDA_DEBUG, BUILD_TEGRA or DEFINED are false; X_FOUND is
# true and needs X; anything else (Linux, UNIX, GNU, versions) is true.

function strip(s) { gsub(/^[ \t\n]+|[ \t\n]+$/, "", s); return s }

function expand(s,   v, n) { # ${VAR} by what is known of it
	while (match(s, /\$\{[A-Za-z0-9_]+\}/)) {
		v = substr(s, RSTART + 2, RLENGTH - 3)
		if (v == "CMAKE_CURRENT_SOURCE_DIR" || v == "CMAKE_CURRENT_LIST_DIR" || v == "PROJECT_SOURCE_DIR") n = dir
		else if (v == "CMAKE_CURRENT_BINARY_DIR" || v == "PROJECT_BINARY_DIR") n = "."
		else if (v == "CUDAToolkit_INCLUDE_DIRS" || v == "CUDAToolkit_INCLUDE_DIR") n = ""
		else if ((v in var) && var[v] !~ /\$/) n = var[v]
		else return s # unknown: left as it is, for the caller to see
		s = substr(s, 1, RSTART - 1) n substr(s, RSTART + RLENGTH)
	}
	return s
}

function words(s, w,   n, i, t) { # the arguments, unquoted and expanded
	n = split(s, t, /[ \t\n]+/)
	m = 0
	for (i = 1; i <= n; i++) {
		if (t[i] == "") continue
		gsub(/^"|"$/, "", t[i])
		w[++m] = expand(t[i])
	}
	return m
}

function abspath(p) { return p ~ /^\// ? p : dir "/" p }

function pkg(x) { # a find_package / _FOUND name, as one spelling
	sub(/_(CXX|C)$/, "", x)
	if (toupper(x) == "OPENGL") return "OpenGL"
	if (toupper(x) == "GLUT") return "GLUT"
	if (toupper(x) == "VULKAN") return "Vulkan"
	if (toupper(x) == "FREEIMAGE") return "FreeImage"
	if (toupper(x) == "OPENMP") return "OpenMP"
	return x
}

function need(x) { if (!(x in needed)) { needed[x] = 1; print "need\t" x } }

function cond(s,   t) { # 1 when an if() condition holds on Linux x86-64
	if (s ~ /WIN32|MSVC|CROSSCOMPILING|Visual Studio|aarch64|ENABLE_CUDA_DEBUG|BUILD_TEGRA|DEFINED|APPLE/) return 0
	if (s ~ /QNX/ && s !~ /NOT/) return 0
	t = s
	while (match(t, /[A-Za-z0-9]+(_CXX)?_FOUND/)) {
		need(pkg(substr(t, RSTART, RLENGTH - 6)))
		t = substr(t, RSTART + RLENGTH)
	}
	if (s ~ /GLFW3/) need("GLFW")
	if (s ~ /LLVM_PACKAGE_VERSION/) need("LLVM")
	return 1
}

function cudalib(t,   d, n, i) { # a CUDA:: library and what FindCUDAToolkit links with it
	if (t in linked) return
	linked[t] = 1
	if (t == "cuda_driver") t = "cuda"
	need("cudalib " t); print "lib\t-l" t
	n = split(t == "cublas" ? "cublasLt" : t == "cusolver" ? "cublas cusparse cublasLt" : \
	    t == "cufftw" ? "cufft" : t == "nvrtc" ? "cuda" : t ~ /^npp/ && t != "nppc" ? "nppc" : "", d, " ")
	for (i = 1; i <= n; i++) cudalib(d[i])
}

function link(t) { # a target_link_libraries item
	if (t ~ /^(PRIVATE|PUBLIC|INTERFACE|debug|optimized|general)$/) return
	if (t == "CUDA::cudart" || t == "CUDA::cudart_static") return
	if (t ~ /^CUDA::/) { sub(/^CUDA::/, "", t); cudalib(t); return }
	if (t ~ /^\$\{OPENGL_(gl_)?LIBRAR(Y|IES)\}$|^OpenGL::/) { need("OpenGL"); print "lib\t-lGL"; print "lib\t-lGLU"; return }
	if (t ~ /^\$\{GLUT_LIBRAR(Y|IES)\}$|^GLUT::/) { need("GLUT"); print "lib\t-lglut"; return }
	if (t ~ /^\$\{EGL_LIBRAR(Y|IES)\}$|^EGL::/) { need("EGL"); print "lib\t-lEGL"; return }
	if (t ~ /^\$\{GLFW3?_LIB(RARY|RARIES)?\}$|^glfw$/) { need("GLFW"); print "lib\t-lglfw"; return }
	if (t ~ /^OpenMP::/) { need("OpenMP"); if (!omp++) { print "flag\t-Xcompiler\t-fopenmp"; print "lib\t-Xcompiler\t-fopenmp" }; return }
	if (t ~ /^\$\{CMAKE_DL_LIBS\}$/) { print "lib\t-ldl"; return }
	if (t ~ /^(Threads::Threads|\$\{CMAKE_THREAD_LIBS_INIT\})$/) { print "lib\t-lpthread"; return }
	if (t ~ /^\$\{FreeImage_LIBRAR(Y|IES)\}$/) { need("FreeImage"); print "lib\t-lfreeimage"; return }
	if (t ~ /^\$\{Vulkan_LIBRAR(Y|IES)\}$|^Vulkan::/) { need("Vulkan"); print "lib\t-lvulkan"; return }
	if (t ~ /^MPI::|^\$\{MPI_/) { need("MPI"); return }
	if (t ~ /\$/) { need(t); return }
	if (t ~ /\//) { if (t ~ /\.(so|a)$/) print "lib\t" t; return }
	if (t ~ /^-/) { print "lib\t" t; return }
	print "lib\t-l" t
}

function command(name, args,   w, n, i, t, m, mode, src, o) {
	name = tolower(name)
	# the branches
	if (name == "if") { top++; up[top] = act; done[top] = act && cond(args); act = done[top]; return }
	if (name == "elseif") { if (done[top]) act = 0; else { act = up[top] && cond(args); done[top] = act }; return }
	if (name == "else") { act = up[top] && !done[top]; return }
	if (name == "endif") { act = up[top]; top--; return }
	if (!act) return
	n = words(args, w)
	if (name == "set" && n == 2 && w[2] !~ /\$/) { var[w[1]] = w[2]; return }
	if (name == "find_package") {
		for (i = 2; i <= n; i++) if (w[i] == "REQUIRED" && w[1] != "CUDAToolkit") need(pkg(w[1]))
		return
	}
	if (name == "add_executable" && !target) {
		target = w[1]; print "name\t" w[1]
		for (i = 2; i <= n; i++) {
			t = w[i]
			if (t ~ /^(WIN32|MACOSX_BUNDLE|EXCLUDE_FROM_ALL)$/) continue
			if (t ~ /\.cu$/) print "src\t" abspath(t) "\tcu"
			else if (t ~ /\.(cpp|cc|cxx|C)$/) print "src\t" abspath(t) "\tcpp"
			else if (t ~ /\.c$/) print "src\t" abspath(t) "\tc"
		}
		return
	}
	if (name == "target_link_libraries") { for (i = 2; i <= n; i++) link(w[i]); return }
	if (name == "link_libraries") { for (i = 1; i <= n; i++) link(w[i]); return }
	if (name ~ /^(target_compile_definitions|add_compile_definitions|add_definitions)$/) {
		for (i = name == "target_compile_definitions" ? 2 : 1; i <= n; i++) {
			t = w[i]
			if (t ~ /^(PRIVATE|PUBLIC|INTERFACE)$/ || t ~ /\$/) continue
			print "flag\t" (t ~ /^-D/ ? t : "-D" t)
		}
		return
	}
	if (name ~ /^(target_)?include_directories$/) {
		for (i = name == "include_directories" ? 1 : 2; i <= n; i++) {
			t = w[i]
			if (t ~ /^(PRIVATE|PUBLIC|INTERFACE|SYSTEM|BEFORE|AFTER)$/ || t == "" || t ~ /\$/) continue
			print "flag\t-I" abspath(t)
		}
		return
	}
	if (name == "target_compile_options") {
		for (i = 2; i <= n; i++) {
			t = w[i]
			if (t ~ /^(PRIVATE|PUBLIC|INTERFACE)$/) continue
			if (t ~ /^\$<\$<COMPILE_LANGUAGE:CUDA>:.*>$/) { sub(/^\$<\$<COMPILE_LANGUAGE:CUDA>:/, "", t); sub(/>$/, "", t); print "cuflag\t" t }
			else if (t !~ /\$/) print "flag\t" t
		}
		return
	}
	if (name == "set_target_properties" && args ~ /CUDA_SEPARABLE_COMPILATION[ \t\n]+(ON|TRUE|1)/) { print "rdc\ton"; return }
	if (name == "add_custom_command" && args ~ /CMAKE_CUDA_COMPILER/) {
		mode = src = o = ""
		for (i = 1; i <= n; i++) {
			if (w[i] == "-fatbin" || w[i] == "-ptx" || w[i] == "-cubin") { mode = w[i]; if (i < n && w[i + 1] !~ /^-/) src = w[i + 1] }
			if (w[i] == "-o" && i < n) o = w[i + 1]
		}
		if (mode != "" && src != "" && o != "" && src !~ /\$/ && o !~ /\$/) {
			sub(/^\.\//, "", o)
			print "extra\t" mode "\t" abspath(src) "\t" o
		}
	}
}

{
	line = $0
	if (line ~ /^[ \t]*#/) next
	sub(/[ \t]#[^"]*$/, "", line)
	text = text line "\n"
}

END {
	act = 1; top = 0
	# commands: NAME(ARGS), ARGS up to the matching parenthesis
	while (match(text, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = strip(substr(text, RSTART, RLENGTH - 1))
		text = substr(text, RSTART + RLENGTH)
		depth = 1
		for (i = 1; i <= length(text) && depth > 0; i++) {
			c = substr(text, i, 1)
			if (c == "(") depth++
			else if (c == ")") depth--
		}
		args = substr(text, 1, i - 2)
		text = substr(text, i)
		command(name, args)
	}
}
