CREATE TABLE `batch_items` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`batch_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`idx` integer NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease` integer DEFAULT 0 NOT NULL,
	`lease_expires_at` integer,
	`input` text NOT NULL,
	`result` text,
	`result_truncated` integer DEFAULT false NOT NULL,
	`error` text,
	`conversation_id` text,
	`run_id` text,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`batch_id`) REFERENCES `batches`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `batch_items_id_unique` ON `batch_items` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `batch_items_batch_idx` ON `batch_items` (`batch_id`,`idx`);--> statement-breakpoint
CREATE INDEX `batch_items_batch_status_idx` ON `batch_items` (`batch_id`,`status`,`idx`);--> statement-breakpoint
CREATE INDEX `batch_items_status_idx` ON `batch_items` (`status`);--> statement-breakpoint
CREATE INDEX `batch_items_run_idx` ON `batch_items` (`run_id`);--> statement-breakpoint
CREATE TABLE `batches` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`owner_id` text NOT NULL,
	`status` text DEFAULT 'running' NOT NULL,
	`target_kind` text NOT NULL,
	`agent_id` text,
	`team_id` text,
	`member_id` text,
	`target_name` text NOT NULL,
	`template` text NOT NULL,
	`columns` text NOT NULL,
	`total` integer NOT NULL,
	`concurrency` integer NOT NULL,
	`max_attempts` integer NOT NULL,
	`origin` text NOT NULL,
	`parent_run_id` text,
	`parent_conversation_id` text,
	`parent_tool_call_id` text,
	`notify` text DEFAULT 'none' NOT NULL,
	`notified_at` integer,
	`idempotency_key` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `batches_id_unique` ON `batches` (`id`);--> statement-breakpoint
CREATE INDEX `batches_owner_seq_idx` ON `batches` (`owner_id`,`seq`);--> statement-breakpoint
CREATE INDEX `batches_status_idx` ON `batches` (`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `batches_owner_key` ON `batches` (`owner_id`,`idempotency_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `batches_parent_call` ON `batches` (`parent_run_id`,`parent_tool_call_id`);