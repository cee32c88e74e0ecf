#!/usr/bin/env python3
"""What the page weighs: the body of scripts/size.sh (a report, never a test; it fails on nothing).

    size.py SITE_DIR [--symbols FILE] [--top N] [--strings NAME]

Prints every file of the static site with its raw, gzip -9 and brotli (quality 11) size; the total a
first visit transfers in English (every file except the on-demand ones: the fonts *.ttf, fetched
only when the language needs them, and the wasm's deferred half, *.deferred.wasm, and the whole model
list, *.models.json, fetched after the first view) and with 中文 chosen (everything); then what the wasm is made of:
its sections, its data segments and the N largest functions of the code section, named through the
symbol map the web build writes (build/web/vramlens.wasm.symbols, emcc --emit-symbol-map), with the
code bytes summed per library, and the data by who names it; --strings NAME lists every string the
functions whose demangled name holds NAME point to (what a cold-message step could move).
"""
import gzip
import os
import re
import shutil
import subprocess
import sys

ON_DEMAND_SUFFIXES = (".ttf", ".txt")  # the Chinese font and messages, fetched when 中文 is chosen (web/main.cpp, shell/sw.js)
# The wasm's deferred half: fetched on the first input (shell/index.html); the whole model list: fetched
# after the first view, which shows the default model the wasm holds (web/main.cpp, web/ui/app.h ModelList).
AFTER_FIRST_VIEW_SUFFIXES = (".deferred.wasm", ".models.json")


def brotli_size_fn():
    """Brotli: the `brotli` command if installed, else Python's brotli module, else none."""
    exe = shutil.which("brotli")
    if exe:
        def run(data):
            return len(subprocess.run([exe, "-c", "-q", "11"], input=data, stdout=subprocess.PIPE, check=True).stdout)
        return run, "brotli -q 11 (command)"
    try:
        import brotli  # Debian: python3-brotli
        return (lambda data: len(brotli.compress(data, quality=11))), "brotli -q 11 (python3-brotli)"
    except ImportError:
        return None, "n/a (neither the brotli command nor python3-brotli is installed)"


def kb(n):
    return "n/a" if n is None else f"{n / 1000:.1f} KB"


def leb(data, pos):
    result = shift = 0
    while True:
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


