CREATE TABLE "app_processes" (
	"id" text PRIMARY KEY NOT NULL,
	"pid" integer NOT NULL,
	"host" text NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"heartbeat_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scheduler_rounds" (
	"name" text PRIMARY KEY NOT NULL,
	"round" json NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "team_leases" (
	"team_id" text PRIMARY KEY NOT NULL,
	"process_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "process_id" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cancel_requested_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "team_leases" ADD CONSTRAINT "team_leases_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;