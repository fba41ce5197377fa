-- AlterTable
ALTER TABLE "coin" ADD COLUMN     "checked_at" TIMESTAMPTZ(3),
ADD COLUMN     "delisted_at" TIMESTAMPTZ(3),
ADD COLUMN     "venues" TEXT[] DEFAULT ARRAY[]::TEXT[];
