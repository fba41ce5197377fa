-- CreateTable
CREATE TABLE "alert_rule" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "key_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "coin" TEXT NOT NULL,
    "condition" JSONB NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "status_reason" TEXT,
    "last_true" BOOLEAN,
    "last_fired_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_delivery" (
    "id" UUID NOT NULL,
    "rule_id" UUID NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "charged" BOOLEAN NOT NULL DEFAULT false,
    "next_attempt_at" BIGINT NOT NULL,
    "claimed_until" BIGINT,
    "last_error" TEXT,
    "created_at" BIGINT NOT NULL,
    "delivered_at" BIGINT,

    CONSTRAINT "alert_delivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_rule_account_id_idx" ON "alert_rule"("account_id");

-- CreateIndex
CREATE INDEX "alert_rule_status_idx" ON "alert_rule"("status");

-- CreateIndex
CREATE INDEX "alert_delivery_status_next_attempt_at_idx" ON "alert_delivery"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "alert_delivery_rule_id_idx" ON "alert_delivery"("rule_id");

-- AddForeignKey
ALTER TABLE "alert_rule" ADD CONSTRAINT "alert_rule_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_delivery" ADD CONSTRAINT "alert_delivery_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rule"("id") ON DELETE CASCADE ON UPDATE CASCADE;
