CREATE TABLE "mcp_servers" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text,
	"scope" text NOT NULL,
	"name" text NOT NULL,
	"transport" text NOT NULL,
	"command" text,
	"args" json,
	"url_shown" text,
	"env_names" json,
	"header_names" json,
	"secrets_cipher" text,
	"timeout_ms" integer NOT NULL,
	"max_concurrent" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_servers_scope_name_idx" ON "mcp_servers" USING btree ("scope","name");--> statement-breakpoint
CREATE INDEX "mcp_servers_owner_idx" ON "mcp_servers" USING btree ("owner_id");