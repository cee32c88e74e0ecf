// Shared pieces of the browser tests: command-line flags, a static server on loopback that mounts
// the built site under a sub-path (proving the page uses relative URLs only), and headless
// Chromium with WebGL2 through SwiftShader (flags from ../shared/notes/toolchain.md).
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

// --name value pairs into an object: parseArgs(['--site', 'x']) -> { site: 'x' }.
export function parseArgs(argv = process.argv.slice(2)) {
  return Object.fromEntries(argv.reduce((acc, a, i, all) =>
    a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc, []));
}

const MIME = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
               '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.svg': 'image/svg+xml',
               '.ttf': 'font/ttf', '.woff2': 'font/woff2', '.ico': 'image/x-icon' };

// Serves siteDir at http://127.0.0.1:<free port><subPath>. Returns { url, close() }.
export async function serveSite(siteDir, subPath = '/some/sub/path/') {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(subPath)) { res.writeHead(404).end('outside the site'); return; }
    let rel = normalize(path.slice(subPath.length) || 'index.html');
    if (rel.startsWith('..')) { res.writeHead(403).end(); return; }
    if (rel.endsWith('/')) rel += 'index.html';
    try {
      const body = await readFile(join(siteDir, rel));
      res.writeHead(200, { 'Content-Type': MIME[extname(rel)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}${subPath}`, close: () => server.close() };
}

// Headless Chromium (Debian's package) with WebGL2 via SwiftShader and no background networking.
export function launchChromium(executablePath = process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium') {
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'],
  });
}

// Ends a browser test: prints one summary line and exits non-zero when anything failed.
export function finish(name, failures, passedText = 'passed') {
  if (failures.length) {
    console.error(`${name}: FAILED (${failures.length} problem(s))`);
    process.exit(1);
  }
  console.log(`${name}: ${passedText}`);
}
