-- CreateTable
CREATE TABLE "feed_uptime" (
    "exchange" TEXT NOT NULL,
    "stream" TEXT NOT NULL,
    "coins" TEXT[],
    "from_ts" BIGINT NOT NULL,
    "to_ts" BIGINT NOT NULL,

    CONSTRAINT "feed_uptime_pkey" PRIMARY KEY ("exchange","stream","from_ts")
);

-- CreateIndex
CREATE INDEX "feed_uptime_stream_to_ts_idx" ON "feed_uptime"("stream", "to_ts");
