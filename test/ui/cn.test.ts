import { describe, expect, it } from 'vitest';
import { cn } from '@/components/ui/cn';
import { buttonVariants, textLink } from '@/components/ui/button-variants';

describe('cn', () => {
  it('skips falsy parts and accepts clsx objects and arrays', () => {
    expect(cn('a', false, null, undefined, '', 'b')).toBe('a b');
    expect(cn({ c: true, d: false }, ['e', ['f']])).toBe('c e f');
  });

  it('lets a later class of the same Tailwind group win, keeping the earlier one out of the markup', () => {
    expect(cn('px-4 py-2', 'px-2')).toBe('py-2 px-2');
    expect(cn('text-sm', 'text-lg')).toBe('text-lg');
    expect(cn('bg-indigo-600 dark:bg-indigo-500', 'bg-red-600')).toBe('dark:bg-indigo-500 bg-red-600');
  });

  it('keeps classes of different groups even when their prefixes look alike', () => {
    // text-sm is a font size, text-red-600 a colour: both stay.
    expect(cn('text-sm', 'text-red-600')).toBe('text-sm text-red-600');
    expect(cn('h-8', 'w-8')).toBe('h-8 w-8');
    // A variant-prefixed class does not override the plain one.
    expect(cn('bg-white', 'hover:bg-zinc-50')).toBe('bg-white hover:bg-zinc-50');
  });
});

describe('buttonVariants', () => {
  it('defaults to a primary medium button and lets a caller override one class', () => {
    const primary = buttonVariants();
    expect(primary).toContain('bg-indigo-600');
    expect(primary).toContain('h-10');
    const small = cn(buttonVariants({ variant: 'danger', size: 'sm' }), 'px-4');
    expect(small).toContain('bg-red-600');
    expect(small).toContain('h-8');
    expect(small).toContain('px-4');
    expect(small).not.toContain('px-2.5');
  });

  it('a text link has no box (it flows and wraps with its sentence) but keeps the focus ring and the link colour', () => {
    for (const box of ['inline-flex', 'h-8', 'h-10', 'px-2.5', 'px-4', 'rounded-md']) expect(textLink.split(' ')).not.toContain(box);
    expect(textLink).toContain('focus-visible:outline-indigo-500');
    expect(textLink).toContain('text-indigo-700');
    expect(textLink).toContain('dark:text-indigo-300');
    // A link-looking ButtonLink is the same classes.
    expect(buttonVariants({ variant: 'link', size: 'inline' })).toBe(textLink);
  });
});
