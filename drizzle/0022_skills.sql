CREATE TABLE `skill_files` (
	`skill_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`path` text NOT NULL,
	`sha256` text NOT NULL,
	`size` integer NOT NULL,
	FOREIGN KEY (`skill_id`) REFERENCES `skills`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skill_files_skill_path_idx` ON `skill_files` (`skill_id`,`path`);--> statement-breakpoint
CREATE INDEX `skill_files_sha_idx` ON `skill_files` (`sha256`);--> statement-breakpoint
CREATE TABLE `skills` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`description` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `skills_owner_name_key` ON `skills` (`owner_id`,`name_key`);--> statement-breakpoint
ALTER TABLE `agents` ADD `skills` text DEFAULT '[]' NOT NULL;