-- AlterTable
ALTER TABLE "order_book" ADD COLUMN     "reach" JSONB,
ADD COLUMN     "wide" JSONB;
