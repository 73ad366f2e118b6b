// Headless Debian Chromium driven by playwright-core, opened on a workbench URL.
import { chromium } from 'playwright-core';
import { chromiumPath } from './paths.mjs';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchBrowser() {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS });
}

/** Opens the workbench and waits until its shell is on screen. */
export async function openWorkbench(browser, url, { timeoutMs = 60_000, ignoreHTTPSErrors = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ignoreHTTPSErrors });
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
  return page;
}
