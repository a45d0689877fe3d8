ALTER TABLE "file_attachments" DROP CONSTRAINT "file_attachments_file_id_files_id_fk";
--> statement-breakpoint
ALTER TABLE "file_attachments" ALTER COLUMN "file_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD COLUMN "owner_id" text;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD COLUMN "team_id" text;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD COLUMN "conversation_id" text;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD COLUMN "name" text;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD COLUMN "media_type" text;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD COLUMN "size" bigint;
--> statement-breakpoint
UPDATE "file_attachments" a SET "owner_id" = f."owner_id", "team_id" = f."team_id", "conversation_id" = f."conversation_id", "name" = f."name", "media_type" = v."media_type", "size" = v."size" FROM "files" f JOIN "file_versions" v ON v."file_id" = f."id" AND v."revision" = f."revision" WHERE f."id" = a."file_id";
--> statement-breakpoint
ALTER TABLE "file_attachments" ALTER COLUMN "owner_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "file_attachments" ALTER COLUMN "name" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "file_attachments" ALTER COLUMN "media_type" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "file_attachments" ALTER COLUMN "size" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD CONSTRAINT "file_attachments_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD CONSTRAINT "file_attachments_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD CONSTRAINT "file_attachments_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "file_attachments" ADD CONSTRAINT "file_attachments_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE set null ON UPDATE no action;