-- CreateTable
CREATE TABLE "history_progress" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "covered_from" BIGINT NOT NULL,
    "covered_to" BIGINT NOT NULL,
    "exhausted_before" BIGINT,
    "exhausted_reason" TEXT,
    "pages" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "history_progress_pkey" PRIMARY KEY ("exchange","coin","kind")
);

-- CreateTable
CREATE TABLE "history_hole" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "market_type" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "from_ts" BIGINT NOT NULL,
    "to_ts" BIGINT NOT NULL,
    "reason" TEXT NOT NULL,
    "first_seen" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_try" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "history_hole_pkey" PRIMARY KEY ("exchange","coin","kind","from_ts")
);

-- CreateIndex
CREATE INDEX "history_hole_coin_kind_to_ts_idx" ON "history_hole"("coin", "kind", "to_ts");
