ALTER TABLE `batch_items` ADD `waiting_since` integer;--> statement-breakpoint
ALTER TABLE `batch_items` ADD `answer` text;--> statement-breakpoint
CREATE INDEX `batch_items_waiting_owner_idx` ON `batch_items` (`owner_id`,`waiting_since`) WHERE status = 'waiting';