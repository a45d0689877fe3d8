CREATE TABLE "provider_calls" (
	"id" text PRIMARY KEY NOT NULL,
	"provider_key" text NOT NULL,
	"run_id" text,
	"state" text NOT NULL,
	"queued_at" bigint NOT NULL,
	"started_at" bigint,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "max_concurrent" integer;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "requests_per_minute" integer;--> statement-breakpoint
CREATE INDEX "provider_calls_key_state_idx" ON "provider_calls" USING btree ("provider_key","state");