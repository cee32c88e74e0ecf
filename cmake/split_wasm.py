#!/usr/bin/env python3
"""Splits the page's wasm in two (issue 16; web/CMakeLists.txt runs it after each link):
the primary module, with the functions the default first view runs, and a deferred module with the
rest, which the page loads on the first input (shell/index.html, Module.loadSplitModule). The strings
only the deferred functions name then move too (cmake/split_data.py).

  split_wasm.py WASM_SPLIT ORIG_WASM SYMBOL_MAP KEEP_LIST PRIMARY_OUT DEFERRED_OUT

KEEP_LIST (web/first-view-functions.txt) names the functions to keep in the primary, one per line as
the symbol map spells them (scripts/wasm-split-measure.mjs --write-keep-list writes it from a profile
of the first view); the symbol map (the link's --emit-symbol-map, "index:name", the index counting the
imported functions first) turns them into the names binaryen's wasm-split gives an unnamed module's
functions: the index among the defined functions (the symbol map's index less the imports). A name
this build does not have is reported, not fatal: its code is then deferred, which
tests/browser/split.mjs catches if the first view needs it.

Next to SYMBOL_MAP it writes the symbol map of each output module, for scripts/size.sh:
vramlens.wasm.primary.symbols and vramlens.wasm.deferred.symbols (wasm-split's own maps, which name
each function by its index in the whole module, with the names put back).
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from size import imported_functions, wasm_sections  # noqa: E402  (scripts/size.py: the wasm reader)
import split_data  # noqa: E402  (cmake/split_data.py: the strings only the deferred code names)


def imports_of(wasm):
    data = open(wasm, "rb").read()
    return next((imported_functions(data, s) for i, _, s, _ in wasm_sections(data) if i == 2), 0)


def write_named_map(split_map, names, imports, out):
    """wasm-split's map of an output module ("index:name", its names the whole module's defined-function
    indices, fimport$N for the whole module's imports, placeholder_N for table slots) with the names put back."""
    with open(split_map, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as w:
        for line in f:
            index, _, name = line.rstrip("\n").partition(":")
            m = re.fullmatch(r"fimport\$(\d+)", name)
            real = names.get(int(name) + imports) if name.isdigit() else names.get(int(m.group(1))) if m else None
            w.write(f"{index}:{real or name}\n")
    os.unlink(split_map)

def optimize_primary(wasm_split, primary, primary_map):
    """wasm-opt -Oz over the primary module alone, which the link's wasm-opt saw only as part of the
    whole module (-1.3 KB gzip, docs/performance.md; it merges 8 functions that became duplicates).
    Its symbol map is renumbered through wasm-opt's."""
    opt = os.path.join(os.path.dirname(wasm_split), "wasm-opt")
    opt = opt if os.path.exists(opt) else "wasm-opt"
    old_imports = imports_of(primary)
    old = {}
    with open(primary_map, encoding="utf-8") as f:
        for line in f:
            index, _, name = line.rstrip("\n").partition(":")
            old[int(index)] = name
    remap = primary + ".opt.symbols"
    subprocess.run([opt, *FEATURES, "-Oz", primary, "-o", primary, f"--symbolmap={remap}"], check=True)
    with open(remap, encoding="utf-8") as f, open(primary_map, "w", encoding="utf-8") as w:
        for line in f:
            index, _, name = line.rstrip("\n").partition(":")
            m = re.fullmatch(r"fimport\$(\d+)", name)
            was = int(m.group(1)) if m else int(name) + old_imports if name.isdigit() else None
            w.write(f"{index}:{old.get(was, name)}\n")
    os.unlink(remap)


# The wasm features the link enables (top-level CMakeLists.txt: -mbulk-memory; Emscripten 3.1.6's defaults).
FEATURES = ["--enable-bulk-memory", "--enable-sign-ext", "--enable-mutable-globals"]


def main(wasm_split, orig, symbol_map, keep_list, primary, deferred):
    imports = imports_of(orig)
    by_name, names = {}, {}
    with open(symbol_map, encoding="utf-8") as f:
        for line in f:
            index, _, name = line.rstrip("\n").partition(":")
            if name and index.isdigit():
                names[int(index)] = name
                if int(index) >= imports:  # a defined function: wasm-split's name is its index among them
                    by_name.setdefault(name, []).append(str(int(index) - imports))
    wanted = [l.rstrip("\n") for l in open(keep_list, encoding="utf-8")]
    wanted = [n for n in wanted if n and not n.startswith("#")]
    keep = sorted({i for n in wanted for i in by_name.get(n, [])}, key=int)
    missing = [n for n in wanted if n not in by_name]
    if missing:
        print(f"split_wasm.py: {len(missing)} of the {len(wanted)} functions in {keep_list} are not in this "
              f"build (their callers' new code is deferred); regenerate it with scripts/wasm-split-measure.mjs "
              f"--write-keep-list. First: {missing[:3]}", file=sys.stderr)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(keep) + "\n")
        indices = f.name
    try:
        subprocess.run([wasm_split, *FEATURES, f"--keep-funcs=@{indices}", orig,
                        "-o1", primary, "-o2", deferred, "--symbolmap"], check=True)
    finally:
        os.unlink(indices)
    # wasm-split moves code, not data: the strings only the deferred functions name follow them.
    dis = os.path.join(os.path.dirname(wasm_split), "wasm-dis")  # binaryen's, beside its wasm-split
    split_data.WASM_DIS = dis if os.path.exists(dis) else "wasm-dis"
    split_data.main(primary, deferred)
    here = os.path.dirname(os.path.abspath(symbol_map))
    primary_map = os.path.join(here, "vramlens.wasm.primary.symbols")
    write_named_map(primary + ".symbols", names, imports, primary_map)
    optimize_primary(wasm_split, primary, primary_map)
    write_named_map(deferred + ".symbols", names, imports, os.path.join(here, "vramlens.wasm.deferred.symbols"))


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    main(*sys.argv[1:])
