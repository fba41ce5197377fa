-- CreateTable
CREATE TABLE "large_trade" (
    "seq" BIGSERIAL NOT NULL,
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "market_type" TEXT NOT NULL,
    "trade_id" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "price" DOUBLE PRECISION NOT NULL,
    "size" DOUBLE PRECISION NOT NULL,
    "side" TEXT NOT NULL,
    "notional_usd" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "large_trade_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "large_trade_ts_idx" ON "large_trade"("ts");

-- CreateIndex
CREATE UNIQUE INDEX "large_trade_exchange_coin_market_type_trade_id_key" ON "large_trade"("exchange", "coin", "market_type", "trade_id");
