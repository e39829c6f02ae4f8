import { formatNaira } from '../money.js';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Columns shown for list items, most telling first; the first few present in the items are used. */
const PREFERRED_COLUMNS = [
  'id',
  // An operator (`operators list`): who, how to reach them, what they may do.
  'username',
  'email',
  'groups',
  'enabled',
  'settlementId',
  'bulkPayoutItemId',
  'status',
  'decision',
  'outcome',
  'type',
  'amount',
  'requestedBy',
  'at',
  'createdAt',
  'decidedAt',
  'updatedAt',
  // An audit trail's events (which have few of the above): who did what, and for a recurring payout's, whether the
  // command took effect (`committed: false` is one that did not: docs/api.md, recurring payouts).
  'actor',
  'action',
  'change',
  'committed',
  'reason',
] as const;
const MAX_COLUMNS = 6;
/** A reason is cut here in a table (`--json` has it whole). */
const REASON_CELL = 80;

/**
 * An audit event as a row: its status change as `from → to` (`created` for none before), beside who made it and
 * why.
 */
function withChange(item: Json): Json {
  if (item.actor === undefined || typeof item.to !== 'string') return item;
  const from = typeof item.from === 'string' ? item.from : 'created';
  return { ...item, change: `${from} → ${item.to}` };
}

