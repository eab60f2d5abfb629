"""xoshiro256** streams in plain Python, seeded as the C++ core seeds stream ``r`` of ``seed``
(SplitMix64 from a mix of both), so that a numpy reference can draw exactly the kernels' subsets."""

from __future__ import annotations

_MASK = 0xFFFFFFFFFFFFFFFF


def _mix(z: int) -> int:
    z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & _MASK
    z = ((z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53) & _MASK
    return z ^ (z >> 33)


def _rotate(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _MASK


class Stream:
    """Stream ``stream`` of ``seed``: ``below(n)`` is the kernels' uniform integer in [0, n)."""

    def __init__(self, seed: int, stream: int = 0) -> None:
        state = _mix(seed) ^ _mix((stream * 0xD1B54A32D192ED03 + 0x8CB92BA72F3D8DD7) & _MASK)
        words = []
        for _ in range(4):  # SplitMix64
            state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            words.append(z ^ (z >> 31))
        self.s = words

    def next(self) -> int:
        s0, s1, s2, s3 = self.s
        out = (_rotate((s1 * 5) & _MASK, 7) * 9) & _MASK
        shifted = (s1 << 17) & _MASK
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= shifted
        self.s = [s0, s1, s2, _rotate(s3, 45)]
        return out

    def below(self, n: int) -> int:
        """Lemire's multiply-and-reject: the high word of next() * n, rejecting the biased low words."""
        product = self.next() * n
        if (product & _MASK) < n:
            floor = ((1 << 64) - n) % n
            while (product & _MASK) < floor:
                product = self.next() * n
        return product >> 64
