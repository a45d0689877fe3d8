CREATE TABLE `model_prices` (
	`model` text PRIMARY KEY NOT NULL,
	`input_micros_per_million` integer,
	`output_micros_per_million` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `runs` ADD `cost_nanos` integer;--> statement-breakpoint
ALTER TABLE `teams` ADD `money_budget_nanos` integer;