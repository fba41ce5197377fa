-- AlterTable
ALTER TABLE "funding_rate" ADD COLUMN     "source" TEXT NOT NULL DEFAULT 'live';

-- AlterTable
ALTER TABLE "market_sample" ADD COLUMN     "oi_source" TEXT NOT NULL DEFAULT 'live';

-- AlterTable
ALTER TABLE "positioning_sample" ADD COLUMN     "source" TEXT NOT NULL DEFAULT 'live';
