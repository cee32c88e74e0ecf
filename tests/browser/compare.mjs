// Browser test of Run locally's compare grid (local.compare, issue 19 item 6) in the real page,
// headless Chromium, mouse only (scripts/test-browser-ui.sh):
//   1. choose Run locally, open the grid (this model, Q4_K_M, this machine), add Llama-2-13B from the list,
//      tick Q8_0, add a second RTX 4090 in the machine panel and add that machine: 2 models x 2 types x 2 machines
//   2. the grid is stale until "Compare again"; then each cell the test hook gives is `vramlens plan --compare`'s
//      (the native CLI) and the HTML mirror (#vl-results) has a line per cell
//   3. the shared link opened in a new page shows the same grid
//
// Usage: node compare.mjs --site build/web/site [--cli build/native/cli/vramlens] [--chromium /usr/bin/chromium]
import { checks, appState as state, click, finish, item, launchChromium, openApp, parseArgs, scrollTo, serveSite, settle } from './harness.mjs';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const args = parseArgs();
const siteDir = resolve(args.site ?? 'build/web/site');
const cliPath = resolve(args.cli ?? process.env.VRAMLENS_CLI ?? 'build/native/cli/vramlens');
const executablePath = args.chromium ?? process.env.VRAMLENS_CHROMIUM ?? '/usr/bin/chromium';
const { failures, check, section } = checks();

const server = await serveSite(siteDir, '/vramlens/');
const browser = await launchChromium(executablePath);
const open = (opts, url = server.url) => openApp(browser, url, opts, (what) => failures.push(what));

const compare = async (page) => (await state(page)).local?.compare;
const cliPlan = (flags) => JSON.parse(execFileSync(cliPath, ['plan', ...flags, '--format', 'json'], { encoding: 'utf8' }));
const notes = (page) => page.evaluate(() => [...document.querySelectorAll('#vl-notes li')].map((li) => li.textContent));
const TITLE = 'Compare models, formats and machines: ';

try {
  console.log('desktop 1280x900');
  await section('desktop', async () => {
    const page = await open({ viewport: { width: 1280, height: 900 } });
    await click(page, 'mode.3');
    check((await state(page)).ui.mode === 'local', 'Run locally is the fourth mode');
    const current = (await state(page)).ui.preset;
    const inputs = await item(page, 'section.model');
    const inInputs = { x: inputs.x + 8, y: 450 };
    const results = await item(page, 'local.verdict');
    const inResults = { x: results.x + 8, y: 450 };
    const reach = (key) => scrollTo(page, key, inResults, 0, false);

    await reach('local.compare');
    await click(page, 'local.compare');
    await reach('local.compare.model.add');
    await click(page, 'local.compare.model.add');
    await click(page, 'local.compare.model.add.llama-2-13b');
    await reach('local.compare.weights.q8_0');
    await click(page, 'local.compare.weights.q8_0');
    await scrollTo(page, 'local.gpus.add', inInputs, 0, false);
    await click(page, 'local.gpus.add');
    await reach('local.compare.machine.add');
    await click(page, 'local.compare.machine.add');
    const sc = JSON.parse((await state(page)).scenario).local?.compare;
    check(JSON.stringify(sc?.models) === '["current","llama-2-13b"]' && JSON.stringify(sc?.weights) === '["q8_0","q4_k_m"]' &&
          JSON.stringify(sc?.machines?.map((m) => m.gpus)) === '[["rtx-4090"],["rtx-4090","rtx-4090"]]',
          `the scenario's local.compare: ${JSON.stringify(sc)}`);
    check((await compare(page))?.stale === true, 'the grid is stale after the changes');

    await reach('local.compare.run');
    await click(page, 'local.compare.run');
    await page.waitForFunction(() => window.vramlens.state().local?.compare?.stale === false, null, { timeout: 60_000 }).catch(() => {});
    const grid = await compare(page);
    const cli = cliPlan(['--compare', '--model', current, '--model', 'llama-2-13b', '--weights', 'q8_0', '--weights', 'q4_k_m',
                         '--machine', 'rtx-4090,ram=64GB', '--machine', 'rtx-4090+rtx-4090,ram=64GB', '--ctx', '4096']);
    check(grid?.stale === false && grid.cells.length === 8 && cli.cells.length === 8, `2 x 2 x 2 cells (${grid?.cells.length})`);
    check(grid.cells.every((c, i) => c.weights === cli.cells[i].weights && c.machine === cli.cells[i].machine_index &&
                                     c.fits === cli.cells[i].fits && c.ngl === cli.cells[i].ngl && c.max_context === cli.cells[i].max_context &&
                                     c.decode_tokens_per_s === (cli.cells[i].decode_tokens_per_s ?? 0)),
          `each cell is the CLI's: ${grid.cells.map((c) => c.text).join(' | ')}`);
    check(grid.cells.some((c) => c.fits), 'some cells fit');
    const mirrored = (await notes(page)).filter((n) => n.startsWith(TITLE));
    check(mirrored.length === 8 && mirrored[0].includes(grid.cells[0].text), `the HTML mirror has a line per cell (${mirrored.length})`);
    const gridItem = await reach('local.compare.grid');
    check(gridItem.h > 0, 'the grid is drawn');

    // The shared link opens the same grid in a new page.
    const link = (await state(page)).link;
    const other = await open({ viewport: { width: 1280, height: 900 } }, `${server.url}#${link}`);
    await other.waitForFunction(() => (window.vramlens.state().local?.compare?.cells ?? []).length > 0, null, { timeout: 60_000 }).catch(() => {});
    const o = await compare(other);
    check(o?.stale === false && JSON.stringify(o.cells) === JSON.stringify(grid.cells) && JSON.stringify(o.machines) === JSON.stringify(grid.machines),
          'the link opens the same grid');
    await settle(other);
    await other.context().close();
    await page.context().close();
  });
} finally {
  await browser.close();
  server.close();
}
finish('compare', failures);
