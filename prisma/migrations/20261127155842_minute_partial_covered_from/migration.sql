-- AlterTable
ALTER TABLE "minute_partial" ADD COLUMN     "covered_from" BIGINT,
ALTER COLUMN "covered_to" DROP NOT NULL;
