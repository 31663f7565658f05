-- CreateTable
CREATE TABLE "origin_pending_effects" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "source_domain" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "dedup_key" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "raw_body" JSONB NOT NULL,
    "reply_id" UUID,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "origin_pending_effects_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "origin_pending_effects_next_attempt_at_idx" ON "origin_pending_effects"("next_attempt_at");

-- CreateIndex
CREATE INDEX "origin_pending_effects_source_domain_idx" ON "origin_pending_effects"("source_domain");

-- CreateIndex
CREATE UNIQUE INDEX "origin_pending_effects_source_domain_kind_dedup_key_key" ON "origin_pending_effects"("source_domain", "kind", "dedup_key");
