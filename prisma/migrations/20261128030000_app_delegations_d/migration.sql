-- App delegations (docs/protocol.md App delegations)
ALTER TABLE "posts" ADD COLUMN "post_delegation" TEXT;

CREATE TABLE "app_delegations" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "app_id" UUID NOT NULL,
    "app_key_did" TEXT NOT NULL,
    "app_private_key_pem" TEXT NOT NULL,
    "actions" TEXT[],
    "issued_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "document" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "app_delegations_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "app_delegations_user_id_app_id_idx" ON "app_delegations"("user_id", "app_id");
CREATE INDEX "app_delegations_app_id_idx" ON "app_delegations"("app_id");
CREATE INDEX "app_delegations_created_at_idx" ON "app_delegations"("created_at");

ALTER TABLE "app_delegations" ADD CONSTRAINT "app_delegations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "app_delegations" ADD CONSTRAINT "app_delegations_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "client_apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;
