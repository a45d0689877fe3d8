CREATE TABLE `file_attachments` (
	`target_id` text NOT NULL,
	`file_id` text NOT NULL,
	`position` integer NOT NULL,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `file_attachments_target_file_idx` ON `file_attachments` (`target_id`,`file_id`);--> statement-breakpoint
CREATE INDEX `file_attachments_file_idx` ON `file_attachments` (`file_id`);--> statement-breakpoint
CREATE TABLE `file_blobs` (
	`sha256` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`lo_oid` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `file_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`file_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`revision` integer NOT NULL,
	`sha256` text NOT NULL,
	`size` integer NOT NULL,
	`media_type` text NOT NULL,
	`author_kind` text NOT NULL,
	`author_member_id` text,
	`author_name` text,
	`run_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`file_id`) REFERENCES `files`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `file_versions_file_revision_idx` ON `file_versions` (`file_id`,`revision`);--> statement-breakpoint
CREATE INDEX `file_versions_sha_idx` ON `file_versions` (`sha256`);--> statement-breakpoint
CREATE INDEX `file_versions_owner_idx` ON `file_versions` (`owner_id`);--> statement-breakpoint
CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`team_id` text,
	`conversation_id` text,
	`scope` text NOT NULL,
	`name` text NOT NULL,
	`revision` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `files_scope_name_idx` ON `files` (`scope`,`name`);--> statement-breakpoint
CREATE INDEX `files_owner_idx` ON `files` (`owner_id`);--> statement-breakpoint
CREATE INDEX `files_scope_updated_idx` ON `files` (`scope`,`updated_at`);