-- Issue 32, item 4: one index per candle table instead of two. The key now leads with the coin, the order every
-- windowed read takes (coin, market type, time range: what candle_*_coin_market_type_ts_idx served); a read of one
-- venue's minutes takes the same range and keeps its venue's rows (five venues at most). The second index was 8 %
-- of candle_1m's bytes (docs/performance.md, eighth round). Rebuilding the key reads the table once.

-- DropIndex
DROP INDEX "candle_1h_coin_market_type_ts_idx";

-- DropIndex
DROP INDEX "candle_1m_coin_market_type_ts_idx";

-- AlterTable
ALTER TABLE "candle_1h" DROP CONSTRAINT "candle_1h_pkey",
ADD CONSTRAINT "candle_1h_pkey" PRIMARY KEY ("coin", "market_type", "ts", "exchange");

-- AlterTable
ALTER TABLE "candle_1m" DROP CONSTRAINT "candle_1m_pkey",
ADD CONSTRAINT "candle_1m_pkey" PRIMARY KEY ("coin", "market_type", "ts", "exchange");
