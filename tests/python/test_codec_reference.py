"""FPC and BDI size accounting, written again in plain Python straight from the tables in
docs/codecs.md, must agree byte for byte with what ``ssdlab codec-study`` stores for every file of
the committed real-data excerpts, with and without the 10% failure threshold."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXCERPTS = sorted((ROOT / "crates" / "ssdlab" / "tests" / "data" / "codec").glob("*.head16k"))
UNIT = 4096


def signed(v: int, nbytes: int) -> int:
    v &= (1 << (8 * nbytes)) - 1
    return v - (1 << (8 * nbytes)) if v >= 1 << (8 * nbytes - 1) else v


def fpc_line(line: bytes) -> int:
    """Bytes of one FPC line: 3-bit prefix + data per word, zero runs of up to 8 words."""
    words = struct.unpack(f"<{len(line) // 4}I", line)
    bits, i = 0, 0
    while i < len(words):
        w = words[i]
        if w == 0:
            run = 0
            while i < len(words) and words[i] == 0 and run < 8:
                run, i = run + 1, i + 1
            bits += 3 + 3
            continue
        s, lo, hi = signed(w, 4), signed(w, 2), signed(w >> 16, 2)
        if -8 <= s <= 7:
            bits += 3 + 4
        elif -128 <= s <= 127:
            bits += 3 + 8
        elif -32768 <= s <= 32767 or w & 0xFFFF == 0:
            bits += 3 + 16
        elif -128 <= lo <= 127 and -128 <= hi <= 127:
            bits += 3 + 16
        elif w == (w & 0xFF) * 0x01010101:
            bits += 3 + 8
        else:
            bits += 3 + 32
        i += 1
    return min((bits + 7) // 8, len(line))


def bdi_line(line: bytes) -> int:
    """Bytes of one BDI line: zeros 1, repeated 8 B value 8, base k + n deltas of d + mask."""
    if not any(line):
        return 1
    first = line[:8]
    if all(line[i : i + 8] == first for i in range(0, len(line), 8)):
        return 8
    best = len(line)
    for k, d in [(8, 1), (8, 2), (8, 4), (4, 1), (4, 2), (2, 1)]:
        n = len(line) // k
        size = k + n * d + (n + 7) // 8
        if size >= best:
            continue
        limit, base, fits = 1 << (8 * d - 1), None, True
        for i in range(0, len(line), k):
            v = int.from_bytes(line[i : i + k], "little")
            if -limit <= signed(v, k) < limit:
                continue
            base = v if base is None else base
            if not -limit <= signed(v - base, k) < limit:
                fits = False
                break
        if fits:
            best = size
    return best


def stored(data: bytes, line_size, line_bytes: int, threshold: float) -> int:
    total = 0
    for start in range(0, len(data), UNIT):
        unit = data[start : start + UNIT].ljust(UNIT, b"\0")
        size = sum(line_size(unit[i : i + line_bytes]) for i in range(0, UNIT, line_bytes))
        total += UNIT if UNIT - size < threshold * UNIT else size
    return total


@pytest.mark.parametrize("threshold", [0.1, 0.0])
def test_fpc_and_bdi_sizes_match_the_reference(threshold):
    assert len(EXCERPTS) == 7
    codecs = {"fpc": (fpc_line, 64), "fpc128": (fpc_line, 128)}
    codecs |= {"bdi": (bdi_line, 64), "bdi128": (bdi_line, 128)}
    args = [sys.executable, "-m", "ssdlab", "codec-study", "--json"]
    args += [f"--failure-threshold-saving={threshold}", *map(str, EXCERPTS)]
    for name in codecs:
        args += ["--codec", name]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(out.stdout)
    assert [f["path"] for f in report["files"]] == list(map(str, EXCERPTS))
    for path, file in zip(EXCERPTS, report["files"]):
        data = path.read_bytes()
        for name, (line_size, line_bytes) in codecs.items():
            expected = stored(data, line_size, line_bytes, threshold)
            assert file["codecs"][name]["stored_bytes"] == expected, (path.name, name)
