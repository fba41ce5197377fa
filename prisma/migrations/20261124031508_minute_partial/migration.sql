-- CreateTable
CREATE TABLE "minute_partial" (
    "exchange" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "market_type" TEXT NOT NULL,
    "ts" BIGINT NOT NULL,
    "covered_to" BIGINT NOT NULL,

    CONSTRAINT "minute_partial_pkey" PRIMARY KEY ("exchange","coin","market_type","ts")
);
