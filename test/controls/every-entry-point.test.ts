import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MoneyEntryPoint } from '../../lib/controls/gate.js';

/**
 * docs/controls.md is the contract of the control gate: one row per money entry point, the code that owns it,
 * and the tests that prove each control. This test keeps the three in step, so a new path to the provider's
 * money endpoints, a new writer of payouts outside the engine, or a new entry point, fails here until it passes
 * the gate and is documented with its proof.
 */
const root = join(import.meta.dirname, '..', '..');
const controlsDoc = readFileSync(join(root, 'docs', 'controls.md'), 'utf8');

/** Where entry points live: the Lambda handlers and the library they call. A handler is an entry point too. */
const SCANNED_DIRS = ['lib', 'functions'] as const;

/** Provider calls that move money or change a money instruction (lib/provider/resources). */
const MONEY_CALL =
  /\.(?:settlements\.instantPayout|wallets\.(?:transfer|credit|debit)|childAccounts\.(?:debit|bankTransfer)|refunds\.create|bulkPayouts\.updateItem)\(/;
/** The provider client itself, the sandbox that plays the provider, and local tooling are not entry points. */
const NOT_ENTRY_POINTS = ['lib/provider/', 'lib/sandbox/', 'lib/local/'];

/**
 * The modules that own payout writes: the engine writes a payout only after `createPayout` admitted it (and
 * claims, sends and records it), the store is the writes themselves. Anything else that creates or moves a
 * payout skips the gate, and the sweeper would pay what it wrote.
 */
const PAYOUT_WRITE_OWNERS = ['lib/payouts/engine/', 'lib/payouts/store/'];
/**
 * A store's `create` or `transition` on any receiver named like a store (`ctx.store`, `runtime.store`,
 * `this.#store`, `payoutStore`, `store?.`, `store['create']`), or the engine's transition builder. Text cannot
 * tell the payout store from another record's, so every such call outside the owners is listed in
 * `GATED_STORE_WRITERS` with the entry point and gate it passes, or fails here.
 */
const STORE_WRITE =
  /store\s*\??\.\s*(?:create|transition)\s*\(|store\s*\??\.?\s*\[\s*['"`](?:create|transition)['"`]\s*\]/i;
const TRANSITION_BUILDER = /\bbuildTransition\b/;

/** The gate alone derives what is at stake: its own file, where the derivations live. */
const GATE_FILE = 'lib/controls/gate.ts';
/**
 * What only the gate may work out (docs/controls.md, "The instruction"): a cap counter's name (`'merchant'`,
 * `` `wallet:${…}` ``, `` `child:${…}` ``), a function of its own weighing an amount at stake or naming a cap key,
 * or the gate's former amount-only door (`admit(`, `admitApproval(`), which takes an amount someone else decided.
 */
const OWN_DERIVATIONS: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /['"`](?:merchant['"`]|wallet:|child:)/, what: 'names a cap counter' },
  {
    pattern: /\bfunction\s+(?:amountAtStake|capKeyOf|capCounterFor)\w*/,
    what: 'weighs an amount at stake or a cap key itself',
  },
  {
    pattern: /(?<![\w$.#])(?:admit|admitApproval)\s*\(/,
    what: 'passes the gate an amount it decided itself (admit)',
  },
];

/** A source file's code without its comments: words in a comment decide nothing. */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** How a file passes the gate: it calls `judge` and acts on the decision, or it calls what does. */
type GatePassage =
  | { readonly admits: true }
  | { readonly calls: RegExp; readonly applying: string; readonly why: string };

interface GatedStoreWriter {
  readonly entryPoint: MoneyEntryPoint;
  /** The record its store writes create or move: none of these is a payout. */
  readonly writes: string;
  readonly gate: GatePassage;
}

/**
 * The table of entry points that own a file outside the engine and the payout store which calls a store's
 * `create` or `transition`. Each must be code of its entry point's row in docs/controls.md and pass the gate
 * as stated. Adding a file here is the review that it writes no payout around the gate.
 */
const GATED_STORE_WRITERS: Readonly<Record<string, GatedStoreWriter>> = {
  'lib/payout-runs/run-service.ts': {
    entryPoint: MoneyEntryPoint.PayoutRun,
    writes:
      "payout runs and their rows (each row's payout is created by createPayout, which admits it again)",
    gate: {
      calls: /newRun\(this\.#limits\(\)/,
      applying: 'lib/payout-runs/run-submission.ts',
      why: 'the run to store is judged by run-submission.ts (its total and each row), waiting for approval as the gate decides',
    },
  },
  'lib/payout-runs/materialiser.ts': {
    entryPoint: MoneyEntryPoint.PayoutRun,
    writes: "an approved run's progress (how many rows are payouts) and each row's record of its payout",
    gate: {
      calls: /#payouts\.create\(rowCommand\(/,
      applying: 'lib/payouts/engine/create-payout.ts',
      why: "each row's payout is created by createPayout, which admits it with the limits in force",
    },
  },
  'lib/recurrence/recurrence-service.ts': {
    entryPoint: MoneyEntryPoint.RecurringRule,
    writes: 'recurring payout rules (each occurrence is created by createPayout, which admits it again)',
    gate: { admits: true },
  },
  'lib/refunds/refund-service.ts': {
    entryPoint: MoneyEntryPoint.Refund,
    writes: 'refunds, stored in requested or pending_approval as the gate decided',
    gate: { admits: true },
  },
  'lib/bulk-corrections/correction-jobs.ts': {
    entryPoint: MoneyEntryPoint.BulkCorrection,
    writes: 'correction jobs and their rows',
    gate: {
      calls: /\.correctJobRow\(/,
      applying: 'lib/bulk-corrections/correction-service.ts',
      why: 'every row is held, refused or sent by the correction service, which admits it',
    },
  },
};

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
        code: [...(cells[2] ?? '').matchAll(/`((?:lib|functions)\/[^`]+)`/g)].map((match) => match[1] ?? ''),
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

/** Source files under `dir`, relative to the root; JavaScript too, so a handler cannot hide in a `.mjs`. */
const sourceFiles = (dir: string) =>
  filesUnder(join(root, dir))
    .filter((path) => /\.(?:[cm]?ts|[cm]?js)$/.test(path) && !path.endsWith('.d.ts'))
    .map((path) => relative(root, path));

const scannedFiles = () => SCANNED_DIRS.flatMap((dir) => sourceFiles(dir));
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const isEntryPointCode = (file: string) => !NOT_ENTRY_POINTS.some((prefix) => file.startsWith(prefix));

function testTitles(): Set<string> {
  const titles = new Set<string>();
  for (const file of sourceFiles('test')) {
    const text = read(file);
    for (const match of text.matchAll(/\bit\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)) {
      titles.add((match[2] ?? '').replace(/\\(.)/g, '$1'));
    }
  }
  return titles;
}

/** The index just past the parenthesis that closes the one at `open`. */
function afterClosingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i + 1;
  }
  return text.length;
}

/**
 * Why a file does not act on the gate's decision, if it does not: it must import `judge` from the gate (through the controls' front door), and every
 * `judge(` call's decision must be kept (bound, or returned to the caller) and then read. A bare `judge(...)`
 * only throws above the maximum: the approval it asks for is dropped and the money goes without a second person.
 */
function decisionProblems(file: string): string[] {
  const text = read(file);
  const fromGate = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)].some(
    ([, names, from]) =>
      /(?:^|[\s,])judge(?:$|[\s,])/.test(names ?? '') &&
      [join('lib', 'controls', 'index.js'), join('lib', 'controls', 'gate.js')].includes(
        join(dirname(file), from ?? ''),
      ),
  );
  if (!fromGate) return [`${file} does not import judge from the gate (lib/controls/gate.ts)`];
  const calls = [...text.matchAll(/(?<![\w$.#])judge\s*\(/g)];
  if (calls.length === 0) return [`${file} imports the gate but never judges`];
  const problems: string[] = [];
  for (const call of calls) {
    const at = call.index ?? 0;
    const where = `${file}:${text.slice(0, at).split('\n').length}`;
    const after = text.slice(afterClosingParen(text, at + call[0].length - 1));
    const before = text.slice(Math.max(0, at - 200), at);
    if (/\breturn\s+(?:await\s+)?$/.test(before)) continue;
    const destructured = /\{([^{}]*)\}\s*=\s*(?:await\s+)?$/.exec(before);
    const named = /([\w$]+)\s*(?::\s*[\w$<>, ]+)?=\s*(?:await\s+)?$/.exec(before);
    if (destructured) {
      const local = (destructured[1] ?? '')
        .split(',')
        .map((part) => part.split(':').map((side) => side.trim()))
        .find(([property]) => property === 'approvalRequired');
      const name = local?.[1] ?? local?.[0];
      if (!name || !new RegExp(`\\b${name}\\b`).test(after)) {
        problems.push(`${where} judges but never reads the decision's approvalRequired`);
      }
    } else if (named?.[1]) {
      if (
        !new RegExp(`\\b${named[1].replace('$', '\\$')}\\b`).test(after) ||
        !/\bapprovalRequired\b/.test(after)
      ) {
        problems.push(`${where} judges into ${named[1]} but never reads its approvalRequired`);
      }
    } else {
      problems.push(`${where} calls judge( and drops its decision`);
    }
  }
  return problems;
}

describe('every money entry point passes the control gate (docs/controls.md)', () => {
  const rows = entryPointRows();

  it('has one row per entry point of the gate, and no row for an entry point the gate does not know', () => {
    expect(rows.map((row) => row.id).sort()).toEqual(Object.values(MoneyEntryPoint).sort());
  });

  it('fills every control of every row, names the code that owns it, and proves it by tests that exist', () => {
    const titles = testTitles();
    const files = scannedFiles();
    for (const row of rows) {
      expect(
        row.cells.filter((cell) => cell === ''),
        `empty cells in the row of ${row.id}`,
      ).toEqual([]);
      expect(row.code.length, `no code named for ${row.id}`).toBeGreaterThan(0);
      for (const file of row.code) expect(files, `${row.id} names ${file}`).toContain(file);
      expect(row.proofs.length, `no test proves ${row.id}`).toBeGreaterThan(0);
      for (const proof of row.proofs)
        expect(titles.has(proof), `${row.id}: no test titled "${proof}"`).toBe(true);
    }
  });

  it('finds the provider money endpoints called only from code an entry point row owns, in lib/ and functions/', () => {
    const owned = new Set(rows.flatMap((row) => row.code));
    const callers = scannedFiles()
      .filter(isEntryPointCode)
      .filter((file) => MONEY_CALL.test(read(file)));
    expect(callers.length).toBeGreaterThan(0);
    expect(
      callers
        .filter((file) => !owned.has(file))
        .map((file) => `${file} calls a provider money endpoint but no entry point row owns it`),
    ).toEqual([]);
  });

  it('finds payouts created or moved only by the engine and its store: any other store write is owned by an entry point with its gate', () => {
    const writers = scannedFiles().filter(
      (file) => !PAYOUT_WRITE_OWNERS.some((prefix) => file.startsWith(prefix)),
    );
    const offences: string[] = [];
    for (const file of writers) {
      const text = read(file);
      if (TRANSITION_BUILDER.test(text)) {
        offences.push(`${file} uses buildTransition: only the engine moves a payout, after the gate`);
      }
      if (STORE_WRITE.test(text) && !(file in GATED_STORE_WRITERS)) {
        offences.push(
          `${file} calls a store's create or transition outside lib/payouts/engine/ and lib/payouts/store/, and no entry point of GATED_STORE_WRITERS owns it with its gate`,
        );
      }
    }
    expect(offences).toEqual([]);
    for (const [file, writer] of Object.entries(GATED_STORE_WRITERS)) {
      expect(scannedFiles(), `GATED_STORE_WRITERS names ${file}`).toContain(file);
      expect(STORE_WRITE.test(read(file)), `${file} no longer writes through a store: drop its entry`).toBe(
        true,
      );
      const row = rows.find((candidate) => candidate.id === writer.entryPoint);
      expect(row?.code, `the ${writer.entryPoint} row of docs/controls.md owns ${file}`).toContain(file);
      if ('admits' in writer.gate) {
        expect(decisionProblems(file)).toEqual([]);
      } else {
        expect(read(file), `${file}: ${writer.gate.why}`).toMatch(writer.gate.calls);
        expect(decisionProblems(writer.gate.applying)).toEqual([]);
      }
    }
  });

  it('finds no entry point computing a cap key or an amount at stake itself: each describes its instruction and the gate derives them', () => {
    const offences = scannedFiles()
      .filter((file) => isEntryPointCode(file) && file !== GATE_FILE)
      .flatMap((file) =>
        OWN_DERIVATIONS.filter(({ pattern }) => pattern.test(codeOf(read(file)))).map(
          ({ what }) => `${file} ${what}`,
        ),
      );
    expect(offences).toEqual([]);
  });

  it('would catch an entry point that names its own cap counter or weighs its own amount', () => {
    const rogue = [
      "const capKey = 'merchant';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a rogue entry point, not a template
      'const key = `wallet:${walletId}`;',
      'function amountAtStake(fields) { return fields.amount; }',
      'const decision = admit(limits, { entryPoint, amountKobo });',
    ];
    for (const line of rogue) {
      expect(
        OWN_DERIVATIONS.some(({ pattern }) => pattern.test(codeOf(line))),
        line,
      ).toBe(true);
    }
    expect(
      OWN_DERIVATIONS.some(({ pattern }) => pattern.test(codeOf('// the merchant cap: `merchant`'))),
    ).toBe(false);
  });

  it('finds the gate decided and its decision acted on in every file that calls a money endpoint outside the payout engine', () => {
    // Payouts reach the provider only through the engine's gateway, after createPayout admitted them; refunds only
    // through the refund sender, after RefundService admitted them (a refund is stored only by its request).
    const sendersOfAdmitted: Readonly<Record<string, string>> = {
      'lib/payouts/adapters/provider-payout-gateway.ts': 'lib/payouts/engine/create-payout.ts',
      'lib/refunds/refund-sender.ts': 'lib/refunds/refund-service.ts',
    };
    for (const admitting of Object.values(sendersOfAdmitted)) {
      expect(decisionProblems(admitting)).toEqual([]);
    }
    const problems = scannedFiles()
      .filter((file) => isEntryPointCode(file) && !(file in sendersOfAdmitted))
      .filter((file) => MONEY_CALL.test(read(file)))
      .flatMap((file) => decisionProblems(file).map((problem) => `${problem} (it moves money)`));
    expect(problems).toEqual([]);
  });
});
