CREATE TABLE `delegations` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`owner_id` text NOT NULL,
	`parent_run_id` text NOT NULL,
	`parent_conversation_id` text NOT NULL,
	`parent_tool_call_id` text NOT NULL,
	`team_id` text,
	`agent_id` text,
	`provider` text NOT NULL,
	`spec` text NOT NULL,
	`depth` integer NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`child_conversation_id` text,
	`child_run_id` text,
	`result` text,
	`error` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`admitted_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `delegations_id_unique` ON `delegations` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `delegations_parent_call` ON `delegations` (`parent_run_id`,`parent_tool_call_id`);--> statement-breakpoint
CREATE INDEX `delegations_status_idx` ON `delegations` (`status`);--> statement-breakpoint
CREATE INDEX `delegations_child_run_idx` ON `delegations` (`child_run_id`);--> statement-breakpoint
ALTER TABLE `agents` ADD `allowed_subagents` text DEFAULT '"all"' NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `max_depth` integer DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `max_children` integer DEFAULT 6 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `max_concurrent_children` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `agents` ADD `token_budget` integer;--> statement-breakpoint
ALTER TABLE `conversations` ADD `parent_run_id` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `parent_run_id` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `parent_tool_call_id` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `depth` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `team_id` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `delegation_wait` text;--> statement-breakpoint
CREATE INDEX `runs_owner_created_idx` ON `runs` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_team_idx` ON `runs` (`team_id`);--> statement-breakpoint
CREATE INDEX `runs_parent_idx` ON `runs` (`parent_run_id`);--> statement-breakpoint
ALTER TABLE `teams` ADD `token_budget` integer;