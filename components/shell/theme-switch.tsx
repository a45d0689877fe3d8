'use client';

import { Radio, RadioGroup } from '@headlessui/react';
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

/** Light / dark / system, as a labelled radio group (arrow keys move between choices). */
export function ThemeSwitch() {
  const { theme, setTheme } = useTheme();
  const hydrated = useHydrated();
  const value = hydrated ? (theme ?? 'system') : null;
  return (
    <RadioGroup
      value={value}
      onChange={(next: string | null) => next && setTheme(next)}
      aria-label="Theme"
      className="inline-flex shrink-0 items-center rounded-md border border-zinc-200 p-0.5 dark:border-zinc-700"
    >
      {THEMES.map(({ value: option, label, Icon }) => (
        <Radio
          key={option}
          value={option}
          aria-label={label}
          title={label}
          className={cn(
            'inline-flex size-7 cursor-pointer items-center justify-center rounded text-zinc-500',
            'hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-zinc-400 dark:hover:text-zinc-100',
            'data-checked:bg-zinc-200 data-checked:text-zinc-900 dark:data-checked:bg-zinc-700 dark:data-checked:text-zinc-50',
          )}
        >
          <Icon />
        </Radio>
      ))}
    </RadioGroup>
  );
}
