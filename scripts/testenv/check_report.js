#!/usr/bin/env node
// Opens squill's HTML reports in headless Chromium (Debian's, driven by npm
// playwright-core: browser downloads fail here) and checks what a reader
// would see, for each report given:
//   - no console error and no page error;
//   - every expected section (an element with that id) present;
//   - as many diagram nodes ([data-collection]) as expected;
//   - at a 1280 px wide viewport, no element reaching past the page's width;
//   - with SQUILL_TEST_SCREENSHOTS=1, a full-page screenshot, saved as PNG
//     in the screenshot directory, for a person to look at. It checks
//     nothing and was about 40 % of the report test's CPU (a tall page's
//     PNG): taken on request only (issue 47; BENCHMARKS.md, "Test suite
//     time").
//
// Usage: node check_report.js SCREENSHOT_DIR SPEC...
//   SPEC is FILE:NODES:ID,ID,… (NODES a count, or - for no check).
// Prints one line per report; exits 1 when any check fails.
'use strict';
const path = require('path');
const fs = require('fs');
const { chromium } = require('playwright-core');

// One page for every report: each is loaded into it as a new document (its
// scripts, styles and layout start afresh), and what the page reports goes to
// the report being checked. A new page per report started a renderer process
// each: 40 reports took 12.5-12.8 s of CPU that way and 3.4-4.0 s with one
// page (two and four runs, alternated; BENCHMARKS.md, "clippy inside the
// builds").
function openPage(browser) {
    return browser.newPage({ viewport: { width: 1280, height: 900 } }).then((page) => {
        const seen = { problems: [] };
        page.on('console', (m) => {
            if (m.type() === 'error') seen.problems.push(`console error: ${m.text()}`);
        });
        page.on('pageerror', (e) => seen.problems.push(`page error: ${e.message}`));
        // A report must not fetch anything: any request but the file itself fails the check.
        page.on('request', (r) => {
            if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) {
                seen.problems.push(`network request: ${r.url()}`);
            }
        });
        return { page, seen };
    });
}

async function check({ page, seen }, dir, spec) {
    const [file, nodes, ids] = spec.split(/:(?=[^:]*:[^:]*$)|:(?=[^:]*$)/);
    const problems = [];
    seen.problems = problems;
    await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
    for (const id of (ids || '').split(',').filter(Boolean)) {
        if ((await page.locator(`[id="${id}"]`).count()) !== 1) problems.push(`section #${id} missing`);
    }
    const found = await page.locator('svg.diagram [data-collection]').count();
    if (nodes !== '-' && found !== Number(nodes)) {
        problems.push(`diagram has ${found} collection nodes, expected ${nodes}`);
    }
    // Elements whose right edge passes the document's width (1 px of rounding allowed).
    const wide = await page.evaluate(() => {
        const limit = document.documentElement.clientWidth + 1;
        const out = [];
        for (const el of document.body.querySelectorAll('*')) {
            const r = el.getBoundingClientRect();
            if (r.width > 0 && r.right > limit) {
                const what = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                    (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '');
                out.push(`${what} (right edge ${Math.round(r.right)} px)`);
            }
        }
        const doc = document.documentElement.scrollWidth;
        if (doc > limit) out.unshift(`the page scrolls sideways (${doc} px)`);
        return out;
    });
    if (wide.length) problems.push(`wider than 1280 px: ${wide.slice(0, 5).join(', ')}`);
    let shot = null;
    if (process.env.SQUILL_TEST_SCREENSHOTS === '1') {
        shot = path.join(dir, path.basename(file).replace(/\.html$/, '') + '.png');
        // Chromium cannot capture a page much taller than ~16k px in one image
        // (the 200-entity model's report is): past that, the top of the page.
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        if (height <= 16000) {
            await page.screenshot({ path: shot, fullPage: true });
        } else {
            await page.screenshot({ path: shot, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 16000 } });
        }
    }
    return { file, found, shot, problems };
}

async function main() {
    const [dir, ...specs] = process.argv.slice(2);
    if (!dir || specs.length === 0) {
        console.error('usage: check_report.js SCREENSHOT_DIR FILE:NODES:IDS...');
        process.exit(2);
    }
    fs.mkdirSync(dir, { recursive: true });
    const browser = await chromium.launch({
        executablePath: process.env.SQUILL_TEST_CHROMIUM || '/usr/bin/chromium',
        // Running as root in a container: Chromium's sandbox needs namespaces it may not get.
        args: ['--no-sandbox'],
    });
    let failed = 0;
    try {
        const page = await openPage(browser);
        for (const spec of specs) {
            const r = await check(page, dir, spec);
            if (r.problems.length) {
                failed += 1;
                console.log(`FAIL ${r.file}: ${r.problems.join('; ')}`);
            } else {
                console.log(`ok ${r.file}: ${r.found} diagram nodes${r.shot ? `, screenshot ${r.shot}` : ''}`);
            }
        }
    } finally {
        await browser.close();
    }
    console.log(`${specs.length - failed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
}

main().catch((e) => {
    console.error(e);
    process.exit(2);
});
