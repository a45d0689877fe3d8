'use client';

import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { buttonVariants, type ButtonVariantProps } from './button-variants';
import { cn } from './cn';

export type MenuItem = {
  label: ReactNode;
  onSelect: () => void;
  /** Red text for a destructive choice. */
  danger?: boolean;
};

export type MenuProps = {
  /** The button's content, e.g. "Manage". */
  label: ReactNode;
  items: readonly MenuItem[];
  /** Look of the button that opens the menu. */
  button?: ButtonVariantProps;
  className?: string;
};

/**
 * A small action menu (the WAI-ARIA menu button pattern) without a UI library: the button has aria-haspopup and
 * aria-expanded; open, focus moves to the first item; ArrowUp/ArrowDown (wrapping), Home and End move it; Escape
 * closes and gives focus back to the button; Tab or a click outside closes. Choosing an item closes the menu first,
 * then runs the item, so a dialog it opens gets focus.
 */
export function Menu({ label, items, button, className }: MenuProps) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const wrapperRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemRefs = useRef<Array<HTMLButtonElement | null>>([]);

  useEffect(() => {
    if (!open) return;
    itemRefs.current[0]?.focus();
    const onPointerDown = (event: PointerEvent) => {
      if (!wrapperRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  const close = (returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  };

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const count = items.length;
    const current = itemRefs.current.findIndex((el) => el === document.activeElement);
    const target =
      event.key === 'ArrowDown'
        ? (current + 1) % count
        : event.key === 'ArrowUp'
          ? (current - 1 + count) % count
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? count - 1
              : null;
    if (target !== null) {
      event.preventDefault();
      itemRefs.current[target]?.focus();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    } else if (event.key === 'Tab') {
      close(false);
    }
  };

  return (
    <div ref={wrapperRef} className={cn('relative inline-block', className)}>
      <button
        ref={buttonRef}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
        className={buttonVariants({ variant: 'secondary', size: 'sm', ...button })}
      >
        {label}
      </button>
      {open ? (
        <div
          id={menuId}
          role="menu"
          onKeyDown={onMenuKeyDown}
          className="absolute right-0 z-30 mt-1 w-56 rounded-md border border-zinc-200 bg-white py-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
        >
          {items.map((item, i) => (
            <button
              key={i}
              ref={(el) => {
                itemRefs.current[i] = el;
              }}
              type="button"
              role="menuitem"
              tabIndex={-1}
              onClick={() => {
                close(true);
                item.onSelect();
              }}
              className={cn(
                'block w-full px-3 py-2 text-left text-sm outline-none hover:bg-zinc-100 focus:bg-zinc-100 dark:hover:bg-zinc-800 dark:focus:bg-zinc-800',
                item.danger ? 'text-red-700 dark:text-red-300' : 'text-zinc-800 dark:text-zinc-200',
              )}
            >
              {item.label}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
