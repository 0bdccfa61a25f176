#!/usr/bin/env bash
# Regenerates the seed corpus of cluster mode's frames (fuzz/corpus/cluster;
# committed). Run by hand, with python3:
#
#     fuzz/gen_corpus_cluster.sh
#
# The seeds are the frames a member writes to the queue (the layouts in
# src/server/cluster.h): the inputs of a zkpipe.v1 Submit and of a
# cuzk.v1 SubmitProof, and results of one BN254 partition with its JSON
# texts and of three BLS12-381 partitions without them, each with truncated
# variants. The bytes are fixed, so the files are reproducible.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=$ROOT/fuzz/corpus/cluster
rm -rf "${CORPUS:?}"
mkdir -p "$CORPUS"

python3 - "$CORPUS" <<'PY'
import struct
import sys

out = sys.argv[1]


def varint(v):
    b = bytearray()
    while True:
        byte = v & 0x7F
        v >>= 7
        if v:
            b.append(byte | 0x80)
        else:
            b.append(byte)
            return bytes(b)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


def inputs(service, msg):
    return b"ZKPJ" + bytes([1, service, 0, 0]) + struct.pack("<Q", len(msg)) + msg


def result(times_us, parts):
    b = b"ZKPR" + bytes([1, 0, 0, 0]) + struct.pack("<I", len(parts))
    b += b"".join(struct.pack("<Q", t) for t in times_us)
    for verified, proof, proof_json, public_json in parts:
        b += bytes([verified]) + struct.pack("<III", len(proof), len(proof_json), len(public_json))
        b += proof + proof_json + public_json
    return b


def pattern(n, seed):
    return bytes((seed * 31 + i * 7) & 0xFF for i in range(n))


def write(name, data):
    with open(f"{out}/{name}", "wb") as f:
        f.write(data)
    # Cut after the magic, inside the header, halfway and one byte short.
    for n in (4, 12, len(data) // 2, len(data) - 1):
        with open(f"{out}/{name}.cut{n}", "wb") as f:
            f.write(data[:n])


# zkpipe.v1 SubmitRequest: key, two witnesses, priority HIGH, request_id.
submit = (field_bytes(1, b"poseidon") + field_bytes(2, pattern(44, 1)) +
          field_bytes(2, pattern(12, 2)) + field_varint(3, 2) + field_bytes(4, b"rq-1"))
write("inputs_zkpipe.bin", inputs(1, submit))

# cuzk.v1 SubmitProofRequest: a PoRep C2 of a 2 KiB sector.
submit_proof = (field_bytes(1, b"c2-0001") + field_varint(2, 1) + field_varint(3, 2048) +
                field_varint(4, 3) + field_varint(5, 1) + field_bytes(10, pattern(96, 3)) +
                field_varint(20, 7) + field_varint(21, 1000))
write("inputs_cuzk.bin", inputs(2, submit_proof))

times = [250000, 1500000, 125000, 2000000, 500000, 62500]
write("result_bn254.bin", result(times, [
    (1, pattern(256, 4), b'{"pi_a": ["1", "2", "1"], "protocol": "groth16"}', b'["7"]')]))
write("result_bls12381.bin", result([0, 0, 0, 3000000, 0, 0], [
    (1, pattern(384, 5), b"", b""), (0, pattern(384, 6), b"", b""),
    (1, pattern(384, 7), b"", b'["\xc3\xa9"]')]))
PY
ls -l "$CORPUS" | awk '$5 > 65536 { print "too large: " $0; bad = 1 } END { exit bad }'
