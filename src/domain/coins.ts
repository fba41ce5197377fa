// The default coin universe: large caps listed as perps on all five venues and as spot on the three CEXes.
// Imported history can add more coins at run time; the registry of known coins lives in the store.
export const DEFAULT_COINS = ['BTC', 'ETH', 'SOL', 'XRP', 'BNB', 'DOGE', 'ADA', 'AVAX', 'LINK', 'LTC', 'DOT', 'SUI'] as const
