import type { ChildProcess } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cognitoCall } from '../../lib/local/cognito-api.js';
import { LOCAL_OPERATORS } from '../../lib/local/cognito-local.js';
import { freePort } from '../../lib/local/free-port.js';
import { eventually } from '../api/support/harness.js';
import { startNpm } from '../support/npm-start.js';
import { accessibilityViolations, launchChromium, screenshot } from './browser.js';

/**
 * The console as the finance team uses it: `npm start` (cognito-local, the API, the sandbox, the scheduler and
 * workers) and headless Chromium, each person in their own browser context, clicking what they would click.
 */
let npm: { child: ChildProcess; output: () => string };
let browser: Browser;
let base: string;
let signInSettings: { endpoint: string; clientId: string };
const pageErrors: string[] = [];

const password = (name: string) => LOCAL_OPERATORS.find((user) => user.username === name)?.password ?? '';

beforeAll(async () => {
  const opsPort = await freePort();
  npm = startNpm({
    OPS_PORT: String(opsPort),
    DYNAMODB_PORT: String(await freePort()),
    SANDBOX_PORT: String(await freePort()),
    EVENTS_PORT: String(await freePort()),
    SCHEDULER_INTERVAL_MS: '300',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  base = `http://127.0.0.1:${opsPort}`;
  await eventually(async () => {
    if (npm.child.exitCode !== null) throw new Error(`npm start exited early:\n${npm.output()}`);
    return npm.output().includes(`ops API ready on ${base}`) ? true : undefined;
  }, 90_000);
  signInSettings = (await (await fetch(`${base}/__local/sign-in`)).json()) as typeof signInSettings;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (npm?.child.pid && npm.child.exitCode === null) process.kill(-npm.child.pid, 'SIGKILL');
});

async function signIn(name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${name}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/.test(message.text())) {
      pageErrors.push(`${name}: ${message.text()}`);
    }
  });
  await page.goto(`${base}/console/`);
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Password').fill(password(name));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'My queue' }).waitFor();
  return page;
}

