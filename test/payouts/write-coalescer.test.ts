import { describe, expect, it } from 'vitest';
import { type Settled, WriteCoalescer } from '../../lib/payouts/store/write-coalescer.js';

interface Write {
  readonly key: string;
  readonly group: string;
}

/** A commit the test controls: it records each batch and settles it when told to. */
function controlledCommit() {
  const batches: {
    writes: readonly Write[];
    finish: (results?: Settled<string>[]) => void;
    fail: (e: unknown) => void;
  }[] = [];
  const commit = (writes: readonly Write[]) =>
    new Promise<readonly Settled<string>[]>((resolve, reject) => {
      batches.push({
        writes,
        finish: (results) => resolve(results ?? writes.map((w) => ({ ok: true, value: `done ${w.key}` }))),
        fail: reject,
      });
    });
  return { batches, commit };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const coalescer = (commit: ReturnType<typeof controlledCommit>['commit'], maxBatch = 25) =>
  new WriteCoalescer<Write, string>(commit, {
    maxBatch,
    keyOf: (write) => write.key,
    groupOf: (write) => write.group,
  });

describe('WriteCoalescer (group commit)', () => {
  it('commits the writes of one turn together and gives each caller its own result', async () => {
    const { batches, commit } = controlledCommit();
    const writes = coalescer(commit);
    const a = writes.add({ key: 'a', group: 'g' });
    const b = writes.add({ key: 'b', group: 'g' });
    await nextTurn();
    expect(batches.map((batch) => batch.writes.map((w) => w.key))).toEqual([['a', 'b']]);
    batches[0]?.finish([
      { ok: true, value: 'a ok' },
      { ok: false, error: new Error('b refused') },
    ]);
    await expect(a).resolves.toBe('a ok');
    await expect(b).rejects.toThrow('b refused');
  });

  it('holds writes that arrive while a commit is in flight, then commits them together', async () => {
    const { batches, commit } = controlledCommit();
    const writes = coalescer(commit);
    const first = writes.add({ key: 'a', group: 'g' });
    await nextTurn();
    const later = [writes.add({ key: 'b', group: 'g' })];
    await nextTurn();
    later.push(writes.add({ key: 'c', group: 'g' }));
    await nextTurn();
    expect(batches).toHaveLength(1);
    batches[0]?.finish();
    await first;
    await nextTurn();
    expect(batches.map((batch) => batch.writes.map((w) => w.key))).toEqual([['a'], ['b', 'c']]);
    batches[1]?.finish();
    await expect(Promise.all(later)).resolves.toEqual(['done b', 'done c']);
  });

  it('never puts two writes with the same key, or of different groups, in one batch', async () => {
    const { batches, commit } = controlledCommit();
    const writes = coalescer(commit);
    const all = [
      writes.add({ key: 'a', group: 'g' }),
      writes.add({ key: 'a', group: 'g' }),
      writes.add({ key: 'b', group: 'h' }),
    ];
    await nextTurn();
    expect(batches.map((batch) => batch.writes.map((w) => `${w.group}:${w.key}`))).toEqual([
      ['g:a'],
      ['h:b'],
    ]);
    for (const batch of batches) batch.finish();
    await nextTurn();
    expect(batches.map((batch) => batch.writes.map((w) => `${w.group}:${w.key}`))).toEqual([
      ['g:a'],
      ['h:b'],
      ['g:a'],
    ]);
    batches[2]?.finish();
    await expect(Promise.all(all)).resolves.toEqual(['done a', 'done a', 'done b']);
  });

  it('splits at maxBatch and rejects every write of a batch whose commit throws', async () => {
    const { batches, commit } = controlledCommit();
    const writes = coalescer(commit, 2);
    const all = ['a', 'b', 'c'].map((key) => writes.add({ key, group: 'g' }));
    await nextTurn();
    expect(batches.map((batch) => batch.writes.length)).toEqual([2]);
    batches[0]?.fail(new Error('store unreachable'));
    await expect(all[0]).rejects.toThrow('store unreachable');
    await expect(all[1]).rejects.toThrow('store unreachable');
    await nextTurn();
    expect(batches.map((batch) => batch.writes.map((w) => w.key))).toEqual([['a', 'b'], ['c']]);
    batches[1]?.finish();
    await expect(all[2]).resolves.toBe('done c');
  });
});
