// A real VS Code workbench in headless Chromium, with helpers that read like a person's
// actions: run a command from the palette, pick from a quick pick, type into an input
// box, read notifications and the status bar, look inside a webview, take a screenshot.
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, openWorkbench } from './browser.mjs';
import { resultsDir } from './paths.mjs';
import { copySampleWorkspace, makeProfile, removeProfile, startServer } from './server.mjs';
import { installScriptedAgentModel, installVsix } from './vsix.mjs';

const QUICK_INPUT = '.quick-input-widget';
const QUICK_INPUT_ROW = `${QUICK_INPUT} .monaco-list-row`;

const slug = (text) => text.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase().slice(0, 80);

export class Workbench {
  /**
   * Fresh profile with the packaged extension installed (`vsix`: another package than
   * `npm run package`'s), opened on a copy of the sample workspace; `settings` go in the user
   * settings, `env` in the server's (and extension host's) environment; `ignoreHTTPSErrors`:
   * the browser takes a test's self-signed https server.
   */
  static async open({ trusted = true, settings = {}, agentModel = false, env = {}, vsix, ignoreHTTPSErrors = false } = {}) {
    const profile = makeProfile({ trusted, settings });
    installVsix(profile, vsix);
    // The chat view answers only with a model: the scripted agent model (a test fixture) is one.
    if (agentModel) installScriptedAgentModel(profile);
    const workspace = copySampleWorkspace(profile);
    const serverEnv = { ...testEnv(profile), ...env };
    const server = await startServer({ profile, env: serverEnv });
    const browser = await launchBrowser();
    const page = await openWorkbench(browser, server.url(workspace), { ignoreHTTPSErrors });
    const workbench = new Workbench({ profile, server, browser, page, workspace });
    workbench.serverEnv = serverEnv;
    return workbench;
  }

  constructor({ profile, server, browser, page, workspace }) {
    Object.assign(this, { profile, server, browser, page, workspace });
  }

  async close() {
    await this.browser.close();
    await this.server.stop();
    removeProfile(this.profile);
  }

  /**
   * Opens the command palette and types a query; returns the titles it lists once one
   * contains the query (commands from extensions appear only after their host starts).
   */
  async commandTitles(query, { timeoutMs = 30_000 } = {}) {
    let titles = [];
    await this.untilPaletteShows(async () => {
      titles = (await this.page.locator(`${QUICK_INPUT_ROW} .label-name`).allInnerTexts()).map((t) => t.trim());
      return titles.some((title) => title.toLowerCase().includes(query.toLowerCase()));
    }, query, timeoutMs);
    await this.page.keyboard.press('Escape');
    return titles;
  }

  /** F1, type the title, choose exactly that command. */
  async runCommand(title, { timeoutMs = 30_000 } = {}) {
    const row = this.quickPickRow(title);
    await this.untilPaletteShows(() => row.isVisible(), title, timeoutMs);
    await row.click();
    // The palette is gone, or replaced by the command's own quick pick or input box.
    await this.page.waitForFunction(() => {
      const input = document.querySelector('.quick-input-widget .quick-input-box input');
      const widget = document.querySelector('.quick-input-widget');
      return !widget || widget.style.display === 'none' || !input?.value.startsWith('>');
    });
  }

  /** Chooses an item, by its label, in the quick pick that is open now. */
  async pickQuickPickItem(label) {
    await this.page.locator(`${QUICK_INPUT} .quick-input-box input`).fill(label);
    const row = this.quickPickRow(label);
    await row.click();
    // The widget is reused by what comes next (an input box, another pick): wait until this pick
    // has gone, so the next step does not type into its filter, as a person would see it go.
    await row.waitFor({ state: 'hidden', timeout: 15_000 });
  }

  /** Labels of the items in the quick pick that is open now. */
  async quickPickItems() {
    await this.page.locator(QUICK_INPUT_ROW).first().waitFor();
    return (await this.page.locator(`${QUICK_INPUT_ROW} .label-name`).allInnerTexts()).map((t) => t.trim());
  }

