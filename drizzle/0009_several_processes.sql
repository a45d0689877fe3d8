CREATE TABLE `app_processes` (
	`id` text PRIMARY KEY NOT NULL,
	`pid` integer NOT NULL,
	`host` text NOT NULL,
	`started_at` integer NOT NULL,
	`heartbeat_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scheduler_rounds` (
	`name` text PRIMARY KEY NOT NULL,
	`round` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `team_leases` (
	`team_id` text PRIMARY KEY NOT NULL,
	`process_id` text NOT NULL,
	`epoch` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `runs` ADD `process_id` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `cancel_requested_at` integer;