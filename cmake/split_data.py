#!/usr/bin/env python3
"""Moves the strings only the deferred code names out of the primary wasm (issue 16; run by
cmake/split_wasm.py after binaryen's wasm-split, which moves functions but leaves every data segment
in the primary module).

  split_data.py PRIMARY_WASM DEFERRED_WASM [--report N] [--dry-run]

A string literal whose address only the deferred module's code holds (an `i32.const` or a load/store
offset in a deferred function) cannot be read before that module is instantiated: the only way to its
bytes is through that constant. Such strings (the core's error and warning messages, the derivation
text's symbols, the modes and readers the first view does not run) leave the primary's data segments
(the memory there stays zero) and become active data segments of the deferred module, which the
browser writes into the shared memory when shell/index.html instantiates it, before any of its code
runs. What stays, conservatively:
  - any byte range whose start the primary's code names (constants, load/store offsets, global
    initialisers) or whose start any 4 bytes of the data point to (tables of `const char*`, typeinfo);
  - a string the primary names a suffix of (the linker merges "bar" into "foobar"): only the bytes
    before the primary's address move;
  - anything not shaped as a C string (valid UTF-8 text, a NUL before and after) and runs shorter than
    MIN_RUN bytes (a segment header costs about 8 bytes).
With --report N it prints what the data section holds (by who names each string) and the N largest
strings that move; --dry-run writes nothing.
"""
import bisect
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from size import leb, wasm_sections  # noqa: E402  (scripts/size.py: the wasm reader)

WASM_DIS = "wasm-dis"  # binaryen's disassembler (cmake/split_wasm.py names the one beside its wasm-split)
MIN_RUN = 24  # bytes: shorter cold runs stay (a data segment's header and offset cost ~8 bytes)
CONST_RE = re.compile(rb"(?:i32\.const |offset=)(-?\d+)")


def uleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def sleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        done = (n == 0 and not b & 0x40) or (n == -1 and b & 0x40)
        out.append(b if done else b | 0x80)
        if done:
            return bytes(out)


def segments(data, start):
    """[(address, bytes)] of the data section's active segments (memory 0, i32.const offsets)."""
    count, pos = leb(data, start)
    out = []
    for _ in range(count):
        flags, pos = leb(data, pos)
        assert flags == 0 and data[pos] == 0x41, "split_data.py handles active i32.const data segments only"
        # a signed LEB; the addresses are below 2^31, where it reads as the unsigned one
        addr, pos = leb(data, pos + 1)
        assert data[pos] == 0x0B
        n, pos = leb(data, pos + 1)
        out.append((addr, data[pos:pos + n]))
        pos += n
    return out


def code_constants(wasm):
    """Every i32 constant and load/store offset the module's text names, outside its data segments."""
    text = subprocess.run([WASM_DIS, wasm], stdout=subprocess.PIPE, check=True).stdout
    text = b"\n".join(l for l in text.split(b"\n") if not l.lstrip().startswith(b"(data "))
    return {int(m) for m in CONST_RE.findall(text)}


def strings_by_function(wasm):
    """What a module's data is made of: {defined function index: string bytes it names (a string named
    by n functions counts 1/n to each)}, the bytes of strings that only data points to, the data's
    total and {defined function index: [the strings it names]}. A string is a NUL-preceded, non-empty
    run to its NUL."""
    data = open(wasm, "rb").read()
    sec = next((s for s in wasm_sections(data) if s[0] == 11), None)
    segs = segments(data, sec[2]) if sec else []
    memory = {}
    for addr, b in segs:
        memory.update({addr + i: v for i, v in enumerate(b)})

    def string_at(a):
        if not memory.get(a, 0) or memory.get(a - 1, 0):
            return 0
        e = a
        while memory.get(e, 0):
            e += 1
        return e - a + (e in memory)  # with its NUL, where this module holds it
    text = subprocess.run([WASM_DIS, wasm], stdout=subprocess.PIPE, check=True).stdout.split(b"\n")
    owners, cur = {}, None
    for line in text:
        m = re.match(rb" \(func \$(\d+)", line)
        if m:
            cur = int(m.group(1))
        elif cur is not None and not line.lstrip().startswith(b"(data "):
            for c in CONST_RE.findall(line):
                if string_at(int(c)):
                    owners.setdefault(int(c), set()).add(cur)
    per_func, texts = {}, {}
    for a, fs in owners.items():
        text = bytes(memory[x] for x in range(a, a + string_at(a)) if memory[x]).decode("utf-8", "replace")
        for f in fs:
            per_func[f] = per_func.get(f, 0) + string_at(a) / len(fs)
            texts.setdefault(f, []).append(text)
    by_data = set()
    for addr, b in segs:
        for i in range(len(b) - 3):
            v = int.from_bytes(b[i:i + 4], "little")
            if v not in owners and string_at(v):
                by_data.add(v)
    return per_func, sum(string_at(a) for a in by_data), sum(len(b) for _, b in segs), texts


