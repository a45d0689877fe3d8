import { databaseEngine } from './engine';

/**
 * The few SQL spellings the two engines don't share, for hand-written statements (server/db/statement.ts). Each
 * answers SQL text for the engine this process runs on (fixed for its life), so a statement built from them at
 * module load is right for that engine.
 */
const postgres = () => databaseEngine() === 'postgres';

const quotePath = (keys: readonly string[]) => keys.map((k) => `'${k.replace(/'/g, "''")}'`);

/** A JSON column's member as text (null when absent): json_extract(col, '$.a.b') / col->'a'->>'b'. */
export function jsonText(column: string, ...keys: string[]): string {
  if (!postgres()) return `json_extract(${column}, '$.${keys.join('.')}')`;
  const path = quotePath(keys);
  return `(${column}${path.slice(0, -1).map((k) => `->${k}`).join('')}->>${path.at(-1)})`;
}

/** A JSON column's member as a number (null when absent). */
export function jsonNumber(column: string, ...keys: string[]): string {
  return postgres() ? `(${jsonText(column, ...keys)})::double precision` : jsonText(column, ...keys);
}

/** `column` is one of the list passed as the next parameter (an array: statement() binds it per engine). */
export function inList(column: string): string {
  return postgres() ? `${column} = any(?)` : `${column} in (select value from json_each(?))`;
}
