ALTER TABLE `jobs` ADD `changed_revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `jobs_team_changed_idx` ON `jobs` (`team_id`,`changed_revision`);