#!/usr/bin/env python3
"""Splits the page's wasm in two (issue 16; web/CMakeLists.txt runs it after each link):
the primary module, with the functions the default first view runs, and a deferred module with the
rest, which the page loads on the first input (shell/index.html, Module.loadSplitModule).

  split_wasm.py WASM_SPLIT ORIG_WASM SYMBOL_MAP KEEP_LIST PRIMARY_OUT DEFERRED_OUT

KEEP_LIST (web/first-view-functions.txt) names the functions to keep in the primary, one per line as
the symbol map spells them (scripts/wasm-split-measure.mjs --write-keep-list writes it from a profile
of the first view); the symbol map (the link's --emit-symbol-map, "index:name") turns them into the
function indices binaryen's wasm-split names an unnamed module's functions by. A name this build does
not have is reported, not fatal: its code is then deferred, which tests/browser/split.mjs catches if
the first view needs it.
"""
import os
import subprocess
import sys
import tempfile

# The wasm features the link enables (top-level CMakeLists.txt: -mbulk-memory; Emscripten 3.1.6's defaults).
FEATURES = ["--enable-bulk-memory", "--enable-sign-ext", "--enable-mutable-globals"]


def main(wasm_split, orig, symbol_map, keep_list, primary, deferred):
    by_name = {}
    with open(symbol_map, encoding="utf-8") as f:
        for line in f:
            index, _, name = line.rstrip("\n").partition(":")
            if name:
                by_name.setdefault(name, []).append(index)
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
                        "-o1", primary, "-o2", deferred], check=True)
    finally:
        os.unlink(indices)


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    main(*sys.argv[1:])