def encode_section(sid, body):
    return bytes([sid]) + uleb(len(body)) + body


def encode_data(segs):
    body = bytearray(uleb(len(segs)))
    for addr, b in segs:
        body += b"\0\x41" + sleb(addr) + b"\x0b" + uleb(len(b)) + b
    return bytes(body)


def rewrite(data, data_segs):
    """The module with its data (and datacount) sections replaced by data_segs; both are added where
    missing, in the order the spec requires (datacount before code, data after it)."""
    out = bytearray(data[:8])
    pos, had_count = 8, False
    while pos < len(data):
        sid = data[pos]
        size, body = leb(data, pos + 1)
        whole, pos = data[pos:body + size], body + size
        if sid == 11:
            continue
        if sid == 12 or (sid == 10 and not had_count):
            out += encode_section(12, uleb(len(data_segs)))
            had_count = True
            if sid == 12:
                continue
        out += whole
        if sid == 10:
            out += encode_section(11, encode_data(data_segs))
    return bytes(out)


def main(primary, deferred, report=0, dry_run=False):
    pdata, ddata = open(primary, "rb").read(), open(deferred, "rb").read()
    psecs = {s[0]: s for s in wasm_sections(pdata)}
    segs = segments(pdata, psecs[11][2])
    assert not any(s[0] == 11 for s in wasm_sections(ddata)), "the deferred module already has data"
    memory = {}
    for addr, b in segs:
        memory.update({addr + i: v for i, v in enumerate(b)})
    lo = min(a for a, _ in segs)
    hi = max(a + len(b) for a, b in segs)
    prim = code_constants(primary)
    # 4 bytes of data at any position that hold an address inside the data: a pointer (conservatively).
    for addr, b in segs:
        for i in range(len(b) - 3):
            v = int.from_bytes(b[i:i + 4], "little")
            if lo <= v < hi:
                prim.add(v)
    defe = code_constants(deferred)
    by_primary = sorted(a for a in prim if lo <= a < hi)
    cold = []  # (start, end) of the bytes that move
    for a in sorted(a for a in defe - prim if lo <= a < hi):
        if memory.get(a - 1, 0) != 0 or memory.get(a, 0) == 0:
            continue  # inside a string (it moves with the string if the string moves) or empty
        end = a
        while memory.get(end, 0) != 0:
            end += 1
        try:
            bytes(memory[x] for x in range(a, end)).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if any(memory[x] < 0x20 and memory[x] not in (9, 10) for x in range(a, end)):
            continue
        # The primary may name a suffix (the linker merges "bar" into "foobar"): its bytes stay.
        i = bisect.bisect_right(by_primary, a)
        stop = by_primary[i] if i < len(by_primary) and by_primary[i] <= end else end + 1  # with its NUL
        if not cold or cold[-1][1] <= a:
            cold.append((a, stop))
    # adjacent strings as one run; short runs stay
    runs = []
    for a, e in cold:
        if runs and runs[-1][1] == a:
            runs[-1][1] = e
        else:
            runs.append([a, e])
    runs = [(a, e) for a, e in runs if e - a >= MIN_RUN]
    moved = sum(e - a for a, e in runs)
    total = sum(len(b) for _, b in segs)
    if report:
        print(f"split_data.py: data {total:,} B in {len(segs)} segments; {len(by_primary)} addresses named by "
              f"the primary or the data, {len([a for a in defe - prim if lo <= a < hi])} only by the deferred code; "
              f"{moved:,} B in {len(runs)} runs move to the deferred module")
        strings = sorted(((e - a, a) for a, e in cold), reverse=True)[:report]
        for n, a in strings:
            s = bytes(memory[x] for x in range(a, a + n - 1)).decode("utf-8")
            print(f"  {n:6d} B @{a}: {s[:100]!r}")
    if dry_run:
        return
    cold_bytes = set()
    for a, e in runs:
        cold_bytes.update(range(a, e))
    kept = []
    for addr, b in segs:
        i = 0
        while i < len(b):
            if addr + i in cold_bytes:
                i += 1
                continue
            j = i
            while j < len(b) and addr + j not in cold_bytes:
                j += 1
            kept.append((addr + i, b[i:j]))
            i = j
    # A run ends with its string's NUL, which is not in any segment when the string ends one (memory the
    # module leaves zero): that byte is written as the zero it is.
    moved_segs = [(a, bytes(memory.get(x, 0) for x in range(a, e))) for a, e in runs]
    open(primary, "wb").write(rewrite(pdata, kept))
    open(deferred, "wb").write(rewrite(ddata, moved_segs))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rep = 0
    if "--report" in sys.argv:
        rep = int(sys.argv[sys.argv.index("--report") + 1])
        args.remove(str(rep))
    if len(args) != 2:
        sys.exit(__doc__)
    main(*args, report=rep, dry_run="--dry-run" in sys.argv)
