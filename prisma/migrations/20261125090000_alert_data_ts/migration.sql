-- AlterTable
ALTER TABLE "alert_rule" ADD COLUMN     "last_data_ts" BIGINT;
