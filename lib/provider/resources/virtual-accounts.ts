import { PROVIDER_PATHS } from '../contract.js';
import type { Requester } from '../requester.js';
import { envelope } from '../schemas/envelope.js';
import { type VirtualAccount, virtualAccountSchema } from '../schemas/virtual-account.js';
import type { ProviderResult, RequestOptions } from '../types.js';

const getResponse = envelope(virtualAccountSchema, 'absent');

/** Virtual accounts. */
export class VirtualAccounts {
  readonly #requester: Requester;

  constructor(requester: Requester) {
    this.#requester = requester;
  }

  /**
   * One virtual account by its customer reference (GET /virtual-accounts; no envelope message).
   *
   * @example const { data } = await client.virtualAccounts.get({ customerReference: 'cust-1' });
   */
  async get(
    params: { customerReference: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<VirtualAccount>> {
    const { message, data } = await this.#requester.call(
      {
        method: 'GET',
        path: PROVIDER_PATHS.virtualAccounts,
        query: { customerReference: params.customerReference },
        schema: getResponse,
      },
      options,
    );
    return { message, data };
  }
}
