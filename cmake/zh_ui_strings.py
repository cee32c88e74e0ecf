#!/usr/bin/env python3
"""Build step: the Chinese column of the UI's string table (web/ui/strings.h VL_UI_STRINGS) as lines
of the catalogue the page fetches with the Chinese font (web/ui/messages.h), so the wasm an English
visit downloads carries only the English column.

    zh_ui_strings.py STRINGS_H CATALOGUE OUT

Writes CATALOGUE, then for each X(id, English, 简体中文) of the table, in order, a pair of lines:
"$<index>" (the string's S value) and its Chinese with the C escapes resolved.
"""
import re
import sys


def literals(text):
    return [re.sub(r'\\(.)', lambda m: {'n': '\n', 't': '\t'}.get(m.group(1), m.group(1)), s)
            for s in re.findall(r'"((?:[^"\\]|\\.)*)"', text)]


def main() -> int:
    strings_h, catalogue, out = sys.argv[1:]
    src = open(strings_h, encoding="utf-8").read()
    body = src[src.index("#define VL_UI_STRINGS(X)"):src.index("enum class S {")].replace("\\\n", "\n")
    body = body[body.index("\n"):]
    items = re.findall(r'X\((\w+),\s*((?:"(?:[^"\\]|\\.)*"\s*)+),\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\)', body)
    declared = len(re.findall(r'^\s*X\(', body, re.M))
    if len(items) != declared:
        print(f"zh_ui_strings: read {len(items)} of the {declared} strings of {strings_h}", file=sys.stderr)
        return 1
    lines = [open(catalogue, encoding="utf-8").read().rstrip("\n"), "", "# ---- the UI's own strings (web/ui/strings.h), by index ----"]
    for i, (_, _, zh) in enumerate(items):
        text = "".join(literals(zh))
        if "\n" in text:
            print(f"zh_ui_strings: string {i} has a line break, which the catalogue cannot hold", file=sys.stderr)
            return 1
        lines += [f"${i}", text]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
