/**
 * The URL a deployed console's request is signed for: the API's own host and the path the API serves. The browser
 * sends it to the console's origin at `/api/...`; CloudFront strips the prefix and forwards every header but Host
 * (infra/constructs/console.ts), so the API checks the signature against exactly this URL.
 *
 * @example signingUrlOf(new URL('https://d1.cloudfront.net/api/payouts?limit=5'), { host: 'abc.execute-api.eu-west-1.amazonaws.com', pathPrefix: '/api' })
 * // https://abc.execute-api.eu-west-1.amazonaws.com/payouts?limit=5
 */
export function signingUrlOf(url: URL, api: { readonly host: string; readonly pathPrefix: string }): URL {
  const path = url.pathname.startsWith(`${api.pathPrefix}/`)
    ? url.pathname.slice(api.pathPrefix.length)
    : url.pathname;
  const signed = new URL(path, `https://${api.host}`);
  signed.search = url.search;
  return signed;
}
