CREATE TABLE "mcp_discoveries" (
	"server_id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"checked_at" timestamp (3) with time zone NOT NULL,
	"tools" json NOT NULL,
	"tools_truncated" boolean NOT NULL,
	"listed_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "mcp_discoveries" ADD CONSTRAINT "mcp_discoveries_server_id_mcp_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."mcp_servers"("id") ON DELETE cascade ON UPDATE no action;