/** Bank codes the sandbox knows; a well-formed code outside this table is `422` on a payout. */
export const BANKS: Readonly<Record<string, string>> = {
  '011': 'First Bank of Nigeria',
  '033': 'United Bank for Africa',
  '035': 'Wema Bank',
  '044': 'Access Bank',
  '050': 'Ecobank Nigeria',
  '057': 'Zenith Bank',
  '058': 'Guaranty Trust Bank',
  '070': 'Fidelity Bank',
  '076': 'Polaris Bank',
  '214': 'First City Monument Bank',
  '221': 'Stanbic IBTC Bank',
  '232': 'Sterling Bank',
  '50211': 'Kuda Microfinance Bank',
  '50515': 'Moniepoint Microfinance Bank',
  '100004': 'OPay',
};

/** Bank of every wallet the sandbox holds (the provider's own partner bank). */
export const WALLET_BANK = { code: '50515', name: 'Moniepoint Microfinance Bank' } as const;

/** Name of a known bank, or undefined. */
export function bankName(code: string): string | undefined {
  return Object.hasOwn(BANKS, code) ? BANKS[code] : undefined;
}
