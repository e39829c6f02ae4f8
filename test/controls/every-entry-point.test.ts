import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MoneyEntryPoint } from '../../lib/payouts/gate.js';

/**
 * docs/controls.md is the contract of the control gate: one row per money entry point, the code that owns it,
 * and the tests that prove each control. This test keeps the three in step, so a new path to the provider's
 * money endpoints, or a new entry point, fails here until it passes the gate and is documented with its proof.
 */
const root = join(import.meta.dirname, '..', '..');
const controlsDoc = readFileSync(join(root, 'docs', 'controls.md'), 'utf8');

/** Provider calls that move money or change a money instruction (lib/provider/resources). */
const MONEY_CALL =
  /\.(?:settlements\.instantPayout|wallets\.(?:transfer|credit|debit)|childAccounts\.(?:debit|bankTransfer)|refunds\.create|bulkPayouts\.updateItem)\(/;
/** The provider client itself, the sandbox that plays the provider, and local tooling are not entry points. */
const NOT_ENTRY_POINTS = ['lib/provider/', 'lib/sandbox/', 'lib/local/'];

interface EntryPointRow {
  readonly id: string;
  readonly code: readonly string[];
  readonly proofs: readonly string[];
  readonly cells: readonly string[];
}

function entryPointRows(): EntryPointRow[] {
  const section = controlsDoc.split('## Entry points')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      return {
        id: (cells[0] ?? '').replaceAll('`', ''),
        code: [...(cells[2] ?? '').matchAll(/`(lib\/[^`]+)`/g)].map((match) => match[1] ?? ''),
        proofs: [...(cells[8] ?? '').matchAll(/"([^"]+)"/g)].map((match) => match[1] ?? ''),
        cells,
      };
    });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const sourceFiles = (dir: string) =>
  filesUnder(join(root, dir))
    .filter((path) => path.endsWith('.ts'))
    .map((path) => relative(root, path));

function testTitles(): Set<string> {
  const titles = new Set<string>();
  for (const file of sourceFiles('test')) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(/\bit\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)) {
      titles.add((match[2] ?? '').replace(/\\(.)/g, '$1'));
    }
  }
  return titles;
}

describe('every money entry point passes the control gate (docs/controls.md)', () => {
  const rows = entryPointRows();

  it('has one row per entry point of the gate, and no row for an entry point the gate does not know', () => {
    expect(rows.map((row) => row.id).sort()).toEqual(Object.values(MoneyEntryPoint).sort());
  });

  it('fills every control of every row, names the code that owns it, and proves it by tests that exist', () => {
    const titles = testTitles();
    for (const row of rows) {
      expect(
        row.cells.filter((cell) => cell === ''),
        `empty cells in the row of ${row.id}`,
      ).toEqual([]);
      expect(row.code.length, `no code named for ${row.id}`).toBeGreaterThan(0);
      for (const file of row.code) expect(sourceFiles('lib'), `${row.id} names ${file}`).toContain(file);
      expect(row.proofs.length, `no test proves ${row.id}`).toBeGreaterThan(0);
      for (const proof of row.proofs)
        expect(titles.has(proof), `${row.id}: no test titled "${proof}"`).toBe(true);
    }
  });

  it('finds the provider money endpoints called only from code an entry point row owns', () => {
    const owned = new Set(rows.flatMap((row) => row.code));
    const callers = sourceFiles('lib')
      .filter((file) => !NOT_ENTRY_POINTS.some((prefix) => file.startsWith(prefix)))
      .filter((file) => MONEY_CALL.test(readFileSync(join(root, file), 'utf8')));
    expect(callers.length).toBeGreaterThan(0);
    for (const file of callers) {
      expect(owned.has(file), `${file} calls a provider money endpoint but no entry point row owns it`).toBe(
        true,
      );
    }
  });

  it('finds the gate itself in every file that calls a money endpoint outside the payout engine', () => {
    // Payouts reach the provider only through the engine's gateway, after createPayout admitted them; refunds only
    // through the refund sender, after RefundService admitted them (a refund is stored only by its request).
    const sendersOfAdmitted: Readonly<Record<string, string>> = {
      'lib/payouts/adapters/provider-payout-gateway.ts': 'lib/payouts/engine/create-payout.ts',
      'lib/refunds/refund-sender.ts': 'lib/refunds/refund-service.ts',
    };
    for (const admitting of Object.values(sendersOfAdmitted)) {
      expect(readFileSync(join(root, admitting), 'utf8'), `${admitting} admits`).toMatch(/\badmit\(/);
    }
    for (const file of sourceFiles('lib')) {
      if (file in sendersOfAdmitted || NOT_ENTRY_POINTS.some((prefix) => file.startsWith(prefix))) continue;
      const text = readFileSync(join(root, file), 'utf8');
      if (!MONEY_CALL.test(text)) continue;
      expect(/from '\.\.\/payouts\/gate\.js'/.test(text), `${file} moves money without the gate`).toBe(true);
      expect(/\badmit\(/.test(text), `${file} imports the gate but never admits`).toBe(true);
    }
  });
});
