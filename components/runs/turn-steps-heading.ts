/** How much of a turn's message names its Steps panel. */
const SHOWN = 40;

/**
 * The heading (and so the region's name) of a conversation turn's Steps panel, from the message that started the
 * turn: several panels open at once must not share one name ("Steps of this turn" each), or a screen reader's list
 * of regions can't tell them apart. Plain text: React escapes it like the message itself.
 */
export function turnStepsHeading(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return 'Steps of this turn';
  const points = Array.from(flat);
  return `Steps of “${points.length > SHOWN ? `${points.slice(0, SHOWN - 1).join('')}…` : flat}”`;
}
