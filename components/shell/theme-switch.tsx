'use client';

import { useTheme } from 'next-themes';
import { useSyncExternalStore } from 'react';
import { cn } from '@/components/ui/cn';
import { MonitorIcon, MoonIcon, SunIcon } from './icons';

const THEMES = [
  { value: 'light', label: 'Light', Icon: SunIcon },
  { value: 'dark', label: 'Dark', Icon: MoonIcon },
  { value: 'system', label: 'System', Icon: MonitorIcon },
] as const;

const noopSubscribe = () => () => {};

/** True only after hydration: the stored theme is unknown on the server, so nothing is shown selected there. */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noopSubscribe,
    () => true,
    () => false,
  );
}

/**
 * Light / dark / system, as a labelled group of native radio buttons (one name, so arrow keys move between choices
 * as in any radio group). Each input covers its icon, invisible, so a click or tap lands on the input itself.
 */
export function ThemeSwitch() {
  const { theme, setTheme } = useTheme();
  const hydrated = useHydrated();
  const value = hydrated ? (theme ?? 'system') : null;
  return (
    <div role="radiogroup" aria-label="Theme" className="inline-flex shrink-0 items-center rounded-md border border-zinc-200 p-0.5 dark:border-zinc-700">
      {THEMES.map(({ value: option, label, Icon }) => (
        <label
          key={option}
          title={label}
          className={cn(
            'relative inline-flex size-7 cursor-pointer items-center justify-center rounded text-zinc-600',
            'hover:text-zinc-900 has-focus-visible:outline-2 has-focus-visible:outline-indigo-500 dark:text-zinc-400 dark:hover:text-zinc-100',
            'has-checked:bg-zinc-200 has-checked:text-zinc-900 dark:has-checked:bg-zinc-700 dark:has-checked:text-zinc-50',
          )}
        >
          <input
            type="radio"
            name="theme"
            value={option}
            aria-label={label}
            checked={value === option}
            onChange={() => setTheme(option)}
            className="absolute inset-0 cursor-pointer appearance-none rounded opacity-0"
          />
          <Icon />
        </label>
      ))}
    </div>
  );
}
