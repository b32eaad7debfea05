# t/fpgen.py SEED: a random floating-point C program on stdout, for the
# meaning harness (t/csmith.sh), which csmith cannot give (it is integer
# only).  The program fills float and double arrays, runs loops over them
# (element-wise ones a vectorizer can widen; reductions, loop-carried
# dependences, backward and strided loops, conditional stores and pointers
# that may overlap, all of which it must keep in order; fixed-count nests an
# unroller can flatten), calls small static
# helpers (for the inliner), asks nv-reflect's queries, and prints a hash
# of every result's bits.
#
# Defined behaviour only, so any difference after a stage is the stage's:
# float-to-int conversions are clamped first, array indices stay in range,
# NaNs are hashed as one value (their payload and sign are not promised).
# No transcendental functions (a compile-time fold and libm may round
# apart) and no fmin/fmax (signed zeros); sqrt and fabs are exact.
import random
import sys

seed = int(sys.argv[1])
r = random.Random(seed)
N = r.choice([16, 32, 37, 64, 100, 128])
out = []
emit = out.append


def lit(t):
    v = r.choice([0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 0.1, -0.75, 1e-3, 1e3,
                  1e30, -1e-30, 7.0, 0.3333])
    if r.random() < 0.5:
        v = r.uniform(-10, 10)
    s = repr(v)
    if 'e' not in s and '.' not in s:
        s += '.0'
    return s + ('f' if t == 'float' else '')


def expr(t, leaves, depth):
    if depth <= 0 or r.random() < 0.25:
        return r.choice(leaves) if r.random() < 0.8 else lit(t)
    a = expr(t, leaves, depth - 1)
    b = expr(t, leaves, depth - 1)
    k = r.randrange(10)
    sq = 'sqrtf' if t == 'float' else 'sqrt'
    ab = 'fabsf' if t == 'float' else 'fabs'
    if k < 5:
        return '(%s %s %s)' % (a, r.choice('+-*/') if k < 4 else '*', b)
    if k == 5:
        return '%s(%s(%s))' % (sq, ab, a)
    if k == 6:
        return '(%s < %s ? %s : %s)' % (a, b, a, lit(t))
    if k == 7:
        o = 'double' if t == 'float' else 'float'
        return '((%s)(%s)(%s))' % (t, o, a)
    if k == 8:
        return '((%s)clampi(%s))' % (t, a)
    return '(-(%s))' % a


types = {}
arrays = []
for i in range(r.randint(3, 6)):
    t = r.choice(['float', 'double'])
    name = 'a%d' % i
    types[name] = t
    arrays.append(name)

emit('#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n')
emit('#define N %d' % N)
for a in arrays:
    emit('static %s %s[N] __attribute__((aligned(16)));' % (types[a], a))
emit('static uint64_t hash = 1469598103934665603u;')
# nv-reflect's queries, answered on the host as nv-reflect -arch=sm_90
# answers them; on NVPTX the front end's builtin stands.
emit('''
#ifndef __NVPTX__
static int __nvvm_reflect(const char *q)
{
	if (!strcmp(q, "__CUDA_ARCH"))
		return 900;
	return !strcmp(q, "__CUDA_PREC_DIV") || !strcmp(q, "__CUDA_PREC_SQRT");
}
#endif''')
emit('''
static int clampi(double x)
{
	if (!(x > -1e6 && x < 1e6))
		return 0;
	return (int)x;
}

static void mix_f(float x)
{
	uint32_t b;
	if (x != x)
		x = NAN;
	memcpy(&b, &x, 4);
	hash = (hash ^ b) * 1099511628211u;
}

static void mix_d(double x)
{
	uint64_t b;
	if (x != x)
		x = NAN;
	memcpy(&b, &x, 8);
	hash = (hash ^ b) * 1099511628211u;
}
''')

helpers = []
for h in range(r.randint(2, 5)):
    t = r.choice(['float', 'double'])
    name = 'h%d' % h
    emit('static %s %s(%s x, %s y, int k)\n{' % (t, name, t, t))
    emit('\t%s z = %s;' % (t, expr(t, ['x', 'y', '(%s)k' % t], 3)))
    if r.random() < 0.5:
        emit('\tif (k & 1)\n\t\tz = %s;' % expr(t, ['x', 'y', 'z'], 2))
    if r.random() < 0.3:
        emit('\tfor (int j = 0; j < (k & 3); j++)\n\t\tz = %s;' % expr(t, ['z', 'x'], 2))
    emit('\treturn z;\n}\n')
    helpers.append((name, t))


def leaves_at(t, idx):
    ls = ['((%s)%s[%s])' % (t, a, idx) if types[a] != t else '%s[%s]' % (a, idx)
          for a in arrays]
    return ls + ['(%s)%s' % (t, idx)]


