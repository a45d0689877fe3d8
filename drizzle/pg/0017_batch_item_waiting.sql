ALTER TABLE "batch_items" ADD COLUMN "waiting_since" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "batch_items" ADD COLUMN "answer" json;--> statement-breakpoint
CREATE INDEX "batch_items_waiting_owner_idx" ON "batch_items" USING btree ("owner_id","waiting_since") WHERE status = 'waiting';