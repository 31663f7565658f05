-- CreateTable
CREATE TABLE "report_posts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "report_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "post_id" TEXT NOT NULL,
    "post_ap_id" TEXT,
    "post_excerpt" TEXT,

    CONSTRAINT "report_posts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "report_posts_report_id_position_key" ON "report_posts"("report_id", "position");

-- AddForeignKey
ALTER TABLE "report_posts" ADD CONSTRAINT "report_posts_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "reports"("id") ON DELETE CASCADE ON UPDATE CASCADE;
