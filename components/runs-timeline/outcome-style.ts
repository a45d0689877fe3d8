/**
 * How each outcome looks: a colour AND a cue that survives without colour (a glyph on the bar and in the legend,
 * and a fill pattern), so completed, failed, cancelled and waiting bars differ in grey-scale and to colour-blind eyes.
 */
import type { CSSProperties } from 'react';
import type { barState } from './layout';

type State = ReturnType<typeof barState>;

const stripes = (angle: number, color: string): CSSProperties => ({
  backgroundImage: `repeating-linear-gradient(${angle}deg, ${color} 0 4px, transparent 4px 8px)`,
});

export const OUTCOME_STYLE: Record<State, { glyph: string; className: string; style?: CSSProperties }> = {
  completed: { glyph: '✓', className: 'bg-emerald-600 text-white dark:bg-emerald-500 dark:text-emerald-950' },
  failed: { glyph: '✕', className: 'bg-red-600 text-white dark:bg-red-500 dark:text-red-950', style: stripes(45, 'rgb(255 255 255 / 0.28)') },
  cancelled: {
    glyph: '⊘',
    className: 'border-2 border-dashed border-zinc-500 bg-zinc-200 text-zinc-800 dark:border-zinc-400 dark:bg-zinc-700 dark:text-zinc-100',
  },
  interrupted: {
    glyph: '?',
    className: 'bg-amber-400 text-amber-950 dark:bg-amber-400',
    style: { backgroundImage: 'radial-gradient(rgb(0 0 0 / 0.22) 1px, transparent 1.5px)', backgroundSize: '6px 6px' },
  },
  running: { glyph: '▶', className: 'bg-indigo-600 text-white motion-safe:animate-pulse dark:bg-indigo-400 dark:text-indigo-950' },
  pending: { glyph: '…', className: 'bg-zinc-300 text-zinc-800 dark:bg-zinc-600 dark:text-zinc-100', style: stripes(-45, 'rgb(0 0 0 / 0.15)') },
};
