-- CreateTable
CREATE TABLE "limit_counter" (
    "key" TEXT NOT NULL,
    "hits" INTEGER NOT NULL,
    "reset_at" BIGINT NOT NULL,

    CONSTRAINT "limit_counter_pkey" PRIMARY KEY ("key")
);
