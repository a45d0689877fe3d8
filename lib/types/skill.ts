/** A skill as the API and the browser see it (ADR 061). `hash` is the pack's content hash the assembly records. */
export type SkillSummary = {
  id: string;
  name: string;
  description: string;
  hash: string;
  /** Resource files besides SKILL.md, by path. */
  files: Array<{ path: string; size: number }>;
  createdAt: string;
  updatedAt: string;
};

/** One skill with its body (GET /api/v1/skills/:id). */
export type SkillView = SkillSummary & { body: string };

/** A skill read_skill read in a run: a reference (id and the pack's hash then), never its text. */
export type SkillRef = { id: string; name: string; hash: string; path: string };
