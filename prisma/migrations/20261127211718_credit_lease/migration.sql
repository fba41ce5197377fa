-- AlterTable
ALTER TABLE "account" ADD COLUMN     "lease_wanted_at" TIMESTAMPTZ(3),
ADD COLUMN     "leased" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "credit_lease" (
    "node_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "remaining" INTEGER NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "credit_lease_pkey" PRIMARY KEY ("node_id","account_id")
);

-- CreateIndex
CREATE INDEX "credit_lease_expires_at_idx" ON "credit_lease"("expires_at");

-- CreateIndex
CREATE INDEX "credit_lease_account_id_idx" ON "credit_lease"("account_id");

-- AddForeignKey
ALTER TABLE "credit_lease" ADD CONSTRAINT "credit_lease_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- a lease never holds more than the account has, nor less than nothing (src/accounts/credit-leases.ts)
ALTER TABLE "account" ADD CONSTRAINT "account_leased_within_credits" CHECK ("leased" >= 0 AND "leased" <= "credits");
ALTER TABLE "credit_lease" ADD CONSTRAINT "credit_lease_remaining_nonnegative" CHECK ("remaining" >= 0);
