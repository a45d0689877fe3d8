ALTER TABLE `jobs` ADD `changed_revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `jobs_team_changed_idx` ON `jobs` (`team_id`,`changed_revision`);--> statement-breakpoint
-- Existing jobs count as changed at their team's current revision: a client that read before this migration re-reads them.
UPDATE `jobs` SET `changed_revision` = (SELECT `revision` FROM `teams` WHERE `teams`.`id` = `jobs`.`team_id`);