PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_state_entries` (
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
	`created_by_member_id` text,
	`updated_by_member_id` text,
	`source_conversation_id` text,
	`source_job_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_state_entries`("seq", "id", "team_id", "publication_key", "kind", "title", "content", "status", "revision", "original", "last_update", "created_by_member_id", "updated_by_member_id", "source_conversation_id", "source_job_id", "created_at", "updated_at") SELECT "seq", "id", "team_id", "publication_key", "kind", "title", "content", "status", "revision", "original", "last_update", "created_by_member_id", "updated_by_member_id", "source_conversation_id", "source_job_id", "created_at", "updated_at" FROM `state_entries`;--> statement-breakpoint
DROP TABLE `state_entries`;--> statement-breakpoint
ALTER TABLE `__new_state_entries` RENAME TO `state_entries`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `state_entries_id_unique` ON `state_entries` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `state_entries_publication_key` ON `state_entries` (`team_id`,`publication_key`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `retry_of_job_id` text;--> statement-breakpoint
ALTER TABLE `teams` ADD `cloned_from_team_id` text;