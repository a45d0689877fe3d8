CREATE TABLE `mcp_discoveries` (
	`server_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`checked_at` integer NOT NULL,
	`tools` text NOT NULL,
	`tools_truncated` integer NOT NULL,
	`listed_at` integer,
	FOREIGN KEY (`server_id`) REFERENCES `mcp_servers`(`id`) ON UPDATE no action ON DELETE cascade
);
