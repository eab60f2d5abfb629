"""Plain-Python xoshiro256** with the (seed, stream) seeding of
cpp/include/paperkernels/common/random.hpp: the reference the C++ generator is tested against, and
the stream the slow reference implementations in tests/ consume to reproduce the kernels' draws."""

import math

M64 = (1 << 64) - 1


def splitmix64(state):
    """SplitMix64 outputs from ``state`` (an endless generator)."""
    while True:
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def mix64(z):
    z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & M64
    z = ((z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53) & M64
    return z ^ (z >> 33)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


class Xoshiro256:
    """Stream ``stream`` of ``seed``; the same outputs as paperkernels::Xoshiro256(seed, stream)."""

    ALWAYS = M64  # bernoulli threshold meaning "always"

    def __init__(self, seed, stream=0):
        key = mix64(seed) ^ mix64((stream * 0xD1B54A32D192ED03 + 0x8CB92BA72F3D8DD7) & M64)
        words = splitmix64(key)
        self.s = [next(words) for _ in range(4)]

    def next(self):
        s = self.s
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def uniform(self):
        """Uniform on [0, 1): the top 53 bits times 2**-53."""
        return (self.next() >> 11) * 2.0**-53

    def below(self, n):
        """Uniform integer in [0, n) by Lemire's multiply-and-reject."""
        product = self.next() * n
        if (product & M64) < n:
            threshold = ((1 << 64) - n) % n
            while (product & M64) < threshold:
                product = self.next() * n
        return product >> 64

    def bernoulli(self, threshold):
        """Bernoulli draw by integer comparison against bernoulli_threshold(p)."""
        return threshold == self.ALWAYS or self.next() < threshold

    def normal(self):
        """Marsaglia's polar method, the spare discarded."""
        while True:
            u = 2.0 * self.uniform() - 1.0
            v = 2.0 * self.uniform() - 1.0
            s = u * u + v * v
            if 0.0 < s < 1.0:
                return u * math.sqrt(-2.0 * math.log(s) / s)


def bernoulli_threshold(p):
    """Threshold T with P(next() < T) = p rounded down to a multiple of 2**-64 (ALWAYS for p >= 1)."""
    if not p > 0.0:
        return 0
    if p >= 1.0:
        return M64
    return int(math.ldexp(p, 64))
