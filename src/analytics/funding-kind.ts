// Which funding rate a figure is, so a caller never mistakes the live predicted rate for a settled one.

/**
 * What a funding rate is: `predicted` = the rate the next settlement will use, as it stands now (what tickers carry:
 * Binance lastFundingRate, Bybit/OKX fundingRate, Hyperliquid funding, dYdX nextFundingRate); `settled` = a past
 * settlement (funding history).
 */
export type FundingKind = 'predicted' | 'settled'
/** market samples are built from ticker events, so their funding rate is the predicted one */
export const SAMPLE_FUNDING_KIND: FundingKind = 'predicted'
