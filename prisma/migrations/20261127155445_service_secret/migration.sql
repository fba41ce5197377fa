-- CreateTable
CREATE TABLE "service_secret" (
    "name" TEXT NOT NULL,
    "value" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "service_secret_pkey" PRIMARY KEY ("name")
);
