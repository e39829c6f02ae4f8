// Types for the two undici modules the transport imports directly (see undici-pool.ts). They are the package's
// own classes and function, so they take the package's own types.
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';

  const PoolClass: typeof Pool;
  export default PoolClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';

  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';

  const build: typeof buildConnector;
  export default build;
}