  /** Whole rows of the open quick pick (label, description and detail), as a person reads them. */
  async quickPickRows() {
    await this.page.locator(QUICK_INPUT_ROW).first().waitFor();
    return (await this.page.locator(QUICK_INPUT_ROW).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  }

  /** Types into the open input box and presses Enter unless told not to. */
  async typeIntoInputBox(text, { submit = true } = {}) {
    const input = this.page.locator(`${QUICK_INPUT} .quick-input-box input`);
    await input.waitFor();
    await input.fill(text);
    if (!submit) return;
    // The extension validates each value over the extension-host round trip; an Enter that
    // arrives while the previous value's error still stands is refused by VS Code, as it
    // would be for a person. Wait for the error to clear, as a person reading it would.
    await this.page
      .locator(`${QUICK_INPUT} .monaco-inputbox.error`)
      .waitFor({ state: 'detached', timeout: 5_000 })
      .catch(() => undefined);
    await input.press('Enter');
    // Still the same box with the same text a moment later: the Enter met a stale
    // validation; press it again (never into a different box that has since opened).
    for (let attempt = 0; attempt < 3; attempt++) {
      await this.page.waitForTimeout(500);
      const stillHere = await input.isVisible().catch(() => false);
      if (!stillHere || (await input.inputValue().catch(() => '')) !== text) return;
      await input.press('Enter');
    }
  }

  /**
   * Texts of the notifications, as toasts or in the notification center (headless windows
   * often do not toast), waiting until one contains `containing`.
   */
  async notifications({ containing, timeoutMs = 15_000 } = {}) {
    const messages = this.page.locator('.notifications-toasts .notification-list-item-message, .notifications-center .notification-list-item-message');
    const read = async () => (await messages.allInnerTexts()).map((t) => t.trim());
    const deadline = Date.now() + timeoutMs;
    const seen = new Set();
    let down = true;
    while (containing && !(await read()).some((text) => text.includes(containing))) {
      for (const text of await read()) seen.add(text);
      if (Date.now() > deadline) throw new Error(`no notification containing "${containing}" within ${timeoutMs} ms; saw ${JSON.stringify([...seen])}`);
      const center = this.page.locator('.notifications-center.visible');
      if (!(await center.isVisible())) {
        await this.runCommand('Notifications: Show Notifications');
      } else {
        // The center renders only the rows in view (a virtual list): scroll it to see the others.
        await center.locator('.notifications-list-container').hover().catch(() => undefined);
        await this.page.mouse.wheel(0, down ? 600 : -600);
        down = !down;
      }
      await this.page.waitForTimeout(300);
    }
    return read();
  }

  /** Texts of the status bar items, waiting until one contains `containing`. */
  async statusBarTexts({ containing, timeoutMs = 15_000 } = {}) {
    const items = this.page.locator('.part.statusbar .statusbar-item');
    if (containing) await items.filter({ hasText: containing }).first().waitFor({ timeout: timeoutMs });
    return (await items.allInnerTexts()).map((t) => t.trim()).filter(Boolean);
  }

  /**
   * The content of the webview whose editor tab has this title, as a Playwright
   * FrameLocator: `.locator(css).innerText()`, `.getByRole('button', …).click()`.
   */
  async webview(title, { timeoutMs = 15_000 } = {}) {
    // A custom editor's tab has the same title as the text editor of its file: try each
    // matching tab until one shows a webview. The content sits two iframes deep: the
    // workbench's webview host frame, then its #active-frame.
    // A webview in the side bar (the Ratings view) or another editor group may be visible too:
    // take the one laid over the group of the tab clicked.
    const tabs = this.page.locator('.tabs-container .tab').filter({ hasText: title });
    await tabs.first().waitFor({ timeout: timeoutMs });
    const inEditor = () =>
      this.page.evaluate(() => {
        // The group of the tab just clicked is the active one.
        const area = (document.querySelector('.part.editor .editor-group-container.active') ?? document.querySelector('.part.editor'))?.getBoundingClientRect();
        if (!area) return undefined;
        const inside = (r) => r.width > 0 && r.height > 0 && r.left >= area.left - 1 && r.right <= area.right + 1 && r.top >= area.top - 1 && r.bottom <= area.bottom + 1;
        return [...document.querySelectorAll('iframe.webview.ready')].find((f) => inside(f.getBoundingClientRect()))?.getAttribute('name') ?? undefined;
      });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const count = await tabs.count();
      for (let i = count - 1; i >= 0; i--) {
        await tabs.nth(i).click();
        for (let wait = 0; wait < 8; wait++) {
          const name = await inEditor();
          if (name) {
            const content = this.page.frameLocator(`iframe[name="${name}"]`).frameLocator('#active-frame');
            if (await content.locator('body').waitFor({ timeout: 2_000 }).then(() => true, () => false)) return content;
          }
          await this.page.waitForTimeout(250);
        }
      }
      if (Date.now() > deadline) throw new Error(`no tab titled "${title}" shows a webview within ${timeoutMs} ms`);
    }
  }

