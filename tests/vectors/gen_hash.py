#!/usr/bin/env python3
"""Writes hash.json: SHA-256 and BLAKE2b digests computed by Python's hashlib
(OpenSSL's SHA-256 and the BLAKE2 reference code, both independent of
zkpipe), for the messages tests/test_hash.c rebuilds from their lengths.

Message of length n: byte i is (i * 131 + n) mod 251, so every length gives
a different message and no byte pattern repeats with the 64- or 128-byte
block. Run: python3 tests/vectors/gen_hash.py > tests/vectors/hash.json
"""
import hashlib
import json


def message(n):
    return bytes((i * 131 + n) % 251 for i in range(n))


# Every length up to 200 crosses the one- and two-block padding cases of both
# hashes; the longer ones cover several whole blocks and the update paths.
LENGTHS = list(range(0, 201)) + [255, 256, 257, 1000, 1279, 1280, 4096 + 7]
KEY = bytes(range(64))

out = {
    "message": "byte i of the message of length n is (i * 131 + n) mod 251",
    "sha256": [[n, hashlib.sha256(message(n)).hexdigest()] for n in LENGTHS],
    "blake2b512": [[n, hashlib.blake2b(message(n)).hexdigest()] for n in LENGTHS],
    # Other output lengths and a key: parameters of the hash, not truncations.
    "blake2b_outlen_keylen": [
        [n, outlen, keylen,
         hashlib.blake2b(message(n), digest_size=outlen, key=KEY[:keylen]).hexdigest()]
        for n in (0, 3, 16, 127, 128, 129, 300)
        for outlen in (1, 8, 32, 33, 64)
        for keylen in (0, 1, 32, 64)
    ],
    "blake2b_key": "the key of length k is bytes 0, 1, ..., k-1",
}
# One entry per line, so a regenerated file diffs line by line.
lines = ["{"]
items = list(out.items())
for k, (key, val) in enumerate(items):
    end = "," if k + 1 < len(items) else ""
    if isinstance(val, list):
        rows = ",\n  ".join(json.dumps(r) for r in val)
        lines.append("%s: [\n  %s\n]%s" % (json.dumps(key), rows, end))
    else:
        lines.append("%s: %s%s" % (json.dumps(key), json.dumps(val), end))
lines.append("}")
print("\n".join(lines))
