-- What an app says an uploaded image shows, and its focal point (media of the client API).
ALTER TABLE "uploads" ADD COLUMN     "description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "focus_x" DOUBLE PRECISION,
ADD COLUMN     "focus_y" DOUBLE PRECISION;
