// Minifies a script of the web build in place (web/CMakeLists.txt: the Emscripten JavaScript glue
// after the link, and the site's copy of shell/bridge.js; issue 16). Emscripten's own minifier,
// Closure (`--closure 1`), does not run in the offline Debian Emscripten 3.1.6, which ships no
// closure-compiler; terser (pinned in package-lock.json, installed by scripts/deps.sh) compresses
// the code and renames its names but one: `Module`, the global the page, bridge.js and the glue
// share (shell/index.html sets window.Module before the glue loads).
// Everything else the page and the tests reach (Module._vl_* exports, ccall, UTF8ToString, HEAPU8)
// is a string-keyed property of Module, which terser never renames.
//   node scripts/minify-js/minify.mjs FILE.js
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: node scripts/minify-js/minify.mjs FILE.js");
  process.exit(2);
}
let minify;
try {
  ({ minify } = await import("terser"));
} catch (e) {
  console.error(`minify-js: terser is not installed in scripts/minify-js/node_modules (${e.code ?? e.message}): ` +
                "run scripts/deps.sh, or npm ci in scripts/minify-js");
  process.exit(1);
}
const source = readFileSync(file, "utf8");
const out = await minify(source, {
  ecma: 2017,
  toplevel: true,
  compress: { passes: 2 },
  mangle: { reserved: ["Module"] },
  format: { comments: false },
});
writeFileSync(file, out.code);
console.log(`minify-js: ${file} ${source.length} -> ${out.code.length} bytes`);
