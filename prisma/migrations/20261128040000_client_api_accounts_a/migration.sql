-- Apps a person makes for their own account (Settings → Development), and app read markers.
ALTER TABLE "client_apps" ADD COLUMN "owner_id" UUID;
ALTER TABLE "client_apps" ADD CONSTRAINT "client_apps_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE INDEX "client_apps_owner_id_idx" ON "client_apps"("owner_id");

CREATE TABLE "read_markers" (
    "user_id" UUID NOT NULL,
    "timeline" TEXT NOT NULL,
    "last_read_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "read_markers_pkey" PRIMARY KEY ("user_id","timeline")
);
ALTER TABLE "read_markers" ADD CONSTRAINT "read_markers_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