SECTION_NAMES = {0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory", 6: "global",
                 7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount"}


def wasm_sections(data):
    """[(id, name, start, size)] of a wasm binary."""
    assert data[:4] == b"\0asm", "not a wasm file"
    pos, out = 8, []
    while pos < len(data):
        sid = data[pos]
        size, body = leb(data, pos + 1)
        name = SECTION_NAMES.get(sid, str(sid))
        if sid == 0:
            n, p = leb(data, body)
            name = "custom:" + data[p:p + n].decode("utf-8", "replace")
        out.append((sid, name, body, size))
        pos = body + size
    return out


def imported_functions(data, start):
    count, pos = leb(data, start)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module, field
            n, pos = leb(data, pos)
            pos += n
        kind = data[pos]
        pos += 1
        if kind == 0:  # function: type index
            _, pos = leb(data, pos)
            funcs += 1
        elif kind == 1:  # table: elemtype, limits
            pos += 1
            flags, pos = leb(data, pos)
            _, pos = leb(data, pos)
            if flags & 1:
                _, pos = leb(data, pos)
        elif kind == 2:  # memory: limits
            flags, pos = leb(data, pos)
            _, pos = leb(data, pos)
            if flags & 1:
                _, pos = leb(data, pos)
        elif kind == 3:  # global: type, mutability
            pos += 2
    return funcs


def function_bodies(data, start):
    count, pos = leb(data, start)
    sizes = []
    for _ in range(count):
        size, body = leb(data, pos)
        sizes.append(size + (body - pos))
        pos = body + size
    return sizes


def data_segments(data, start):
    """[(size, first bytes)] of the data section's segments."""
    count, pos = leb(data, start)
    sizes = []
    for _ in range(count):
        flags, pos = leb(data, pos)
        if flags in (0, 2):
            if flags == 2:
                _, pos = leb(data, pos)
            op = data[pos]  # the offset: i32.const N or global.get G, then end (0x0B)
            _, pos = leb(data, pos + 1)
            assert op in (0x41, 0x23) and data[pos] == 0x0B, "unexpected data segment offset"
            pos += 1
        n, pos = leb(data, pos)
        sizes.append((n, data[pos:pos + 48]))
        pos += n
    return sizes


def demangle(names):
    tool = shutil.which("llvm-cxxfilt") or shutil.which("c++filt")
    if not tool or not names:
        return names
    out = subprocess.run([tool], input="\n".join(names), stdout=subprocess.PIPE, text=True).stdout.split("\n")
    return out[:len(names)] if len(out) >= len(names) else names


def library_of(name):
    n = name
    if "nlohmann" in n:
        return "nlohmann_json"
    if "fmt::" in n:
        return "{fmt}"
    if n.startswith("vl::ui") or "vl::ui::" in n:
        return "web UI (web/ui)"
    if "vl::" in n:
        return "core (vl::)"
    if n.startswith("(anonymous namespace)::") or n in ("main",) or n.startswith("vl_"):
        return "web/main.cpp"
    if "ImGui" in n or n.startswith("Im") or "stb" in n.lower() or "ImFont" in n:
        return "Dear ImGui (+stb)"
    if n.startswith(("SDL", "Blit", "Emscripten_", "GLES2_")) or "SDL_" in n or "Blit" in n:
        return "SDL2"
    if "std::" in n or n.startswith("__cxa") or n.startswith("__cxx") or "__cxxabiv1" in n:
        return "libc++/libc++abi"
    return "libc, main.cpp and other"


def main(argv):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cmake"))
    import split_data  # cmake/split_data.py (which reads wasm with this file): who names each string of the data
    site = argv[0] if argv and not argv[0].startswith("--") else "build/web/site"
    symbols = argv[argv.index("--symbols") + 1] if "--symbols" in argv else None
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 25
    strings_of = argv[argv.index("--strings") + 1] if "--strings" in argv else None
    brotli_size, brotli_how = brotli_size_fn()

    files = []
    for root, _, names in os.walk(site):
        for n in names:
            files.append(os.path.relpath(os.path.join(root, n), site))
    files.sort()
    print(f"site {os.path.abspath(site)} (gzip -9; {brotli_how}):")
    print(f"  {'file':<40} {'raw':>12} {'gzip -9':>12} {'brotli':>12}")
    rows = []
    for f in files:
        body = open(os.path.join(site, f), "rb").read()
        row = (f, len(body), len(gzip.compress(body, 9, mtime=0)), brotli_size(body) if brotli_size else None)
        rows.append(row)
        print(f"  {f:<40} {row[1]:>10} B {row[2]:>10} B {(str(row[3]) + ' B') if row[3] is not None else 'n/a':>12}")

    def total(sel):
        picked = [r for r in rows if sel(r[0])]
        br = None if brotli_size is None else sum(r[3] for r in picked)
        return sum(r[1] for r in picked), sum(r[2] for r in picked), br, [r[0] for r in picked]

    first_en = total(lambda f: not f.endswith(ON_DEMAND_SUFFIXES + AFTER_FIRST_VIEW_SUFFIXES))
    first_zh = total(lambda f: not f.endswith(AFTER_FIRST_VIEW_SUFFIXES))
    later = total(lambda f: not f.endswith(ON_DEMAND_SUFFIXES))
    print("first visit (what the page transfers before the first frame):")
    print(f"  in English: {kb(first_en[1])} gzip, {kb(first_en[2])} brotli, {kb(first_en[0])} raw "
          f"({', '.join(first_en[3])})")
    extra = [f for f in first_zh[3] if f not in first_en[3]]
    print(f"  with 中文:   {kb(first_zh[1])} gzip, {kb(first_zh[2])} brotli, {kb(first_zh[0])} raw "
          f"(+ {', '.join(extra) if extra else 'nothing: the Chinese font is inside the wasm'})")
    if later[3] != first_en[3]:
        print(f"  in English with the deferred wasm and the model list (fetched after the first view): {kb(later[1])} gzip, "
              f"{kb(later[2])} brotli, {kb(later[0])} raw")

    wasms = [f for f in files if f.endswith(".wasm")]
    for w in wasms:
        data = open(os.path.join(site, w), "rb").read()
        secs = wasm_sections(data)
        print(f"\n{w}: sections (raw bytes; gzip -9 of each section alone)")
        for sid, name, start, size in secs:
            print(f"  {name:<30} {size:>10} B {len(gzip.compress(data[start:start + size], 9, mtime=0)):>10} B gzip")
        imports = next((imported_functions(data, s) for i, _, s, _ in secs if i == 2), 0)
        code = next((function_bodies(data, s) for i, _, s, _ in secs if i == 10), [])
        segs = next((data_segments(data, s) for i, _, s, _ in secs if i == 11), [])
        if segs:
            print(f"  data: {len(segs)} segments, {sum(n for n, _ in segs)} B; the largest, with how they start:")
            for n, head in sorted(segs, key=lambda s: -s[0])[:6]:
                text = "".join(chr(b) if 32 <= b < 127 else "." for b in head)
                print(f"    {n:>8} B  {len(gzip.compress(head, 9)) and ''}{text}")
        names = {}
        # A split module's own map (cmake/split_wasm.py writes them next to the whole module's).
        split_map = symbols and os.path.join(os.path.dirname(symbols), "vramlens.wasm." +
                                             ("deferred" if w.endswith(".deferred.wasm") else "primary") + ".symbols")
        module_map = split_map if split_map and os.path.exists(split_map) else symbols
        if module_map and os.path.exists(module_map):
            for line in open(module_map, encoding="utf-8", errors="replace"):
                idx, _, name = line.rstrip("\n").partition(":")
                if idx.isdigit():  # wasm-opt escapes what a wasm name may not hold: \28 is "("
                    names[int(idx)] = re.sub(r"\\([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), name)
        else:
            print(f"  (no symbol map {symbols or ''}: functions are shown by index; the web build writes "
                  "build/web/vramlens.wasm.symbols)")
        order = sorted(range(len(code)), key=lambda i: -code[i])
        raw_names = [names.get(imports + i, f"function #{imports + i}") for i in range(len(code))]
        pretty = demangle(raw_names)
        print(f"  code: {len(code)} functions, {sum(code)} B; the {top} largest:")
        for i in order[:top]:
            label = pretty[i] if len(pretty[i]) <= 110 else pretty[i][:107] + "..."
            print(f"    {code[i]:>8} B  {label}")
        if names:
            code_start = next(s for i, _, s, _ in secs if i == 10)
            _, pos = leb(data, code_start)
            per_lib = {}
            for i, size in enumerate(code):
                lib = library_of(pretty[i])
                per_lib.setdefault(lib, bytearray()).extend(data[pos:pos + size])
                pos += size
            print("  code by library (function bodies named from the symbol map; gzip -9 of each library's bodies alone):")
            for lib, body in sorted(per_lib.items(), key=lambda kv: -len(kv[1])):
                print(f"    {len(body):>8} B {len(gzip.compress(bytes(body), 9, mtime=0)):>8} B gzip"
                      f"  {100 * len(body) / max(1, sum(code)):5.1f} %  {lib}")
        if names and segs and shutil.which(split_data.WASM_DIS):
            per_func, by_data, total_data, texts = split_data.strings_by_function(os.path.join(site, w))
            by_code = sum(per_func.values())
            print(f"  data by who names it (raw): strings the code names {by_code:,.0f} B, strings only the "
                  f"data points to (tables of names) {by_data:,} B, the rest (fonts, presets, tables) "
                  f"{total_data - by_code - by_data:,.0f} B; the functions naming the most string bytes:")
            ranked = sorted(per_func.items(), key=lambda kv: -kv[1])[:top]
            for (f, n), label in zip(ranked, demangle([names.get(imports + f, f"function #{imports + f}") for f, _ in ranked])):
                print(f"    {n:>8,.0f} B  {label if len(label) <= 110 else label[:107] + '...'}")
            if strings_of:
                print(f"  the strings named by the functions whose name holds {strings_of!r} (longest first):")
                for f in sorted(texts):
                    label = demangle([names.get(imports + f, "")])[0]
                    if strings_of in label:
                        print(f"    {label[:110]}:")
                        for t in sorted(texts[f], key=len, reverse=True):
                            print(f"      {len(t) + 1:>6} B  {t[:140]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