/** The API as alice's own script would call it (for what the console does not offer, e.g. a cancel). */
async function asApi(name: string, method: string, path: string, body?: unknown) {
  const answer = (await cognitoCall(signInSettings.endpoint, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    ClientId: signInSettings.clientId,
    AuthParameters: { USERNAME: name, PASSWORD: password(name) },
  })) as { AuthenticationResult: { IdToken: string } };
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${answer.AuthenticationResult.IdToken}`,
      'content-type': 'application/json',
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function requestPayout(
  page: Page,
  fields: { amount: string; name: string; account: string; narration: string },
) {
  // Already on the page, the form is used as it is: following the link again would draw the page anew, maybe
  // while the fields are being filled.
  if (!page.url().includes('#/payouts'))
    await page.getByRole('link', { name: 'Payouts', exact: true }).click();
  await page.getByRole('heading', { name: 'New bank payout' }).waitFor();
  await page.getByLabel('Amount (NGN)').fill(fields.amount);
  await page.getByLabel('Beneficiary name').fill(fields.name);
  await page.getByLabel('Account number').fill(fields.account);
  await page.getByLabel('Bank code').fill('058');
  await page.getByLabel('Narration').fill(fields.narration);
  await page.getByRole('button', { name: 'Request payout' }).click();
  return (
    page
      .getByRole('status')
      // This payout's answer, not one an earlier request left on the page.
      .filter({ hasText: `of NGN ${fields.amount.includes('.') ? fields.amount : `${fields.amount}.00`}` })
      .textContent()
  );
}

async function expectAccessible(page: Page) {
  expect(await accessibilityViolations(page)).toEqual([]);
}

describe('the console, in Chromium against npm start', () => {
  let bob: Page;
  let alice: Page;

  /** Alice asks for a payout; bob's queue, read again, offers its approval. */
  async function requestedForBob(fields: Parameters<typeof requestPayout>[1]) {
    await requestPayout(alice, fields);
    await bob.getByRole('link', { name: 'My queue' }).click();
    const approve = bob.getByRole('button', { name: `Approve Payout bank_transfer: ${fields.narration}` });
    await approve.waitFor();
    return approve;
  }

  it('serves the console under the same security headers as CloudFront: no framing, scripts only from itself', async () => {
    const response = await fetch(`${base}/console/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });

  it('lets alice request a payout above the threshold, shown in her queue as not hers to approve', async () => {
    alice = await signIn('alice');
    const said = await requestPayout(alice, {
      amount: '1,500,000.00',
      name: 'Ada <b>Obi</b>',
      account: '0123456789',
      narration: 'office rent December',
    });
    expect(said).toContain("NGN 1,500,000.00 waits for a second person's approval");
    await alice.getByRole('link', { name: 'My queue' }).click();
    const mine = alice.getByRole('table', { name: 'Your own requests: not yours to approve' });
    await expect.poll(() => mine.textContent()).toContain('office rent December');
    expect(await mine.textContent()).toContain('not yours to approve');
    // Nothing of hers waits for her, and she is given no approve button anywhere.
    expect(await alice.getByText('Nothing waits for you.').count()).toBe(1);
    expect(await alice.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await screenshot(alice, 'queue-alice');
    await expectAccessible(alice);
  });

  it("puts it in bob's queue, shows exactly what he approves, and he sees it succeed", async () => {
    bob = await signIn('bob');
    const approve = bob.getByRole('button', { name: 'Approve Payout bank_transfer: office rent December' });
    await approve.waitFor();
    await screenshot(bob, 'queue-bob');
    await expectAccessible(bob);
    await approve.click();
    const dialog = bob.getByRole('dialog', { name: 'Approve this instruction?' });
    await dialog.waitFor();
    const shown = (await dialog.textContent()) ?? '';
    expect(shown).toContain('NGN 1,500,000.00');
    // The name is text, never markup; the account is masked to its last four digits.
    expect(shown).toContain('Ada <b>Obi</b>, •••• 6789');
    expect(shown).not.toContain('0123456789');
    expect(shown).toContain('alice');
    await screenshot(bob, 'approve-dialog');
    await expectAccessible(bob);
    await dialog.getByRole('button', { name: 'Approve NGN 1,500,000.00' }).click();
    const flash = bob.getByRole('status').filter({ hasText: 'Approved payout' });
    await flash.waitFor();
    const id = /payout (\w+)\./.exec((await flash.textContent()) ?? '')?.[1];
    expect(id).toBeDefined();
    await bob.goto(`${base}/console/#/payouts/${id}`);
    await expect
      .poll(() => bob.locator('dd .badge').first().textContent(), { timeout: 20_000 })
      .toBe('succeeded');
    const trail = (await bob.getByRole('table', { name: 'Every change, oldest first' }).textContent()) ?? '';
    expect(trail).toContain('alice');
    expect(trail).toContain('bob');
    expect(trail).toContain('pending_approval →');
    await screenshot(bob, 'payout-detail');
    await expectAccessible(bob);
  });

  it('tells bob clearly when what he approves changed since he opened it, and approves nothing', async () => {
    const approve = await requestedForBob({
      amount: '2,000,000',
      name: 'Bola Ade',
      account: '0987654321',
      narration: 'equipment lease',
    });
    const waiting = (await asApi('bob', 'GET', '/approvals')).body.items as { id: string; summary: string }[];
    const id = waiting.find((item) => item.summary.includes('equipment lease'))?.id;
    // Alice withdraws it while bob's page still shows it.
    expect((await asApi('alice', 'POST', `/payouts/${id}/cancel`, { reason: 'wrong amount' })).status).toBe(
      200,
    );
    await approve.click();
    const dialog = bob.getByRole('dialog', { name: 'Approve this instruction?' });
    await dialog.getByRole('button', { name: /^Approve NGN/ }).click();
    await expect
      .poll(() => dialog.getByRole('alert').textContent())
      .toMatch(/changed since you opened it: reload/);
    await screenshot(bob, 'stale-approval');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await asApi('bob', 'GET', `/payouts/${id}`)).body.status).toBe('cancelled');
  });

  it('lets bob do it all from the keyboard: tab to the approval, read it, confirm with Enter', async () => {
    await requestedForBob({
      amount: '1,200,000.50',
      name: 'Dayo Ola',
      account: '0222333444',
      narration: 'audit fees',
    });
    // From the link just followed, onwards by Tab alone.
    let focused = '';
    for (
      let presses = 0;
      presses < 80 && focused !== 'Approve Payout bank_transfer: audit fees';
      presses += 1
    ) {
      await bob.keyboard.press('Tab');
      focused = await bob.evaluate(() => {
        const element = (
          globalThis as unknown as {
            document: { activeElement: { getAttribute(name: string): string | null } | null };
          }
        ).document.activeElement;
        return element?.getAttribute('aria-label') ?? '';
      });
    }
    expect(focused).toBe('Approve Payout bank_transfer: audit fees');
    await bob.keyboard.press('Enter');
    const dialog = bob.getByRole('dialog', { name: 'Approve this instruction?' });
    await dialog.waitFor();
    // The dialog takes the focus, on its first action: the approval of exactly this amount.
    await expect
      .poll(() =>
        dialog
          .getByRole('button', { name: 'Approve NGN 1,200,000.50' })
          .evaluate((b) => b === (b.ownerDocument as { activeElement: unknown }).activeElement),
      )
      .toBe(true);
    await bob.keyboard.press('Enter');
    await bob.getByRole('status').filter({ hasText: 'Approved payout' }).waitFor();
  });

  it('takes a 50-row run with two bad rows shown by row, fixed in place, approved by bob and followed to 100 %', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => {
      const n = String(i + 1).padStart(3, '0');
      return `emp-${n},2500000,058,01234${String(50000 + i)},Staff ${n},December salary`;
    });
    const bad = [...rows];
    bad[6] = 'emp-007,2500000,058,12345,Staff 007,December salary';
    bad[30] = 'emp-031,lots,058,0123450030,Staff 031,December salary';
    const header = 'reference,amount,bankCode,accountNumber,accountName,narration';
    await alice.getByRole('link', { name: 'Runs' }).click();
    await alice.getByLabel('CSV file').setInputFiles({
      name: 'december.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from([header, ...bad].join('\n')),
    });
    await expect.poll(() => alice.getByLabel('Rows (edit to fix a row)').inputValue()).toContain('emp-050');
    await alice.getByRole('button', { name: 'Upload run' }).click();
    const problems = alice.getByRole('table', { name: 'Problems by row' });
    await problems.waitFor();
    const listed = (await problems.textContent()) ?? '';
    expect(listed).toContain('row 7.accountNumber');
    expect(listed).toContain('row 31.amount');
    expect(await problems.locator('tbody tr').count()).toBe(2);
    await screenshot(alice, 'run-upload-errors');
    await expectAccessible(alice);
    await alice.getByLabel('Rows (edit to fix a row)').fill([header, ...rows].join('\n'));
    await alice.getByRole('button', { name: 'Upload run' }).click();
    await alice.getByRole('heading', { name: /^Payout run / }).waitFor();
    expect(await alice.locator('[data-run-status]').textContent()).toBe('pending approval');

    await bob.getByRole('link', { name: 'My queue' }).click();
    await bob.getByRole('button', { name: /^Approve Payout run/ }).click();
    const dialog = bob.getByRole('dialog', { name: 'Approve this instruction?' });
    expect(await dialog.textContent()).toContain('NGN 1,250,000.00');
    expect(await dialog.textContent()).toContain('50');
    await dialog.getByRole('button', { name: 'Approve NGN 1,250,000.00' }).click();
    await bob.getByRole('status').filter({ hasText: 'Approved payout run' }).waitFor();

    // Alice's page follows the run by itself (a reload would sign her out: the token lives in memory only).
    await expect
      .poll(() => alice.locator('output[data-percent]').getAttribute('data-percent'), {
        timeout: 90_000,
        interval: 1000,
      })
      .toBe('100');
    expect(await alice.locator('[data-run-status]').textContent()).toBe('completed');
    await screenshot(alice, 'run-done');
    await expectAccessible(alice);
  }, 150_000);

  it('shows a pause on every page, and nothing is sent until carol resumes', async () => {
    const carol = await signIn('carol');
    await carol.getByRole('link', { name: 'Controls' }).click();
    await carol.getByRole('heading', { name: 'Limits in force' }).waitFor();
    await carol.getByRole('button', { name: 'Pause payouts…' }).click();
    const dialog = carol.getByRole('dialog', { name: 'Pause every payout?' });
    await dialog.getByLabel('Why pause').fill('bank outage at the provider');
    await dialog.getByRole('button', { name: 'Pause payouts' }).click();
    await carol.getByRole('status').filter({ hasText: 'Payouts paused' }).waitFor();
    for (const link of [
      'My queue',
      'Payouts',
      'Needs review',
      'Runs',
      'Controls',
      'Dead letters',
      'Statements',
    ]) {
      await carol.getByRole('link', { name: link, exact: true }).click();
      await carol.getByRole('heading', { level: 1, name: link === 'My queue' ? 'My queue' : link }).waitFor();
      const banner = carol.locator('.pause-banner');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('bank outage at the provider');
      await expectAccessible(carol);
      await screenshot(carol, `page-${link.toLowerCase().replaceAll(' ', '-')}`);
    }
    const said = await requestPayout(alice, {
      amount: '1,000.00',
      name: 'Chi Eze',
      account: '0111222333',
      narration: 'taxi refund',
    });
    // Below the threshold it would be paid at once; paused, it waits.
    expect(said).toMatch(/NGN 1,000\.00 is pending/);
    await carol.getByRole('link', { name: 'Controls', exact: true }).click();
    await carol.getByRole('button', { name: 'Resume payouts…' }).click();
    await carol
      .getByRole('dialog', { name: 'Resume payouts?' })
      .getByRole('button', { name: 'Resume payouts' })
      .click();
    await carol.getByRole('status').filter({ hasText: 'Payouts resumed' }).waitFor();
    await alice.getByRole('link', { name: 'Open it' }).click();
    await expect
      .poll(() => alice.locator('dd .badge').first().textContent(), { timeout: 30_000 })
      .toBe('succeeded');
  }, 120_000);

  it('lets carol propose access for someone, and tells her a second admin must confirm what she proposed', async () => {
    const carol = await signIn('carol');
    carol.setDefaultTimeout(8000);
    await carol.getByRole('link', { name: 'Operators', exact: true }).click();
    const people = carol.getByRole('table', { name: 'Operators of the user pool' });
    await people.waitFor();
    for (const name of ['alice', 'bob', 'carol', 'viewer'])
      expect(await people.textContent()).toContain(name);
    await carol.getByLabel('Operator', { exact: true }).selectOption('viewer');
    await carol.getByLabel('Change', { exact: true }).selectOption('grant');
    await carol.locator('#change-groups-approver').check();
    await carol.getByRole('button', { name: 'Review the change…' }).click();
    const dialog = carol.getByRole('dialog', { name: "Change viewer's access?" });
    expect(await dialog.textContent()).toContain('approver');
    await dialog.getByLabel('Reason (kept in the audit)').fill('covers month-end approvals');
    await dialog.getByRole('button', { name: 'Send the change' }).click();
    await carol.getByRole('status').filter({ hasText: 'Another admin confirms it' }).waitFor();
    const waiting = carol.getByRole('table', { name: 'Proposed changes of access' });
    expect(await waiting.textContent()).toContain('yours: another admin confirms');
    expect(await carol.getByRole('button', { name: /^Confirm grant/ }).count()).toBe(0);
    await expectAccessible(carol);
    await screenshot(carol, 'page-operators');
    await carol.getByRole('button', { name: 'Cancel grant of approver for viewer' }).click();
    const withdraw = carol.getByRole('dialog', { name: 'Cancel this proposal?' });
    await withdraw.getByLabel('Why withdraw it').fill('asked for by mistake');
    await withdraw.getByRole('button', { name: 'Cancel the proposal' }).click();
    await carol.getByRole('status').filter({ hasText: 'Proposal cancelled' }).waitFor();
    // Not offered to anyone but an admin.
    expect(await alice.getByRole('link', { name: 'Operators', exact: true }).count()).toBe(0);
  });

  it('lets a viewer read but offers no action, and every page ran without a script error or CSP refusal', async () => {
    const viewer = await signIn('viewer');
    await viewer.getByRole('link', { name: 'Controls', exact: true }).click();
    await viewer.getByRole('heading', { name: 'Limits in force' }).waitFor();
    expect(await viewer.getByRole('button', { name: /Pause|Resume/ }).count()).toBe(0);
    await viewer.getByRole('link', { name: 'Payouts', exact: true }).click();
    await viewer.getByRole('heading', { name: 'Payouts', level: 1 }).waitFor();
    expect(await viewer.getByRole('heading', { name: 'New bank payout' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('has an accessibility checker that does find a violation (an unlabelled field), so its silence above means something', async () => {
    const page = await browser.newPage();
    await page.setContent(
      '<!doctype html><html lang="en"><title>t</title><main><input type="text"></main></html>',
    );
    expect((await accessibilityViolations(page)).map((violation) => violation.id)).toContain('label');
    await page.close();
  });
});
