-- AlterTable
ALTER TABLE "account" ADD COLUMN     "email_normalized" TEXT;

-- Existing accounts: the same rule as src/accounts/email.ts (lower case; the +tag of the local part dropped;
-- gmail.com and googlemail.com without dots in the local part, as gmail.com). Where several accounts already
-- share a normalised address, the oldest keeps it and the others keep working with none.
WITH parts AS (
  SELECT id, created_at,
         regexp_replace(substring(lower(email) FROM '^(.*)@[^@]*$'), '^([^+]+)\+.*$', '\1') AS local_part,
         substring(lower(email) FROM '@([^@]*)$') AS domain
  FROM "account"
), normalized AS (
  SELECT id, created_at,
         CASE WHEN domain IN ('gmail.com', 'googlemail.com') THEN replace(local_part, '.', '') || '@gmail.com'
              ELSE local_part || '@' || domain END AS norm
  FROM parts
), ranked AS (
  SELECT id, norm, row_number() OVER (PARTITION BY norm ORDER BY created_at, id) AS rn FROM normalized
)
UPDATE "account" a SET "email_normalized" = r.norm FROM ranked r WHERE a.id = r.id AND r.rn = 1;

-- CreateIndex
CREATE UNIQUE INDEX "account_email_normalized_key" ON "account"("email_normalized");
