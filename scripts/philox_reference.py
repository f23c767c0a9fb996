#!/usr/bin/env python3
"""An independent Philox4x32-10, written from Salmon et al., "Parallel random numbers: as easy as
1, 2, 3" (SC11), in plain Python integers. It reproduces Random123's published known-answer vectors
(kat_vectors, the three philox4x32 10 lines) that tests/core/test_philox.cpp asserts against core/philox.h:

    python3 scripts/philox_reference.py
"""

M0, M1 = 0xD2511F53, 0xCD9E8D57  # round multipliers
W0, W1 = 0x9E3779B9, 0xBB67AE85  # Weyl key increments
MASK = 0xFFFFFFFF


def philox4x32(counter, key, rounds=10):
    c, k = list(counter), list(key)
    for r in range(rounds):
        if r > 0:
            k = [(k[0] + W0) & MASK, (k[1] + W1) & MASK]
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & MASK, (p0 >> 32) ^ c[3] ^ k[1], p0 & MASK]
    return c


KNOWN_ANSWERS = [  # counter, key -> expected (Random123 examples/kat_vectors)
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([MASK] * 4, [MASK] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]

if __name__ == "__main__":
    for counter, key, expected in KNOWN_ANSWERS:
        got = philox4x32(counter, key)
        print(" ".join(f"{w:08x}" for w in got), "ok" if got == expected else "MISMATCH")
        assert got == expected
