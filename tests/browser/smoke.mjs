// Browser smoke test of the built static site (scripts/test.sh step "browser-smoke").
//
// Serves SITE_DIR on 127.0.0.1 under a sub-path (the page must use relative URLs only), opens it
// in headless Chromium with WebGL2 through SwiftShader, driven by playwright-core, and fails when:
//   - window.vramlens.ready does not become true (or window.vramlens.error is set),
//   - the canvas is blank (too few non-background pixels / colours),
//   - any console error or uncaught exception happens,
//   - any request goes to a host other than loopback, or any request fails / answers >= 400,
//   - the page keeps drawing frames while idle (it must only draw after input),
//   - input does not wake it up.
// With --screenshot PATH it also saves a screenshot there; the test command does not (a test never
// writes into the checkout), scripts/gen-docs.sh does (docs/screenshot.png).
//
// Usage: node smoke.mjs --site build/web/site [--screenshot PATH] [--chromium /usr/bin/chromium]
import { finish, launchChromium, parseArgs, serveSite } from './harness.mjs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const screenshotPath = args.screenshot ? resolve(args.screenshot) : null;
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';
const SUB_PATH = '/some/sub/path/';  // where the site is mounted: proves relative URLs
const TIMEOUT_MS = 90_000;

const failures = [];
const fail = (what) => { failures.push(what); console.error(`  FAIL: ${what}`); };
const info = (what) => console.log(`  ${what}`);

// ---- a static server on loopback -------------------------------------------------------------
const server = await serveSite(siteDir, SUB_PATH);
const url = server.url;

// ---- a minimal PNG decoder (8-bit RGB/RGBA, non-interlaced: what Chromium screenshots are) ----
function decodePng(buf) {
  let pos = 8, width = 0, height = 0, colorType = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos), type = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4); colorType = data[9];
      if (data[8] !== 8 || data[12] !== 0 || (colorType !== 2 && colorType !== 6))
        throw new Error(`unsupported PNG (depth ${data[8]}, colour type ${colorType}, interlace ${data[12]})`);
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3, stride = width * bpp;
  const raw = inflateSync(Buffer.concat(idat)), out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[y * stride + x - bpp] : 0, b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][f];
      out[y * stride + x] = (line[x] + pred) & 255;
    }
  }
  return { width, height, bpp, pixels: out };
}

// ---- the test --------------------------------------------------------------------------------
const browser = await launchChromium(executablePath);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  const isLoopback = (u) => {
    const { protocol, hostname } = new URL(u);
    if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
    return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
  };
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (isLoopback(u)) return route.continue();
    fail(`request to a non-loopback host: ${u}`);
    return route.abort();
  });
  page.on('console', (msg) => {
    if (msg.type() === 'error') fail(`console error: ${msg.text()}`);
    else info(`console.${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => fail(`uncaught exception: ${err.message}`));
  page.on('requestfailed', (req) => { if (isLoopback(req.url())) fail(`request failed: ${req.url()} (${req.failure()?.errorText})`); });
  page.on('response', (res) => { if (res.status() >= 400) fail(`HTTP ${res.status()} for ${res.url()}`); });

  info(`opening ${url} in ${executablePath}`);
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'load', timeout: TIMEOUT_MS });
  await page.waitForFunction(() => window.vramlens && (window.vramlens.ready || window.vramlens.error),
                             null, { timeout: TIMEOUT_MS });
  const hook = await page.evaluate(() => ({ ready: window.vramlens.ready, error: window.vramlens.error,
                                            version: window.vramlens.version, frames: window.vramlens.frames }));
  info(`window.vramlens after ${Date.now() - t0} ms: ${JSON.stringify(hook)}`);
  if (!hook.ready) throw new Error(`the app did not start: ${hook.error}`);
  if (!/^\d+\.\d+\.\d+/.test(hook.version ?? '')) fail(`window.vramlens.version looks wrong: ${hook.version}`);

  const est = await page.evaluate(() => window.vramlens.estimate());
  info(`window.vramlens.estimate(): ${JSON.stringify(est).slice(0, 300)}`);
  if (est.version !== hook.version) fail(`estimate().version ${est.version} != ${hook.version}`);
  for (const key of ['ok', 'total_bytes', 'params_total', 'errors', 'components'])
    if (!(key in est)) fail(`estimate() lacks "${key}"`);

  // The canvas shows the app: enough pixels that differ from the background, in enough colours.
  const canvas = page.locator('#canvas');
  const shot = decodePng(await canvas.screenshot());
  const { width, height, bpp, pixels } = shot;
  const bg = pixels.readUIntBE(0, 3);
  let differing = 0;
  const colours = new Set();
  for (let i = 0; i < width * height; i++) {
    const rgb = pixels.readUIntBE(i * bpp, 3);
    if (rgb !== bg) differing++;
    colours.add(rgb);
  }
  const share = differing / (width * height);
  info(`canvas ${width}x${height}: ${(share * 100).toFixed(2)}% non-background pixels, ${colours.size} colours`);
  if (width < 100 || height < 100) fail(`canvas is only ${width}x${height}`);
  if (share < 0.005 || colours.size < 16) fail('canvas looks blank');
  if (screenshotPath) {
    await mkdir(dirname(screenshotPath), { recursive: true });
    await writeFile(screenshotPath, await page.screenshot());
    info(`screenshot: ${screenshotPath}`);
  }

  // Idle: no frames without input. Input: frames again.
  const framesAt = () => page.evaluate(() => window.vramlens.frames);
  const idle0 = await framesAt();
  await page.waitForTimeout(1000);
  const idle1 = await framesAt();
  info(`idle: frames ${idle0} -> ${idle1} over 1 s`);
  if (idle1 !== idle0) fail(`the idle page kept drawing (${idle1 - idle0} frames in 1 s)`);
  await page.mouse.move(200, 120);
  await page.mouse.move(260, 140);
  await page.waitForTimeout(500);
  const woke = await framesAt();
  info(`after mouse moves: frames ${idle1} -> ${woke}`);
  if (woke <= idle1) fail('mouse input did not redraw the page');
} catch (err) {
  fail(err.message);
} finally {
  await browser.close();
  server.close();
}

finish('browser smoke', failures, 'passed');