body = []
ptrfns = []
kinds = [5] + [r.randrange(11) for _ in range(r.randint(3, 8))]
r.shuffle(kinds)
for kind in kinds:
    dst = r.choice(arrays)
    t = types[dst]
    if kind <= 1:  # element-wise: the vectorizer's loop
        e = expr(t, leaves_at(t, 'i'), 2)
        body.append('\tfor (int i = 0; i < N; i++)\n\t\t%s[i] = %s;' % (dst, e))
    elif kind == 2:  # ordered reduction
        e = expr(t, leaves_at(t, 'i'), 2)
        body.append('\t{\n\t\t%s s = %s;\n\t\tfor (int i = 0; i < N; i++)\n\t\t\ts += %s;\n'
                    '\t\t%s[%d] = s;\n\t}' % (t, lit(t), e, dst, r.randrange(N)))
    elif kind == 3:  # helper calls in a loop
        name, ht = r.choice(helpers)
        e = '%s(%s, %s, i)' % (name, r.choice(leaves_at(ht, 'i')),
                               r.choice(leaves_at(ht, '(N - 1 - i)')))
        body.append('\tfor (int i = 0; i < N; i++)\n\t\t%s[i] = (%s)%s;' % (dst, t, e))
    elif kind == 4:  # fixed-count nest: the unroller's loop
        src = r.choice(arrays)
        body.append('\tfor (int i = 0; i + 4 <= N; i += 4)\n\t\tfor (int j = 0; j < 4; j++)\n'
                    '\t\t\t%s[i + j] = %s;' % (dst, expr(t, leaves_at(t, 'i + j') +
                                                       ['(%s)%s[i + 3 - j]' % (t, src)], 2)))
    elif kind == 5:  # what the target is: nv-reflect's query
        q = r.choice(['"__CUDA_FTZ"', '"__CUDA_ARCH") >= 800 && __nvvm_reflect("__CUDA_PREC_DIV"',
                      '"__CUDA_PREC_SQRT"', '"__CUDA_ARCH") < 700 || __nvvm_reflect("__NOT_A_QUERY"'])
        body.append('\tfor (int i = 0; i < N; i++) {\n\t\tif (__nvvm_reflect(%s))\n\t\t\t%s[i] = %s;\n'
                    '\t\telse\n\t\t\t%s[i] = %s;\n\t}' % (q, dst, expr(t, leaves_at(t, 'i'), 2),
                                                          dst, expr(t, leaves_at(t, 'i'), 2)))
    elif kind == 7:  # a loop-carried dependence
        src = r.choice(arrays)
        e = expr(t, ['%s[i - 1]' % dst, '(%s)%s[i]' % (t, src), '(%s)i' % t], 2)
        body.append('\tfor (int i = 1; i < N; i++)\n\t\t%s[i] = %s;' % (dst, e))
    elif kind == 8:  # backwards, reading what the next step overwrites
        e = expr(t, leaves_at(t, 'i') + ['%s[(i + 1) %% N]' % dst], 2)
        body.append('\tfor (int i = N - 1; i >= 0; i--)\n\t\t%s[i] = %s;' % (dst, e))
    elif kind == 9:  # through pointers that may overlap
        same = [a for a in arrays if types[a] == t]
        src = r.choice(same)
        f = 'p%d' % len(ptrfns)
        e = expr(t, ['x[i]', 'y[i]', '(%s)i' % t], 2)
        ptrfns.append('static void %s(%s *x, const %s *y, int n)\n{\n\tfor (int i = 0; i < n; i++)\n'
                      '\t\tx[i] = %s;\n}\n' % (f, t, t, e))
        # the same with an unsigned IV stepping by 3, which may wrap past n
        # (nv-unroll-runtime-may-wrap); no extra draw, so the seeds' other
        # programs stay as they were
        ptrfns.append('static void %su(%s *x, const %s *y, unsigned n)\n{\n'
                      '\tfor (unsigned i = 0; i < n; i += 3)\n\t\tx[i] = %s;\n}\n' % (f, t, t, e))
        o1, o2 = r.randrange(4), r.randrange(4)
        body.append('\t%s(%s + %d, %s + %d, N - %d);' % (f, dst, o1, src, o2, max(o1, o2)))
        body.append('\t%su(%s + %d, %s + %d, N - %d);' % (f, dst, o2, src, o1, max(o1, o2)))
    elif kind == 10:  # strided, with a conditional store
        src = r.choice(arrays)
        body.append('\tfor (int i = 0; i + 1 < N; i += 2)\n\t\tif (%s[i + 1] > %s)\n\t\t\t%s[i] = %s;'
                    % (src, lit(types[src]), dst, expr(t, leaves_at(t, 'i'), 2)))
    else:  # runtime trip count, guarded
        n = 'clampi(%s[0]) & 31' % r.choice(arrays)
        body.append('\t{\n\t\tint n = %s;\n\t\tfor (int i = 0; i < n && i < N; i++)\n'
                    '\t\t\t%s[i] = %s;\n\t}' % (n, dst, expr(t, leaves_at(t, 'i'), 2)))

# one array stepped through by a run-time stride, three accesses in a block
# (base-address-strength-reduce-chain: p[i + s], p[i + 2 * s] from p[i]);
# no draw, so the seeds' other code stays as it was
a0 = arrays[0]
body.append('\t{\n\t\tint s = (clampi(%s[1]) & 3) + 1;\n\t\tfor (int i = 0; i + 2 * s < N; i += 3) {\n'
            '\t\t\t%s x = %s[i];\n\t\t\t%s[i + s] += x;\n\t\t\t%s[i + 2 * s] -= x;\n\t\t}\n\t}'
            % (a0, types[a0], a0, a0, a0))
emit('\n'.join(ptrfns))
emit('static void run(void)\n{')
emit('\n'.join(body))
emit('}\n')
emit('int main(void)\n{')
for a in arrays:
    t = types[a]
    emit('\tfor (int i = 0; i < N; i++)\n\t\t%s[i] = (%s)(i * %s + %s);' % (a, t, lit('double'), lit('double')))
emit('\trun();')
for a in arrays:
    emit('\tfor (int i = 0; i < N; i++)\n\t\tmix_%s(%s[i]);' % (types[a][0], a))
emit('\tprintf("hash = %016llx\\n", (unsigned long long)hash);')
emit('\treturn 0;\n}')
print('\n'.join(out))
