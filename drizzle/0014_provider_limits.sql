CREATE TABLE `provider_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_key` text NOT NULL,
	`run_id` text,
	`state` text NOT NULL,
	`queued_at` integer NOT NULL,
	`started_at` integer,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `provider_calls_key_state_idx` ON `provider_calls` (`provider_key`,`state`);--> statement-breakpoint
ALTER TABLE `providers` ADD `max_concurrent` integer;--> statement-breakpoint
ALTER TABLE `providers` ADD `requests_per_minute` integer;