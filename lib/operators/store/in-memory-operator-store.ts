import { ConcurrentModificationError } from '../../shared/errors.js';
import type { OperatorChange, OperatorProposal } from '../model.js';
import type { AccessMarker, OperatorRecords, RecordedWith } from '../records.js';

/** The operators' records in memory, to the port's contract (test/operators/operator-records.contract.test.ts). */
export class InMemoryOperatorStore implements OperatorRecords {
  readonly #changes = new Map<string, OperatorChange[]>();
  readonly #proposals = new Map<string, OperatorProposal>();
  /** The disabled markers by pool `sub`, as the API's disabled-operator check would find them. */
  readonly markers = new Map<string, Extract<AccessMarker, { disabled: true }>>();

  async record(change: OperatorChange, also: RecordedWith = {}): Promise<void> {
    const key = change.username.toLowerCase();
    const changes = this.#changes.get(key) ?? [];
    const refuse = () => {
      throw new ConcurrentModificationError('operator', change.username);
    };
    if (changes.some((recorded) => recorded.id === change.id && recorded.at === change.at)) refuse();
    if (also.proposal && this.#proposals.has(proposalKey(also.proposal))) refuse();
    if (also.decided && this.#proposals.get(proposalKey(also.decided))?.status !== 'pending') refuse();
    this.#changes.set(key, [...changes, change]);
    for (const proposal of [also.proposal, also.decided]) {
      if (proposal) this.#proposals.set(proposalKey(proposal), proposal);
    }
    if (also.marker?.disabled === true) this.markers.set(also.marker.sub, also.marker);
    else if (also.marker?.disabled === false) this.markers.delete(also.marker.sub);
  }

  async proposal(username: string, id: string): Promise<OperatorProposal | undefined> {
    return this.#proposals.get(proposalKey({ username, id }));
  }

  async pendingProposals(username: string): Promise<OperatorProposal[]> {
    return [...this.#proposals.values()]
      .filter((proposal) => proposal.username.toLowerCase() === username.toLowerCase())
      .filter((proposal) => proposal.status === 'pending')
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  async audit(username: string, limit = 100): Promise<OperatorChange[]> {
    const changes = [...(this.#changes.get(username.toLowerCase()) ?? [])].sort(
      (a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id),
    );
    return changes.slice(Math.max(0, changes.length - limit));
  }
}

const proposalKey = (proposal: Pick<OperatorProposal, 'username' | 'id'>) =>
  `${proposal.username.toLowerCase()}#${proposal.id}`;
