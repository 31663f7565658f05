-- CreateTable
CREATE TABLE "rate_limit_bucket" (
    "name" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "units" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,
    "full_at" BIGINT NOT NULL,
    "granted" BOOLEAN NOT NULL DEFAULT true,

    CONSTRAINT "rate_limit_bucket_pkey" PRIMARY KEY ("name","key")
);

-- CreateIndex
CREATE INDEX "rate_limit_bucket_full_at_idx" ON "rate_limit_bucket"("full_at");
