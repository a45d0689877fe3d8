PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_file_attachments` (
	`target_id` text NOT NULL,
	`file_id` text,
	`position` integer NOT NULL,
	`owner_id` text NOT NULL,
	`team_id` text,
	`conversation_id` text,
	`name` text NOT NULL,
	`media_type` text NOT NULL,
	`size` integer NOT NULL,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_file_attachments`("target_id", "file_id", "position", "owner_id", "team_id", "conversation_id", "name", "media_type", "size") SELECT a."target_id", a."file_id", a."position", f."owner_id", f."team_id", f."conversation_id", f."name", v."media_type", v."size" FROM `file_attachments` a JOIN `files` f ON f."id" = a."file_id" JOIN `file_versions` v ON v."file_id" = f."id" AND v."revision" = f."revision";--> statement-breakpoint
DROP TABLE `file_attachments`;--> statement-breakpoint
ALTER TABLE `__new_file_attachments` RENAME TO `file_attachments`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `file_attachments_target_file_idx` ON `file_attachments` (`target_id`,`file_id`);--> statement-breakpoint
CREATE INDEX `file_attachments_file_idx` ON `file_attachments` (`file_id`);