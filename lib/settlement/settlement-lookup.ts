import { MoneyError, toKobo } from '../money.js';
import type { ProviderClient, Settlement } from '../provider/index.js';
import { NotFoundError } from '../shared/errors.js';
import { readWithinWindow, type SendWindow } from '../shared/send-window.js';
import type { SettlementDecisionStore } from './decision-store.js';
import type { SettlementDecision } from './model.js';

/** One page of the provider's settlement listing, as the poll and the look-up's walk read it. */
export const SETTLEMENT_PAGE_SIZE = 100;
/**
 * The newest settlements a look-up reads first. The settlement an event or the API names was usually made
 * moments ago, so it is among them, and a page of this size costs the provider and the parse a tenth of a full
 * one (our own instant payouts are settlements too, so full pages are the rule). Past it, the look-up walks
 * pages of SETTLEMENT_PAGE_SIZE from the first.
 */
export const FIRST_LOOK_SIZE = 10;

/** The settlement as the provider lists it, or the decision an earlier trigger recorded for it. */
export type LookedUp = { readonly settlement: Settlement } | { readonly decided: SettlementDecision };

/**
 * The settlement as the provider lists it (walking at most `maxPages` full pages), or the decision an earlier
 * trigger recorded for it in `store`. A settlement among the provider's newest is returned as listed. Past them (an
 * older one, which the API may name long after it was decided), its decision is read alongside the walk, and a
 * recorded one ends the walk and wins: a repeated trigger for it costs a page read or two, not the whole walk.
 *
 * The look-up keeps within the caller's send window when it has one (the API: POST /instant-settlements, and a dead
 * letter's replay of a `Settlement Available` event; readWithinWindow), so that the API answers `503
 * request-deadline` in time however slow the provider's listing is, instead of reading on past its answer and then
 * recording and paying. Nothing is recorded before the look-up answers, so one cut off leaves nothing behind, and
 * the retry (idempotent per settlement) looks again and decides once. Without a window (the event's function) each
 * page's read keeps the client's own call deadline, and the function's timeout bounds the walk.
 *
 * @throws NotFoundError when the provider does not list it within the bound and it has no decision
 * @throws DeadlineExceededError when the read ran out of the window
 */
export function findSettlement(
  provider: Pick<ProviderClient, 'settlements'>,
  store: Pick<SettlementDecisionStore, 'get'>,
  maxPages: number,
  settlementId: string,
  window: SendWindow | undefined,
): Promise<LookedUp> {
  // `signal` abandons every page's read (the caller's window): the first look's and the walk's.
  const look = async (signal?: AbortSignal): Promise<LookedUp> => {
    const newest = await provider.settlements.list(
      { perPage: FIRST_LOOK_SIZE, page: 1 },
      signal && { signal },
    );
    const listed = newest.items.find((settlement) => settlement.id === settlementId);
    if (listed) return { settlement: listed };
    let decided = false;
    const reading = store.get(settlementId).then((recorded) => {
      decided = recorded !== undefined;
      return recorded;
    });
    reading.catch(() => undefined);
    let walked: Settlement | undefined;
    // The first look was the provider's only page: there is nothing more to walk.
    const more = newest.items.length > 0 && newest.pagination.page < newest.pagination.totalPages;
    if (more) {
      for await (const settlement of provider.settlements.listAll(
        { perPage: SETTLEMENT_PAGE_SIZE },
        { maxPages, ...(signal && { signal }) },
      )) {
        if (settlement.id === settlementId) {
          walked = settlement;
          break;
        }
        if (decided) break;
      }
    }
    const recorded = await reading;
    if (recorded) return { decided: recorded };
    if (walked) return { settlement: walked };
    throw new NotFoundError('settlement', settlementId, {
      detail: `the provider lists no settlement ${settlementId} in its newest ${maxPages * SETTLEMENT_PAGE_SIZE} settlements`,
    });
  };
  return window ? readWithinWindow(window, look) : look();
}

/** What a decision keeps of the provider's record of the settlement, as read when deciding. */
export function snapshotOf(settlement: Settlement): SettlementDecision['settlement'] {
  let amountKobo: number | undefined;
  try {
    amountKobo = toKobo(settlement.amount);
  } catch (error) {
    if (!(error instanceof MoneyError)) throw error;
  }
  return {
    status: settlement.status,
    category: settlement.category,
    date: settlement.date,
    ...(amountKobo !== undefined && { amountKobo }),
  };
}
