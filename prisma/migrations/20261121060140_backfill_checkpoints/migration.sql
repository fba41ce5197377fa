-- CreateTable
CREATE TABLE "backfill_day" (
    "source" TEXT NOT NULL,
    "day" BIGINT NOT NULL,
    "completed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "backfill_day_pkey" PRIMARY KEY ("source","day")
);
