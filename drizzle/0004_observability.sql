ALTER TABLE `agents` ADD `compact_at_tokens` integer;--> statement-breakpoint
ALTER TABLE `runs` ADD `model_calls` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `unreported_calls` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `runs` ADD `fingerprint` text;--> statement-breakpoint
ALTER TABLE `runs` ADD `assembly` text;