-- CreateTable
CREATE TABLE "liquidation_order" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "id" TEXT NOT NULL,
    "side" TEXT NOT NULL,
    "price" DOUBLE PRECISION NOT NULL,
    "size" DOUBLE PRECISION NOT NULL,
    "usd" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "liquidation_order_pkey" PRIMARY KEY ("exchange","coin","ts","id")
);

-- CreateTable
CREATE TABLE "liquidation_minute" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "long_usd" DOUBLE PRECISION NOT NULL,
    "short_usd" DOUBLE PRECISION NOT NULL,
    "long_count" INTEGER NOT NULL,
    "short_count" INTEGER NOT NULL,

    CONSTRAINT "liquidation_minute_pkey" PRIMARY KEY ("exchange","coin","ts")
);

-- CreateTable
CREATE TABLE "positioning_sample" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "long_share" DOUBLE PRECISION NOT NULL,
    "short_share" DOUBLE PRECISION NOT NULL,
    "ratio" DOUBLE PRECISION NOT NULL,
    "period_ms" INTEGER NOT NULL,

    CONSTRAINT "positioning_sample_pkey" PRIMARY KEY ("exchange","coin","kind","ts")
);

-- CreateIndex
CREATE INDEX "liquidation_order_coin_ts_idx" ON "liquidation_order"("coin", "ts");

-- CreateIndex
CREATE INDEX "liquidation_minute_coin_ts_idx" ON "liquidation_minute"("coin", "ts");

-- CreateIndex
CREATE INDEX "positioning_sample_coin_ts_idx" ON "positioning_sample"("coin", "ts");
