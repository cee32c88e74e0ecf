// Minifies a file of the web build in place (web/CMakeLists.txt: the Emscripten JavaScript glue
// after the link, the site's copy of shell/bridge.js, and the rendered index.html; issue 16).
// Emscripten's own minifier, Closure (`--closure 1`), does not run in the offline Debian Emscripten
// 3.1.6, which ships no closure-compiler; terser (pinned in package-lock.json, installed by
// scripts/deps.sh) compresses the code and renames its names but one: `Module`, the global the page,
// bridge.js and the glue share (shell/index.html sets window.Module before the glue loads).
// Everything else the page and the tests reach (Module._vl_* exports, ccall, UTF8ToString, HEAPU8)
// is a string-keyed property of Module, which terser never renames.
// An .html file: each inline <script> (one without src) is minified the same way, keeping the
// /*@VL_FILES@*/ marker cmake/assemble_site.cmake fills in, and the comments of <style> and of the
// markup are dropped (the page's text and elements are left as they are).
//   node scripts/minify-js/minify.mjs FILE.js|FILE.html
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
const options = (toplevel) => ({
  ecma: 2017,
  toplevel,
  compress: { passes: 2 },
  mangle: { reserved: ["Module"] },
  format: { comments: /@VL_FILES@/ },
});
let code;
if (file.endsWith(".html")) {
  // The inline scripts share the page's global scope with bridge.js and the glue: their top-level
  // names are not renamed (toplevel false); what they define lives on window in any case.
  const parts = source.split(/(<script>[\s\S]*?<\/script>|<style>[\s\S]*?<\/style>)/);
  for (let i = 1; i < parts.length; i += 2) {
    if (parts[i].startsWith("<script>")) {
      const js = parts[i].slice("<script>".length, -"</script>".length);
      const out = await minify(js, options(false));
      parts[i] = `<script>${out.code}</script>`;
    } else {
      parts[i] = parts[i].replace(/\/\*[\s\S]*?\*\//g, "").replace(/\n\s*\n/g, "\n").replace(/\n\s+/g, "\n");
    }
  }
  for (let i = 0; i < parts.length; i += 2) parts[i] = parts[i].replace(/<!--[\s\S]*?-->\n?/g, "");
  code = parts.join("");
  if (source.includes("/*@VL_FILES@*/{}") && !code.includes("/*@VL_FILES@*/{}")) {
    console.error(`minify-js: ${file}: the /*@VL_FILES@*/{} marker did not survive minification`);
    process.exit(1);
  }
} else {
  code = (await minify(source, options(true))).code;
}
writeFileSync(file, code);
console.log(`minify-js: ${file} ${source.length} -> ${code.length} bytes`);
