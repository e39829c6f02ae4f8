import { PROVIDER_PATHS } from '../contract.js';
import { ProviderResource, providerMethod } from '../resource.js';
import { type VirtualAccount, virtualAccountSchema } from '../schemas/virtual-account.js';
import type { ProviderResult, RequestOptions } from '../types.js';

const get = providerMethod({
  method: 'GET',
  path: PROVIDER_PATHS.virtualAccounts,
  query: (params: { customerReference: string }) => ({ customerReference: params.customerReference }),
  data: virtualAccountSchema,
  message: 'absent',
});

/** Virtual accounts. */
export class VirtualAccounts extends ProviderResource {
  /**
   * One virtual account by its customer reference (GET /virtual-accounts; no envelope message).
   *
   * @example const { data } = await client.virtualAccounts.get({ customerReference: 'cust-1' });
   */
  get(
    params: { customerReference: string },
    options?: RequestOptions,
  ): Promise<ProviderResult<VirtualAccount>> {
    return this.send(get, params, options);
  }
}
