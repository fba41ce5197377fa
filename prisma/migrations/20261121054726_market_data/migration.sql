-- CreateTable
CREATE TABLE "candle_1m" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "market_type" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "open" DOUBLE PRECISION NOT NULL,
    "high" DOUBLE PRECISION NOT NULL,
    "low" DOUBLE PRECISION NOT NULL,
    "close" DOUBLE PRECISION NOT NULL,
    "volume" DOUBLE PRECISION NOT NULL,
    "buy_volume" DOUBLE PRECISION NOT NULL,
    "sell_volume" DOUBLE PRECISION NOT NULL,
    "quote_volume" DOUBLE PRECISION NOT NULL,
    "trades" INTEGER NOT NULL,
    "vap" BYTEA NOT NULL,

    CONSTRAINT "candle_1m_pkey" PRIMARY KEY ("exchange","coin","market_type","ts")
);

-- CreateTable
CREATE TABLE "candle_1h" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "market_type" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "open" DOUBLE PRECISION NOT NULL,
    "high" DOUBLE PRECISION NOT NULL,
    "low" DOUBLE PRECISION NOT NULL,
    "close" DOUBLE PRECISION NOT NULL,
    "volume" DOUBLE PRECISION NOT NULL,
    "buy_volume" DOUBLE PRECISION NOT NULL,
    "sell_volume" DOUBLE PRECISION NOT NULL,
    "quote_volume" DOUBLE PRECISION NOT NULL,
    "trades" INTEGER NOT NULL,
    "vap" BYTEA NOT NULL,

    CONSTRAINT "candle_1h_pkey" PRIMARY KEY ("exchange","coin","market_type","ts")
);

-- CreateTable
CREATE TABLE "market_sample" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "market_type" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "mark_price" DOUBLE PRECISION,
    "index_price" DOUBLE PRECISION,
    "last_price" DOUBLE PRECISION,
    "funding_rate" DOUBLE PRECISION,
    "funding_interval_hours" DOUBLE PRECISION,
    "next_funding_time" BIGINT,
    "open_interest" DOUBLE PRECISION,

    CONSTRAINT "market_sample_pkey" PRIMARY KEY ("exchange","coin","market_type","ts")
);

-- CreateTable
CREATE TABLE "funding_rate" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "rate" DOUBLE PRECISION NOT NULL,
    "interval_hours" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "funding_rate_pkey" PRIMARY KEY ("exchange","coin","ts")
);

-- CreateTable
CREATE TABLE "order_book" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "market_type" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "bids" JSONB NOT NULL,
    "asks" JSONB NOT NULL,

    CONSTRAINT "order_book_pkey" PRIMARY KEY ("exchange","coin","market_type")
);

-- CreateTable
CREATE TABLE "coin" (
    "symbol" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "coin_pkey" PRIMARY KEY ("symbol")
);

-- CreateIndex
CREATE INDEX "candle_1m_coin_market_type_ts_idx" ON "candle_1m"("coin", "market_type", "ts");

-- CreateIndex
CREATE INDEX "candle_1h_coin_market_type_ts_idx" ON "candle_1h"("coin", "market_type", "ts");

-- CreateIndex
CREATE INDEX "market_sample_coin_ts_idx" ON "market_sample"("coin", "ts");

-- CreateIndex
CREATE INDEX "funding_rate_coin_ts_idx" ON "funding_rate"("coin", "ts");