/** `arn:<partition>:sts::<account>:assumed-role/<role>/<session>`, optionally `#<person>` (lib/controls/identity.ts). */
const ASSUMED_ROLE = /^arn:[a-z-]+:sts::\d{12}:assumed-role\/([^/#]+)\/([^#]+)(?:#(.+))?$/;
/** `arn:<partition>:iam::<account>:user/<path/><name>`. */
const IAM_USER = /^arn:[a-z-]+:iam::\d{12}:user\/(?:.*\/)?([^/#]+)$/;

/**
 * A principal's id as a table names its person: `bob#cognito:<sub>` is `bob`; an assumed role's session vouched
 * for as `#<person>` is that person; an IAM user is their name; a role's session not vouched for is
 * `<role>/<session>`; a pool person with no username (`…#cognito:<sub>`) `cognito:<sub>`. Anything else (a
 * system principal, a local name) is shown as it is. Only for reading: the full identity stays in `--json` and
 * in a detail's fields, and four eyes never compares these.
 *
 * @example personName('bob#cognito:0f6c-41') // 'bob'
 */
export function personName(id: string): string {
  const assumed = ASSUMED_ROLE.exec(id);
  if (assumed) {
    const [, role, session, person] = assumed;
    if (person === undefined) return `${role}/${session}`;
    return person;
  }
  const user = IAM_USER.exec(id);
  if (user?.[1]) return user[1];
  const hash = id.indexOf('#');
  if (hash > 0 && !id.startsWith('arn:')) return id.slice(0, hash);
  return id;
}

/**
 * One value as a person reads it: amounts in naira (fields named `amount` are kobo), principals by id; in a
 * table (`short`) principals by their person's name (`personName`).
 */
function cell(name: string, value: unknown, short = false): string {
  if (value === undefined || value === null) return '';
  if (name === 'amount' && typeof value === 'number' && Number.isSafeInteger(value))
    return formatNaira(value);
  if (name === 'reason' && typeof value === 'string' && value.length > REASON_CELL)
    return `${value.slice(0, REASON_CELL - 1)}…`;
  if (isRecord(value) && typeof value.id === 'string') return short ? personName(value.id) : value.id;
  if (name === 'groups' && Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function table(listed: readonly Json[]): string {
  const items = listed.map(withChange);
  const present = PREFERRED_COLUMNS.filter((name) => items.some((item) => item[name] !== undefined));
  const columns = (present.length > 0 ? [...present] : Object.keys(items[0] ?? {})).slice(0, MAX_COLUMNS);
  const rows = items.map((item) => columns.map((name) => cell(name, item[name], true)));
  const widths = columns.map((name, index) =>
    Math.max(name.length, ...rows.map((row) => row[index]?.length ?? 0)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns.map((name) => name.toUpperCase())), ...rows.map(line)].join('\n');
}

function fields(body: Json, indent = ''): string {
  return Object.entries(body)
    .map(([name, value]) => {
      if (Array.isArray(value) && value.every(isRecord) && value.length > 0) {
        return `${indent}${name}:\n${table(value as Json[])
          .split('\n')
          .map((row) => `${indent}  ${row}`)
          .join('\n')}`;
      }
      if (isRecord(value) && typeof value.id !== 'string')
        return `${indent}${name}:\n${fields(value, `${indent}  `)}`;
      return `${indent}${name}: ${cell(name, value)}`;
    })
    .join('\n');
}

/**
 * An answer for a person: a list (`items`) as a table with the cursor of the next page, an object as its
 * fields. `--json` prints the answer itself instead, for scripts.
 */
export function formatForPeople(body: unknown): string {
  if (typeof body === 'string') return body;
  if (isRecord(body) && Array.isArray(body.items)) {
    const items = body.items.filter(isRecord);
    const rest = Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'items'));
    const shown = items.length === 0 ? '(none)' : table(items);
    return Object.keys(rest).length === 0 ? shown : `${shown}\n\n${fields(rest)}`;
  }
  if (isRecord(body)) return fields(body);
  return JSON.stringify(body, null, 2);
}

/** What a second person is about to decide: the amount, where it goes, and who asked. */
export function describeForConfirmation(subject: unknown): string {
  if (!isRecord(subject)) return JSON.stringify(subject);
  const payout = isRecord(subject.payout) ? subject.payout : subject;
  const lines = [
    payout.id !== undefined && `payout     ${String(payout.id)}`,
    subject.bulkPayoutItemId !== undefined && `item       ${String(subject.bulkPayoutItemId)}`,
    typeof payout.amount === 'number' && `amount     ${formatNaira(payout.amount)}`,
    isRecord(payout.beneficiary) &&
      `to         ${[payout.beneficiary.accountName, payout.beneficiary.accountNumber, payout.beneficiary.bankCode].filter(Boolean).join(' / ')}`,
    !isRecord(payout.beneficiary) &&
      ['destinationWalletId', 'walletId', 'childAccountId'].some((name) => payout[name] !== undefined) &&
      `to         ${['destinationWalletId', 'walletId', 'childAccountId']
        .flatMap((name) => (payout[name] === undefined ? [] : [`${name} ${String(payout[name])}`]))
        .join(', ')}`,
    isRecord(payout.requestedBy) && `requested  ${String(payout.requestedBy.id)}`,
    // A recurring payout: its creator requests every occurrence; the schedule says how often the amount goes.
    isRecord(payout.createdBy) && `created by ${String(payout.createdBy.id)}`,
    isRecord(payout.schedule) &&
      `every      ${String(payout.schedule.every ?? 1)} ${String(payout.schedule.interval)} at ${String(payout.schedule.timeOfDay)} ${String(payout.schedule.timeZone)}`,
    // A payout run: the approver approves the file as a whole, so they see its size, total and largest rows.
    subject.runId !== undefined && `run        ${String(subject.runId)}`,
    typeof subject.count === 'number' && `rows       ${subject.count}`,
    typeof subject.totalKobo === 'number' && `total      ${formatNaira(subject.totalKobo)}`,
    Array.isArray(subject.largestRows) &&
      `largest    ${subject.largestRows
        .filter(isRecord)
        .map(
          (row) =>
            `${String(row.reference)} ${typeof row.amountKobo === 'number' ? formatNaira(row.amountKobo) : ''}`,
        )
        .join('; ')}`,
    subject.fileSha256 !== undefined && `file sha256 ${String(subject.fileSha256)}`,
    payout.status !== undefined && `status     ${String(payout.status)}`,
    payout.narration !== undefined && `narration  ${String(payout.narration)}`,
    isRecord(payout.paidTwice) &&
      `paid twice ${String(payout.paidTwice.transactionIds)} (close only as paid_twice_recovered)`,
    // The second person of a resolution sees what they would confirm: only the same decision applies it.
    isRecord(payout.resolutionProposal) &&
      isRecord(payout.resolutionProposal.proposedBy) &&
      `proposed   ${String(payout.resolutionProposal.outcome)}${payout.resolutionProposal.forced === true ? ' by force' : ''} by ${String(payout.resolutionProposal.proposedBy.id)}: ${String(payout.resolutionProposal.note)}`,
  ];
  return lines.filter((line): line is string => typeof line === 'string').join('\n');
}
