import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDUCED_MOTION_QUERY, prefersReducedMotion, scrollBehavior } from '@/lib/motion';

/** A window whose matchMedia answers `reduce` for the reduced-motion query, and records what it was asked. */
function mediaWindow(reduce: boolean) {
  const asked: string[] = [];
  const matchMedia = (query: string) => {
    asked.push(query);
    return { matches: query === REDUCED_MOTION_QUERY && reduce } as MediaQueryList;
  };
  return { win: { matchMedia }, asked };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('scrolling follows the reduced-motion setting', () => {
  it('is instant when the person asked for reduced motion, smooth otherwise, asking the one media query', () => {
    const reduced = mediaWindow(true);
    expect(scrollBehavior(reduced.win)).toBe('instant');
    expect(prefersReducedMotion(reduced.win)).toBe(true);
    expect(reduced.asked).toEqual(['(prefers-reduced-motion: reduce)', '(prefers-reduced-motion: reduce)']);
    const moving = mediaWindow(false);
    expect(scrollBehavior(moving.win)).toBe('smooth');
    expect(prefersReducedMotion(moving.win)).toBe(false);
  });

  it('reads the page’s window when the scroll starts, so a setting changed meanwhile counts', () => {
    let reduce = false;
    vi.stubGlobal('window', { matchMedia: (query: string) => ({ matches: query === REDUCED_MOTION_QUERY && reduce }) as MediaQueryList });
    expect(scrollBehavior()).toBe('smooth');
    reduce = true;
    expect(scrollBehavior()).toBe('instant');
  });

  it('is smooth where nothing can be asked: no window (the server) or a window without matchMedia', () => {
    expect(typeof window).toBe('undefined');
    expect(scrollBehavior()).toBe('smooth');
    expect(scrollBehavior({} as Pick<Window, 'matchMedia'>)).toBe('smooth');
  });
});

describe('no page scrolls smoothly whatever the setting', () => {
  it('app/ and components/ never hard-code a smooth scroll: they ask scrollBehavior()', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.(tsx?|css)$/.test(entry.name)) {
          fs.readFileSync(file, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (/behavior:\s*['"]smooth['"]|scroll-behavior:\s*smooth|\bscroll-smooth\b/.test(line)) offenders.push(`${path.relative(root, file)}:${i + 1}`);
            });
        }
      }
    };
    walk(path.join(root, 'app'));
    walk(path.join(root, 'components'));
    expect(offenders).toEqual([]);
  });
});