  /**
   * Closes the browser and stops the server, runs `between()` — e.g. to write into the
   * profile's workspace storage while no extension host holds it — then reopens the same
   * workspace on the same port (the workspace storage folder is keyed by that URI).
   */
  async restart(between) {
    await this.browser.close();
    await this.server.stop();
    await between?.();
    this.server = await startServer({ profile: this.profile, port: this.server.port, env: this.serverEnv ?? testEnv(this.profile) });
    this.browser = await launchBrowser();
    this.page = await openWorkbench(this.browser, this.server.url(this.workspace));
  }

  /** The content of a webview view in the side bar (its iframe is laid over the view's pane). */
  async sideBarWebview(contentSelector, { timeoutMs = 20_000 } = {}) {
    // Other webviews (an ISC table, a PRD editor) may be visible too: take the one laid over the side bar.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const name = await this.page.evaluate(() => {
        const bar = document.querySelector('.part.sidebar')?.getBoundingClientRect();
        if (!bar) return undefined;
        const inside = (r) => r.width > 0 && r.height > 0 && r.left >= bar.left - 1 && r.right <= bar.right + 1 && r.top >= bar.top - 1 && r.bottom <= bar.bottom + 1;
        return [...document.querySelectorAll('iframe.webview.ready')].find((f) => inside(f.getBoundingClientRect()))?.getAttribute('name') ?? undefined;
      });
      if (name) {
        const content = this.page.frameLocator(`iframe[name="${name}"]`).frameLocator('#active-frame');
        await content.locator(contentSelector).first().waitFor({ timeout: Math.max(1_000, deadline - Date.now()) });
        return content;
      }
      if (Date.now() > deadline) throw new Error(`no webview is visible in the side bar (waiting for ${contentSelector})`);
      await this.page.waitForTimeout(250);
    }
  }

  /** Developer: Reload Window, then wait for the workbench to come back. */
  async reloadWindow() {
    // Listen before running the command: the reload can finish before runCommand returns.
    const loaded = this.page.waitForEvent('load', { timeout: 60_000 });
    await this.runCommand('Developer: Reload Window');
    await loaded;
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  }

  async screenshot(name) {
    mkdirSync(join(resultsDir, 'e2e'), { recursive: true });
    const path = join(resultsDir, 'e2e', `${slug(name)}.png`);
    await this.page.screenshot({ path });
    return path;
  }

  /** Screenshot plus server and extension-host logs under test-results/e2e/<test>/. */
  async saveFailureArtifacts(testTitle) {
    const dir = join(resultsDir, 'e2e', slug(testTitle));
    mkdirSync(dir, { recursive: true });
    await this.page.screenshot({ path: join(dir, 'screenshot.png') }).catch(() => {});
    const serverLog = join(this.profile.root, 'server.log');
    if (existsSync(serverLog)) cpSync(serverLog, join(dir, 'server.log'));
    const logs = join(this.profile.userDataDir, 'logs');
    if (existsSync(logs)) cpSync(logs, join(dir, 'logs'), { recursive: true });
    return dir;
  }

  async openPalette(text) {
    const input = this.page.locator(`${QUICK_INPUT} .quick-input-box input`);
    for (let attempt = 1; ; attempt++) {
      // A webview that holds the keyboard (the ISC table after a click) takes focus back from a
      // palette opened over it, which then closes; a person's click elsewhere moves the keyboard
      // out first: blur the frame, so F1 reaches the workbench and the palette keeps focus.
      await this.page.evaluate(() => {
        const active = document.activeElement;
        if (active && active.tagName === 'IFRAME') active.blur();
      });
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ timeout: 5_000 });
        await input.fill(`>${text}`, { timeout: 5_000 });
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
  }

  /** Reopens the palette with `text` until `shows()` holds: the palette lists only what is registered so far. */
  async untilPaletteShows(shows, text, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.openPalette(text);
      const settle = Date.now() + 2_000;
      while (Date.now() < settle) {
        if (await shows()) return;
        await this.page.waitForTimeout(200);
      }
      if (Date.now() > deadline) throw new Error(`the command palette did not show what was expected for "${text}" within ${timeoutMs} ms`);
    }
  }

  quickPickRow(label) {
    return this.page.locator(QUICK_INPUT_ROW).filter({
      has: this.page.locator('.label-name', { hasText: new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) }),
    }).first();
  }
}

/** The criteria lock and the gate's records go to the profile, never the tester's own state folder. */
function testEnv(profile) {
  return { IDEAL_STATE_STATE_DIR: join(profile.root, 'state') };
}
