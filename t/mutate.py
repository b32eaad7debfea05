# t/mutate.py SEED FILE: FILE with a few bytes flipped, overwritten or
# scrambled (the kind chosen by SEED), on stdout.  Feeds the robustness test
# and longer fuzzing loops by hand.
import random
import sys

seed, src = int(sys.argv[1]), sys.argv[2]
random.seed(seed)
d = bytearray(open(src, 'rb').read())
mode = seed % 3
if mode == 0:
    for _ in range(random.randint(1, 8)):
        d[random.randrange(4, len(d))] ^= 1 << random.randrange(8)
elif mode == 1:
    for _ in range(random.randint(1, 4)):
        i = random.randrange(4, len(d))
        d[i] = random.choice([0, 0xff, 0x7f, 0x80, random.randrange(256)])
else:
    i = random.randrange(4, len(d))
    j = min(len(d), i + random.randint(1, 64))
    d[i:j] = bytes(random.randrange(256) for _ in range(j - i))
sys.stdout.buffer.write(d)
