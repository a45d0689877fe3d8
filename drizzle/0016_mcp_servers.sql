CREATE TABLE `mcp_servers` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text,
	`scope` text NOT NULL,
	`name` text NOT NULL,
	`transport` text NOT NULL,
	`command` text,
	`args` text,
	`url_shown` text,
	`env_names` text,
	`header_names` text,
	`secrets_cipher` text,
	`timeout_ms` integer NOT NULL,
	`max_concurrent` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mcp_servers_scope_name_idx` ON `mcp_servers` (`scope`,`name`);--> statement-breakpoint
CREATE INDEX `mcp_servers_owner_idx` ON `mcp_servers` (`owner_id`);