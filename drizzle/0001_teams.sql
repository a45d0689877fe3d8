CREATE TABLE `jobs` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`team_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`kind` text NOT NULL,
	`member_id` text,
	`conversation_id` text NOT NULL,
	`source_member_id` text,
	`source_conversation_id` text,
	`parent_id` text,
	`root_id` text NOT NULL,
	`depth` integer DEFAULT 1 NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`text` text NOT NULL,
	`request_key` text NOT NULL,
	`frozen_input` text,
	`run_key` text,
	`run_id` text,
	`waiting` text,
	`answer` text,
	`answer_key` text,
	`result` text,
	`result_truncated` integer,
	`error` text,
	`receipt_job_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`admitted_at` integer,
	`completed_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_id_unique` ON `jobs` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_team_request_key` ON `jobs` (`team_id`,`kind`,`request_key`);--> statement-breakpoint
CREATE INDEX `jobs_team_seq_idx` ON `jobs` (`team_id`,`seq`);--> statement-breakpoint
CREATE INDEX `jobs_conversation_idx` ON `jobs` (`conversation_id`,`seq`);--> statement-breakpoint
CREATE INDEX `jobs_root_idx` ON `jobs` (`root_id`);--> statement-breakpoint
CREATE INDEX `jobs_run_idx` ON `jobs` (`run_id`);--> statement-breakpoint
CREATE TABLE `shared_messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` text NOT NULL,
	`job_id` text,
	`kind` text NOT NULL,
	`sender_member_id` text,
	`sender_label` text NOT NULL,
	`recipient_member_id` text,
	`text` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `shared_messages_team_seq_idx` ON `shared_messages` (`team_id`,`seq`);--> statement-breakpoint
CREATE TABLE `state_entries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`team_id` text NOT NULL,
	`publication_key` text NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`revision` integer DEFAULT 1 NOT NULL,
	`original` text NOT NULL,
	`last_update` text,
	`created_by_member_id` text NOT NULL,
	`updated_by_member_id` text NOT NULL,
	`source_conversation_id` text,
	`source_job_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `state_entries_id_unique` ON `state_entries` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `state_entries_publication_key` ON `state_entries` (`team_id`,`publication_key`);--> statement-breakpoint
CREATE TABLE `team_members` (
	`id` text PRIMARY KEY NOT NULL,
	`team_id` text NOT NULL,
	`agent_id` text,
	`agent_name` text NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL,
	`conversation_id` text,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `agents`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `team_members_team_idx` ON `team_members` (`team_id`,`position`);--> statement-breakpoint
CREATE INDEX `team_members_conversation_idx` ON `team_members` (`conversation_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`request_id` text NOT NULL,
	`name` text NOT NULL,
	`goal` text NOT NULL,
	`status` text DEFAULT 'creating' NOT NULL,
	`disconnect_reason` text,
	`revision` integer DEFAULT 1 NOT NULL,
	`state_revision` integer DEFAULT 0 NOT NULL,
	`has_pending` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_owner_request_key` ON `teams` (`owner_id`,`request_id`);--> statement-breakpoint
CREATE INDEX `teams_owner_created_idx` ON `teams` (`owner_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `teams_pending_idx` ON `teams` (`has_pending`);