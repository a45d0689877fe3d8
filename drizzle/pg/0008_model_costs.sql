CREATE TABLE "model_prices" (
	"model" text PRIMARY KEY NOT NULL,
	"input_micros_per_million" bigint,
	"output_micros_per_million" bigint,
	"updated_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cost_nanos" bigint;--> statement-breakpoint
ALTER TABLE "teams" ADD COLUMN "money_budget_nanos" bigint;